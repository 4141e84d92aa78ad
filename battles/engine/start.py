"""Setup and R9.1, the start of a round: Resonance or Archon upkeep, the draw, the MP refill."""

from .dice import shuffle
from .field import DISMISSED, FIELD
from .model import FIELD_SIZE


def setup(engine) -> None:
    """R9 setup: the first three Memeyori (slot order) are summoned; draw 2 + Draw."""
    for side in engine.sides:
        for place, fighter in enumerate(side.roster[:FIELD_SIZE]):
            side.slots[place] = fighter
            fighter.status = FIELD
            fighter.fielded = True
            side.pile.extend(fighter.spec.playable_cards())
            engine.emit(
                "summon", side=side.index, combatant=fighter.id, reason="setup", place=place
            )
        shuffle(engine.rng, side.pile)
        engine.draw(side, 2 + side.spec.draw)


def round_start(engine) -> None:
    """R9.1: Resonance or Archon upkeep, the draw from round 2, the MP refill."""
    rnd = engine.round
    events = engine.events
    if events is not None:
        events.append({"round": rnd, "kind": "round_start"})
    for side in engine.sides:
        side.heirs = {}
        archon = side.archon
        if archon is not None and archon.status == FIELD:
            if side.resonance >= 1:
                engine.spend(side, 1, "archon upkeep")
            else:
                # Ruling 2: dismissal replaces this round's passive gain.
                archon.status = DISMISSED
                engine.leave_play(side, archon)
                engine.upheavals += 1
                if events is not None:
                    events.append({"round": rnd, "kind": "dismiss", "side": side.index,
                                   "combatant": archon.id, "reason": "upkeep"})  # fmt: skip
                else:
                    engine.tally.sides[side.index]["archon_dismissals"] += 1
        else:
            summoned = 0
            for f in side.slots:
                if f is not None and f.status == FIELD:
                    summoned += 1
            engine.gain(side, summoned, "summoned memeyori")
    for side in engine.sides:
        if rnd >= 2:
            engine.draw(side, side.spec.draw)
        side.mp = side.spec.mp
        if events is not None:
            events.append({"round": rnd, "kind": "mp", "side": side.index, "total": side.mp})
        for f in side.slots:
            if f is not None:
                f.played_nonquick = 0
        if side.archon is not None:
            side.archon.played_nonquick = 0
