"""R5 in battles/engine/damage.py."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from battles.engine.damage import damage, heal_amount, raw_damage, stab_multiplier, type_multiplier

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine


def test_it_computes_the_rules_worked_example():
    # Power 6, STR 5, same Type, defender weak, no crit, Defense 4: 19.8 - 4 -> 15.
    assert (
        damage(6, 5, stab=True, type_multiplier=Fraction(3, 2), critical=False,
               complication=False, mitigation=4)
        == 15
    )  # fmt: skip


def test_it_uses_exact_arithmetic_so_25_times_6_5_is_30():
    assert raw_damage(20, 5, stab=True, type_multiplier=1, critical=False, complication=False) == 30
    assert damage(20, 5, stab=True, type_multiplier=1, critical=False, complication=False,
                  mitigation=0) == 30  # fmt: skip


def test_stab_may_be_given_as_the_multiplier():
    assert damage(6, 5, stab=Fraction(6, 5), type_multiplier=Fraction(3, 2), critical=False,
                  complication=False, mitigation=4) == 15  # fmt: skip


def test_crit_and_complication_multiply_by_3_2_and_1_2():
    kw = dict(stab=False, type_multiplier=Fraction(1), mitigation=0)
    assert damage(6, 4, critical=True, complication=False, **kw) == 15
    assert damage(6, 4, critical=False, complication=True, **kw) == 5
    assert damage(6, 4, critical=True, complication=True, **kw) == 7  # 7.5 floors to 7


def test_a_landed_attack_always_does_at_least_1():
    assert damage(1, 1, stab=False, type_multiplier=Fraction(1, 2), critical=False,
                  complication=True, mitigation=20) == 1  # fmt: skip


def test_it_refuses_a_float_multiplier():
    with pytest.raises(ValueError, match="exact"):
        damage(6, 5, stab=False, type_multiplier=1.5, critical=False, complication=False,
               mitigation=0)  # fmt: skip


def test_type_chart_entries_map_to_r5_multipliers():
    assert type_multiplier("weak") == Fraction(3, 2)
    assert type_multiplier("strong") == Fraction(1, 2)
    assert type_multiplier("neutral") == 1
    assert stab_multiplier("Blaze", "Blaze") == Fraction(6, 5)
    assert stab_multiplier("Tide", "Blaze") == 1


def test_a_heal_never_goes_above_maximum_hp():
    assert heal_amount(5, 2, hp=30, max_hp=41) == 7
    assert heal_amount(5, 2, hp=38, max_hp=41) == 3
    assert heal_amount(5, 2, hp=41, max_hp=41) == 0


@given(
    st.integers(0, 99), st.integers(1, 20), st.booleans(),
    st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(3, 2)]),
    st.booleans(), st.booleans(), st.integers(0, 20),
)  # fmt: skip
def test_damage_is_the_floor_of_the_exact_formula(power, stat, stab, mult, crit, comp, mitigation):
    expected = Fraction(power + stat) * (Fraction(6, 5) if stab else 1) * mult
    expected *= Fraction(3, 2) if crit else 1
    expected *= Fraction(1, 2) if comp else 1
    got = damage(power, stat, stab=stab, type_multiplier=mult, critical=crit, complication=comp,
                 mitigation=mitigation)  # fmt: skip
    assert got == max(1, (expected - mitigation).__floor__())
    assert got >= 1
