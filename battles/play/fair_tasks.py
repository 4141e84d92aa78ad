"""The fair-fight estimates' task (fair.py): one estimate's battles, on the bulk queue,
behind whatever a person waits for (cards/workers.py). Run twice, it counts once."""

import random

from django.db import transaction
from django.tasks import task

from cards import workers

from .models import FairEstimate

SEED_BASE = 31_000  # the estimates' seeds: SEED_BASE + n, the same for every estimate


@task(queue_name=workers.BULK, priority=workers.BULK_PRIORITY)
def estimate_chance(estimate_id: int) -> bool:
    return run_estimate(estimate_id)


def play(estimate: FairEstimate, battles: int | None = None, seed_base: int = SEED_BASE):
    """(wins, losses, draws) of the player over the estimate's battles (or `battles` of
    them, from `seed_base`: the bench checks an estimate against a bigger lab so)."""
    from battles.engine.battle import run_summary
    from battles.engine.model import battle_input
    from battles.engine.policies import GREEDY, policy_version

    snap = estimate.snapshot
    ai = policy_version(estimate.policy, estimate.version)
    # Even battles: the player is side A; odd ones: side B, on the same parties swapped.
    inputs = (battle_input(snap), battle_input({**snap, "sides": snap["sides"][::-1]}))
    wins = losses = draws = 0
    for n in range(estimate.battles if battles is None else battles):
        seat = n % 2
        policies = (GREEDY, ai) if seat == 0 else (ai, GREEDY)
        winner = run_summary(inputs[seat], policies, random.Random(seed_base + n))["winner"]
        if winner is None:
            draws += 1
        elif winner == seat:
            wins += 1
        else:
            losses += 1
    return wins, losses, draws


def run_estimate(estimate_id: int) -> bool:
    """Play one estimate's battles and keep the counts; False if it was done already."""
    estimate = FairEstimate.objects.filter(pk=estimate_id, done=False).first()
    if estimate is None:
        return False
    wins, losses, draws = play(estimate)
    with transaction.atomic():
        counted = FairEstimate.objects.filter(pk=estimate_id, done=False).update(
            wins=wins, losses=losses, draws=draws, done=True
        )
    return bool(counted)
