"""R1-R3 and R8's arithmetic in cards/stats.py."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cards.stats import ATTRIBUTES, derive, explain, party_totals, scale_label

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine

EXAMPLE = dict(strength=5, endurance=5, iq=3, wit=2, speed=4, aura=2)
attribute = st.integers(1, 20)
attributes = st.fixed_dictionaries({name: attribute for name in ATTRIBUTES})


def test_it_derives_the_rules_worked_example():
    s = derive(**EXAMPLE)
    assert (s.hp, s.defense, s.resistance, s.support_power) == (41, 5, 2, 2)
    assert (s.evasion, s.initiative, s.crit_rate) == (4, 4, 2)
    assert (s.physical_accuracy, s.magic_accuracy) == (6, 4)
    assert (s.physical_damage, s.magic_damage) == (5, 3)


def test_rank_6_adds_one_to_every_attribute_before_deriving():
    s = derive(**EXAMPLE, rank=6)
    assert s.hp == 6 + 5 * 6 + 2 * 6
    assert (s.defense, s.resistance, s.evasion, s.crit_rate) == (6, 3, 5, 3)
    assert (s.physical_accuracy, s.magic_accuracy) == (6 + 2, 4 + 2)


def test_rank_6_bonus_is_capped_at_20():
    s = derive(strength=20, endurance=20, iq=20, wit=20, speed=20, aura=20, rank=6)
    assert s.hp == 6 + 100 + 40
    assert s.magic_accuracy == 30


@pytest.mark.parametrize("rank", [1, 2, 3, 4, 5])
def test_ranks_below_6_change_nothing(rank):
    assert derive(**EXAMPLE, rank=rank) == derive(**EXAMPLE)


@pytest.mark.parametrize("bad", [0, 21, -3, 2.5, "abc", "", None, True])
@pytest.mark.parametrize("name", ATTRIBUTES)
def test_it_refuses_bad_attribute_values_naming_the_field(name, bad):
    label = {"iq": "IQ"}.get(name, name.capitalize())
    with pytest.raises(ValueError, match=label):
        derive(**{**EXAMPLE, name: bad})


def test_it_refuses_strength_21():
    with pytest.raises(ValueError, match="Strength must be from 1 to 20; got 21"):
        derive(**{**EXAMPLE, "strength": 21})


@pytest.mark.parametrize("rank", [0, 7, 1.5, "2"])
def test_it_refuses_a_rank_outside_1_to_6(rank):
    with pytest.raises(ValueError, match="Rank"):
        derive(**EXAMPLE, rank=rank)


@pytest.mark.parametrize(
    ("value", "label"),
    [(1, "Debilitating"), (2, "Human"), (4, "Human"), (5, "Peak human"), (7, "Peak human"),
     (8, "Superhuman"), (9, "Superhuman"), (10, "Peak of nature"), (11, "Unnatural"),
     (20, "Unnatural")],
)  # fmt: skip
def test_scale_labels_follow_r1(value, label):
    assert scale_label(value) == label


def test_the_explanation_writes_out_each_formula():
    rows = {row.name: row for row in explain(**EXAMPLE)}
    assert rows["hp"].formula == "HP 41 = 6 + 5 x END 5 + 2 x STR 5"
    assert rows["physical_accuracy"].formula == "Physical Accuracy 6 = STR 5 + floor(IQ 3 / 2)"


def test_the_explanation_shows_the_rank_6_bonus():
    rows = {row.name: row for row in explain(**EXAMPLE, rank=6)}
    assert "END 6 (5 + 1 at Rank 6)" in rows["hp"].formula


@given(attributes, st.integers(1, 6))
def test_explained_values_are_the_derived_ones(attrs, rank):
    derived = derive(**attrs, rank=rank)
    for row in explain(**attrs, rank=rank):
        assert getattr(derived, row.name) == row.value


@given(attributes, st.integers(1, 6), st.sampled_from(["strength", "endurance"]))
def test_hp_never_falls_as_strength_or_endurance_grows(attrs, rank, name):
    if attrs[name] == 20:
        return
    before = derive(**attrs, rank=rank).hp
    after = derive(**{**attrs, name: attrs[name] + 1}, rank=rank).hp
    if rank == 6 and attrs[name] == 19:
        # R2: Rank 6's +1 is capped at 20, so 19 and 20 are both an effective 20.
        assert after == before
    else:
        assert after > before


@given(attributes)
def test_accuracy_follows_its_formula(attrs):
    s = derive(**attrs)
    assert s.physical_accuracy == attrs["strength"] + attrs["iq"] // 2
    assert s.magic_accuracy == attrs["iq"] + attrs["iq"] // 2


def test_party_totals_start_from_the_r8_bases():
    t = party_totals(level=1)
    assert (t.sp, t.mp, t.draw, t.dp_available, t.max_memeyori) == (3, 3, 2, 0, 3)


def test_each_dp_adds_one_and_memeyori_are_capped_at_six():
    t = party_totals(level=8, dp_sp=5, dp_mp=1, dp_draw=1)
    assert (t.sp, t.mp, t.draw, t.dp_available, t.dp_spent) == (8, 4, 3, 7, 7)
    assert t.max_memeyori == 6
