from django.urls import path

from . import views

urlpatterns = [
    path("", views.lab_list, name="lab_list"),
    path("public/", views.lab_public, name="lab_public"),
    path("new/", views.lab_new, name="lab_new"),
    path("about/", views.lab_about, name="lab_about"),
    path("<uuid:code>/", views.lab_page, name="lab"),
    path("<uuid:code>/battle/", views.lab_open, name="lab_open"),
    path("<uuid:code>/share/", views.lab_share, name="lab_share"),
    path("<uuid:code>/resume/", views.lab_resume, name="lab_resume"),
    path("<uuid:code>/what-if/", views.lab_what_if, name="lab_what_if"),
    path("s/<str:token>/", views.lab_shared, name="lab_shared"),
    path("s/<str:token>/battle/", views.lab_shared_open, name="lab_shared_open"),
]
