from django.urls import path

from . import views
from .play.views import forking
from .review import views as review_views

urlpatterns = [
    path("", views.battle_list, name="battle_list"),
    path("public/", views.public_list, name="battle_public"),
    path("new/", views.battle_new, name="battle_new"),
    path("jobs/<uuid:code>/", views.battle_job, name="battle_job"),
    path("protocol/", views.protocol_page, name="battle_protocol"),
    path("<uuid:code>/", views.battle_page, name="battle"),
    path("<uuid:code>/log.json", views.battle_log, name="battle_log"),
    path("<uuid:code>/og.png", views.battle_og, name="battle_og"),
    path("<uuid:code>/share/", views.battle_share, name="battle_share"),
    path("<uuid:code>/growth/", views.battle_growth, name="battle_growth"),
    path("<uuid:code>/present/", views.battle_present, name="battle_present"),
    path("<uuid:code>/follow/", views.battle_follow, name="battle_follow"),
    path("<uuid:code>/review/", review_views.battle_review, name="battle_review"),
    path("<uuid:code>/fork/", forking.battle_fork, name="battle_fork"),
    path("p/<str:token>/", views.battle_presented, name="battle_presented"),
    path("s/<str:token>/", views.shared_page, name="battle_shared"),
    path("s/<str:token>/log.json", views.shared_log, name="battle_shared_log"),
    path("s/<str:token>/og.png", views.shared_og, name="battle_shared_og"),
    path("s/<str:token>/follow/", views.shared_follow, name="battle_shared_follow"),
]
