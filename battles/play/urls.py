from django.urls import path

from . import api

# The game's own page (/play/<code>/, name "play_game") and the other HTML pages are
# playweb's; the JSON protocol and the two form posts are api.py's.
urlpatterns = [
    path("new/", api.new_game, name="play_new"),
    path("join/<str:token>/", api.join, name="play_join"),
    path("s/<str:token>/state.json", api.shared_state_json, name="play_shared_state"),
    path("<str:code>/", api.game_page_placeholder, name="play_game"),
    path("<str:code>/state.json", api.state_json, name="play_state"),
    path("<str:code>/plan.json", api.plan_json, name="play_plan"),
]
