"""Summary mode: the counts `summary.summarize` reads from a log, kept as the battle runs.

The engine calls these where it would write the matching event, so a summary costs no
event dicts. tests/test_battle_summary.py checks, seed by seed, that the result equals
`summarize` of the full log.
"""

from .summary import card_totals, combatant_totals, side_totals


class Tally:
    def __init__(self, engine):
        self.engine = engine
        self.sides = [side_totals(), side_totals()]
        self.combatants = {fid: combatant_totals() for fid in engine.by_id}
        self.cards: dict[str, dict] = {}
        self.hit_by: dict[str, list[str]] = {}  # who damaged it in the current group
        self.heals: dict[str, list[tuple]] = {}  # (source, card, amount) in the current group

    def planned(self, side) -> None:
        for f in side.field():
            self.combatants[f.id]["rounds_on_field"] += 1
        if side.archon_active():
            self.sides[side.index]["archon_rounds"] += 1

    def play(self, side: int, card: str, tier: int) -> None:
        row = self.cards.get(card)
        if row is None:
            row = self.cards[card] = card_totals()
        row["played"] += 1
        if tier == 2:
            self.sides[side]["tier2_plays"] += 1
        elif tier == 3:
            self.sides[side]["tier3_plays"] += 1

    def attack(self, card: str, landed: bool, critical: bool) -> None:
        row = self.cards[card]
        row["attacks"] += 1
        if landed:
            row["landed"] += 1
            if critical:
                row["criticals"] += 1

    def damage(self, source: str, target: str, card: str, amount: int) -> None:
        self.combatants[source]["damage_dealt"] += amount
        self.combatants[target]["damage_taken"] += amount
        self.cards[card]["damage"] += amount
        sources = self.hit_by.setdefault(target, [])
        if source not in sources:
            sources.append(source)

    def heal(self, source: str, target: str, card: str, amount: int) -> None:
        self.heals.setdefault(target, []).append((source, card, amount))

    def applied(self, target: str, before: int, damage: int, after: int) -> None:
        restored = after - (before - damage)
        for source, card, amount in self.heals.pop(target, ()):
            share = min(amount, max(0, restored))
            restored -= share
            self.combatants[source]["healing_done"] += share
            self.cards[card]["healing"] += share
        if after > 0:
            self.hit_by.pop(target, None)

    def ko(self, target: str) -> None:
        self.combatants[target]["knocked_out"] = True
        for source in self.hit_by.pop(target, ()):
            self.combatants[source]["knockouts"] += 1

    def summary(self, seed, result: dict) -> dict:
        hp_left = []
        for side in self.engine.sides:
            total = sum(f.spec.max_hp for f in side.roster)
            left = sum(f.hp for f in side.roster)  # never below 0; a knocked-out one has 0
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
