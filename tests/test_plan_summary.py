"""The plan page's summary counts only what the rules accept (issue 41.9): a card refused
for its MP is listed apart, "not counted", never in the plan beside "MP 1 of 3 left" as if
it were paid for."""

import re

import pytest
from django.urls import reverse

from battles.play import services
from tests.playing import form_fields, make_side

pytestmark = pytest.mark.django_db


def test_a_card_the_rules_refuse_for_mp_is_not_counted_in_the_summary(client, alice, types):
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    night = make_side(alice, types, "Night", prefix="Moon")
    game = services.start_game(user=alice, party=sun, opponent="ai", party_b=night, seed=5)
    state = services.game_state(game, 0)
    # Every card in hand on its first target: more than the round's MP pays for.
    cards = [[c["id"], 1, c["targets"][0]["id"]] for c in state["hand"] if c["targets"]]
    checked = services.checked_plan(game, 0, {"switch": None, "summon": False, "cards": cards})
    mp_refused = {
        card_id for card_id, why in checked.by_card.items() if any("MP" in w for w in why)
    }
    assert mp_refused and len(mp_refused) < len(cards)
    names = {c["id"]: c["name"] for c in state["hand"]}
    client.force_login(alice)
    check_url = reverse("play_plan_check", kwargs={"code": game.code})
    panel = client.post(
        check_url, form_fields(state, cards), headers={"HX-Request": "true"}
    ).content.decode()
    counted = re.search(r'<ol class="plan-rows">(.*?)</ol>', panel, re.S).group(1)
    apart = re.search(r'<ul class="plan-refused">(.*?)</ul>', panel, re.S).group(1)
    assert f"<strong data-mp-left>{checked.mp_left}</strong>" in panel
    for card_id in mp_refused:
        assert names[card_id] not in counted
        assert names[card_id] in apart
    spent = sum(int(n) for n in re.findall(r": (\d+) MP", counted))
    assert spent + checked.mp_left == state["mp"]  # the summary adds up to the totals
    assert "Not counted (the rules refuse" in panel
