"""Playing for R9.6's round limit: what a policy that knows the limit does near round 30.

Under the rule "decide", a battle still standing when round 30 ends goes to the side with
more conscious combatants, and an Archon on the field counts as one (R9.6 step 1). So near
the limit an Archon is worth summoning whenever its side can pay for it and for its upkeep
to the end (R9.1: 1 Resonance a round start), not only when a long stay is covered, as
greedy asks for earlier (greedy.summon). Under "a draw at the limit" (or a battle from
before R9.6) nothing changes: the policies play as they always did, so every stored battle
replays as it was played.
"""

from .model import ARCHON_SUMMON_COST, LIMIT_DECIDE, MAX_ROUNDS

UPKEEP = 1  # R9.1: an active Archon's cost at each round start
NEAR = 3  # the last rounds in which a summon is weighed for the limit


def rounds_left(view) -> int | None:
    """The rounds after this one before the limit decides, or None when it does not (the
    rule is "draw", or the battle is not near its end)."""
    if view.limit != LIMIT_DECIDE:
        return None
    left = MAX_ROUNDS - view.round
    return left if 0 <= left < NEAR else None


def summon_for_the_limit(view) -> bool:
    """Summon the Archon now: the limit is near, it decides, and this side can pay the
    summon and every upkeep to round 30, so the Archon still stands when it counts."""
    left = rounds_left(view)
    if left is None:
        return False
    return view.side.resonance >= ARCHON_SUMMON_COST + left * UPKEEP
