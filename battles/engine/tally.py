"""Summary mode: the counts `summary.summarize` reads from a log, kept as the battle runs.

The engine counts where it would write the matching event (a card resolving here, a group
settling in `settle.apply_group`), so a summary costs no event dicts.
tests/test_battle_summary.py checks, seed by seed, that the result equals `summarize` of
the full log. The rows' shapes live here, and `summary` builds its own from them, so the
engine never imports the module that reads logs.
"""

from .field import FIELD


def side_totals() -> dict:
    return {
        "resonance_gained": 0,
        "resonance_spent": 0,
        "archon_summons": 0,
        "archon_dismissals": 0,
        "archon_rounds": 0,
        "tier2_plays": 0,
        "tier3_plays": 0,
    }


def combatant_totals() -> dict:
    return {
        "damage_dealt": 0,
        "damage_taken": 0,
        "healing_done": 0,
        "knockouts": 0,
        "knocked_out": False,
        "rounds_on_field": 0,
    }


def card_totals() -> dict:
    return {"played": 0, "attacks": 0, "landed": 0, "criticals": 0, "damage": 0, "healing": 0}


class Tally:
    def __init__(self, engine):
        self.engine = engine
        self.sides = [side_totals(), side_totals()]
        self.combatants = {fid: combatant_totals() for fid in engine.by_id}
        self.cards: dict[str, dict] = {}

    def planned(self, side) -> None:
        combatants = self.combatants
        for f in side.slots:
            if f is not None and f.status == FIELD:
                combatants[f.id]["rounds_on_field"] += 1
        archon = side.archon
        if archon is not None and archon.status == FIELD:
            combatants[archon.id]["rounds_on_field"] += 1
            self.sides[side.index]["archon_rounds"] += 1

    def card(self, side: int, card: str, tier: int, attack: bool, landed, critical, target) -> None:
        """A card resolved (`play`) on `target`, with its `attack` when it is one."""
        row = self.cards.get(card)
        if row is None:
            row = self.cards[card] = card_totals()
        row["played"] += 1
        if tier != 1:
            self.sides[side]["tier2_plays" if tier == 2 else "tier3_plays"] += 1
        if attack:
            row["attacks"] += 1
            if landed:
                row["landed"] += 1
                if critical:
                    row["criticals"] += 1

    def summary(self, seed, result: dict) -> dict:
        hp_left = []
        for side in self.engine.sides:
            total = sum([f.spec.max_hp for f in side.roster])
            left = sum([f.hp for f in side.roster])  # never below 0; a knocked-out one has 0
            hp_left.append(round(left / total, 6) if total else 0.0)
        return {
            "seed": seed,
            "winner": result["winner"],
            "rounds": result["rounds"],
            "hp_left": hp_left,
            "sides": self.sides,
            "combatants": self.combatants,
            "cards": self.cards,
        }
