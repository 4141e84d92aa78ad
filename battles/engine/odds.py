"""R4's odds, computed exactly by enumeration and convolution, never by sampling.

Weights are whole numbers over a known denominator (6^n for n dice, 2^e for the
defender, whose dice hit half the time) until the last step, so the result is an exact
Fraction and the work stays in fast integer arithmetic.
"""

from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from math import comb, factorial

from .damage import damage


@dataclass(frozen=True, slots=True)
class AttackOdds:
    accuracy: int
    evasion: int
    crit_rate: int
    p_land: Fraction
    p_critical: Fraction
    # Whether or not the attack lands (on a miss it is only logged, R4 step 6).
    p_complication: Fraction
    # The joint chances that expected damage needs.
    p_land_complication: Fraction
    p_critical_complication: Fraction

    def outcomes(self) -> list[tuple[bool, bool, Fraction]]:
        """(critical, complication, probability) for each way a landed attack can go."""
        crit_comp = self.p_critical_complication
        crit_only = self.p_critical - crit_comp
        comp_only = self.p_land_complication - crit_comp
        plain = self.p_land - crit_only - comp_only - crit_comp
        return [(False, False, plain), (True, False, crit_only), (False, True, comp_only),
                (True, True, crit_comp)]  # fmt: skip


def _check(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a whole number of dice, 0 or more; got {value!r}")
    return value


@cache
def _attack_faces(n: int) -> dict[tuple[int, int, int, bool], int]:
    """Ways (out of 6^n) to roll H hits, S sixes, and whether G glitches make a complication.

    Faces: 1 glitch (1 way), 2-3 blank (2 ways), 4-5 plain hit (2 ways), 6 hit that explodes.
    Keyed (H, S, complication) because that is all the later steps look at.
    """
    ways: dict[tuple[int, int, bool], int] = {}
    fact_n = factorial(n)
    for g in range(n + 1):
        for s in range(n - g + 1):
            for h in range(n - g - s + 1):
                b = n - g - s - h
                count = (fact_n // (factorial(g) * factorial(s) * factorial(h) * factorial(b))) * (
                    2**b * 2**h
                )
                hits = h + s
                key = (hits, s, g >= 1 and g >= hits)
                ways[key] = ways.get(key, 0) + count
    return ways


@cache
def _explosive_tail(sixes: int, crit_rate: int) -> tuple[int, ...]:
    """tail[k] = ways (out of 6^crit_rate) that the explosive dice show at least k hits.

    The chain rolls until `sixes` dice have come up other than 6 (each 6 pays for its own
    replacement) or Crit Rate dice are rolled. A chain that stops early is weighted by the
    6^(rolls not made) sequences it stands for. Of the non-6 faces, 4-5 (2 ways) are hits
    and 1-3 (3 ways) are not; every extra 6 is a hit.
    """
    c = crit_rate
    final = [0] * (c + 1)
    if sixes == 0:
        final[0] = 6**c
    else:
        # Stopped at roll r by the last owed non-6 (r - sixes of the rolls were 6s).
        for r in range(sixes, c + 1):
            arrangements = comb(r - 1, sixes - 1) * 6 ** (c - r)
            for j in range(sixes + 1):
                final[r - sixes + j] += arrangements * comb(sixes, j) * 2**j * 3 ** (sixes - j)
        # Ran into the cap with only k < sixes non-6 faces among the c rolls.
        for k in range(min(sixes, c + 1)):
            arrangements = comb(c, k)
            for j in range(k + 1):
                final[c - k + j] += arrangements * comb(k, j) * 2**j * 3 ** (k - j)
    tail = [0] * (c + 2)
    for k in range(c, -1, -1):
        tail[k] = tail[k + 1] + final[k]
    return tuple(tail)


@lru_cache(maxsize=4096)
def attack_odds(accuracy: int, evasion: int, crit_rate: int) -> AttackOdds:
    """Exact chances to land, to crit and of a complication (R4) for these dice pools."""
    n, e, c = (
        _check("accuracy", accuracy),
        _check("evasion", evasion),
        _check("crit_rate", crit_rate),
    )
    defender = [comb(e, d) for d in range(e + 1)]  # ways out of 2^e
    below = [0] * (n + 2)  # below[h] = ways the defender rolls fewer than h hits
    for h in range(1, n + 2):
        below[h] = below[h - 1] + (defender[h - 1] if h - 1 <= e else 0)
    full_tail = 6**c

    land = crit = comp = land_comp = crit_comp = 0
    for (hits, sixes, complication), w in _attack_faces(n).items():
        if complication:
            comp += w
        if hits == 0:
            continue
        landed_w = w * below[hits]
        # Critical: H + X >= D + 5, i.e. X >= D + 5 - H, for every D the attack beats.
        tail = _explosive_tail(sixes, c)
        crit_ways = 0
        for d in range(min(hits, e + 1)):
            need = d + 5 - hits
            crit_ways += defender[d] * (
                full_tail if need <= 0 else (tail[need] if need <= c else 0)
            )
        crit_w = w * crit_ways
        land += landed_w
        crit += crit_w
        if complication:
            land_comp += landed_w
            crit_comp += crit_w

    attack_total = 6**n
    land_total = attack_total * 2**e
    crit_total = land_total * full_tail
    return AttackOdds(
        accuracy=n,
        evasion=e,
        crit_rate=c,
        p_land=Fraction(land, land_total),
        p_critical=Fraction(crit, crit_total),
        p_complication=Fraction(comp, attack_total),
        p_land_complication=Fraction(land_comp, land_total),
        p_critical_complication=Fraction(crit_comp, crit_total),
    )


def expected_damage(
    *,
    power: int,
    stat: int,
    stab,
    type_multiplier,
    mitigation: int,
    accuracy: int,
    evasion: int,
    crit_rate: int,
) -> Fraction:
    """The exact mean damage (R5) of one attack, a miss counting as 0."""
    odds = attack_odds(accuracy, evasion, crit_rate)
    return sum(
        (
            p
            * damage(
                power,
                stat,
                stab=stab,
                type_multiplier=type_multiplier,
                critical=critical,
                complication=complication,
                mitigation=mitigation,
            )
            for critical, complication, p in odds.outcomes()
        ),
        Fraction(0),
    )
