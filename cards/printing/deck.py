"""What goes on the cards: faces (Mastercard, move card, back) built from the models."""

from dataclasses import dataclass, field
from types import SimpleNamespace

from cards import stats
from cards.media import print_asset_url
from cards.models import Character, Party

from . import fit

# Short labels for the derived stats (R3) where a poker card has no room for the long ones.
DERIVED_SHORT = {
    "hp": "HP",
    "defense": "DEF",
    "resistance": "RES",
    "support_power": "SUP",
    "evasion": "EVA",
    "initiative": "INIT",
    "crit_rate": "CRIT",
    "physical_damage": "P.DMG",
    "magic_damage": "M.DMG",
    "physical_accuracy": "P.ACC",
    "magic_accuracy": "M.ACC",
}


@dataclass
class Face:
    kind: str  # "master", "move" or "back"
    character: Character | None = None
    card: object = None
    cards: list = field(default_factory=list)
    zone: int = 0
    step: int = 0
    lines: list[int] = field(default_factory=list)  # zone ids of its one-line zones
    type_slug: str = "back"

    @property
    def title(self) -> str:
        if self.kind == "master":
            return f"{self.character.name} (Mastercard)"
        if self.kind == "move":
            return f"{self.card.name} ({self.character.name}'s card)"
        return "card back"

    @property
    def name_class(self) -> str:
        name = self.character.name if self.kind == "master" else self.card.name
        long_at, longer_at = (20, 32) if self.kind == "master" else (18, 30)
        if len(name) > longer_at:
            return " longer"
        return " long" if len(name) > long_at else ""

    @property
    def band_class(self) -> str:
        """Smaller type in the Type band when its text is long (see card.css)."""
        if self.kind == "master":
            length = len(self.character.type.name) + 10
        else:
            card = self.card
            length = len(card.type.name) + len(card.get_category_display()) + 6 * card.quick + 5
        if length > 40:
            return " longer"
        return " long" if length > 30 else ""

    @property
    def portrait_url(self) -> str:
        return print_asset_url(self.character.portrait_print.name)

    @property
    def attributes(self) -> list[dict]:
        c = self.character
        rank = c.rank_for_stats
        rows = []
        for name in stats.ATTRIBUTES:
            value = stats.effective(getattr(c, name), rank)  # R2: Rank 6 shows +1
            rows.append(
                {
                    "abbr": stats.ATTRIBUTE_ABBREVIATIONS[name],
                    "value": value,
                    "scale": stats.scale_label(value),  # R1
                }
            )
        return rows

    @property
    def rank_note(self) -> str:
        """R2: the attributes printed already carry the Rank 6 +1; say so, as the
        character's page does, so nobody adds it again at the table."""
        c = self.character
        if self.kind != "master" or c.rank_for_stats != stats.RANK_MAX:
            return ""
        capped = any(getattr(c, name) >= stats.ATTRIBUTE_MAX for name in stats.ATTRIBUTES)
        below = f" below {stats.ATTRIBUTE_MAX}" if capped else ""
        return f"Rank {stats.RANK_MAX}: +1 to every attribute{below} (included)"

    @property
    def derived(self) -> list[dict]:
        return [
            {"name": e.name, "short": DERIVED_SHORT[e.name], "value": e.value}
            for e in self.character.explained()  # R3, from stats.explain
        ]

    @property
    def at_the_table(self) -> str:
        """A move card's numbers for its own Memeyori against the human-average reference
        defender (every attribute 2, R1; neutral Type): the dice it rolls, its chance to
        land (R4) and its expected damage (R5) or heal, at each Tier it has."""
        from cards.views.live import attack_rows, card_rows

        card, c = self.card, self.character
        derived = c.derived
        powers = [("", card.power)]
        powers += [
            (f"T{n} ", p)
            for n, p in ((2, card.tier2_power), (3, card.tier3_power))
            if p is not None
        ]
        rows = [
            card_rows(
                cards=[SimpleNamespace(**{**vars_of(card), "power": power})],
                derived=derived,
                user_type=c.type,
                rank=None,
                reference=REFERENCE,
                chart={},
            )[0]
            for _, power in powers
        ]
        if card.category == "support":
            heals = ", ".join(
                f"{label}{row.heal}" for (label, _), row in zip(powers, rows, strict=True)
            )
            return f"Heals {heals} HP (Power + Support Power {derived.support_power})"
        physical = card.category == "physical"
        attack = attack_rows(derived, REFERENCE["vs_evasion"])[0 if physical else 1]
        expected = ", ".join(
            f"{label}{row.expected.text}" for (label, _), row in zip(powers, rows, strict=True)
        )
        guard = "DEF" if physical else "RES"
        return (
            f"{attack.accuracy} dice · lands {attack.land.text} · "
            f"expected {expected} damage vs EVA 2, {guard} 2"
        )

    def paragraphs(self) -> tuple[str, ...]:
        """The zone's text, roughly as it wraps, for fit.estimate_step."""
        if self.kind == "master":
            # As _mastercard.html writes each card's row.
            rows = [
                f"* {c.name} · {c.category} · {c.mp_cost} MP · Power {c.power}"
                + (f" (T2 {c.tier2_power}, T3 {c.tier3_power})" if c.tier2_power else "")
                + f" · Rank {c.unlock_rank}{' · Quick' if c.quick else ''}"
                for c in self.cards
            ]
            if self.rank_note:
                rows.insert(0, self.rank_note)
            if self.character.flavour:
                rows += self.character.flavour.splitlines()
            return tuple(rows)
        card = self.card
        rows = ["8 dice · lands 99.9% · expected 99.99, T2 99.99 damage vs EVA 2, DEF 2"]
        rows += (card.text or "x").splitlines()
        for power, text in (
            (card.tier2_power, card.tier2_text),
            (card.tier3_power, card.tier3_text),
        ):
            if power is not None:
                rows += ["Tier 2 (4 Resonance) · Power 99", *text.splitlines()]
        return tuple(rows)


# The builder's default reference defender (README, "Rulings beyond RULES.md").
REFERENCE = {"vs_evasion": 2, "vs_defense": 2, "vs_resistance": 2, "vs_type": None}


def vars_of(card) -> dict:
    """The fields card_rows reads, from a Card row."""
    return {
        "category": card.category,
        "type_id": card.type_id,
        "power": card.power,
        "unlock_rank": card.unlock_rank,
    }


def character_faces(character: Character) -> list[Face]:
    """A character's Mastercard, then one move card per card it owns."""
    cards = list(character.cards.select_related("type"))
    faces = [Face("master", character=character, cards=cards, type_slug=character.type.slug)]
    faces += [Face("move", character=character, card=c, type_slug=c.type.slug) for c in cards]
    return faces


def party_characters(party: Party) -> list[Character]:
    """The party's Archon (if any), then its Memeyori in slot order (R8)."""
    members = [party.archon] if party.archon_id else []
    return members + party.memeyori_in_order()


def number_zones(faces: list[Face], first: int = 1) -> dict[int, tuple[str, int]]:
    """Give every text zone an id and a first step; returns what the render job needs."""
    zones = {}
    number = first
    for face in faces:
        if face.kind == "back":
            continue
        face.zone = number
        face.step = fit.estimate_step(face.kind, face.paragraphs())
        zones[number] = (face.kind, face.step)
        # Name and Type band; a move card also has its owner line.
        face.lines = list(range(number + 1, number + (4 if face.kind == "move" else 3)))
        zones.update((line, ("line", 0)) for line in face.lines)
        number = face.lines[-1] + 1
    return zones
