"""The lab's numbers, in pure Python: seeds, Wilson intervals and mergeable tallies.

A tally is a JSON-able dict that adds up battle summaries (the shape of
`battles.engine.summary`). Two tallies merge into the tally of both, whatever the order,
so chunks run by different workers combine into the same result as one long run.

Per combatant a tally keeps, beside the sums, `damage_squares`: the sum over battles of
the square of its damage that battle, so that the mean damage a battle gets a 95% interval
(`mean_interval`). Sums of whole numbers, so any order of merging gives the same tally.
Tallies stored before it was kept lack it; a merge with such a tally drops it everywhere
(a partial sum of squares would give a wrong interval), and the verdict then names no
difference-maker (battles.lab.verdict).

`replayed`: what `battles.lab.verdict.log_counts` counts in the full logs of the lab's
first REPLAYED battles (battles 0 to REPLAYED - 1; the runner plays those with a log), so
the Type edge is counted from real attacks rather than estimated. Older tallies lack it.
"""

import hashlib
import math

Z95 = 1.959963984540054  # the 97.5% point of the standard normal: a two-sided 95% interval
SEED_SPACE = 2**32  # battle seeds fit the Battle form's range (0 to 2**32 - 1)

SIDE_KEYS = (
    "resonance_gained",
    "resonance_spent",
    "archon_summons",
    "archon_dismissals",
    "archon_rounds",
    "tier2_plays",
    "tier3_plays",
)
COMBATANT_KEYS = ("damage_dealt", "damage_taken", "healing_done", "knockouts", "rounds_on_field")
CARD_KEYS = ("played", "attacks", "landed", "criticals", "damage", "healing")
# Battles 0..REPLAYED-1 of every matchup are played with a full log and counted in
# `replayed`: enough attacks (a few thousand a side) for the Type edge. A battle with its
# full log costs about 1.5 times a summarized one, so this adds about a tenth to a lab of
# 1,000 greedy battles and nothing one can measure to a lookahead lab.
REPLAYED = 200


def battle_seed(lab_seed: int, i: int) -> int:
    """Battle i's seed: the first 4 bytes (big-endian) of SHA-256 of "memeyori-lab/1:S:i".

    A hash rather than S + i so that neighbouring labs (seed 7 and seed 8) share no battles,
    and it depends on nothing but the two numbers, so any machine recomputes it."""
    digest = hashlib.sha256(f"memeyori-lab/1:{lab_seed}:{i}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion; (0, 1) when there is nothing to go on."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # At 0 or n successes the formula lands on 0 or 1 but float rounding may miss it.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def newcombe_difference(
    x1: int, n1: int, x2: int, n2: int, z: float = Z95
) -> tuple[float, float, float]:
    """p1 - p2 with Newcombe's hybrid score interval (his method 10, from two Wilson
    intervals). It treats the samples as independent; the lab's "what if" runs both on the
    same seeds, which correlates them, so the interval is on the cautious (wide) side."""
    p1 = x1 / n1 if n1 else 0.0
    p2 = x2 / n2 if n2 else 0.0
    l1, u1 = wilson(x1, n1, z)
    l2, u2 = wilson(x2, n2, z)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return (d, max(-1.0, low), min(1.0, high))


def empty_tally() -> dict:
    return {
        "battles": 0,
        "wins": [0, 0],
        "draws": 0,
        "rounds": {},  # str(rounds) -> battles that lasted that long
        "rounds_sum": 0,
        "archon_battles": [0, 0],  # battles in which the side summoned its Archon
        "sides": [dict.fromkeys(SIDE_KEYS, 0), dict.fromkeys(SIDE_KEYS, 0)],
        "combatants": {},
        "cards": {},
        "closest": None,
        "best_win": [None, None],
        "replayed": empty_counts(),
    }


def empty_counts() -> dict:
    """The shape of `battles.lab.verdict.log_counts`, counting no battle."""
    return {"battles": 0, "attacks": [0, 0], "weak": [0, 0], "pairs": [{}, {}],
            "first": [0, 0]}  # fmt: skip


def merge_counts(a: dict, b: dict) -> dict:
    """Two `log_counts` added up; neither argument changes."""
    out = empty_counts()
    for t in (a, b):
        out["battles"] += t["battles"]
        for s in (0, 1):
            for k in ("attacks", "weak", "first"):
                out[k][s] += t[k][s]
            _add_counts(out["pairs"][s], t["pairs"][s])
    return out


def mean_interval(total: int, squares: int, n: int, z: float = Z95) -> tuple[float, float, float]:
    """The mean of n per-battle amounts from their sum and sum of squares, with its 95%
    interval by the normal approximation (mean ± z·s/√n, s the sample standard deviation).
    With a hundred battles or more (the lab's least) the mean is close to normal."""
    if n <= 0:
        return (0.0, 0.0, 0.0)
    mean = total / n
    if n < 2:
        return (mean, mean, mean)
    # n·Σx² - (Σx)² in whole numbers: exact, and never below 0 by rounding.
    spread = max(0, n * squares - total * total)
    half = z * math.sqrt(spread / (n * (n - 1)) / n)
    return (mean, mean - half, mean + half)


def _pick(old, new):
    """The candidate with the smaller key; keys end in the battle index, so never a tie."""
    if old is None:
        return new
    if new is None:
        return old
    return new if new["key"] < old["key"] else old


def _candidate(summary: dict, i: int, key: list) -> dict:
    return {
        "i": i,
        "seed": summary["seed"],
        "winner": summary["winner"],
        "rounds": summary["rounds"],
        "hp_left": summary["hp_left"],
        "key": key,
    }


def add_summary(tally: dict, summary: dict, i: int) -> None:
    """Count battle i (its summary) into the tally, in place."""
    tally["battles"] += 1
    winner = summary["winner"]
    rounds = summary["rounds"]
    hp = summary["hp_left"]
    if winner is None:
        tally["draws"] += 1
    else:
        tally["wins"][winner] += 1
        # Closest: the winner kept the smallest share of its HP; then the longer battle.
        tally["closest"] = _pick(tally["closest"], _candidate(summary, i, [hp[winner], -rounds, i]))
        # Each side's most one-sided win: the most HP kept; then the shorter battle.
        tally["best_win"][winner] = _pick(
            tally["best_win"][winner], _candidate(summary, i, [-hp[winner], rounds, i])
        )
    key = str(rounds)
    tally["rounds"][key] = tally["rounds"].get(key, 0) + 1
    tally["rounds_sum"] += rounds
    for s, side in enumerate(summary["sides"]):
        totals = tally["sides"][s]
        for k in SIDE_KEYS:
            totals[k] += side[k]
        if side["archon_summons"]:
            tally["archon_battles"][s] += 1
    for cid, c in summary["combatants"].items():
        totals = tally["combatants"].get(cid)
        if totals is None:
            totals = tally["combatants"][cid] = dict.fromkeys((*COMBATANT_KEYS, "knocked_out"), 0)
        for k in COMBATANT_KEYS:
            totals[k] += c[k]
        if c["knocked_out"]:
            totals["knocked_out"] += 1
        totals["damage_squares"] = totals.get("damage_squares", 0) + c["damage_dealt"] ** 2
    for card_id, c in summary["cards"].items():
        totals = tally["cards"].get(card_id)
        if totals is None:
            totals = tally["cards"][card_id] = dict.fromkeys(CARD_KEYS, 0)
        for k in CARD_KEYS:
            totals[k] += c[k]


def _add_counts(into: dict, more: dict) -> None:
    for k, v in more.items():
        into[k] = into.get(k, 0) + v


def has_squares(tally: dict) -> bool:
    """Whether the tally keeps every combatant's `damage_squares` (those stored before it
    was kept do not)."""
    return all("damage_squares" in c for c in tally["combatants"].values())


def merge(a: dict, b: dict) -> dict:
    """The tally of both; neither argument changes. A tally stored before a key was kept
    merges as well: `damage_squares` is dropped unless both keep it, and `replayed` is
    kept only when both have it."""
    out = empty_tally()
    for t in (a, b):
        out["battles"] += t["battles"]
        out["draws"] += t["draws"]
        out["rounds_sum"] += t["rounds_sum"]
        for s in (0, 1):
            out["wins"][s] += t["wins"][s]
            out["archon_battles"][s] += t["archon_battles"][s]
            _add_counts(out["sides"][s], t["sides"][s])
            out["best_win"][s] = _pick(out["best_win"][s], t["best_win"][s])
        _add_counts(out["rounds"], t["rounds"])
        for group in ("combatants", "cards"):
            for key, counts in t[group].items():
                _add_counts(out[group].setdefault(key, {}), counts)
        out["closest"] = _pick(out["closest"], t["closest"])
    if not (has_squares(a) and has_squares(b)):
        for counts in out["combatants"].values():
            counts.pop("damage_squares", None)
    if "replayed" in a and "replayed" in b:
        out["replayed"] = merge_counts(a["replayed"], b["replayed"])
    else:
        del out["replayed"]
    return out


def merge_all(tallies) -> dict:
    out = empty_tally()
    for t in tallies:
        out = merge(out, t)
    return out


def upset(tally: dict) -> dict | None:
    """The biggest upset: the underdog's (the side with fewer wins) most one-sided win.

    None when the sides won equally often or the underdog never won."""
    a, b = tally["wins"]
    if a == b:
        return None
    return tally["best_win"][0 if a < b else 1]


def rate(x: int, n: int) -> dict:
    low, high = wilson(x, n)
    return {"count": x, "rate": x / n if n else 0.0, "low": low, "high": high}


def outcome(tally: dict) -> dict:
    """Wins, draws and losses of side A with their 95% Wilson intervals."""
    n = tally["battles"]
    return {
        "battles": n,
        "a": rate(tally["wins"][0], n),
        "draw": rate(tally["draws"], n),
        "b": rate(tally["wins"][1], n),
    }


def length_histogram(tally: dict) -> list[tuple[int, int]]:
    return sorted((int(r), count) for r, count in tally["rounds"].items())


def round_percentile(tally: dict, q: float) -> int:
    """The smallest length in rounds that at least q of the battles did not exceed."""
    need = q * tally["battles"]
    seen = 0
    for r, count in length_histogram(tally):
        seen += count
        if seen >= need:
            return r
    return 0
