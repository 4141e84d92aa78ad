"""Attributes, Rank and derived stats (RULES.md R1-R3) and party totals (R8).

Pure Python: no Django import. Models, forms, views, cards and the battle engine all
call into this module, so each formula is written exactly once.
"""

from dataclasses import dataclass

ATTRIBUTES = ("strength", "endurance", "iq", "wit", "speed", "aura")
ATTRIBUTE_LABELS = {
    "strength": "Strength",
    "endurance": "Endurance",
    "iq": "IQ",
    "wit": "Wit",
    "speed": "Speed",
    "aura": "Aura",
}
ATTRIBUTE_ABBREVIATIONS = {
    "strength": "STR",
    "endurance": "END",
    "iq": "IQ",
    "wit": "WIT",
    "speed": "SPD",
    "aura": "AUR",
}
ATTRIBUTE_MIN, ATTRIBUTE_MAX = 1, 20
RANK_MIN, RANK_MAX = 1, 6

# R8: a party never holds more than six Memeyori, and at most three are summoned.
PARTY_MAX_MEMEYORI = 6
FIELD_SIZE = 3
BASE_SP, BASE_MP, BASE_DRAW = 3, 3, 2


def _require_int(name: str, value, low: int, high: int) -> int:
    # bool is an int subclass, but True is not a Strength of 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number from {low} to {high}; got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be from {low} to {high}; got {value}")
    return value


def check_attribute(name: str, value) -> int:
    """R1: an attribute is an integer from 1 to 20."""
    return _require_int(ATTRIBUTE_LABELS.get(name, name), value, ATTRIBUTE_MIN, ATTRIBUTE_MAX)


def check_rank(value) -> int:
    """R2: a Memeyori's Rank is an integer from 1 to 6."""
    return _require_int("Rank", value, RANK_MIN, RANK_MAX)


def scale_label(value: int) -> str:
    """R1's scale label for an attribute value."""
    value = _require_int("Attribute", value, ATTRIBUTE_MIN, ATTRIBUTE_MAX)
    if value == 1:
        return "Debilitating"
    if value <= 4:
        return "Human"
    if value <= 7:
        return "Peak human"
    if value <= 9:
        return "Superhuman"
    if value == 10:
        return "Peak of nature"
    return "Unnatural"


def effective(value: int, rank: int) -> int:
    """R2: at Rank 6 every attribute is +1, capped at 20."""
    return min(ATTRIBUTE_MAX, value + 1) if rank == RANK_MAX else value


@dataclass(frozen=True, slots=True)
class DerivedStats:
    hp: int
    defense: int
    resistance: int
    support_power: int
    evasion: int
    initiative: int
    crit_rate: int
    physical_damage: int
    magic_damage: int
    physical_accuracy: int
    magic_accuracy: int


@dataclass(frozen=True, slots=True)
class Explained:
    """A derived stat with the sentence that shows how it was computed."""

    name: str
    label: str
    value: int
    formula: str


def derive(*, strength, endurance, iq, wit, speed, aura, rank=1) -> DerivedStats:
    """R3 derived stats, from R2's effective attributes."""
    raw = {
        "strength": strength,
        "endurance": endurance,
        "iq": iq,
        "wit": wit,
        "speed": speed,
        "aura": aura,
    }
    for name, value in raw.items():
        check_attribute(name, value)
    check_rank(rank)
    s, e, i, w, sp, a = (effective(raw[name], rank) for name in ATTRIBUTES)
    return DerivedStats(
        hp=6 + 5 * e + 2 * s,
        defense=e,
        resistance=w,
        support_power=w,
        evasion=sp,
        initiative=sp,
        crit_rate=a,
        physical_damage=s,
        magic_damage=i,
        physical_accuracy=s + i // 2,
        magic_accuracy=i + i // 2,
    )


def explain(*, strength, endurance, iq, wit, speed, aura, rank=1) -> list[Explained]:
    """Every derived stat with its formula written out, for the builder and the card."""
    stats = derive(
        strength=strength, endurance=endurance, iq=iq, wit=wit, speed=speed, aura=aura, rank=rank
    )
    raw = dict(strength=strength, endurance=endurance, iq=iq, wit=wit, speed=speed, aura=aura)
    eff = {name: effective(value, rank) for name, value in raw.items()}

    def term(name: str) -> str:
        abbr = ATTRIBUTE_ABBREVIATIONS[name]
        if eff[name] != raw[name]:
            return f"{abbr} {eff[name]} ({raw[name]} + 1 at Rank 6)"
        return f"{abbr} {eff[name]}"

    s, e, i, w, sp, a = (term(n) for n in ATTRIBUTES)
    half_iq = f"floor({i} / 2)"
    rows = [
        ("hp", "HP", stats.hp, f"6 + 5 x {e} + 2 x {s}"),
        ("defense", "Defense", stats.defense, e),
        ("resistance", "Resistance", stats.resistance, w),
        ("support_power", "Support Power", stats.support_power, w),
        ("evasion", "Evasion", stats.evasion, sp),
        (
            "initiative",
            "Initiative",
            stats.initiative,
            f"{sp} (plus the team Aura bonus in battle)",
        ),
        ("crit_rate", "Crit Rate", stats.crit_rate, a),
        ("physical_damage", "Physical damage bonus", stats.physical_damage, s),
        ("magic_damage", "Magic damage bonus", stats.magic_damage, i),
        ("physical_accuracy", "Physical Accuracy", stats.physical_accuracy, f"{s} + {half_iq}"),
        ("magic_accuracy", "Magic Accuracy", stats.magic_accuracy, f"{i} + {half_iq}"),
    ]
    return [
        Explained(name, label, value, f"{label} {value} = {formula}")
        for name, label, value, formula in rows
    ]


@dataclass(frozen=True, slots=True)
class PartyTotals:
    level: int
    dp_available: int
    dp_spent: int
    sp: int
    mp: int
    draw: int
    max_memeyori: int


def party_totals(*, level: int, dp_sp: int = 0, dp_mp: int = 0, dp_draw: int = 0) -> PartyTotals:
    """R8: each Party Level above 1 gives one DP; each DP adds 1 to SP, MP or Draw."""
    _require_int("Party Level", level, 1, 10_000)
    for name, value in (("DP on SP", dp_sp), ("DP on MP", dp_mp), ("DP on Draw", dp_draw)):
        _require_int(name, value, 0, 10_000)
    sp = BASE_SP + dp_sp
    return PartyTotals(
        level=level,
        dp_available=level - 1,
        dp_spent=dp_sp + dp_mp + dp_draw,
        sp=sp,
        mp=BASE_MP + dp_mp,
        draw=BASE_DRAW + dp_draw,
        max_memeyori=min(sp, PARTY_MAX_MEMEYORI),
    )
