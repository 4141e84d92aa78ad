"""A stored battle or lab replays with the policy versions that played it, not today's."""

from io import StringIO

import pytest
from django.core.management import call_command

from battles.engine.policies import GREEDY, GREEDY_1
from battles.engine.run import canonical, simulate
from battles.engine.summary import simulate_summary
from battles.lab import services, stats
from battles.lab.models import LabBattle
from battles.models import Battle
from battles.snapshot import demo_snapshot
from cards.demo import seed_demo
from cards.models import Party


@pytest.fixture
def demo(db):
    seed_demo()
    return {p.name: p for p in Party.objects.all()}


def _greedy_1_battle(owner) -> Battle:
    """A battle as the site stored it before greedy version 2: greedy 1's log."""
    snap = demo_snapshot("Sunrise Squad", "Night Shift")
    log = simulate(snap, seed=3, versions=(1, 1))
    return Battle.objects.create(
        owner=owner, name_a="Sunrise Squad", name_b="Night Shift", snapshot=snap, seed=3,
        log=log, frames=[], winner=log["result"]["winner"], rounds=log["result"]["rounds"],
    )  # fmt: skip


def test_a_log_names_its_policy_versions_only_when_one_is_not_the_first():
    snap = demo_snapshot("Cold Front", "Wild Bunch")
    old = simulate(snap, seed=1, versions=(1, 1))
    assert "policy_versions" not in old and old["policies"] == ["greedy", "greedy"]
    new = simulate(snap, seed=1)
    assert new["policy_versions"] == [GREEDY.version, GREEDY.version] == [2, 2]
    mixed = simulate(snap, seed=1, policies=("greedy", "random"))
    assert mixed["policy_versions"] == [2, 2]
    assert list(new)[:4] == ["format", "seed", "policies", "policy_versions"]


def test_a_battle_records_the_versions_its_log_names(alice):
    battle = _greedy_1_battle(alice)
    assert battle.policy_versions == (GREEDY_1.version, GREEDY_1.version) == (1, 1)
    snap = demo_snapshot("Cold Front", "Wild Bunch")
    log = simulate(snap, seed=4, policies=("greedy", "random"))
    other = Battle.objects.create(
        owner=alice, name_a="a", name_b="b", snapshot=snap, seed=4, log=log, frames=[],
        rounds=log["result"]["rounds"], policy_a="greedy", policy_b="random",
    )  # fmt: skip
    other.refresh_from_db()
    assert other.policy_versions == (2, 2)


def test_replay_says_which_policy_version_made_a_battle_and_replays_with_it(alice):
    battle = _greedy_1_battle(alice)
    # Today's greedy plays this seed differently: only version 1 gives the stored log.
    assert canonical(simulate(battle.snapshot, seed=3)["events"]) != canonical(battle.log["events"])
    out = StringIO()
    call_command("replay", str(battle.code), stdout=out)
    said = out.getvalue()
    assert "greedy version 1 (side A) and greedy version 1 (side B)" in said
    assert "Identical" in said


def test_replay_refuses_a_version_it_does_not_know(alice):
    from django.core.management import CommandError

    battle = _greedy_1_battle(alice)
    Battle.objects.filter(pk=battle.pk).update(policy_version_a=99)
    with pytest.raises(CommandError, match="no greedy policy version 99"):
        call_command("replay", str(battle.code), stdout=StringIO())


def test_a_lab_keeps_its_policy_versions_for_its_chunks_and_opened_battles(alice, demo):
    lab = services.lab_create(
        owner=alice, party_a=demo["Sunrise Squad"], party_b=demo["Night Shift"],
        battles=100, seed=7,
    )  # fmt: skip
    assert lab.policy_versions == (2, 2)
    # A lab made before greedy 2: its battles are greedy 1's, however long it waits.
    type(lab).objects.filter(pk=lab.pk).update(policy_version_a=1, policy_version_b=1)
    services.run_inline(lab)
    lab.refresh_from_db()
    matchup = lab.matchups.get()
    wins = sum(
        simulate_summary(
            matchup.snapshot, seed=stats.battle_seed(7, i), versions=(1, 1)
        )["winner"] == 0
        for i in range(100)
    )  # fmt: skip
    assert matchup.tally["wins"][0] == wins
    opened = services.lab_open_battle(lab=lab, matchup=matchup, i=5)
    assert opened.policy_versions == (1, 1)
    again = simulate(matchup.snapshot, seed=stats.battle_seed(7, 5), versions=(1, 1))
    assert canonical(opened.log) == canonical(again)
    assert LabBattle.objects.get(i=5).battle == opened
    # Its "what if" runs the same versions on the same seeds.
    twin = services.lab_what_if(owner=alice, base=lab, kind="remove", slot=4)
    assert twin.policy_versions == (1, 1)


# The versions kept only so that stored battles replay (policies.VERSIONS); today's policies
# stand on worlds.py and greedy.py, never on these (issue 42).
FROZEN = {"greedy1", "lookahead1", "lookahead2", "lookahead3"}


def test_no_current_engine_module_imports_a_frozen_policy_version():
    import ast
    from pathlib import Path

    import battles.engine

    offenders = {}
    root = Path(battles.engine.__file__).parent
    for path in root.rglob("*.py"):
        name = path.stem
        if name in FROZEN or name == "policies":
            continue
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                module = (node.module or "").rsplit(".", 1)[-1]
                found |= {module} & FROZEN
                found |= {a.name for a in node.names} & FROZEN
            elif isinstance(node, ast.Import):
                found |= {a.name.rsplit(".", 1)[-1] for a in node.names} & FROZEN
        if found:
            offenders[str(path.relative_to(root))] = sorted(found)
    assert offenders == {}
