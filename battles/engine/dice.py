"""R4: the attack roll, sampled with an injected random.Random."""

import random
from dataclasses import dataclass
from typing import Final

HIT_MIN: Final = 4  # a 4, 5 or 6 is a hit
GLITCH: Final = 1
EXPLODE: Final = 6


def d6(rng: random.Random) -> int:
    # random() is several times faster than randint() and just as uniform for six faces;
    # the battle engine rolls thousands of dice per battle.
    return int(rng.random() * 6) + 1


# A pool of dice is rolled up to five at a time: one random() picks one of the 6**k equally
# likely outcomes of k dice (k <= 5), as int(random() * 6) picks one face. Each entry of
# _GROUPS[k] is (faces, hits, glitches, sixes); outcome 6**k - 1 is all sixes, 0 all ones.
GROUP: Final = 5


def _outcomes(k: int) -> list[tuple]:
    out = []
    for index in range(6**k):
        faces = []
        for _ in range(k):
            index, digit = divmod(index, 6)
            faces.append(digit + 1)
        rolled = tuple(reversed(faces))
        hits = sum([1 for f in rolled if f >= 4])
        out.append((rolled, hits, rolled.count(1), rolled.count(6)))
    return out


_GROUPS: Final = [_outcomes(k) for k in range(GROUP + 1)]
_SIZES: Final = [6**k for k in range(GROUP + 1)]
# The engine's tables: a group's faces, and its counts packed in one int (hits, glitches
# << 16, sixes << 32), so a pool's counts are one sum per group, unpacked once.
_FACES: Final = [tuple(o[0] for o in outcomes) for outcomes in _GROUPS]
_COUNTS: Final = [tuple(h | g << 16 | x << 32 for _, h, g, x in outcomes) for outcomes in _GROUPS]
_HITS: Final = [tuple(o[1] for o in outcomes) for outcomes in _GROUPS]
MASK: Final = 0xFFFF  # a pool of up to 65,535 dice
# How a pool of n dice is drawn: ((faces, counts, hits, 6**k), ...), five at a time, the
# rest last.
_POOLS: Final[dict[int, tuple]] = {}


def _pool(count: int) -> tuple:
    plan = _POOLS.get(count)
    if plan is None:
        steps = []
        left = count
        while left > 0:
            k = left if left < GROUP else GROUP
            steps.append((_FACES[k], _COUNTS[k], _HITS[k], _SIZES[k]))
            left -= k
        plan = _POOLS[count] = tuple(steps)
    return plan


for _n in range(31):
    _pool(_n)


def roll_dice(rng: random.Random, count: int) -> tuple[int, ...]:
    """`count` dice, each face uniform and independent (R4)."""
    draw = rng.random
    faces: tuple[int, ...] = ()
    while count > 0:
        k = count if count < GROUP else GROUP
        faces += _GROUPS[k][int(draw() * _SIZES[k])][0]
        count -= k
    return faces


def shuffle(rng: random.Random, items: list) -> None:
    """Fisher-Yates with one random() per card, as the dice draw theirs (Random.shuffle
    draws bits, and rejects some, for each card: several times slower)."""
    draw = rng.random
    for i in range(len(items) - 1, 0, -1):
        j = int(draw() * (i + 1))
        items[i], items[j] = items[j], items[i]


def count_hits(faces) -> int:
    return sum([1 for f in faces if f >= HIT_MIN])


@dataclass(frozen=True, slots=True)
class AttackRoll:
    attack_dice: tuple[int, ...]
    explosive_dice: tuple[int, ...]
    evasion_dice: tuple[int, ...]
    hits: int
    glitches: int
    explosive_hits: int
    defender_hits: int
    landed: bool
    critical: bool
    complication: bool


def explode(rng: random.Random, sixes: int, crit_rate: int) -> tuple[int, ...]:
    """R4 step 2: one extra die per 6, a 6 on an extra die earns another, at most Crit Rate."""
    extra: list[int] = []
    pending = sixes
    while pending > 0 and len(extra) < crit_rate:
        face = d6(rng)
        extra.append(face)
        pending -= 1
        if face == EXPLODE:
            pending += 1
    return tuple(extra)


def judge(hits: int, glitches: int, explosive_hits: int, defender_hits: int):
    """R4 steps 4-6: (landed, critical, complication) from the counted dice."""
    landed = hits > defender_hits
    critical = landed and hits + explosive_hits >= defender_hits + 5
    complication = glitches >= 1 and glitches >= hits
    return landed, critical, complication


def _check(accuracy, evasion, crit_rate) -> None:
    for name, value in (("accuracy", accuracy), ("evasion", evasion), ("crit_rate", crit_rate)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a whole number of dice, 0 or more; got {value!r}")


def roll_attack(rng: random.Random, accuracy: int, evasion: int, crit_rate: int) -> AttackRoll:
    """Roll one attack exactly per R4: attack dice, then explosive dice, then evasion dice.

    The engine's own roll (roll_faces), checked and recorded; `roll_attack_reference` is the
    same roll written die by die, and a test holds the two to the same draws."""
    _check(accuracy, evasion, crit_rate)
    attack, extra, evade, hits, glitches, xhits, dhits = roll_faces(
        rng, accuracy, evasion, crit_rate
    )
    landed = hits > dhits
    return AttackRoll(
        attack_dice=tuple(attack),
        explosive_dice=tuple(extra),
        evasion_dice=tuple(evade),
        hits=hits,
        glitches=glitches,
        explosive_hits=xhits,
        defender_hits=dhits,
        landed=landed,
        critical=landed and hits + xhits >= dhits + 5,
        complication=glitches >= 1 and glitches >= hits,
    )


def roll_attack_reference(rng: random.Random, accuracy: int, evasion: int, crit_rate: int):
    """R4's roll in the plainest words: the definition roll_faces must draw exactly as."""
    _check(accuracy, evasion, crit_rate)
    attack = roll_dice(rng, accuracy)
    extra = explode(rng, attack.count(EXPLODE), crit_rate)
    evade = roll_dice(rng, evasion)
    hits = count_hits(attack)
    glitches = attack.count(GLITCH)
    explosive_hits = count_hits(extra)
    defender_hits = count_hits(evade)
    landed, critical, complication = judge(hits, glitches, explosive_hits, defender_hits)
    return AttackRoll(
        attack_dice=attack,
        explosive_dice=extra,
        evasion_dice=evade,
        hits=hits,
        glitches=glitches,
        explosive_hits=explosive_hits,
        defender_hits=defender_hits,
        landed=landed,
        critical=critical,
        complication=complication,
    )


def roll_faces(rng: random.Random, accuracy: int, evasion: int, crit_rate: int) -> tuple:
    """roll_attack's dice for the engine's hot path, without its checks or its record.

    Draws exactly the numbers roll_attack draws, in the same order (attack dice, explosive
    dice, evasion dice), so a seed rolls the same faces either way; returns
    (attack_dice, explosive_dice, evasion_dice, hits, glitches, explosive_hits,
    defender_hits) with the dice as lists, ready for the log. The caller passes whole
    numbers of dice, 0 or more (the engine's come from R3's stats).
    """
    draw = rng.random
    attack = []
    counts = 0
    for faces, packed, _, size in _POOLS.get(accuracy) or _pool(accuracy):
        index = int(draw() * size)
        attack += faces[index]
        counts += packed[index]
    sixes = counts >> 32
    extra = []
    xhits = 0
    if sixes and crit_rate > 0:
        # R4 step 2, as explode(): each 6 pays for its own replacement, Crit Rate at most.
        rolled = 0
        while sixes > 0 and rolled < crit_rate:
            face = int(draw() * 6) + 1
            extra.append(face)
            rolled += 1
            if face >= HIT_MIN:
                xhits += 1
            if face != EXPLODE:
                sixes -= 1
    evade = []
    dhits = 0
    for faces, _, hits, size in _POOLS.get(evasion) or _pool(evasion):
        index = int(draw() * size)
        evade += faces[index]
        dhits += hits[index]
    return attack, extra, evade, counts & MASK, counts >> 16 & MASK, xhits, dhits


def roll_counts(rng: random.Random, accuracy: int, evasion: int, crit_rate: int) -> tuple:
    """roll_faces without the faces, for summary mode: the same draws, in the same order,
    and (hits, glitches, explosive_hits, defender_hits)."""
    draw = rng.random
    counts = 0
    for _, packed, _, size in _POOLS.get(accuracy) or _pool(accuracy):
        counts += packed[int(draw() * size)]
    sixes = counts >> 32
    xhits = 0
    if sixes and crit_rate > 0:
        rolled = 0
        while sixes > 0 and rolled < crit_rate:
            face = int(draw() * 6)  # 0-5: a hit from 3 (a 4), another die owed at 5 (a 6)
            rolled += 1
            if face >= 3:
                xhits += 1
                if face == 5:
                    continue
            sixes -= 1
    dhits = 0
    for _, _, hits, size in _POOLS.get(evasion) or _pool(evasion):
        dhits += hits[int(draw() * size)]
    return counts & MASK, counts >> 16 & MASK, xhits, dhits
