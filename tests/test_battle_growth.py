"""R10 cannot be farmed: a party against itself, or two parties sharing a Memeyori, never
counts for growth, on the site and on the command line. And the CLI's batch output."""

import json
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from battles.engine.model import LIMIT_DECIDE
from battles.engine.run import log_json, simulate
from battles.models import Battle
from battles.services import battle_run
from battles.snapshot import battle_snapshot
from cards.models import Memeyori
from cards.services import party_set_memeyori
from cards.tables.services import table_create
from tests.conftest import make_party
from tests.test_battle_pages import make_team


def call(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def ranks():
    return sorted(Memeyori.objects.values_list("pk", "rank"))


def form(a, b, **extra):
    return {"party_a": a.code, "party_b": b.code, "seed": 1, "policy_a": "greedy",
            "policy_b": "greedy", "visibility": "private", "counts_for_growth": "on",
            **extra}  # fmt: skip


@pytest.fixture
def table(alice):
    """Growth is the GM's call at a table (issue 12): alice's table of one."""
    return table_create(gm=alice, name="Alone")


@pytest.fixture
def shared(alice, types):
    """Two of alice's parties with one Memeyori in both."""
    first = make_team(alice, types, "First")
    second = make_team(alice, types, "Second")
    both = first.slots.order_by("position").first().memeyori
    party_set_memeyori(
        party=second, memeyori=[both, *[s.memeyori for s in second.slots.order_by("position")]]
    )
    return first, second, both


def test_it_refuses_growth_for_a_party_against_itself(alice, types, table):
    party = make_team(alice, types, "Mirror")
    before = ranks()
    for seed in range(5):
        with pytest.raises(ValidationError, match="A party against itself never counts"):
            battle_run(
                owner=alice, party_a=party, party_b=party, seed=seed, counts_for_growth=True,
                table=table,
            )  # fmt: skip
    assert not Battle.objects.exists() and ranks() == before
    # Without growth, a party may still spar with itself.
    assert battle_run(owner=alice, party_a=party, party_b=party, seed=1).counts_for_growth is False


def test_it_refuses_growth_for_two_parties_sharing_a_memeyori(alice, shared, table):
    first, second, both = shared
    with pytest.raises(ValidationError, match=f"share {both.name}"):
        battle_run(
            owner=alice, party_a=first, party_b=second, seed=1, counts_for_growth=True, table=table
        )
    assert not Battle.objects.exists()


def test_the_form_says_why_next_to_the_growth_box_and_changes_nothing(client, alice, shared, table):
    first, second, both = shared
    client.force_login(alice)
    before = ranks()
    for a, b, said in ((first, first, "A party against itself"), (first, second, both.name)):
        response = client.post("/battles/new/", form(a, b, table=table.code))
        assert response.status_code == 400
        errors = response.context["form"].errors
        assert list(errors) == ["counts_for_growth"] and said in errors["counts_for_growth"][0]
        assert said in response.content.decode()
    assert not Battle.objects.exists() and ranks() == before


def test_two_separate_parties_still_count_for_growth(client, alice, bob, types, table):
    mine = make_team(alice, types, "Mine")
    theirs = make_team(bob, types, "Theirs", visibility="public")
    client.force_login(alice)
    response = client.post("/battles/new/", form(mine, theirs, table=table.code))
    assert response.status_code == 302
    assert Battle.objects.get().counts_for_growth is True


def test_the_cli_refuses_growth_for_a_party_against_itself(alice, shared, table):
    first, second, _ = shared
    at = ("--table", str(table.code))
    for b in (first, second):
        with pytest.raises(CommandError, match="never counts"):
            call("battle", str(first.pk), str(b.pk), "--seed", "1", "--save", "--growth", *at)
    with pytest.raises(CommandError, match="outside a table no battle counts"):
        call("battle", str(first.pk), "Second", "--seed", "1", "--save", "--growth")
    with pytest.raises(CommandError, match="--growth needs --save"):
        call("battle", str(first.pk), "Second", "--seed", "1", "--growth")
    assert not Battle.objects.exists()


def test_the_cli_saves_a_battle_that_counts_for_growth(alice, bob, types, table):
    mine = make_team(alice, types, "Mine")
    theirs = make_team(bob, types, "Theirs", visibility="public")
    out = call(
        "battle", "Mine", "Theirs", "--seed", "7", "--save", "--growth", "--table", str(table.code)
    )
    battle = Battle.objects.get()
    assert battle.counts_for_growth and battle.table == table and str(battle.code) in out
    assert battle.party_a == mine and battle.party_b == theirs


def test_the_cli_writes_k_logs_one_a_line_for_seeds_n_onwards(alice, types):
    a, b = make_team(alice, types, "Left"), make_team(alice, types, "Right")
    lines = call("battle", "Left", "Right", "--seed", "40", "--repeat", "3", "--jsonl")
    logs = [json.loads(line) for line in lines.splitlines()]
    assert [log["seed"] for log in logs] == [40, 41, 42]
    snap = battle_snapshot(a, b, limit=LIMIT_DECIDE)  # the command's rule by default (R9.6)
    assert lines.splitlines() == [log_json(simulate(snap, seed=n)) for n in (40, 41, 42)]
    with pytest.raises(CommandError, match="--repeat needs --jsonl"):
        call("battle", "Left", "Right", "--seed", "40", "--repeat", "3")


def test_a_party_with_no_memeyori_shares_nothing(alice, types):
    empty = make_party(alice, name="Empty")
    full = make_team(alice, types, "Full")
    from battles.services import growth_refusal

    assert growth_refusal(empty, full) is None


def test_the_viewer_says_the_opponents_average_rank_as_a_number_not_a_fraction(alice, bob, types):
    """The log keeps the exact "11/4"; a reader is told 2.75 (issue 31.5)."""
    from battles import viewer

    battle = battle_run(
        owner=alice, party_a=make_team(alice, types, "A"), party_b=make_team(bob, types, "B"),
        seed=3,
    )  # fmt: skip
    log, frames = battle.log, battle.frames
    someone = log["sides"][0]["combatants"][0]["id"]
    log["result"]["growth"] = [
        {"combatant": someone, "rank_before": 1, "rank_after": 2, "opponents_average_rank": "11/4"}
    ]
    last = len(frames) - 1
    view = viewer.build(log, frames, {}, last, viewer.round_length(log, frames, last))
    assert view["growth"] and "opponents averaged Rank 2.75)" in view["growth"][0]
    assert viewer.average_rank("3/1") == "3" and viewer.average_rank("7/3") == "2.33"
