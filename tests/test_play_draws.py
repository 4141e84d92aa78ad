"""One rule for AI and player (issue 31, ruling 8): a side makes its Switch and draws, then
its summon and draws, then chooses its cards, which may include what it drew. A player
makes the Switch and summon first as a step of its own (a stage), in a game with own draws
(the draws made while planning come from each side's own generator for the round)."""

import json

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from battles.engine import plan_check, plan_choices, played
from battles.engine.policies import GREEDY
from battles.engine.run import canonical, input_for
from battles.play import cancel, services, stage
from battles.play.models import Game, PlanStage, PlayedPlan
from battles.snapshot import demo_snapshot
from tests.playing import hand_words, leaks, make_side

# The reproduction: Night Shift (A) vs Wild Bunch (B), seed 471576939; greedy's
# round-1 plan for B switches B1 -> B5 and plays B5.3, which that Switch drew.
REPRO = demo_snapshot("Night Shift", "Wild Bunch")
REPRO_SEED = 471576939
GREEDY_SWITCH = ["B1", "B5"]
# Both sides with a Memeyori in storage, so both can Switch in round 1.
BOTH_STORE = demo_snapshot("Sunrise Squad", "Wild Bunch")
EMPTY = {"switch": None, "summon": False, "cards": []}


def _round_events(log_or_engine_events, round_no, side, kind):
    return [
        e
        for e in log_or_engine_events
        if e["round"] == round_no and e.get("side") == side and e["kind"] == kind
    ]


# -- the engine ------------------------------------------------------------------------------
def test_greedy_still_plays_the_card_its_switch_drew_with_own_draws():
    result = played.play(input_for(REPRO), (None, GREEDY), REPRO_SEED, {(1, 0): EMPTY},
                         own_draws=True)  # fmt: skip
    ai = result.made[1]
    drawn = _round_events(result.engine.events, 1, 1, "draw")
    assert ai["switch"] == GREEDY_SWITCH
    assert drawn[0]["cards"] == ["B5.3"]
    assert "B5.3" in [c for c, _, _ in ai["cards"]]


def test_a_player_who_stages_greedys_switch_can_play_the_card_it_drew():
    data = input_for(REPRO)
    plans = {(1, 0): EMPTY}
    staged = played.staged(data, (None, None), REPRO_SEED, plans, 1, 1,
                           {"switch": GREEDY_SWITCH, "summon": False})  # fmt: skip
    assert staged.drawn == ["B5.3"]
    assert "B5.3" in [c.id for c in staged.view.side.hand]
    plan = {"switch": GREEDY_SWITCH, "summon": False, "cards": [["B5.3", 1, "A2"]]}
    checked = plan_check.check_staged(staged.view, {"switch": GREEDY_SWITCH, "summon": False}, plan)
    assert checked.ok, checked.errors
    assert checked.plan == plan
    # In one go, the card is not in the hand as planning began: refused, in words.
    before = played.play(data, (None, None), REPRO_SEED, plans, own_draws=True).needed.views[1]
    refused = plan_check.check_plan(before, plan)
    assert not refused.ok
    assert any("is not in your hand" in e for e in refused.errors)
    # Recorded, the round resolves: the Switch draws B5.3 again and B5.3 is played.
    plans[1, 1] = checked.plan
    after = played.play(data, (None, None), REPRO_SEED, plans, own_draws=True)
    events = after.engine.events
    assert _round_events(events, 1, 1, "draw")[0]["cards"] == ["B5.3"]
    assert any(e["card"] == "B5.3" for e in _round_events(events, 1, 1, "play"))


@pytest.mark.parametrize("seed", range(8))
def test_what_a_stage_draws_is_what_the_round_draws_whatever_the_other_side_planned(seed):
    """Side B stages its first legal Switch while side A (planning first) also switches:
    with own draws, A's shuffles do not move what B's Switch draws."""
    data = input_for(BOTH_STORE)
    start = played.play(data, (None, None), seed, {}, own_draws=True).needed
    a_switch = plan_choices.switch_options(start.views[0])[0]
    b_switch = plan_choices.switch_options(start.views[1])[0]
    stage_b = {"switch": b_switch, "summon": False}
    staged = played.staged(data, (None, None), seed, {}, 1, 1, stage_b)
    plans = {(1, 0): {**EMPTY, "switch": a_switch}, (1, 1): {**EMPTY, "switch": b_switch}}
    events = played.play(data, (None, None), seed, plans, own_draws=True).engine.events
    assert _round_events(events, 1, 1, "draw")[0]["cards"] == staged.drawn


def test_without_own_draws_the_other_sides_switch_moves_what_a_switch_draws():
    """Why own draws: with the battle's generator, side A's Switch (planned first) shuffles
    first, and side B's Switch then draws another card in most deals."""
    data = input_for(BOTH_STORE)
    moved = 0
    for seed in range(8):
        start = played.play(data, (None, None), seed, {}).needed
        a_switch = plan_choices.switch_options(start.views[0])[0]
        b_plan = {**EMPTY, "switch": plan_choices.switch_options(start.views[1])[0]}
        drawn = []
        for a_plan in (EMPTY, {**EMPTY, "switch": a_switch}):
            events = played.play(data, (None, None), seed, {(1, 0): a_plan, (1, 1): b_plan})
            drawn.append(_round_events(events.engine.events, 1, 1, "draw")[0]["cards"])
        moved += drawn[0] != drawn[1]
    assert moved >= 3


def test_a_played_log_with_own_draws_says_so_and_replays_byte_identically():
    data = input_for(REPRO)
    plans = {}
    while True:
        result = played.play(data, (None, GREEDY), 5, plans, own_draws=True)
        if result.log is not None:
            break
        for side in result.needed.sides:
            plans[result.needed.round, side] = EMPTY
    log = result.log
    assert log["draws"] == "own"
    assert canonical(played.replay(data, log)) == canonical(log)


def test_a_timeout_after_a_stage_replays_from_its_log_with_the_stage_standing():
    data = input_for(REPRO)
    timeout = {"by": "timeout", "policy": "greedy", "version": 2,
               "stage": {"switch": GREEDY_SWITCH, "summon": False}}  # fmt: skip
    plans = {(1, 0): EMPTY, (1, 1): timeout}
    plans |= {(r, s): EMPTY for r in range(2, 31) for s in (0, 1)}
    log = played.play(data, (None, None), 3, plans, own_draws=True).log
    record = next(p for p in log["plans"] if (p["round"], p["side"]) == (1, 1))
    assert record["staged"] is True and record["switch"] == GREEDY_SWITCH
    assert canonical(played.replay(data, log)) == canonical(log)


def test_without_own_draws_a_played_log_is_as_it_always_was():
    data = input_for(REPRO)
    plans = {(r, 0): EMPTY for r in range(1, 31)}
    log = played.play(data, (None, GREEDY), 5, plans).log
    assert "draws" not in log
    assert canonical(played.replay(data, log)) == canonical(log)


# -- the site --------------------------------------------------------------------------------
@pytest.fixture
def hotseat(alice, types):
    sun = make_side(alice, types, "Sunrise", prefix="Sun", size=4, archon=True)
    moon = make_side(alice, types, "Night", prefix="Moon", size=4, archon=True)
    return services.start_game(user=alice, party=sun, opponent="hotseat", party_b=moon, seed=4)


def _stage(game, side, **kw):
    state = services.game_state(game, side)
    switch = kw.get("switch", state["switches"][0])
    return stage.make_stage(game, side, state["round"], switch, kw.get("summon", False))


def test_a_new_game_has_own_draws_and_offers_the_stage(hotseat):
    assert hotseat.own_draws
    state = services.game_state(hotseat, 0)
    assert state["can_stage"] and state["stage"] is None


def test_a_stage_shows_the_drawn_card_and_the_plan_may_play_it(hotseat):
    before = services.game_state(hotseat, 0)
    after = _stage(hotseat, 0)
    out_id, in_id = after["stage"]["switch"]
    (drawn,) = after["stage"]["drawn"]
    assert drawn.startswith(in_id + ".")
    assert drawn in [c["id"] for c in after["hand"]]
    assert drawn not in [c["id"] for c in before["hand"]]
    assert not any(c["id"].startswith(out_id + ".") for c in after["hand"])
    assert after["switches"] == [] and not after["can_stage"]
    assert in_id in [f["id"] for f in after["field"]]
    # What a read shows afterwards is the same.
    assert services.game_state(hotseat, 0) == after
    card = next(c for c in after["hand"] if c["id"] == drawn)
    target = card["targets"][0]["id"]
    plan = {"switch": None, "summon": False, "cards": [[drawn, 1, target]]}
    services.submit_plan(hotseat, 0, after["round"], plan)
    recorded = PlayedPlan.objects.get(game=hotseat, round=after["round"], side=0).plan
    assert recorded == {"switch": [out_id, in_id], "summon": False, "cards": [[drawn, 1, target]]}
    services.submit_plan(hotseat, 1, after["round"], EMPTY)
    log = services.game_log(hotseat)[0]
    assert _round_events(log["events"], 1, 0, "draw")[0]["cards"] == [drawn]
    assert any(e["card"] == drawn for e in _round_events(log["events"], 1, 0, "play"))


def test_the_other_sides_state_is_byte_identical_with_and_without_a_stage(hotseat):
    theirs = json.dumps(services.game_state(hotseat, 1), sort_keys=True)
    watched = json.dumps(services.watch_state(hotseat), sort_keys=True)
    hotseat.refresh_from_db()
    updated = hotseat.updated
    _stage(hotseat, 0)
    assert json.dumps(services.game_state(hotseat, 1), sort_keys=True) == theirs
    assert json.dumps(services.watch_state(hotseat), sort_keys=True) == watched
    hotseat.refresh_from_db()
    assert hotseat.updated == updated  # nothing the other side's poll could notice


def test_the_staged_sides_state_never_holds_the_other_sides_plan(hotseat, client, alice):
    other = services.game_state(hotseat, 1)
    mine = services.game_state(hotseat, 0)
    # B plans first: a Switch and a card of a Memeyori that stays.
    out_id = other["switches"][0][0]
    card = next(c for c in other["hand"] if not c["id"].startswith(out_id + ".")
                and c["mp_cost"] <= other["mp"] and c["category"] != "support")  # fmt: skip
    b_plan = {"switch": other["switches"][0], "summon": False,
              "cards": [[card["id"], 1, card["targets"][0]["id"]]]}  # fmt: skip
    services.submit_plan(hotseat, 1, other["round"], b_plan)
    after = _stage(hotseat, 0)
    # The enemy as it stood before either side planned: B's Switch is not on A's page.
    assert after["enemy_field"] == mine["enemy_field"]
    assert after["enemy_hand_size"] == mine["enemy_hand_size"]
    client.force_login(alice)
    page = client.get(reverse("play_game", kwargs={"code": hotseat.code}), {"side": 0, "ready": 1})
    text = page.content.decode()
    assert "Just drawn" in text
    assert leaks(text, hand_words(other)) == []
    b_in = b_plan["switch"][1]
    b_in_name = next(f["name"] for f in other["stored"] if f["id"] == b_in)
    assert b_in_name not in text


def test_a_stage_cannot_be_made_twice_or_taken_back(hotseat):
    state = _stage(hotseat, 0)
    with pytest.raises(ValidationError, match="cannot be made again"):
        stage.make_stage(hotseat, 0, state["round"], None, True)
    card = state["hand"][0]
    plan = {"switch": None, "summon": False, "cards": [[card["id"], 1, card["targets"][0]["id"]]]}
    services.submit_plan(hotseat, 0, state["round"], plan)
    cancel.cancel_plan(hotseat, 0)
    assert PlanStage.objects.filter(game=hotseat, round=state["round"], side=0).exists()
    again = services.game_state(hotseat, 0)
    assert again["stage"] == state["stage"] and again["hand"] == state["hand"]


def test_a_plan_after_a_stage_cannot_switch_again(hotseat):
    before = services.game_state(hotseat, 0)
    state = _stage(hotseat, 0, switch=before["switches"][0])
    other = next(s for s in before["switches"] if s != before["switches"][0])
    with pytest.raises(services.PlanRefused) as refused:
        services.submit_plan(hotseat, 0, state["round"], {**EMPTY, "switch": other})
    assert "one Switch a round" in refused.value.errors[0]


def test_a_stage_for_a_round_not_being_planned_is_refused(hotseat):
    state = services.game_state(hotseat, 0)
    with pytest.raises(services.WrongRound):
        stage.make_stage(hotseat, 0, state["round"] + 1, state["switches"][0], False)
    services.submit_plan(hotseat, 0, state["round"], EMPTY)
    with pytest.raises(services.WrongRound, match="already planned"):
        stage.make_stage(hotseat, 0, state["round"], state["switches"][0], False)
    assert not PlanStage.objects.exists()


def test_a_stage_the_rules_refuse_says_why(hotseat):
    state = services.game_state(hotseat, 0)
    with pytest.raises(ValidationError, match="Choose a Switch or the summon"):
        stage.make_stage(hotseat, 0, state["round"], None, False)
    with pytest.raises(ValidationError, match="costs 8 Resonance"):
        stage.make_stage(hotseat, 0, state["round"], None, True)
    with pytest.raises(ValidationError, match="already on the field"):
        stage.make_stage(hotseat, 0, state["round"], ["A1", "A2"], False)
    assert not PlanStage.objects.exists()


def test_a_plan_without_a_stage_naming_a_card_its_switch_would_draw_is_refused(hotseat):
    state = services.game_state(hotseat, 0)
    out_id, in_id = state["switches"][0]
    card = f"{in_id}.1"
    target = state["enemy_field"][0]["id"]
    with pytest.raises(services.PlanRefused) as refused:
        services.submit_plan(hotseat, 0, state["round"],
                             {"switch": [out_id, in_id], "summon": False,
                              "cards": [[card, 1, target]]})  # fmt: skip
    assert any("is not in your hand" in e for e in refused.value.errors)
    assert not PlayedPlan.objects.exists()


def test_an_old_game_offers_no_stage_and_replays_as_before(hotseat):
    Game.objects.filter(pk=hotseat.pk).update(own_draws=False)
    hotseat.refresh_from_db()
    state = services.game_state(hotseat, 0)
    assert not state["can_stage"]
    with pytest.raises(ValidationError, match="began before"):
        stage.make_stage(hotseat, 0, state["round"], state["switches"][0], False)
    plans = {(1, 0): {**EMPTY, "switch": state["switches"][0]}, (1, 1): EMPTY}
    for side in (0, 1):
        services.submit_plan(hotseat, side, state["round"], plans[1, side])
    log = services.game_log(hotseat)[0]
    data = input_for(hotseat.snapshot)
    old = played.play(data, (None, None), hotseat.seed, plans)
    assert old.engine.events == log["events"]


@pytest.fixture
def pair_with_archon(alice, types):
    """Two Memeyori a side: +2 Resonance a round, so 8 at the start of round 4 when
    nobody plays a card."""
    sun = make_side(alice, types, "Sunrise", prefix="Sun", size=2, archon=True)
    moon = make_side(alice, types, "Night", prefix="Moon", size=2, archon=True)
    return services.start_game(user=alice, party=sun, opponent="hotseat", party_b=moon, seed=9)


def test_summoning_with_exactly_8_resonance_as_a_stage_lets_the_archon_play_its_card(
    pair_with_archon,
):
    game = pair_with_archon
    for round_no in (1, 2, 3):
        for side in (0, 1):
            services.submit_plan(game, side, round_no, EMPTY)
    state = services.game_state(game, 0)
    assert state["round"] == 4 and state["resonance"] == 8 and state["can_summon"]
    archon = state["summon"]["id"]
    after = stage.make_stage(game, 0, 4, None, True)
    (drawn,) = after["stage"]["drawn"]
    assert drawn.startswith(archon + ".")
    assert after["resonance"] == 0 and archon in [f["id"] for f in after["field"]]
    card = next(c for c in after["hand"] if c["id"] == drawn)
    services.submit_plan(game, 0, 4, {**EMPTY, "cards": [[drawn, 1, card["targets"][0]["id"]]]})
    services.submit_plan(game, 1, 4, EMPTY)
    log = services.game_log(game)[0]
    assert any(e["card"] == drawn for e in _round_events(log["events"], 4, 0, "play"))


def test_a_timeout_keeps_the_stage_and_the_ai_plans_the_cards(hotseat):
    from datetime import timedelta

    from django.utils import timezone

    Game.objects.filter(pk=hotseat.pk).update(time_limit=60)
    hotseat.refresh_from_db()
    made = _stage(hotseat, 0)
    services.submit_plan(hotseat, 1, made["round"], EMPTY)
    Game.objects.filter(pk=hotseat.pk).update(
        round_started_at=timezone.now() - timedelta(seconds=61)
    )
    hotseat.refresh_from_db()
    assert services.expire_time_limit(hotseat)
    row = PlayedPlan.objects.get(game=hotseat, round=1, side=0)
    assert row.by == "timeout"
    assert row.plan["switch"] == made["stage"]["switch"]
    log = services.game_log(hotseat)[0]
    assert _round_events(log["events"], 1, 0, "draw")[0]["cards"] == made["stage"]["drawn"]
    rec = next(p for p in services.game_log(hotseat)[0]["events"] if p["kind"] == "switch")
    assert [rec["out"], rec["in"]] == made["stage"]["switch"]


def test_the_page_makes_the_stage_then_takes_the_drawn_card(hotseat, client, alice):
    client.force_login(alice)
    url = reverse("play_game", kwargs={"code": hotseat.code})
    state = services.game_state(hotseat, 0)
    page = client.get(url, {"side": 0, "ready": 1}).content.decode()
    assert "Switch/summon now" in page
    out_id, in_id = state["switches"][0]
    response = client.post(
        reverse("play_stage", kwargs={"code": hotseat.code}),
        {"round": state["round"], "side": 0, "switch": f"{out_id}:{in_id}", "stage": "1"},
    )
    assert response.status_code == 302
    staged = services.game_state(hotseat, 0)
    (drawn,) = staged["stage"]["drawn"]
    page = client.get(url, {"side": 0, "ready": 1}).content.decode()
    assert "Just drawn" in page and "Made this round" in page
    assert "Switch/summon now" not in page
    card = next(c for c in staged["hand"] if c["id"] == drawn)
    response = client.post(
        reverse("play_plan_form", kwargs={"code": hotseat.code}),
        {"round": staged["round"], "side": 0, "switch": "",
         f"card_{drawn}": f"1:{card['targets'][0]['id']}", f"order_{drawn}": 1},
    )  # fmt: skip
    assert response.status_code == 302
    assert PlayedPlan.objects.get(game=hotseat, side=0).plan["cards"][0][0] == drawn
    # A second stage, by the page: refused with words, nothing changed.
    response = client.post(
        reverse("play_stage", kwargs={"code": hotseat.code}),
        {"round": staged["round"], "side": 1, "summon": "on"},
        follow=True,
    )
    assert "Not made" in response.content.decode()


def test_stage_json_answers_the_state_with_what_was_drawn(hotseat, client, alice):
    client.force_login(alice)
    state = services.game_state(hotseat, 1)
    url = reverse("play_stage_json", kwargs={"code": hotseat.code})
    body = {"round": state["round"], "side": 1, "switch": state["switches"][0], "summon": False}
    answer = client.post(url, json.dumps(body), content_type="application/json")
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert data["stage"]["switch"] == state["switches"][0] and len(data["stage"]["drawn"]) == 1
    again = client.post(url, json.dumps(body), content_type="application/json")
    assert again.status_code == 400 and "cannot be made again" in again.json()["errors"][0]
    wrong = client.post(url, json.dumps({**body, "round": 7}), content_type="application/json")
    assert wrong.status_code == 409
