"""R4: the sampled attack roll and the exact odds, checked against each other and
against two independent computations (brute force over every face, and icepool)."""

import random
from fractions import Fraction
from functools import cache
from itertools import product
from math import sqrt

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battles.engine.dice import roll_attack, roll_attack_reference, roll_counts, roll_faces
from battles.engine.odds import attack_odds, expected_damage

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine

pools = st.integers(0, 12)


@cache
def _explosions(pending: int, cap: int) -> tuple[tuple[int, Fraction], ...]:
    """(explosive hits, probability) for a chain with `pending` dice owed and `cap` left."""
    if pending == 0 or cap == 0:
        return ((0, Fraction(1)),)
    out: dict[int, Fraction] = {}
    for face in range(1, 7):
        owed = pending if face == 6 else pending - 1
        for x, p in _explosions(owed, cap - 1):
            key = x + (face >= 4)
            out[key] = out.get(key, 0) + p / 6
    return tuple(out.items())


def brute_force(accuracy: int, evasion: int, crit_rate: int):
    """Every face of every die, straight from R4's text."""
    land = crit = comp = Fraction(0)
    defender = {}
    for faces in product(range(1, 7), repeat=evasion):
        d = sum(f >= 4 for f in faces)
        defender[d] = defender.get(d, 0) + Fraction(1, 6**evasion)
    for faces in product(range(1, 7), repeat=accuracy):
        p = Fraction(1, 6**accuracy)
        hits = sum(f >= 4 for f in faces)
        glitches = faces.count(1)
        if glitches >= 1 and glitches >= hits:
            comp += p
        for x, px in _explosions(faces.count(6), crit_rate):
            for d, pd in defender.items():
                if hits > d:
                    land += p * px * pd
                    if hits + x >= d + 5:
                        crit += p * px * pd
    return land, crit, comp


@pytest.mark.parametrize(
    ("accuracy", "evasion", "crit_rate"),
    [(1, 0, 0), (1, 1, 1), (2, 1, 2), (3, 2, 3), (4, 0, 4), (5, 1, 2), (5, 0, 0), (6, 1, 3),
     (4, 3, 1), (0, 2, 2)],
)  # fmt: skip
def test_exact_odds_match_brute_force_over_every_face(accuracy, evasion, crit_rate):
    odds = attack_odds(accuracy, evasion, crit_rate)
    assert (odds.p_land, odds.p_critical, odds.p_complication) == brute_force(
        accuracy, evasion, crit_rate
    )


def _icepool_land_and_complication(accuracy: int, evasion: int):
    hit_and_glitch = icepool.d6.map(lambda f: icepool.Vector((int(f >= 4), int(f == 1))))
    attack = accuracy @ hit_and_glitch
    defence = evasion @ (icepool.d6 >= 4)
    land = icepool.map(lambda a, d: a[0] > d, attack, defence).probability(True)
    comp = attack.map(lambda a: a[1] >= 1 and a[1] >= a[0]).probability(True)
    return land, comp


@pytest.mark.parametrize(("accuracy", "evasion"), [(1, 1), (6, 4), (10, 3), (15, 15), (20, 8)])
def test_land_and_complication_match_icepool(accuracy, evasion):
    odds = attack_odds(accuracy, evasion, 5)
    assert (odds.p_land, odds.p_complication) == _icepool_land_and_complication(accuracy, evasion)


def test_a_pool_of_zero_never_lands():
    odds = attack_odds(0, 3, 3)
    assert odds.p_land == odds.p_critical == 0


def test_crit_rate_zero_still_crits_on_plain_hits():
    # Five hits against no defender dice beat D + 5 = 5 without any explosive die.
    assert attack_odds(5, 0, 0).p_critical == Fraction(1, 2**5)


@given(pools, pools, pools)
@settings(max_examples=200)
def test_probabilities_are_ordered_and_within_0_and_1(accuracy, evasion, crit_rate):
    odds = attack_odds(accuracy, evasion, crit_rate)
    assert 0 <= odds.p_critical <= odds.p_land <= 1
    assert 0 <= odds.p_complication <= 1
    assert odds.p_critical_complication <= odds.p_land_complication <= odds.p_complication
    assert sum(p for _, _, p in odds.outcomes()) == odds.p_land
    assert all(p >= 0 for _, _, p in odds.outcomes())


@given(pools, pools, pools)
@settings(max_examples=150)
def test_more_accuracy_never_lowers_the_chance_to_land(accuracy, evasion, crit_rate):
    assert (
        attack_odds(accuracy + 1, evasion, crit_rate).p_land
        >= attack_odds(accuracy, evasion, crit_rate).p_land
    )


@given(pools, pools, pools)
@settings(max_examples=150)
def test_more_evasion_never_raises_the_chance_to_land(accuracy, evasion, crit_rate):
    assert (
        attack_odds(accuracy, evasion + 1, crit_rate).p_land
        <= attack_odds(accuracy, evasion, crit_rate).p_land
    )


@given(pools, pools, pools)
@settings(max_examples=150)
def test_more_crit_rate_never_lowers_the_chance_to_crit(accuracy, evasion, crit_rate):
    assert (
        attack_odds(accuracy, evasion, crit_rate + 1).p_critical
        >= attack_odds(accuracy, evasion, crit_rate).p_critical
    )


@given(st.integers(0, 30), st.integers(0, 20), st.integers(0, 20), st.integers(0, 2**32))
def test_the_dice_counts_always_match_r4(accuracy, evasion, crit_rate, seed):
    roll = roll_attack(random.Random(seed), accuracy, evasion, crit_rate)
    assert len(roll.attack_dice) == accuracy
    assert len(roll.evasion_dice) == evasion
    assert len(roll.explosive_dice) <= crit_rate
    assert all(1 <= f <= 6 for f in roll.attack_dice + roll.explosive_dice + roll.evasion_dice)
    sixes = roll.attack_dice.count(6)
    # The chain rolls until every owed die is paid, or until the cap.
    owed = sixes + roll.explosive_dice.count(6)
    if len(roll.explosive_dice) < crit_rate:
        assert len(roll.explosive_dice) == owed
    assert roll.hits == sum(f >= 4 for f in roll.attack_dice)
    assert roll.glitches == roll.attack_dice.count(1)
    assert roll.explosive_hits == sum(f >= 4 for f in roll.explosive_dice)
    assert roll.defender_hits == sum(f >= 4 for f in roll.evasion_dice)
    assert roll.landed == (roll.hits > roll.defender_hits)
    assert roll.critical == (
        roll.landed and roll.hits + roll.explosive_hits >= roll.defender_hits + 5
    )
    assert roll.complication == (roll.glitches >= 1 and roll.glitches >= roll.hits)


@given(st.integers(0, 30), st.integers(0, 20), st.integers(0, 20), st.integers(0, 2**32))
def test_the_engines_fast_roll_draws_exactly_what_the_die_by_die_roll_draws(
    accuracy, evasion, crit_rate, seed
):
    slow, fast = random.Random(seed), random.Random(seed)
    roll = roll_attack_reference(slow, accuracy, evasion, crit_rate)
    attack, extra, evade, *counts = roll_faces(fast, accuracy, evasion, crit_rate)
    assert (tuple(attack), tuple(extra), tuple(evade)) == (
        roll.attack_dice, roll.explosive_dice, roll.evasion_dice)  # fmt: skip
    assert counts == [roll.hits, roll.glitches, roll.explosive_hits, roll.defender_hits]
    # The same numbers were drawn: both generators go on in step.
    assert slow.getstate() == fast.getstate()


@given(st.integers(0, 30), st.integers(0, 20), st.integers(0, 20), st.integers(0, 2**32))
def test_roll_attack_records_what_the_die_by_die_roll_rolls(accuracy, evasion, crit_rate, seed):
    assert roll_attack(random.Random(seed), accuracy, evasion, crit_rate) == (
        roll_attack_reference(random.Random(seed), accuracy, evasion, crit_rate)
    )


def test_the_same_seed_rolls_the_same_dice():
    assert roll_attack(random.Random(7), 8, 4, 3) == roll_attack(random.Random(7), 8, 4, 3)


@pytest.mark.parametrize(("accuracy", "evasion", "crit_rate"), [(6, 4, 2), (10, 6, 5), (3, 3, 1)])
def test_the_sampler_agrees_with_the_exact_odds(accuracy, evasion, crit_rate):
    rng = random.Random(20261129 + accuracy)
    n = 40_000
    rolls = [roll_attack(rng, accuracy, evasion, crit_rate) for _ in range(n)]
    odds = attack_odds(accuracy, evasion, crit_rate)
    for got, p in (
        (sum(r.landed for r in rolls), odds.p_land),
        (sum(r.critical for r in rolls), odds.p_critical),
        (sum(r.complication for r in rolls), odds.p_complication),
    ):
        # Five binomial standard deviations: a real disagreement fails, noise does not.
        sigma = sqrt(n * float(p) * (1 - float(p)))
        assert abs(got - n * float(p)) <= 5 * sigma + 1


def test_expected_damage_weighs_each_outcome_by_its_exact_chance():
    odds = attack_odds(6, 4, 2)
    mean = expected_damage(
        power=6, stat=5, stab=True, type_multiplier=Fraction(3, 2), mitigation=4,
        accuracy=6, evasion=4, crit_rate=2,
    )  # fmt: skip
    # Plain 15; crit floor(29.7 - 4) = 25; complication floor(9.9 - 4) = 5;
    # both floor(14.85 - 4) = 10.
    by_outcome = {(False, False): 15, (True, False): 25, (False, True): 5, (True, True): 10}
    assert mean == sum(p * by_outcome[(c, k)] for c, k, p in odds.outcomes())
    assert 0 < mean < 25


@given(st.integers(0, 30), st.integers(0, 20), st.integers(0, 20), st.integers(0, 2**32))
def test_summary_modes_roll_counts_what_the_fast_roll_rolls_and_draws_the_same(
    accuracy, evasion, crit_rate, seed
):
    faces, counts = random.Random(seed), random.Random(seed)
    *_, hits, glitches, xhits, dhits = roll_faces(faces, accuracy, evasion, crit_rate)
    assert roll_counts(counts, accuracy, evasion, crit_rate) == (hits, glitches, xhits, dhits)
    assert faces.getstate() == counts.getstate()
