"""R9.5, the end of a round; then who won (R9) and what R10 grants."""

from fractions import Fraction

from .damage import frac
from .field import FIELD


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
