"""Issue 39: no request thinks for the AI in a played game. Against the Thinker
(lookahead) the AI's plan for a round is made by a task (battles/play/thinking.py), never by
the POST of a plan, a GET of the page or of state.json; the player plans meanwhile, the
round resolves once both plans are in, and the finished game is byte for byte the game a
replay that thinks inline makes."""

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from battles.engine import played, policies
from battles.engine.field import Policy
from battles.engine.run import canonical, input_for
from battles.models import Battle
from battles.play import clock, fork, services, stage
from battles.play.models import Game, PlanBy, PlayedPlan
from battles.play.record import ai_policies, replay_game
from battles.play.thinking import think_for_game
from tests.play_parties import NIGHT_CARDS, play_party
from tests.playing import affordable_plan, think

pytestmark = pytest.mark.django_db


@pytest.fixture
def parties(alice, bob, types):
    night = play_party(bob, types, "Night Crew", cards=NIGHT_CARDS, visibility="public")
    return play_party(alice, types), night


def _start(alice, parties, seed=12, policy="lookahead"):
    pa, pb = parties
    return services.start_game(
        user=alice, party=pa, opponent="ai", party_b=pb, policy_b=policy, seed=seed
    )


def _thinking_forbidden(monkeypatch):
    """The current lookahead replaced by a policy that fails if it is ever asked to plan:
    whatever runs while it is in place did not think."""

    def refuse(*args):
        raise AssertionError("the Thinker was run")

    version = policies.LOOKAHEAD.version
    blocked = Policy("lookahead", refuse, refuse, refuse, version=version, dice="own", thinks=True)
    monkeypatch.setitem(policies.VERSIONS, ("lookahead", version), blocked)


def _thinking_tasks():
    return DBTaskResult.objects.filter(task_path=think_for_game.module_path)


def _run_thinking_tasks() -> int:
    """What an interactive db_worker does with the thinking tasks queued now (not those
    they queue): claim, run, done. How many ran."""
    rows = list(_thinking_tasks().ready())
    for row in rows:
        row.claim("test-worker")
        row.set_successful(row.task.call(*row.args_kwargs["args"], **row.args_kwargs["kwargs"]))
    return len(rows)


def _ai_planned(game, round_no) -> bool:
    return PlayedPlan.objects.filter(game=game, round=round_no, side=1, by=PlanBy.AI).exists()


def _post_plan(client, game, state):
    body = {"round": state["round"], "switch": None, "summon": False}
    body["cards"] = affordable_plan(state)[:1]
    url = reverse("play_plan", kwargs={"code": game.code})
    return client.post(url, json.dumps(body), content_type="application/json")


def _state_json(client, game):
    response = client.get(reverse("play_state", kwargs={"code": game.code}))
    assert response.status_code == 200
    return response.json()


# ---- (a) a POST never thinks: a task does, and the round resolves once both plans are in


def test_a_plan_posted_against_the_thinker_is_answered_without_thinking_and_a_task_plans(
    client, alice, parties, monkeypatch, queued_tasks, django_capture_on_commit_callbacks
):
    game = _start(alice, parties)
    # The start queued the AI's thinking for round 1, and did not think.
    assert list(_thinking_tasks().values_list("args_kwargs", flat=True)) == [
        {"args": [game.code, 1], "kwargs": {}}
    ]
    assert not PlayedPlan.objects.filter(game=game).exists()
    client.force_login(alice)
    state = _state_json(client, game)
    assert state["status"] == "planning" and state["thinking"] == [1]
    # The player plans while the AI thinks: the POST stores the plan and the round waits,
    # without running the Thinker (which would fail here).
    _thinking_forbidden(monkeypatch)
    answer = _post_plan(client, game, state)
    assert answer.status_code == 200, answer.content[:500]
    after = answer.json()
    assert after["round"] == 1 and after["status"] == "waiting" and after["thinking"] == [1]
    assert not _ai_planned(game, 1)
    assert _thinking_tasks().ready().count() == 1  # still the one task: none piles up
    monkeypatch.undo()
    # The worker makes the AI's plan: the round resolves, round 2's thinking is queued.
    with django_capture_on_commit_callbacks(execute=True):
        assert _run_thinking_tasks() == 1
    game.refresh_from_db()
    assert _ai_planned(game, 1) and game.round == 2
    assert not _ai_planned(game, 2)
    assert _thinking_tasks().ready().count() == 1
    # Round 2 the other way round: the AI plans first, then the POST resolves the round
    # with its recorded plan, thinking nothing itself.
    with django_capture_on_commit_callbacks(execute=True):
        assert _run_thinking_tasks() == 1
    assert _ai_planned(game, 2)
    state = _state_json(client, game)
    assert state["round"] == 2 and state["status"] == "planning" and state["thinking"] == []
    _thinking_forbidden(monkeypatch)
    answer = _post_plan(client, game, state)
    assert answer.status_code == 200, answer.content[:500]
    game.refresh_from_db()
    assert game.round == 3 and answer.json()["round"] == 3
    assert answer.json()["thinking"] == [1] and not _ai_planned(game, 3)


def test_a_second_run_of_the_task_changes_nothing(alice, parties):
    game = _start(alice, parties)
    assert think(game) == 1  # round 1's plan recorded; it waits for the player now
    rows = list(PlayedPlan.objects.filter(game=game).values_list("round", "side", "plan"))
    assert think_for_game.call(game.code, 1) is False
    assert think_for_game.call(game.code, 7) is False  # a round not being planned
    assert list(PlayedPlan.objects.filter(game=game).values_list("round", "side", "plan")) == rows


def test_a_failed_task_is_queued_again_by_the_next_write(alice, parties, monkeypatch, queued_tasks):
    game = _start(alice, parties)
    _thinking_forbidden(monkeypatch)
    with pytest.raises(AssertionError, match="Thinker was run"):
        think_for_game.call(game.code, 1)
    game.refresh_from_db()
    assert game.thinking_round is None  # the failed task let go of its round
    monkeypatch.undo()
    state = services.game_state(game, 0)
    services.submit_plan(game, 0, 1, {"switch": None, "summon": False, "cards": []})
    assert state["thinking"] == [1]
    assert _thinking_tasks().ready().count() == 2  # the start's, and the plan's new one


def test_cheap_ai_levels_still_plan_where_the_replay_reaches_them(alice, parties, queued_tasks):
    for policy in ("greedy", "random", "beginner"):
        game = _start(alice, parties, policy=policy)
        state = services.game_state(game, 0)
        assert state["thinking"] == []
        services.submit_plan(game, 0, 1, {"switch": None, "summon": False, "cards": []})
        game.refresh_from_db()
        assert game.round == 2 and _ai_planned(game, 1)
    assert not _thinking_tasks().exists()


def test_a_fork_against_the_thinker_queues_its_thinking(alice, parties, queued_tasks):
    origin = _start(alice, parties, policy="greedy")
    services.forfeit(origin, 0)
    battle = Battle.objects.get(game=origin)
    game = fork.fork_game(
        user=alice, battle=battle, round_no=1, opponent="ai", side=1, policy="lookahead"
    )
    assert replay_game(game).thinking == (0,)  # the AI plays side A here
    assert list(_thinking_tasks().values_list("args_kwargs", flat=True)) == [
        {"args": [game.code, 1], "kwargs": {}}
    ]
    think_for_game.call(game.code, 1)
    assert PlayedPlan.objects.filter(game=game, round=1, side=0, by=PlanBy.AI).exists()


def test_a_timed_round_times_out_the_player_alone_and_the_task_starts_the_next_clock(
    alice, parties, queued_tasks, django_capture_on_commit_callbacks
):
    pa, pb = parties
    game = services.start_game(
        user=alice, party=pa, opponent="ai", party_b=pb, policy_b="lookahead", seed=5,
        time_limit=60,
    )  # fmt: skip
    late = timezone.now() - timedelta(seconds=61)
    Game.objects.filter(pk=game.pk).update(round_started_at=late)
    game.refresh_from_db()
    # The player's time ran out; the AI has no clock: the round waits for its thinking.
    state = services.game_state(game, 0)
    assert state["round"] == 1 and state["status"] == "waiting" and state["thinking"] == [1]
    assert services.expire_time_limit(game)
    assert PlayedPlan.objects.get(game=game, round=1, side=0).by == PlanBy.TIMEOUT
    assert not services.expire_time_limit(game)  # nothing more runs out meanwhile
    with django_capture_on_commit_callbacks(execute=True):
        assert think_for_game.call(game.code, 1)
    game.refresh_from_db()
    assert game.round == 2 and _ai_planned(game, 1)
    due = clock.deadline(game)
    deadlines = DBTaskResult.objects.filter(task_path=clock.expire_round.module_path)
    assert [r.args_kwargs["args"][1] for r in deadlines] == [due.isoformat()]


def test_a_stage_made_while_the_ai_thinks_draws_without_thinking(alice, parties, monkeypatch):
    game = _start(alice, parties, seed=8)
    _thinking_forbidden(monkeypatch)
    state = services.game_state(game, 0)
    assert state["switches"] and state["thinking"] == [1]
    after = stage.make_stage(game, 0, 1, state["switches"][0], False)
    assert after["stage"]["switch"] == state["switches"][0] and after["thinking"] == [1]
    plan = {"switch": state["switches"][0], "summon": False, "cards": affordable_plan(after)[:1]}
    waiting = services.submit_plan(game, 0, 1, plan)
    assert waiting["status"] == "waiting" and waiting["thinking"] == [1]
    monkeypatch.undo()
    assert think(game) == 2  # round 1's plan (the round resolves), then round 2's
    game.refresh_from_db()
    assert game.round == 2 and _ai_planned(game, 1) and _ai_planned(game, 2)


# ---- (b) hidden: the player never sees the AI's plan, pending or recorded


def test_the_players_state_never_shows_the_ais_plan_for_the_round_being_planned(
    client, alice, parties
):
    game = _start(alice, parties, seed=4)
    client.force_login(alice)
    page_url = game.get_absolute_url()
    for _ in range(3):
        pending_state = _state_json(client, game)
        pending_page = client.get(page_url).content.decode()
        assert pending_state["thinking"] == [1] and "is thinking about round" in pending_page
        think(game)
        round_no = pending_state["round"]
        plan = PlayedPlan.objects.get(game=game, round=round_no, side=1).plan
        state = _state_json(client, game)
        page = client.get(page_url).content.decode()
        # The AI's recorded plan changes nothing the player sees but that it is made.
        assert {**state, "thinking": [1]} == pending_state and state["thinking"] == []
        assert state["plan"] is None
        secret = {card for card, _tier, _target in plan["cards"]}
        for text in (json.dumps(state), json.dumps(pending_state), page, pending_page):
            assert not [card for card in secret if card in text]
        answer = _post_plan(client, game, state)
        assert answer.status_code == 200
        assert answer.json()["round"] == round_no + 1


# ---- (c) the same game, whether the AI thought in a task or inline


def test_a_game_played_with_the_thinking_tasks_replays_byte_for_byte_as_one_played_inline(
    alice, parties
):
    game = _start(alice, parties, seed=3)
    for n in range(5):
        if n % 2:
            think(game)  # the AI plans before the player this round...
        state = services.game_state(game, 0)
        cards = affordable_plan(state)
        switch = state["switches"][0] if n == 2 and state["switches"] else None
        plan = {"switch": switch, "summon": False, "cards": [] if switch else cards[:2]}
        services.submit_plan(game, 0, state["round"], plan)
        think(game)  # ...or after, its plan made from the record as it stands
    services.forfeit(game, 0)
    battle = Battle.objects.get(game=game)
    # The same seed and the player's plans, with the AI thinking where the replay meets it.
    players = {
        (r, s): p
        for r, s, p in PlayedPlan.objects.filter(game=game, by=PlanBy.PLAYER).values_list(
            "round", "side", "plan"
        )
    }
    inline = played.play(
        input_for(game.snapshot),
        ai_policies(game),
        game.seed,
        players,
        forfeit=(game.forfeit_round, game.forfeit_side),
        own_draws=game.own_draws,
    )
    assert canonical(inline.log) == canonical(battle.log)
    assert canonical(played.replay(input_for(game.snapshot), battle.log)) == canonical(battle.log)


# ---- (d) a GET during a pending plan answers, says so, and does not think


def test_reads_while_the_ai_thinks_answer_without_thinking(
    client, alice, parties, monkeypatch, queued_tasks
):
    game = _start(alice, parties)
    client.force_login(alice)
    _thinking_forbidden(monkeypatch)
    state = _state_json(client, game)
    assert state["thinking"] == [1] and state["status"] == "planning"
    page = client.get(game.get_absolute_url())
    assert page.status_code == 200
    text = page.content.decode()
    assert "The AI (Thinker) is thinking about round 1" in text
    # No worker has beaten in the tests' database: the page says so, and how to start one.
    assert "No task worker is running" in text and "make run" in text
    watch = client.get(reverse("play_watch", kwargs={"code": game.code}))
    assert watch.status_code == 200
    poll = services.watch_state(game)
    assert poll["thinking"] == [1]
    assert not PlayedPlan.objects.filter(game=game).exists()
    assert Game.objects.get(pk=game.pk).round == 1
