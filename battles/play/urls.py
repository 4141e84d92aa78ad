from django.urls import path

from . import api, fair_views
from .views import planning, starting, updates, watching

# The HTML pages are views/'s (a module per part of the journey); the JSON protocol is
# api.py's. /play/new/ and /play/join/<token>/ are pages (GET the form) that take the
# protocol's form posts.
urlpatterns = [
    path("", starting.play_list, name="play_list"),
    path("new/", starting.play_new, name="play_new"),
    path("starter/", starting.play_starter, name="play_starter"),
    path("fair/", fair_views.play_fair, name="play_fair"),
    path("table/<uuid:table_code>/new/", starting.play_table_new, name="play_table_new"),
    path("join/<str:token>/", starting.play_join, name="play_join"),
    path("s/<str:token>/", watching.play_shared, name="play_shared"),
    path("s/<str:token>/state.json", api.shared_state_json, name="play_shared_state"),
    path("s/<str:token>/follow/", watching.play_shared_follow, name="play_shared_follow"),
    # A presentation's poll, by its token (presenting.py); its stream is under /live/.
    path("presented/<str:token>/", watching.play_presented, name="play_presented"),
    path("<str:code>/", planning.play_game, name="play_game"),
    path("<str:code>/plan/", planning.play_plan, name="play_plan_form"),
    path("<str:code>/plan/check/", planning.play_plan_check, name="play_plan_check"),
    path("<str:code>/stage/", planning.play_stage, name="play_stage"),
    path("<str:code>/watch/", watching.play_watch, name="play_watch"),
    path("<str:code>/forfeit/", planning.play_forfeit, name="play_forfeit"),
    path("<str:code>/cancel/", planning.play_cancel, name="play_cancel"),
    path("<str:code>/timeout/", planning.play_timeout, name="play_timeout"),
    path("<str:code>/invite/", starting.play_invite, name="play_invite"),
    path("<str:code>/challenge/", starting.play_challenge, name="play_challenge"),
    path("<str:code>/share/", watching.play_share, name="play_share"),
    path("<str:code>/present/", watching.play_present, name="play_present"),
    path("<str:code>/follow/", watching.play_follow, name="play_follow"),
    path("<str:code>/status/", updates.play_status, name="play_status"),
    path("<str:code>/state.json", api.state_json, name="play_state"),
    path("<str:code>/plan.json", api.plan_json, name="play_plan"),
    path("<str:code>/stage.json", api.stage_json, name="play_stage_json"),
]
