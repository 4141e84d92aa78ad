"""The GM's command line: `manage.py battle` and `manage.py replay`."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from battles.models import Battle
from cards.demo import seed_demo
from cards.models import Party


def call(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def demo(db):
    seed_demo()
    return {p.name: p for p in Party.objects.all()}


def test_it_lists_one_party_a_line_as_id_and_name(demo):
    lines = call("battle", "--list").splitlines()
    assert lines == [f"{p.pk} {p.name}" for p in sorted(demo.values(), key=lambda p: p.pk)]


def test_json_output_is_the_log_alone_and_the_same_for_the_same_seed(demo):
    a, b = str(demo["Cold Front"].pk), "Night Shift"  # by id and by exact name
    first = call("battle", a, b, "--seed", "9", "--json", "--policy-b", "random")
    log = json.loads(first)
    assert log["format"] == "memeyori-battle-log/2" and log["seed"] == 9
    assert log["policies"] == ["greedy", "random"]
    assert first == call("battle", a, b, "--seed", "9", "--json", "--policy-b", "random")
    assert not Battle.objects.exists()


def test_text_output_reads_as_a_story(demo):
    out = call("battle", "Sunrise Squad", "Wild Bunch", "--seed", "1")
    assert "Round 1 begins." in out and "Result:" in out


def test_it_names_an_unknown_party(demo):
    with pytest.raises(CommandError, match="No party with id or name 'Nobody'"):
        call("battle", "Nobody", "Night Shift")


def test_a_saved_battle_replays_identically(demo):
    out = call("battle", "Sunrise Squad", "Night Shift", "--seed", "3", "--save")
    battle = Battle.objects.get()
    assert str(battle.code) in out
    assert "Identical" in call("replay", str(battle.code))
    assert "Identical" in call("replay", str(battle.pk))


def test_replay_says_when_a_stored_log_differs(demo):
    call("battle", "Sunrise Squad", "Night Shift", "--seed", "3", "--save")
    battle = Battle.objects.get()
    battle.log["events"][5]["round"] = 99
    battle.save(update_fields=["log"])
    with pytest.raises(CommandError, match="does not replay"):
        call("replay", str(battle.code))


def test_replay_uses_the_snapshot_not_the_live_parties(demo):
    call("battle", "Cold Front", "Wild Bunch", "--seed", "4", "--save")
    Party.objects.all().delete()
    assert "Identical" in call("replay", str(Battle.objects.get().code))
