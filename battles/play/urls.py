from django.urls import path

from . import api, fair_views, views

# The HTML pages are views.py's; the JSON protocol is api.py's. /play/new/ and
# /play/join/<token>/ are pages (GET the form) that take the protocol's form posts.
urlpatterns = [
    path("", views.play_list, name="play_list"),
    path("new/", views.play_new, name="play_new"),
    path("fair/", fair_views.play_fair, name="play_fair"),
    path("table/<uuid:table_code>/new/", views.play_table_new, name="play_table_new"),
    path("join/<str:token>/", views.play_join, name="play_join"),
    path("s/<str:token>/", views.play_shared, name="play_shared"),
    path("s/<str:token>/state.json", api.shared_state_json, name="play_shared_state"),
    path("s/<str:token>/follow/", views.play_shared_follow, name="play_shared_follow"),
    # A presentation's poll, by its token (presenting.py); its stream is under /live/.
    path("presented/<str:token>/", views.play_presented, name="play_presented"),
    path("<str:code>/", views.play_game, name="play_game"),
    path("<str:code>/plan/", views.play_plan, name="play_plan_form"),
    path("<str:code>/watch/", views.play_watch, name="play_watch"),
    path("<str:code>/forfeit/", views.play_forfeit, name="play_forfeit"),
    path("<str:code>/timeout/", views.play_timeout, name="play_timeout"),
    path("<str:code>/invite/", views.play_invite, name="play_invite"),
    path("<str:code>/share/", views.play_share, name="play_share"),
    path("<str:code>/present/", views.play_present, name="play_present"),
    path("<str:code>/follow/", views.play_follow, name="play_follow"),
    path("<str:code>/status/", views.play_status, name="play_status"),
    path("<str:code>/state.json", api.state_json, name="play_state"),
    path("<str:code>/plan.json", api.plan_json, name="play_plan"),
]
