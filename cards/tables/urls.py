from django.urls import path

from . import views

urlpatterns = [
    path("", views.table_list, name="table_list"),
    path("new/", views.table_new, name="table_new"),
    path("join/<str:token>/", views.table_join, name="table_join"),
    path("<uuid:code>/", views.table_page, name="table"),
    path("<uuid:code>/invite/", views.table_invite, name="table_invite"),
    path("<uuid:code>/rules/", views.table_rules, name="table_rules"),
    path("<uuid:code>/members/", views.table_member, name="table_member"),
    path("<uuid:code>/leave/", views.table_leave, name="table_leave"),
    path("<uuid:code>/cards.pdf", views.table_print, name="table_print"),
]
