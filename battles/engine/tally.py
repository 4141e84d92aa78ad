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

    def planned(self, side) -> None:
        for f in side.field():
            self.combatants[f.id]["rounds_on_field"] += 1
        if side.archon_active():
            self.sides[side.index]["archon_rounds"] += 1

    def card(self, side: int, card: str, tier: int, attack: bool, landed, critical) -> None:
        """A card resolved (`play`), with its `attack` when it is one."""
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

    def group(self, dealt: list[tuple], applied: list[tuple], knocked_out: list[str]) -> None:
        """A group settled: its blows and heals (source, target, card, amount, heal?) in
        order, each touched combatant's (id, hp_before, damage, hp_after), its knock-outs."""
        combatants, cards = self.combatants, self.cards
        hit_by: dict[str, list[str]] = {}
        heals: dict[str, list[tuple]] = {}
        for source, target, card, amount, heal in dealt:
            if heal:
                heals.setdefault(target, []).append((source, card, amount))
                continue
            combatants[source]["damage_dealt"] += amount
            combatants[target]["damage_taken"] += amount
            cards[card]["damage"] += amount
            sources = hit_by.setdefault(target, [])
            if source not in sources:
                sources.append(source)
        for target, before, damage, after in applied:
            if target in heals:
                restored = after - (before - damage)
                for source, card, amount in heals[target]:
                    share = min(amount, max(0, restored))
                    restored -= share
                    combatants[source]["healing_done"] += share
                    cards[card]["healing"] += share
        for target in knocked_out:
            combatants[target]["knocked_out"] = True
            for source in hit_by.get(target, ()):
                combatants[source]["knockouts"] += 1

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
