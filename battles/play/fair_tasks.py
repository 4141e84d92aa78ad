"""The picker's measurements' task (fair.py): one pairing's greedy battles, on the bulk
queue, behind whatever a person waits for (cards/workers.py), and queueing the requester's
next one (fair.dispatch: fair shares). Run twice, it counts once."""

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
    from battles.engine.policies import GREEDY, policy_version

    ai = policy_version(estimate.policy, estimate.version)
    n = estimate.battles if battles is None else battles
    return tally(estimate.snapshot, GREEDY, ai, n, seed_base)


def tally(snap: dict, mine, theirs, battles: int, seed_base: int = SEED_BASE):
    """(wins, losses, draws) of policy `mine` on the snapshot's first side against
    `theirs` on its second, over `battles` battles on seeds from `seed_base`."""
    from battles.engine.battle import run_summary
    from battles.engine.model import battle_input

    # Even battles: the player is side A; odd ones: side B, on the same parties swapped.
    inputs = (battle_input(snap), battle_input({**snap, "sides": snap["sides"][::-1]}))
    wins = losses = draws = 0
    for n in range(battles):
        seat = n % 2
        policies = (mine, theirs) if seat == 0 else (theirs, mine)
        winner = run_summary(inputs[seat], policies, random.Random(seed_base + n))["winner"]
        if winner is None:
            draws += 1
        elif winner == seat:
            wins += 1
        else:
            losses += 1
    return wins, losses, draws


def run_estimate(estimate_id: int) -> bool:
    """Play one measurement's battles and keep the counts; False if it was done already.
    Either way the requester's next waiting measurement takes its place in the queue."""
    from battles.lab.tasks import lock_person

    from .fair import dispatch

    estimate = FairEstimate.objects.filter(pk=estimate_id).first()
    if estimate is None:
        return False
    counted = 0
    if not estimate.done:
        wins, losses, draws = play(estimate)
        with transaction.atomic():
            counted = FairEstimate.objects.filter(pk=estimate_id, done=False).update(
                wins=wins, losses=losses, draws=draws, done=True, in_queue=False
            )
    if estimate.requested_by_id is not None:
        with transaction.atomic():
            lock_person(estimate.requested_by_id)
            dispatch(estimate.requested_by_id)
    return bool(counted)
