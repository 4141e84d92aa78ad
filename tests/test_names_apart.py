"""Two Memeyori of one name are told apart everywhere they are named (issue 41.8): the
snapshot numbers them ("Puddlewick #1", "Puddlewick #2", in party order), so the plan's
targets, the viewer and the log's words all say which one."""

import re

import pytest

from battles.play import services
from cards.models import Memeyori
from tests.playing import affordable_plan, make_side

pytestmark = pytest.mark.django_db

BARE = re.compile(r"Puddlewick(?! #[12])")


def namesake_game(alice, types):
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    night = make_side(alice, types, "Night", prefix="Moon")
    Memeyori.objects.filter(name__in=["Moon Mon 1", "Moon Mon 2"]).update(name="Puddlewick")
    return services.start_game(user=alice, party=sun, opponent="ai", party_b=night, seed=5)


def test_the_plan_page_names_each_namesake_target_apart(client, alice, types):
    game = namesake_game(alice, types)
    client.force_login(alice)
    page = client.get(game.get_absolute_url()).content.decode()
    assert "on Puddlewick #1" in page and "on Puddlewick #2" in page
    assert not BARE.search(page)


def test_the_viewer_and_the_log_name_each_namesake_apart(client, alice, types):
    game = namesake_game(alice, types)
    for _ in range(2):
        state = services.game_state(game, 0)
        plan = {"switch": None, "summon": False, "cards": affordable_plan(state)}
        services.submit_plan(game, 0, state["round"], plan)
    log, _ = services.game_log(game)
    words = " ".join(e.get("text", "") for e in log["events"] if isinstance(e, dict))
    names = [c["name"] for side in log["sides"] for c in side["combatants"]]
    assert {"Puddlewick #1", "Puddlewick #2"} <= set(names)
    assert not BARE.search(words)
    client.force_login(alice)
    for round_no in (1, 2):
        page = client.get(f"/play/{game.code}/watch/", {"round": round_no, "step": 99})
        html = page.content.decode()
        assert "Puddlewick #1" in html and "Puddlewick #2" in html
        assert not BARE.search(html)
