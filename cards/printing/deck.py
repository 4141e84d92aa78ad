"""What goes on the cards: faces (Mastercard, move card, back) built from the models.

One Face feeds the same templates on screen and in the PDF (screen = print); `screen`
only changes where a portrait is read from (the visibility view on screen, the media
file for the renderer). Everything a card says is computed here, from cards/stats.py
(R1-R3), cards/odds.py (R4, R5) and the live type chart (R6), so the templates only lay
it out.
"""

import hashlib
import json
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import Q

from battles.engine import words
from battles.engine.model import ARCHON_SUMMON_COST
from cards import odds, stats
from cards.media import print_asset_url
from cards.models import Character, Effect, Matchup, Party, PrintedNumbers

from . import art, design, fit

CATEGORY_ICONS = {"physical": "⚔", "magic": "✦", "support": "✚"}
# Poker cards have room for this many MP pips; a dearer card shows its number beside one.
MAX_PIPS = 5
# R9.1: an active Archon costs this much Resonance at each round start.
ARCHON_UPKEEP = 1
# The Mastercard's card list: above this many lines it lists this many and counts the rest,
# which are on their own move cards (a 40-card Memeyori cannot list 40 lines at 6 pt).
MASTER_LINES = 6
# The one-line zones of each face, in the order of Face.lines (checked, never shrunk: one
# that overflows is reported by the preflight).
LINE_NAMES = {
    "master": ("name", "Type line", "Weak to / Strong against line", "foot line"),
    "move": ("name", "Type line", "Type matchups line", "foot line", "odds panel"),
}


def pips(cost: int) -> str:
    """An MP cost as pips: ●●● for 3; a cost above MAX_PIPS as its number and one pip."""
    return "●" * cost if 0 < cost <= MAX_PIPS else f"{cost}●"


def set_code(character: Character) -> str:
    """A short, stable code for a character's set of cards (M for Memeyori, A for Archon)."""
    return f"{character.kind[0].upper()}-{str(character.code).replace('-', '')[:6].upper()}"


@dataclass(frozen=True, slots=True)
class TypeMark:
    slug: str
    symbol: str
    name: str


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
    number: int = 0  # a move card's place in its character's set (1-based)
    screen: bool = False
    # The live type chart (R6) for the character's Type: {"weak": [...], "strong": [...]}
    # as TypeMarks. Read once per character (`character_faces`).
    matchups: dict = field(default_factory=dict)
    # A move card's Type against the chart, attacking: who takes x3/2, who x1/2.
    hits: dict = field(default_factory=dict)

    @property
    def title(self) -> str:
        if self.kind == "master":
            return f"{self.character.name} (Mastercard)"
        if self.kind == "move":
            return f"{self.card.name} ({words.possessive(self.character.name)} card)"
        return "card back"

    @property
    def name_class(self) -> str:
        """Smaller type for long names (card.css .name.long / .longer); never under 6 pt,
        and a name too long even then wraps onto a second line."""
        name = self.character.name if self.kind == "master" else self.card.name
        long_at, longer_at = (16, 26) if self.kind == "master" else (18, 28)
        if len(name) > longer_at:
            return " longer"
        return " long" if len(name) > long_at else ""

    # --- The character -----------------------------------------------------------

    @property
    def is_archon(self) -> bool:
        return self.character.kind == "archon"

    @property
    def hp(self) -> int:
        return self.character.derived.hp

    @property
    def rank_stars(self) -> str:
        rank = self.character.rank_for_stats
        return "★" * rank + "☆" * (stats.RANK_MAX - rank)

    @property
    def rank_note(self) -> str:
        """R2: the attributes printed already carry the Rank 6 +1; said once, so nobody
        adds it again at the table."""
        c = self.character
        if self.kind != "master" or self.is_archon or c.rank_for_stats != stats.RANK_MAX:
            return ""
        capped = any(getattr(c, name) >= stats.ATTRIBUTE_MAX for name in stats.ATTRIBUTES)
        below = f" below {stats.ATTRIBUTE_MAX}" if capped else ""
        return f"Rank {stats.RANK_MAX}: +1 to every attribute{below} (included)"

    @property
    def summon_line(self) -> str:
        """R9: what an Archon costs to bring in and to keep, said on its card."""
        return (
            f"Summon: {ARCHON_SUMMON_COST} Resonance. Upkeep: {ARCHON_UPKEEP} Resonance a round; "
            "no passive Resonance while it is on the field."
        )

    @property
    def portrait_url(self) -> str:
        c = self.character
        if self.screen:
            return c.portrait_url("print")
        # The renderer is handed the file's bytes from storage (cards/media.py).
        return print_asset_url(c.portrait_print.name) if c.portrait_print else ""

    @property
    def art_url(self) -> str:
        """The portrait, or the generated Type art (the same path on screen and in print:
        the renderer is handed its bytes, see render.build_document)."""
        return self.portrait_url or default_art_path(self.character)

    @property
    def move_art_url(self) -> str:
        return move_art_path(self.card)

    def pictures(self, *, foil: bool = False) -> dict[str, bytes]:
        """The generated pictures this face shows, by their path (without the leading
        slash) as the site serves them, for the renderer to read from memory; with `foil`,
        its frame is the foil one (print-shop mode)."""
        if self.kind == "back":
            return {}
        found = {}
        if not self.portrait_url:
            c = self.character
            look = art.character_look(c)
            found[default_art_path(c, look).lstrip("/")] = art.look_svg(
                look, c.type.symbol
            ).encode()
        if self.kind == "move":
            t = self.card.type
            found[self.move_art_url.lstrip("/")] = art.move_art_svg(
                t.colour, t.symbol, self.card.category
            ).encode()
        found[self.qr_url.lstrip("/")] = art.qr_svg(settings.SITE_URL + self.short_path).encode()
        # The frame of the card's Type; an Archon's cards have their own.
        t = self.card.type if self.kind == "move" else self.character.type
        found[design.frame_path(t.slug, self.is_archon, foil=foil).lstrip("/")] = art.frame_svg(
            t.colour, t.symbol, t.slug, archon=self.is_archon, foil=foil
        ).encode()
        return found

    # --- The QR code and what the card printed (issue 34) -------------------------------

    @property
    def printed(self) -> dict:
        """What this face tells a player, by the words it uses for them: stored when it
        prints (PrintedNumbers), compared with today's on the page its QR code opens."""
        c = self.character
        if self.kind == "master":
            said = {"Name": c.name, "Type": c.type.name, "HP": self.hp}
            if not self.is_archon:
                said["Rank"] = c.rank_for_stats
            said.update((row["label"], row["value"]) for row in self.attributes)
            said["Cards"] = len(self.cards)
        else:
            card, t = self.card, self.table
            said = {
                "Name": card.name, "Type": card.type.name, "Category": card.category,
                "Power": card.power, "MP cost": card.mp_cost, "Quick": card.quick,
                "Tier 2 Power": card.tier2_power, "Tier 3 Power": card.tier3_power,
                "Chance to land": t.land.text if t.land else "",
                "Damage" if t.category != odds.SUPPORT else "Heal": [
                    line.heal if t.category == odds.SUPPORT else line.hit for line in t.tiers
                ],
            }  # fmt: skip
        return said

    @property
    def printed_digest(self) -> str:
        return printed_digest(self.character, self.card, self.printed)

    @property
    def printed_path(self) -> str:
        """The page a printed card's QR code opens: its character's cards, and whether
        this print is still current (cards/views/printed.py)."""
        c = self.character
        return f"/print/c/{c.kind}/{c.code}/printed/{self.printed_digest}/"

    @property
    def short_path(self) -> str:
        """What the QR code carries: a short path to `printed_path`, so that the code has
        29 modules, not 37 (bigger dots for a phone, and a quarter of the drawing)."""
        return f"/print/p/{self.printed_digest}"

    @property
    def qr_url(self) -> str:
        return self.printed_path + "qr.svg"

    @property
    def zone_label(self) -> str:
        """The face as the preflight names its text zone: flavour text is said, as it is
        the first thing a player would shorten."""
        flavour = self.character.flavour if self.kind == "master" else self.card.flavour
        return f"{self.title} with its flavour text" if flavour else self.title

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
                    "label": stats.ATTRIBUTE_LABELS[name],
                    "value": value,
                    "scale": stats.scale_label(value),  # R1
                }
            )
        return rows

    def column(self, key: str) -> str:
        """One column of the attribute block, a line per attribute (card.css sets it as
        pre-line text: one text box instead of six, which WeasyPrint lays out faster)."""
        return "\n".join(str(row[key]) for row in self.attributes)

    @property
    def abbr_column(self) -> str:
        return self.column("abbr")

    @property
    def value_column(self) -> str:
        return self.column("value")

    @property
    def scale_column(self) -> str:
        return self.column("scale")

    @property
    def derived(self) -> stats.DerivedStats:
        return self.character.derived

    @property
    def derived_groups(self) -> list[dict]:
        """R3's derived stats grouped by use, each group's labels and values as columns."""
        d = self.derived
        groups = [
            ("Attack", [("⚔ Physical", f"{d.physical_accuracy} · +{d.physical_damage}"),
                        ("✦ Magic", f"{d.magic_accuracy} · +{d.magic_damage}")]),
            ("Defence", [("Defense", d.defense), ("Resistance", d.resistance),
                         ("Evasion", d.evasion)]),
            ("Tempo", [("Initiative", d.initiative), ("Crit Rate", d.crit_rate),
                       ("Support", d.support_power)]),
        ]  # fmt: skip
        return [
            {
                "title": title,
                "labels": "\n".join([title, *(label for label, _ in rows)]),
                # The first line sits beside the title (a no-break space keeps it).
                "values": "\n".join(["acc · dmg" if title == "Attack" else "\u00a0",
                                     *(str(value) for _, value in rows)]),
            }
            for title, rows in groups
        ]  # fmt: skip

    @property
    def card_lines(self) -> list[dict]:
        """The Mastercard's attack lines: cost pips, category icon, name, Power at each Tier,
        Quick, the unlocking Rank (a Memeyori's cards)."""
        rank = None if self.is_archon else self.character.rank_for_stats
        lines = []
        for card in self.cards[: self.listed]:
            powers = [card.power] + [
                p for p in (card.tier2_power, card.tier3_power) if p is not None
            ]
            lines.append(
                {
                    "card": card,
                    "pips": pips(card.mp_cost),
                    "icon": CATEGORY_ICONS.get(card.category, "◆"),
                    # Power at each Tier, then Quick and the unlocking Rank, as one run.
                    "rest": " · ".join(
                        part
                        for part in (
                            "/".join(str(p) for p in powers)
                            + (" heal" if card.category == odds.SUPPORT else ""),
                            "Quick" if card.quick else "",
                            "" if rank is None else f"R{card.unlock_rank}",
                        )
                        if part
                    ),
                }
            )
        return lines

    @property
    def listed(self) -> int:
        return len(self.cards) if len(self.cards) <= MASTER_LINES else MASTER_LINES - 1

    @property
    def unlisted(self) -> int:
        return len(self.cards) - self.listed

    def _type_list(self, key: str) -> str:
        marks = self.matchups.get(key, [])
        return ", ".join(f"{t.symbol} {t.name}" for t in marks) or "nothing"

    @property
    def weak_text(self) -> str:
        return self._type_list("weak")

    @property
    def strong_text(self) -> str:
        return self._type_list("strong")

    @property
    def foot(self) -> str:
        c = self.character
        owner = getattr(getattr(c, "owner", None), "username", "")
        what = "Archon" if self.is_archon else "Memeyori"
        if self.kind == "move":
            unlock = "" if self.is_archon else f" · unlocks at Rank {self.card.unlock_rank}"
            return f"HP {self.hp}{unlock} · {set_code(c)} · {self.number}/{len(self.cards)}"
        count = words.plural(len(self.cards), "card")
        return " · ".join(part for part in (owner, what, count, set_code(c)) if part)

    # --- A move card ---------------------------------------------------------------

    @property
    def category_icon(self) -> str:
        return CATEGORY_ICONS.get(self.card.category, "◆")

    @property
    def cost_pips(self) -> str:
        return pips(self.card.mp_cost)

    @property
    def table(self) -> odds.AtTheTable:
        """R4, R5 for this card's own user against the default reference defender."""
        return odds.card_at_the_table(
            self.card, derived=self.derived, user_type=self.character.type
        )

    @property
    def tier_rows(self) -> list[dict]:
        """Each Tier: its Power, its Resonance cost (R9), its number at the table, its text."""
        texts = {1: self.card.text, 2: self.card.tier2_text, 3: self.card.tier3_text}
        table = self.table
        rows = []
        for line in table.tiers:
            if table.category == odds.SUPPORT:
                result = f"heals {line.heal} HP"
            else:
                result = f"{line.hit} damage on a hit · {line.critical} on a critical"
            rows.append(
                {
                    "tier": line.tier,
                    "power": line.power,
                    "cost": f"{line.resonance} Resonance" if line.resonance else "base",
                    "result": result,
                    "text": texts[line.tier],
                }
            )
        return rows

    @property
    def dice_line(self) -> str:
        """The roll (R4), for the panel under the header."""
        t = self.table
        if t.category == odds.SUPPORT:
            return f"No roll: heals Power + Support Power ({t.support_power})"
        stab = " · STAB x6/5" if t.stab else ""
        return f"Rolls {t.dice} dice · crit {t.critical.text}{stab}"

    @property
    def table_text(self) -> str:
        """The panel under the art, one pre-line box: what a player looks for during a game
        (the chance to land against a typical Evasion, the crit chance, the roll), the
        damage being on each Tier's line. Every Evasion and Defense is on the character's
        cards page (`full_table`). A support card says what it heals instead."""
        t = self.table
        if t.category == odds.SUPPORT:
            init = self.derived.initiative
            return (
                f"{self.dice_line}\n{self.versus_line}\n"
                f"Acts at Initiative {init} + half its side's highest Aura (R9)"
            )
        stab = " · same Type x6/5" if t.stab else ""
        return (
            f"Lands {t.land.text} · crit {t.critical.text} vs Evasion {t.evasion}\n"
            f"{t.dice} dice · damage vs {t.guard} {t.guard_value}{stab}"
        )

    @property
    def full_table(self) -> dict | None:
        """Every Evasion and Defense (R4, R5) and each Tier's average, for the screen: the
        page a printed card's code opens. None for a support card, which does not roll."""
        t = self.table
        if t.category == odds.SUPPORT:
            return None
        land = odds.land_by_evasion(t.dice, self.derived.crit_rate)
        damage = odds.damage_by_guard(
            self.card.power, self.derived, physical=t.guard == "DEF", stab=t.stab
        )
        return {
            "roll": self.dice_line,
            "guard": t.guard,
            "values": [e for e, _ in land],
            "lands": [p for _, p in land],
            "hit": [h for _, h, _ in damage],
            "crit": [c for _, _, c in damage],
            "averages": [
                f"Tier {line.tier}: avg {line.expected.text} vs EVA {t.evasion}, "
                f"{t.guard} {t.guard_value}"
                for line in t.tiers
            ],
        }

    @property
    def hits_line(self) -> str:
        """The card's Type attacking, from the live chart (R6): who takes x3/2, who x1/2."""
        weak = ", ".join(f"{t.symbol} {t.name}" for t in self.hits.get("hits_weak", []))
        strong = ", ".join(f"{t.symbol} {t.name}" for t in self.hits.get("hits_strong", []))
        if not (weak or strong):
            return f"{self.card.type.name}: x1 against every Type"
        return f"x3/2 vs {weak or 'none'} · x1/2 vs {strong or 'none'}"

    @property
    def versus_line(self) -> str:
        t = self.table
        if t.category == odds.SUPPORT:
            return "One ally on the field, never above its maximum HP"
        return f"hit · crit · avg: vs EVA {t.evasion}, {t.guard} {t.guard_value} (human average)"

    @property
    def quick_line(self) -> str:
        """R9.2's surcharge, the rule a player forgets."""
        if self.card.quick:
            return "Quick: adds no MP to its user's later cards this round"
        return "Not Quick: its user's later cards cost +1 MP this round"

    def paragraphs(self) -> tuple[str, ...]:
        """The zone's text, roughly as it wraps, for fit.estimate_step."""
        if self.kind == "master":
            rows = [
                f"{line['pips']} {line['icon']} {line['card'].name} {line['rest']}"
                for line in self.card_lines
            ]
            if self.unlisted:
                rows.append(f"+ {self.unlisted} more cards: see their move cards")
            if self.rank_note:
                rows.insert(0, self.rank_note)
            if self.is_archon:
                rows.insert(0, self.summon_line)
            return tuple(rows)
        card = self.card
        rows = []
        for _tier, (power, text) in enumerate(
            ((card.power, card.text), (card.tier2_power, card.tier2_text),
             (card.tier3_power, card.tier3_text)),
            start=1,
        ):  # fmt: skip
            if power is None:
                continue
            rows += ["Tier 3 · Power 99 · 8 Resonance", "99 damage on a hit · 99 on a critical"]
            rows += (text or "").splitlines()
        return tuple(rows)

    def flavour_lines(self) -> tuple[str, ...]:
        """The zone's flavour text, which fit.py leaves out before the rules are cut."""
        flavour = self.character.flavour if self.kind == "master" else self.card.flavour
        return tuple((flavour or "").splitlines())


def printed_digest(character, card, said: dict) -> str:
    """A short name for what a face printed: its character, its card, its numbers."""
    key = {"kind": character.kind, "code": str(character.code),
           "card": str(card.code) if card is not None else None, "said": said}  # fmt: skip
    text = json.dumps(key, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def record_printed(faces: list[Face]) -> None:
    """Keep what each face prints, once per digest (one query per document), for the
    page its QR code opens."""
    rows = {}
    for face in faces:
        if face.kind == "back":
            continue
        c = face.character
        rows[face.printed_digest] = {
            "kind": c.kind, "code": str(c.code),
            "card": str(face.card.code) if face.card is not None else None,
            "said": face.printed,
        }  # fmt: skip
    PrintedNumbers.objects.bulk_create(
        [PrintedNumbers(digest=d, numbers=n) for d, n in rows.items()], ignore_conflicts=True
    )


def default_art_path(character, look=None) -> str:
    """Where the generated art of a character is served (cards/views/art.py), named by
    its look so that a new look is a new URL; the renderer gets the same picture from
    memory under the same path."""
    digest = art.look_digest(look or art.character_look(character))
    return f"/print/art/{character.kind}/{character.code}/{digest}.svg"


def move_art_path(card) -> str:
    """Where a move card's art (its Type and category) is served (cards/views/art.py)."""
    return f"/print/art/move/{card.type.slug}/{card.category}.svg"


def _marks(types) -> list[TypeMark]:
    return [TypeMark(t.slug, t.symbol, t.name) for t in types]


def chart_for(type_) -> dict:
    """R6 from the live chart, for one Type: the Types it is weak to and strong against
    (as a defender), and the Types its attacks hit for x3/2 and x1/2."""
    if type_ is None or type_.pk is None:
        return {"weak": [], "strong": [], "hits_weak": [], "hits_strong": []}
    rows = Matchup.objects.filter(Q(defending=type_) | Q(attacking=type_))
    rows = rows.exclude(effect=Effect.NEUTRAL)
    rows = rows.select_related("attacking", "defending").order_by()
    found = {"weak": [], "strong": [], "hits_weak": [], "hits_strong": []}
    for m in rows:
        if m.defending_id == type_.pk:
            found[m.effect].append(m.attacking)
        if m.attacking_id == type_.pk:
            found[f"hits_{m.effect}"].append(m.defending)
    return {
        key: _marks(sorted(ts, key=lambda t: (t.position, t.name))) for key, ts in found.items()
    }


def character_faces(
    character: Character, *, screen: bool = False, moves: bool = True
) -> list[Face]:
    """A character's Mastercard, then one move card per card it owns (`moves=False`: the
    Mastercard alone, without reading the chart of every card's Type for nothing)."""
    cards = list(character.cards.select_related("type"))
    charts: dict[int, dict] = {}

    def chart(type_) -> dict:
        if type_.pk not in charts:
            charts[type_.pk] = chart_for(type_)
        return charts[type_.pk]

    own = chart(character.type)
    faces = [
        Face("master", character=character, cards=cards, type_slug=character.type.slug,
             screen=screen, matchups=own)
    ]  # fmt: skip
    for number, card in enumerate(cards if moves else [], start=1):
        faces.append(
            Face("move", character=character, card=card, cards=cards, type_slug=card.type.slug,
                 number=number, screen=screen, matchups=own, hits=chart(card.type))
        )  # fmt: skip
    if screen:
        for face in faces:
            face.step = screen_step(face)
    return faces


# The screen has no measuring pass (the PDF's fit.py loop), so its first guess is a safe one.
SCREEN_FILL = 0.75


def screen_step(face: Face) -> int:
    return fit.estimate_step(
        face.kind, face.paragraphs(), fill=SCREEN_FILL, flavour=face.flavour_lines()
    )


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
        face.step = fit.estimate_step(face.kind, face.paragraphs(), flavour=face.flavour_lines())
        zones[number] = (face.kind, face.step)
        # Its one-line zones, named by LINE_NAMES in the same order.
        face.lines = [number + 1 + i for i in range(len(LINE_NAMES[face.kind]))]
        zones.update((line, ("line", 0)) for line in face.lines)
        number = face.lines[-1] + 1
    return zones


def pdf_filename(characters, *, party=None, what: str = "cards", extension: str = "pdf") -> str:
    """A download named after what it holds (issue 21.9): the party, or the characters
    ("emberpup-cards.pdf", "emberpup-and-puddlefrog-cards.pdf", "emberpup-and-3-more"),
    then what it is. Only the slug's letters reach the Content-Disposition header."""
    from django.utils.text import slugify

    names = [party.name] if party is not None else []
    extra = [c for c in characters if party is None or c not in party_characters(party)]
    names += [c.name for c in extra]
    slugs = [s for s in (slugify(n) for n in names) if s] or ["memeyori"]
    if len(slugs) == 1:
        stem = slugs[0]
    elif len(slugs) == 2:
        stem = f"{slugs[0]}-and-{slugs[1]}"
    else:
        stem = f"{slugs[0]}-and-{len(slugs) - 1}-more"
    return f"{stem[:80]}-{what}.{extension}"


def example_face() -> Face | None:
    """The rules page's example Mastercard (the game's text opens with "Above is an
    example of a Memeyori Mastercard"): the demo's first Memeyori, built in memory from
    cards/data/demo.json with the Types as the database has them now, so its Weak to /
    Strong against follow the live chart. None when the Types are not loaded."""
    import json
    import uuid

    from cards.demo import DEMO_FILE
    from cards.models import Card, Memeyori, Type

    row = json.loads(DEMO_FILE.read_text(encoding="utf-8"))["memeyori"][0]
    types = {t.name: t for t in Type.objects.all()}
    if row["type"] not in types or any(c["type"] not in types for c in row["cards"]):
        return None
    attrs = {k: v for k, v in row.items() if k not in ("name", "type", "cards")}
    character = Memeyori(
        name=row["name"], type=types[row["type"]], code=uuid.uuid5(uuid.NAMESPACE_URL, row["name"]),
        **attrs,
    )  # fmt: skip
    cards = [
        Card(**{k: v for k, v in c.items() if k != "type"}, type=types[c["type"]])
        for c in row["cards"]
    ]
    face = Face("master", character=character, cards=cards, type_slug=character.type.slug,
                screen=True, matchups=chart_for(character.type))  # fmt: skip
    face.step = screen_step(face)
    return face
