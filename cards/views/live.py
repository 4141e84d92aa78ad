"""What the builder's stats and odds panels show, computed from validated forms.

Formulas come from cards/stats.py (R1-R3) and battles/engine (R4, R5); this module only
chooses what to show and formats it.
"""

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from battles.engine import words
from battles.engine.damage import heal_power, stab_multiplier, type_multiplier
from battles.engine.odds import attack_odds, expected_damage

from .. import stats
from ..models import Category, Effect, Matchup, Type

EFFECT_SYMBOLS = {Effect.WEAK: "▲ weak", Effect.STRONG: "▼ strong", Effect.NEUTRAL: "neutral"}


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


def chart_against(defending_type) -> dict[int, str]:
    """{attacking Type id: effect} for one defending Type; one query, read fresh (R6)."""
    if defending_type is None:
        return {}
    return _chart_column(defending=defending_type)


def _chart_column(**defending) -> dict[int, str]:
    return dict(
        Matchup.objects.filter(**defending)
        .exclude(effect=Effect.NEUTRAL)
        .order_by()  # the model's ordering joins Type twice for nothing here
        .values_list("attacking_id", "effect")
    )


def types_and_chart(defending_slug: str) -> tuple[list, dict[int, str]]:
    """All Types, and the chart column of the defending Type named by its slug (R6).

    Two plain queries: measured cheaper than one with a subquery. An unknown or empty
    slug gives an all-neutral column.
    """
    types = list(Type.objects.all())
    if not defending_slug:
        return types, {}
    return types, _chart_column(defending__slug=defending_slug)


def card_rows(
    *,
    cards,
    derived: stats.DerivedStats,
    user_type,
    rank: int | None,
    reference: dict,
    chart: dict[int, str],
) -> list[CardRow]:
    """Expected damage (R5) of each card against the reference defender and Type."""
    rows = []
    for card in cards:
        unlocked = rank is None or card.unlock_rank <= rank  # R7; Archons have no Rank
        if card.category == Category.SUPPORT:
            rows.append(
                CardRow(
                    card, unlocked, "support", heal=heal_power(card.power, derived.support_power)
                )
            )
            continue
        physical = card.category == Category.PHYSICAL
        effect = chart.get(card.type_id, Effect.NEUTRAL)
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
