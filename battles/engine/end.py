"""R9.5, the end of a round; then who won (R9, R9.6 at the round limit) and what R10 grants."""

from fractions import Fraction

from .damage import frac
from .field import FIELD, STORED
from .model import LIMIT_DECIDE


def round_end(engine) -> None:
    """R9.5: fill free places from storage (slot order), discard played cards."""
    for side in engine.sides:
        for place, f in enumerate(side.slots):
            if f is not None and f.status == FIELD:
                continue
            stored = side.stored()
            if not stored:
                side.slots[place] = None
                continue
            side.slots[place] = stored[0]
            engine.emit(
                "summon", side=side.index, combatant=stored[0].id, reason="replacement", place=place
            )
            engine.bring_in(side, stored[0])
        side.discard.extend(side.in_play)
        side.in_play = []


def winner(engine) -> int | None | bool:
    """0 or 1 for a winner, None for a draw, False while the battle goes on."""
    lost = [side.lost() for side in engine.sides]
    if lost[0] and lost[1]:
        return None
    if lost[0] or lost[1]:
        return 1 if lost[0] else 0
    return False


def conscious(side) -> list:
    """R9.6 step 1: a side's conscious combatants, its Memeyori on the field or stored with
    HP left, and its Archon when it is on the field."""
    out = [f for f in side.roster if f.hp > 0 and (f.status == FIELD or f.status == STORED)]
    archon = side.archon
    if archon is not None and archon.status == FIELD and archon.hp > 0:
        out.append(archon)
    return out


def limit_decision(engine) -> tuple[int | None, dict]:
    """R9.6: round 30 has ended with both sides standing. The winner (0, 1, or None for a
    draw) and the `limit` event's fields that say why: `step` 1 (more conscious
    combatants), 2 (the larger share of their full HP, compared exactly) or 3 (a draw),
    with each side's count and its HP over its full HP."""
    standing = [conscious(side) for side in engine.sides]
    counts = [len(fighters) for fighters in standing]
    shares = [
        Fraction(sum(f.hp for f in fighters), sum(f.spec.max_hp for f in fighters) or 1)
        for fighters in standing
    ]
    why = {
        "conscious": counts,
        "hp": [sum(f.hp for f in fighters) for fighters in standing],
        "max_hp": [sum(f.spec.max_hp for f in fighters) for fighters in standing],
    }
    if counts[0] != counts[1]:
        return (0 if counts[0] > counts[1] else 1), {"step": 1, **why}
    if shares[0] != shares[1]:
        return (0 if shares[0] > shares[1] else 1), {"step": 2, **why}
    return None, {"step": 3, **why}


def at_limit(engine) -> int | None:
    """The result of a battle that reached the round limit with both sides standing: a draw
    under "a draw at the limit" (every battle recorded before R9.6), else R9.6's decision,
    said by a `limit` event (before `end`)."""
    if engine.limit != LIMIT_DECIDE:
        return None  # R9: a draw at the limit
    winner, why = limit_decision(engine)
    engine.emit("limit", winner=winner, **why)
    return winner


def growth(engine, winner) -> list[dict]:
    """R10: each Memeyori ever on the field gains a Rank (max 6) when the Memeyori the other
    side put on the field averaged at least its Rank. Ruling 11: on both sides, win or lose."""
    if winner is None:
        return []
    fielded = [[f for f in side.roster if f.fielded] for side in engine.sides]
    out = []
    for side in engine.sides:
        other = fielded[1 - side.index]
        total, count = sum(f.spec.rank for f in other), len(other)
        average = None
        for f in fielded[side.index]:
            # average >= rank, in integers.
            if total >= f.spec.rank * count and f.spec.rank < 6:
                if average is None:
                    average = Fraction(total, count)
                out.append(
                    {
                        "combatant": f.id,
                        "rank_before": f.spec.rank,
                        "rank_after": f.spec.rank + 1,
                        "opponents_average_rank": frac(average),
                    }
                )
    return out
