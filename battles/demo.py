"""Demo battles for a fresh install, so the public battles page and the viewer have
something to show: one close battle and one decisive one, public, owned by the demo user.

Which seeds make a close battle depends on the engine, so they are searched for, not
hard-coded: a few seeds per pair of demo parties, scored by how much the winner lost.
"""

from itertools import combinations

from cards.models import Party

from .engine.run import simulate
from .models import Battle, BattleVisibility
from .services import battle_run
from .snapshot import battle_snapshot

SEEDS = range(1, 5)


def _closeness(log) -> tuple[int, int]:
    """(the winner's knocked-out combatants, rounds): higher is closer."""
    winner = log["result"]["winner"]
    if winner is None:
        return (-1, 0)
    prefix = "AB"[winner]
    kos = sum(
        1
        for e in log["events"]
        if e["kind"] == "ko" and str(e.get("combatant", "")).startswith(prefix)
    )
    return (kos, log["result"]["rounds"])


def seed_demo_battles(user) -> int:
    """Two finished public battles between the demo parties (idempotent): returns how many
    were made."""
    if Battle.objects.filter(owner=user, visibility=BattleVisibility.PUBLIC).count() >= 2:
        return 0
    parties = list(Party.objects.filter(owner=user).order_by("name"))
    if len(parties) < 2:
        return 0
    tried = []
    for a, b in combinations(parties, 2):
        snap = battle_snapshot(a, b)
        for seed in SEEDS:
            log = simulate(snap, seed=seed, policies=("greedy", "greedy"))
            tried.append((_closeness(log), a, b, seed))
    tried.sort(key=lambda t: t[0])
    closest, decisive = tried[-1], next(t for t in tried if t[0][0] >= 0)
    made = 0
    for _score, a, b, seed in (closest, decisive):
        battle_run(owner=user, party_a=a, party_b=b, seed=seed, visibility="public")
        made += 1
    return made
