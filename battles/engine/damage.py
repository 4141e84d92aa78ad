"""R5: damage, STAB and the type multiplier, in exact arithmetic."""

from fractions import Fraction
from math import floor

STAB = Fraction(6, 5)
WEAK = Fraction(3, 2)  # the defender's Type is weak to the card's Type
STRONG = Fraction(1, 2)  # the defender's Type is strong against the card's Type
NEUTRAL = Fraction(1)
CRIT = Fraction(3, 2)
COMPLICATION = Fraction(1, 2)

# The type chart's three entries (R6), as stored in the database and in battle logs.
EFFECT_MULTIPLIERS = {"weak": WEAK, "strong": STRONG, "neutral": NEUTRAL}


def stab_multiplier(card_type: str, user_type: str) -> Fraction:
    return STAB if card_type == user_type else NEUTRAL


def type_multiplier(effect: str) -> Fraction:
    """The multiplier for a chart entry: 'weak', 'strong' or 'neutral'."""
    try:
        return EFFECT_MULTIPLIERS[effect]
    except KeyError:
        raise ValueError(f"unknown type chart entry {effect!r}") from None


def _as_fraction(name: str, value) -> Fraction:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, not a bool")
    if isinstance(value, float):
        # Binary floats are refused: 6/5 as a float is not 6/5 (R5).
        raise ValueError(f"{name} must be exact (int, Fraction or 'a/b'); got float {value!r}")
    return Fraction(value)


def raw_damage(
    power: int, stat: int, *, stab, type_multiplier, critical: bool, complication: bool
) -> Fraction:
    """R5's raw damage before Mitigation, as an exact Fraction."""
    # STAB may be given as a flag (same Type or not) or as the multiplier itself.
    stab_factor = (
        (STAB if stab else NEUTRAL) if isinstance(stab, bool) else _as_fraction("stab", stab)
    )
    raw = Fraction(power + stat) * stab_factor * _as_fraction("type_multiplier", type_multiplier)
    if critical:
        raw *= CRIT
    if complication:
        raw *= COMPLICATION
    return raw


def damage(
    power: int,
    stat: int,
    *,
    stab,
    type_multiplier,
    critical: bool,
    complication: bool,
    mitigation: int,
) -> int:
    """R5: max(1, floor(raw - Mitigation)) for a landed physical or magic card."""
    raw = raw_damage(
        power,
        stat,
        stab=stab,
        type_multiplier=type_multiplier,
        critical=critical,
        complication=complication,
    )
    return mitigated(raw, mitigation)


def mitigated(raw: Fraction, mitigation: int) -> int:
    """R5's last step: a landed blow always does at least 1."""
    return max(1, floor(raw - mitigation))


def heal_power(power: int, support_power: int) -> int:
    """R5: what a heal card restores, before the maximum HP caps it."""
    return power + support_power


def heal_amount(power: int, support_power: int, *, hp: int, max_hp: int) -> int:
    """R5: a heal restores Power + Support Power HP, never above maximum HP."""
    return max(0, min(heal_power(power, support_power), max_hp - hp))


def frac(value: Fraction) -> str:
    """An exact value as the log writes it: "216/5", or "3" when whole."""
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value)
