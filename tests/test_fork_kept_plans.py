"""A stored battle whose AI thinks keeps the plans it made (Battle.plans), so that playing
on from one of its rounds replays them with the engine alone: nothing thinks inside the
fork's request (issue 39). One made before they were kept forks from round 1 only."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from battles.engine import worlds
from battles.engine.run import canonical, simulate
from battles.models import Battle
from battles.play import fork
from battles.services import battle_run
from tests.playing import make_side

pytestmark = pytest.mark.django_db


@pytest.fixture
def thinking_battle(alice, types) -> Battle:
    sun = make_side(alice, types, "Sunrise", prefix="Sun", archon=True)
    night = make_side(alice, types, "Night", prefix="Moon")
    return battle_run(
        owner=alice, party_a=sun, party_b=night, seed=7, policy_a="lookahead", policy_b="greedy"
    )


@pytest.fixture
def no_thinking(monkeypatch):
    """Any Thinker decision from here on fails the test: the spy is the real policy's
    first step (each of its decisions reads its knowledge first)."""

    def refuse(self, view, rng):
        raise AssertionError("the Thinker was asked to think")

    monkeypatch.setattr(worlds.Thinker, "known", refuse)


def test_a_thinking_battle_keeps_its_plans_and_its_log_is_the_plain_runs(thinking_battle):
    battle = thinking_battle
    assert battle.rounds >= 3
    again = simulate(battle.snapshot, seed=7, policies=("lookahead", "greedy"))
    assert canonical(battle.log) == canonical(again)
    assert {(p["by"], p["side"]) for p in battle.plans} == {("ai", 0), ("ai", 1)}
    assert {p["round"] for p in battle.plans} == set(range(1, battle.rounds + 1))


def test_a_greedy_battle_keeps_no_plans(alice, types):
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    night = make_side(alice, types, "Night", prefix="Moon")
    assert battle_run(owner=alice, party_a=sun, party_b=night, seed=7).plans == []


def test_forking_a_thinking_battle_at_a_late_round_never_thinks(
    alice, thinking_battle, no_thinking
):
    battle = thinking_battle
    last = battle.rounds
    assert fork.forkable_rounds(battle) == list(range(1, last + 1))
    game = fork.fork_game(user=alice, battle=battle, round_no=last, opponent="hotseat")
    assert (game.fork_round, game.round) == (last, last)


def test_an_older_thinking_battle_without_its_plans_forks_from_round_1_only(
    client, alice, thinking_battle, no_thinking
):
    battle = thinking_battle
    Battle.objects.filter(pk=battle.pk).update(plans=[])  # as one made before issue 39
    battle.refresh_from_db()
    assert fork.forkable_rounds(battle) == [1]
    client.force_login(alice)
    page = client.get(reverse("battle_fork", kwargs={"code": battle.code}) + "?round=3")
    assert "can be played on from round 1 only" in page.content.decode()
    assert '<option value="3"' not in page.content.decode()
    with pytest.raises(ValidationError, match="can be played on from round 1 only"):
        fork.fork_game(user=alice, battle=battle, round_no=3, opponent="hotseat")
    assert fork.fork_game(user=alice, battle=battle, round_no=1, opponent="hotseat").round == 1
