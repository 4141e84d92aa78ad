"""What goes on the cards: faces (Mastercard, move card, back) built from the models."""

from dataclasses import dataclass, field

from cards import stats
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
        portrait = self.character.portrait_print
        return portrait.url if portrait else ""

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
    def derived(self) -> list[dict]:
        return [
            {"name": e.name, "short": DERIVED_SHORT[e.name], "value": e.value}
            for e in self.character.explained()  # R3, from stats.explain
        ]

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
            if self.character.flavour:
                rows += self.character.flavour.splitlines()
            return tuple(rows)
        card = self.card
        rows = (card.text or "x").splitlines()
        for power, text in (
            (card.tier2_power, card.tier2_text),
            (card.tier3_power, card.tier3_text),
        ):
            if power is not None:
                rows += ["Tier 2 (4 Resonance) · Power 99", *text.splitlines()]
        return tuple(rows)


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
