"""What a card does at the table, as players read it: the dice it rolls, its chance to land
(R4), its expected damage (R5) or heal, against a reference defender.

One module for the builder's odds panel (cards/views/live.py) and the printed move cards
(cards/printing/deck.py), so both always say the same. Pure Python, beside cards/stats.py:
the formulas come from there (R1-R3) and from battles/engine (R4, R5); this module only
chooses what to show and formats it. No Django import.
"""

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from battles.engine import words
from battles.engine.damage import damage, heal_power, stab_multiplier, type_multiplier
from battles.engine.model import TIER_COST
from battles.engine.odds import attack_odds, expected_damage

from . import stats

# The type chart's entries (R6) and categories (R7), as the database stores them.
WEAK, STRONG, NEUTRAL = "weak", "strong", "neutral"
PHYSICAL, MAGIC, SUPPORT = "physical", "magic", "support"
EFFECT_SYMBOLS = {WEAK: "▲ weak", STRONG: "▼ strong", NEUTRAL: "neutral"}

# The default reference defender: human average (every attribute 2, R1), neutral Type.
# The builder's panel starts from it (ReferenceDefenderForm.DEFAULTS) and cards print it.
DEFAULT_REFERENCE = {"vs_evasion": 2, "vs_defense": 2, "vs_resistance": 2, "vs_type": None}


@dataclass(frozen=True, slots=True)
class Shown:
    """A number for the page: what it reads as, and its exact value for the title."""

    text: str
    exact: str


def percent(p: Fraction) -> Shown:
    """One decimal (never a near-certainty shown as 100%); the exact fraction on hover."""
    exact = f"exactly {p}" if p in (0, 1) else f"exactly {p.numerator}/{p.denominator}"
    return Shown(words.percent(p), exact)


def decimal(value: Fraction) -> Shown:
    exact = str(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    return Shown(f"{float(value):.2f}", f"exactly {exact}")


@dataclass(frozen=True, slots=True)
class AttackRow:
    label: str
    accuracy: int
    land: Shown
    critical: Shown
    complication: Shown


@dataclass(frozen=True, slots=True)
class CardRow:
    card: object
    unlocked: bool
    kind: str  # "attack" or "support"
    effect: str = ""
    multipliers: str = ""
    expected: Shown | None = None
    heal: int = 0


# The live endpoint runs on every keystroke and people type back and forth over the same
# values, so the formatted rows are kept like attack_odds keeps its Fractions. Both are
# pure functions of small integers; the chart is an argument, so an edit is never stale.
@lru_cache(maxsize=4096)
def _attack_row(label: str, accuracy: int, evasion: int, crit_rate: int) -> AttackRow:
    odds = attack_odds(accuracy, evasion, crit_rate)
    return AttackRow(
        label,
        accuracy,
        percent(odds.p_land),
        percent(odds.p_critical),
        percent(odds.p_complication),
    )


@lru_cache(maxsize=16384)
def _expected(power, stat, stab, multiplier, mitigation, accuracy, evasion, crit_rate) -> Shown:
    return decimal(
        expected_damage(
            power=power,
            stat=stat,
            stab=stab,
            type_multiplier=multiplier,
            mitigation=mitigation,
            accuracy=accuracy,
            evasion=evasion,
            crit_rate=crit_rate,
        )
    )


def attack_rows(derived: stats.DerivedStats, evasion: int) -> list[AttackRow]:
    """R4 odds of the physical and the magic attack against the reference Evasion."""
    return [
        _attack_row("Physical", derived.physical_accuracy, evasion, derived.crit_rate),
        _attack_row("Magic", derived.magic_accuracy, evasion, derived.crit_rate),
    ]


def card_rows(
    *,
    cards,
    derived: stats.DerivedStats,
    user_type,
    rank: int | None,
    reference: dict,
    chart: dict[int, str],
) -> list[CardRow]:
    """Expected damage (R5) of each card against the reference defender and Type.

    `cards` need category, type_id, power and unlock_rank; `chart` is {attacking Type id:
    effect} for the reference defender's Type (empty for a neutral one)."""
    rows = []
    for card in cards:
        unlocked = rank is None or card.unlock_rank <= rank  # R7; Archons have no Rank
        if card.category == SUPPORT:
            rows.append(
                CardRow(
                    card, unlocked, "support", heal=heal_power(card.power, derived.support_power)
                )
            )
            continue
        physical = card.category == PHYSICAL
        effect = chart.get(card.type_id, NEUTRAL)
        stab = stab_multiplier(card.type_id, user_type.id)
        multiplier = type_multiplier(effect)
        expected = _expected(
            card.power,
            derived.physical_damage if physical else derived.magic_damage,
            stab,
            multiplier,
            reference["vs_defense"] if physical else reference["vs_resistance"],
            derived.physical_accuracy if physical else derived.magic_accuracy,
            reference["vs_evasion"],
            derived.crit_rate,
        )
        rows.append(
            CardRow(
                card,
                unlocked,
                "attack",
                effect=EFFECT_SYMBOLS[effect],
                multipliers=f"STAB x{stab}, Type x{multiplier}",
                expected=expected,
            )
        )
    return rows


@dataclass(frozen=True, slots=True)
class TierLine:
    """One Tier of a card at the table: its Power, what it costs in Resonance (R9), and its
    expected damage (attacks) or the HP it heals (support)."""

    tier: int
    power: int
    resonance: int
    expected: Shown | None = None
    hit: int = 0  # the damage of a plain landed hit (R5)
    critical: int = 0  # ... and of a critical one
    heal: int = 0


@dataclass(frozen=True, slots=True)
class AtTheTable:
    """A card's numbers for its own user against the reference defender."""

    category: str
    dice: int  # the Accuracy it rolls (0 for support, which does not roll)
    land: Shown | None
    critical: Shown | None
    support_power: int
    evasion: int
    guard: str  # "DEF" or "RES": what mitigates it (R5)
    guard_value: int
    stab: bool  # the card's Type is its user's (R5's x6/5)
    tiers: tuple[TierLine, ...]


@dataclass(frozen=True, slots=True)
class _Powered:
    category: str
    type_id: object
    power: int
    unlock_rank: int


def card_at_the_table(
    card, *, derived: stats.DerivedStats, user_type, reference: dict | None = None
) -> AtTheTable:
    """What a printed move card says about itself, at every Tier it has, against the
    reference defender (the default one unless given) of the neutral Type: a card is
    read against whoever it meets, so no one Type's chart is printed into its numbers."""
    ref = DEFAULT_REFERENCE if reference is None else reference
    powers = [(1, card.power)]
    powers += [(n, p) for n, p in ((2, card.tier2_power), (3, card.tier3_power)) if p is not None]
    rows = card_rows(
        cards=[_Powered(card.category, card.type_id, p, card.unlock_rank) for _, p in powers],
        derived=derived,
        user_type=user_type,
        rank=None,
        reference=ref,
        chart={},
    )
    if card.category == SUPPORT:
        tiers = tuple(
            TierLine(tier, power, TIER_COST[tier], heal=row.heal)
            for (tier, power), row in zip(powers, rows, strict=True)
        )
        return AtTheTable(SUPPORT, 0, None, None, derived.support_power,
                          ref["vs_evasion"], "", 0, False, tiers)  # fmt: skip
    physical = card.category == PHYSICAL
    stat = derived.physical_damage if physical else derived.magic_damage
    guard = ref["vs_defense"] if physical else ref["vs_resistance"]
    stab = stab_multiplier(card.type_id, user_type.id)

    def blow(power: int, critical: bool) -> int:
        return damage(power, stat, stab=stab, type_multiplier=type_multiplier(NEUTRAL),
                      critical=critical, complication=False, mitigation=guard)  # fmt: skip

    tiers = tuple(
        TierLine(
            tier,
            power,
            TIER_COST[tier],
            expected=row.expected,
            hit=blow(power, False),
            critical=blow(power, True),
        )  # fmt: skip
        for (tier, power), row in zip(powers, rows, strict=True)
    )
    attack = attack_rows(derived, ref["vs_evasion"])[0 if physical else 1]
    return AtTheTable(
        category=card.category,
        dice=attack.accuracy,
        land=attack.land,
        critical=attack.critical,
        support_power=derived.support_power,
        evasion=ref["vs_evasion"],
        guard="DEF" if physical else "RES",
        guard_value=guard,
        stab=stab != 1,
        tiers=tiers,
    )


def rough_percent(p: Fraction) -> str:
    """A chance in at most three digits, for a printed grid: whole percents, never rounded
    to a certainty (a chance under 1% reads 1%, one over 99% reads 99%)."""
    if p in (0, 1):
        return f"{int(p) * 100}%"
    return f"{min(99, max(1, round(float(p * 100))))}%"


EVASION_GRID = range(0, 9)


def land_by_evasion(accuracy: int, crit_rate: int) -> list[tuple[int, str]]:
    """R4's chance to land for these dice against each defender Evasion of EVASION_GRID:
    the line a player reads across to the defender in front of them."""
    return [
        (evasion, rough_percent(attack_odds(accuracy, evasion, crit_rate).p_land))
        for evasion in EVASION_GRID
    ]


def damage_by_guard(
    power: int, derived: stats.DerivedStats, *, physical: bool, stab: bool
) -> list[tuple[int, int, int]]:
    """(Defense or Resistance, damage on a hit, on a critical) for each value of
    EVASION_GRID (R5, neutral Type, no complication): what a landed card does to the
    defender in front of you."""
    stat = derived.physical_damage if physical else derived.magic_damage
    multiplier = stab_multiplier("same", "same" if stab else "other")
    return [
        (guard, *(damage(power, stat, stab=multiplier, type_multiplier=type_multiplier(NEUTRAL),
                         critical=crit, complication=False, mitigation=guard)
                  for crit in (False, True)))
        for guard in EVASION_GRID
    ]  # fmt: skip
