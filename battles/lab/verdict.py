"""The lab's answer in words (issue 19.3): who wins how often, with the interval, and why.

Pure Python, no Django: it reads a matchup's tally (battles.lab.stats), its roster (names,
kinds and Types by log id, battles.lab.runner.roster) and its snapshot (the Types' chart
and the starters' Initiative), so every reason is a number the lab already has, said the
way a player would say it. The results page puts `matchup()` (or `field()` against the
field) first, and a "what if" puts `difference()` beside it.

Words chosen here (the issue is silent):
- "Decided battles" leave the draws out, so "wins 64%" and its Wilson interval are about
  who wins when someone does; the draws get their own clause when they are 5% or more.
- Evenly matched: the interval holds 50%. Otherwise the side that wins more often leads
  the sentence, side A or side B.
- A reason is given only when its numbers favour one side clearly (the thresholds below),
  and each says which battles its numbers count (issue 32.5):
  - a fighter "makes the difference" only when a test singles it out: the 95% interval
    of its mean damage a battle (mean ± 1.96 standard errors, from the tally's sum and
    sum of squares of each fighter's damage per battle, `stats.mean_interval`) lies wholly
    above the interval of every other fighter on either side, and the sentence gives its
    interval and the highest end among the others. Never in a mirror match (the same party
    on both sides, names and codes aside): there no fighter can make the difference, so
    none is named even when chance separates two intervals. Else the biggest hitters of
    both sides are named side by side with their intervals, and no one is said to make
    the difference. A tally stored before the sums of squares were kept cannot be tested:
    it names no one, and says why;
  - "acts first" only when every starter of the side has a higher round-1 Initiative
    (R9.3) than every starter of the other; else, when one starter outruns all the other
    side's, that starter is named;
  - Resonance by its counts: what a side gains and spends a battle, and how much of it on
    Tiers (4 or 8 each), never "spends it on Tiers" when it spends little;
  - the Type edge from counted hits on weaknesses when the caller has them from battle
    logs: the lab counts (`log_counts`) the logs of its first `stats.REPLAYED` battles
    as it runs them ("in the first 200 battles, replayed with their logs"), and names the
    edge when the shares differ by `TYPE_EDGE` and the 95% interval of the difference
    (Newcombe's, from two Wilson intervals) does not reach 0; for a tally
    stored before that, the share is an estimate from the Types on the field (the tally
    does not count targets), and says so;
  - the headline counts decided battles (draws left out); a "what if" counts all battles,
    a draw as not won; each sentence says which.
"""

from ..engine.words import plural, possessive
from . import stats

# A Type edge: one side's attacks hit a weakness this much more often (a share of attacks).
TYPE_EDGE = 0.15
# Acting first: one side's starters move first in this much more of the pairs.
SPEED_EDGE = 0.3
# Archon use: summoned in this much larger a share of battles.
ARCHON_EDGE = 0.25
DRAWS_WORTH_SAYING = 0.05
# Keys of a side in the snapshot that say nothing about how it fights (a mirror match may
# be one party against itself or against a copy of it).
_NOT_FIGHTING = ("name", "code", "owner", "portrait")


def whole_percent(x: float) -> str:
    """64% for 0.6412; never 100% or 0% unless it is all or nothing."""
    if x >= 1:
        return "100%"
    if x <= 0:
        return "0%"
    return f"{min(99, max(1, round(100 * x)))}%"


def interval(low: float, high: float) -> str:
    """(62–66%): whole percents, the low end without its sign; one decimal when whole
    percents would print the same number twice (99.2–99.9%)."""
    lo, hi = whole_percent(low)[:-1], whole_percent(high)
    if lo == hi[:-1]:
        lo, hi = _tenths(low), _tenths(high) + "%"
    return f"({lo}–{hi})"


def _tenths(x: float) -> str:
    if x >= 1 or x <= 0:
        return f"{100 * x:.0f}"
    return f"{min(99.9, max(0.1, round(100 * x, 1))):.1f}"


def _number(x: float) -> str:
    """Damage a battle as a player reads it: 179, 12, 4.5, 0.8."""
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def _per(total: float, n: int) -> float:
    return total / n if n else 0.0


def headline(tally: dict, names: tuple[str, str]) -> dict:
    """Who wins how often, over the decided battles, with the 95% Wilson interval."""
    a, b = tally["wins"]
    decided = a + b
    n = tally["battles"]
    draws = tally["draws"]
    if decided == 0:
        text = f"No battle had a winner: all {plural(n, 'battle')} were draws."
        return {"text": text, "winner": None, "even": True, "rate": None}
    low, high = stats.wilson(a, decided)
    rate = a / decided
    if low <= 0.5 <= high:
        winner, even = None, True
        text = (
            f"{names[0]} and {names[1]} are evenly matched: {names[0]} wins "
            f"{whole_percent(rate)} of decided battles {interval(low, high)}."
        )
    else:
        winner, even = (0, False) if rate > 0.5 else (1, False)
        if winner == 1:
            rate, low, high = 1 - rate, 1 - high, 1 - low
        text = (
            f"{names[winner]} wins {whole_percent(rate)} of decided battles "
            f"{interval(low, high)} against {names[1 - winner]}."
        )
    if n and draws / n >= DRAWS_WORTH_SAYING:
        text = text[:-1] + f"; {whole_percent(draws / n)} of all battles are draws."
    return {"text": text, "winner": winner, "even": even, "rate": rate}


def _side_of(roster: dict, cid: str) -> int:
    return roster["combatants"].get(cid, {}).get("side", 0 if cid.startswith("A") else 1)


def best_fighter(tally: dict, roster: dict, side: int) -> dict | None:
    """The side's combatant that deals the most damage, with its share and its best card."""
    n = tally["battles"]
    mine = {cid: c for cid, c in tally["combatants"].items() if _side_of(roster, cid) == side}
    total = sum(c["damage_dealt"] for c in mine.values())
    if not mine or total <= 0:
        return None
    cid = max(sorted(mine), key=lambda k: mine[k]["damage_dealt"])
    c = mine[cid]
    cards = {k: v for k, v in tally["cards"].items() if k.startswith(cid + ".") and v["damage"]}
    card = max(sorted(cards), key=lambda k: cards[k]["damage"]) if cards else None
    return {
        "id": cid,
        "name": roster["combatants"].get(cid, {}).get("name", cid),
        "damage": _per(c["damage_dealt"], n),
        "share": c["damage_dealt"] / total,
        "knockouts": _per(c["knockouts"], n),
        "card": roster["cards"].get(card, {}).get("name", card) if card else None,
        "card_damage": _per(cards[card]["damage"], n) if card else 0.0,
    }


def _without(value, keys):
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


def mirror(snapshot: dict | None) -> bool:
    """Whether both sides field the same party (its name, codes and portraits aside): then
    every fighter has a twin on the other side and none can make the difference."""
    if not snapshot or len(snapshot.get("sides", ())) != 2:
        return False
    a, b = (_without(side, _NOT_FIGHTING) for side in snapshot["sides"])
    return a == b


def damage_interval(tally: dict, cid: str) -> tuple[float, float, float] | None:
    """A fighter's mean damage a battle with its 95% interval; None for a tally stored
    before the sums of squares were kept."""
    c = tally["combatants"][cid]
    if "damage_squares" not in c:
        return None
    return stats.mean_interval(c["damage_dealt"], c["damage_squares"], tally["battles"])


def _name(roster: dict, cid: str) -> str:
    return roster["combatants"].get(cid, {}).get("name", cid)


def singled_out(tally: dict, roster: dict, fighter: dict, snapshot: dict | None = None):
    """The test that names a difference-maker: the 95% interval of `fighter`'s mean damage
    a battle lies wholly above the interval of every other fighter, on either side, and
    the match is no mirror. Returns {"low", "high", "next", "next_high"} (the other
    fighter whose interval reaches highest, and how high) when it does, else None."""
    if fighter["damage"] <= 0 or mirror(snapshot) or not stats.has_squares(tally):
        return None
    _, low, high = damage_interval(tally, fighter["id"])
    others = [(damage_interval(tally, cid)[2], cid) for cid in sorted(tally["combatants"])
              if cid != fighter["id"]]  # fmt: skip
    if not others:
        return None
    next_high, next_id = max(others)
    if low <= next_high:
        return None
    return {"low": low, "high": high, "next": _name(roster, next_id), "next_high": next_high}


def _span(low: float, high: float) -> str:
    return f"{_number(max(0.0, low))}–{_number(high)}"


def _hitters_reason(tally: dict, fighters: list, names: tuple[str, str], why: str) -> str:
    """No one fighter makes the difference: the biggest hitter of each side, side by side,
    with its 95% interval when the tally has what it takes."""
    parts = []
    for s, f in enumerate(fighters):
        if not f:
            continue
        found = damage_interval(tally, f["id"])
        span = f" (95% interval {_span(found[1], found[2])})" if found else ""
        parts.append(
            f"{f['name']} deals {_number(f['damage'])} damage a battle{span} for {names[s]}"
        )
    return f"No one fighter makes the difference ({why}): {' and '.join(parts)}."


def _no_one_why(tally: dict, snapshot: dict | None) -> str:
    if mirror(snapshot):
        return "the same party fights on both sides, so every fighter has a twin"
    if not stats.has_squares(tally):
        return (
            "this lab ran before the lab kept what an interval of damage needs; "
            "run it again to test for one"
        )
    return "no fighter's 95% interval of damage a battle lies above every other fighter's"


def _fighter_reason(f: dict, test: dict, n: int, side_name: str, enemy_name: str) -> str:
    text = (
        f"{f['name']} makes the difference: {_number(f['damage'])} damage a battle over all "
        f"{n:,} battle{'' if n == 1 else 's'}, {whole_percent(f['share'])} of "
        f"{possessive(side_name)}"
    )
    if f["card"]:
        text += (
            f", most of it with {f['card']}"
            if f["card_damage"] >= f["damage"] / 2
            else (f", {_number(f['card_damage'])} of it with {f['card']}")
        )
    if f["knockouts"] >= 0.5:
        text += f", and a hand in {_number(f['knockouts'])} knock-outs of {enemy_name}"
    return text + (
        f"; its 95% interval, {_span(test['low'], test['high'])} a battle, is above every "
        f"other fighter's (the highest of the others, {possessive(test['next'])}, reaches "
        f"{_number(test['next_high'])})."
    )


def _weak_shares(tally: dict, roster: dict, chart) -> tuple[list[float], list[list[str]]]:
    """Per side, about what share of its attacks hit a weakness (R6): each attack's card
    Type against the enemies weighted by their rounds on the field (the lab does not count
    targets), and the Types that make the most of it ("Frost against Verdant")."""
    weak = {(a, d) for a, d, effect in chart if effect == "weak"}
    field = [{}, {}]  # Type -> rounds on the field, per side
    for cid, c in tally["combatants"].items():
        info = roster["combatants"].get(cid)
        if info is not None:
            side = field[info["side"]]
            side[info["type"]] = side.get(info["type"], 0) + c["rounds_on_field"]
    shares, pairs = [], []
    for side in (0, 1):
        enemies = field[1 - side]
        time = sum(enemies.values())
        attacks = hits = 0.0
        made: dict[str, float] = {}
        for card_id, c in tally["cards"].items():
            info = roster["cards"].get(card_id)
            if info is None or info["side"] != side or not c["attacks"] or not time:
                continue
            attacks += c["attacks"]
            for d, rounds in enemies.items():
                if (info["type"], d) in weak:
                    part = c["attacks"] * rounds / time
                    hits += part
                    key = f"{info['type']} against {d}"
                    made[key] = made.get(key, 0) + part
        shares.append(hits / attacks if attacks else 0.0)
        pairs.append(sorted(made, key=lambda k: -made[k]))
    return shares, pairs


def log_counts(logs) -> dict:
    """What the verdict counts in full battle logs (memeyori-battle-log/2): per side, the
    attacks rolled and those on a weakness (R6), by card Type against target Type, and
    the rounds in which the side's first card resolved before the other side's."""
    out = {"battles": 0, "attacks": [0, 0], "weak": [0, 0], "pairs": [{}, {}],
           "first": [0, 0]}  # fmt: skip
    for log in logs:
        out["battles"] += 1
        sides = {c["id"]: (s, c["type"]) for s, side in enumerate(log["sides"])
                 for c in side["combatants"]}  # fmt: skip
        cards = {c["id"]: c["type"] for side in log["sides"] for f in side["combatants"]
                 for c in f["cards"]}  # fmt: skip
        seen_round = None
        for e in log["events"]:
            if e["kind"] == "play" and e["round"] != seen_round:
                seen_round = e["round"]
                out["first"][e["side"]] += 1
            if e["kind"] != "attack":
                continue
            side = sides[e["attacker"]][0]
            out["attacks"][side] += 1
            if e["effect"] == "weak":
                out["weak"][side] += 1
                key = f"{cards[e['card']]} against {sides[e['defender']][1]}"
                out["pairs"][side][key] = out["pairs"][side].get(key, 0) + 1
    return out


def _type_reason(tally, roster, chart, names, counts=None) -> tuple[int, str] | None:
    """An edge worth saying (TYPE_EDGE) and, from counted hits, one that chance alone would
    not give: the 95% interval of the two shares' difference does not reach 0."""
    if counts is not None:
        weak, attacks = counts["weak"], counts["attacks"]
        shares = [_per(weak[s], attacks[s]) for s in (0, 1)]
        pairs = [sorted(p, key=lambda k: (-p[k], k)) for p in counts["pairs"]]
        how = f"in the first {plural(counts['battles'], 'battle')}, replayed with their logs"
        about = ""
    else:
        shares, pairs = _weak_shares(tally, roster, chart)
        how = "by the Types on the field (the lab does not count targets)"
        about = "about "
    gap = shares[0] - shares[1]
    if abs(gap) < TYPE_EDGE:
        return None
    side = 0 if gap > 0 else 1
    if counts is not None:
        _, low, high = stats.newcombe_difference(
            weak[side], attacks[side], weak[1 - side], attacks[1 - side]
        )
        if low <= 0:
            return None  # a gap this many attacks could show by chance
        how += (
            f" (a gap of {round(100 * abs(gap))} points, 95% interval"
            f" {round(100 * low)}-{round(100 * high)})"
        )
    example = ", ".join(pairs[side][:2])
    return side, (
        f"{possessive(names[side])} Types have the edge: {about}{whole_percent(shares[side])} "
        f"of its attacks hit a weakness ({example}), against {whole_percent(shares[1 - side])} "
        f"the other way, {how}; each such hit does half as much damage again and earns a "
        "Resonance."
    )


def starters_initiative(snapshot: dict) -> list[list[tuple[str, int]]]:
    """Each side's first three Memeyori (R9 setup) with their Initiative in round 1: Speed
    plus half the highest Aura among them (R9.3)."""
    out = []
    for side in snapshot["sides"]:
        starters = side["memeyori"][:3]
        bonus = max((m["stats"]["crit_rate"] for m in starters), default=0) // 2
        out.append([(m["name"], m["stats"]["initiative"] + bonus) for m in starters])
    return out


def _speed_reason(snapshot, names) -> tuple[int, str] | None:
    """R9.3's round-1 order: a side acts first only when each of its starters outruns each
    of the other's; else a starter that outruns all the other side's is named."""
    sides = starters_initiative(snapshot)
    if not all(sides):
        return None
    for side in (0, 1):
        mine, theirs = sides[side], sides[1 - side]
        top = max(b for _, b in theirs)
        if min(a for _, a in mine) > top:
            return side, (
                f"{names[side]} acts first: each of its starters moves before each of "
                f"{possessive(names[1 - side])} in round 1 (Initiative "
                f"{min(a for _, a in mine)} or more against {top} at most, R9.3)."
            )
    for side in (0, 1):
        theirs = sides[1 - side]
        top = max(b for _, b in theirs)
        fastest = max(sides[side], key=lambda p: p[1])
        if fastest[1] > top:
            return side, (
                f"{fastest[0]} moves before all of {possessive(names[1 - side])} starters in "
                f"round 1 (Initiative {fastest[1]} against {top} at most, R9.3)."
            )
    return None


def _archon_reason(tally, roster, names) -> tuple[int, str] | None:
    n = tally["battles"]
    archons = {c["side"]: c["name"] for c in roster["combatants"].values() if c["kind"] == "archon"}
    share = [_per(tally["archon_battles"][s], n) for s in (0, 1)]
    gap = share[0] - share[1]
    if abs(gap) < ARCHON_EDGE:
        return None
    side = 0 if gap > 0 else 1
    other = 1 - side
    rounds = _per(tally["sides"][side]["archon_rounds"], n)
    text = (
        f"{names[side]} summons {archons.get(side, 'its Archon')} in "
        f"{whole_percent(share[side])} of battles, {_number(rounds)} rounds on the field"
    )
    if other not in archons:
        totals = tally["sides"][other]
        gained = _per(totals["resonance_gained"], n)
        spent = _per(totals["resonance_spent"], n)
        on_tiers = _per(4 * totals["tier2_plays"] + 8 * totals["tier3_plays"], n)
        text += (
            f"; {names[other]} has no Archon: it gains {_number(gained)} Resonance a battle "
            f"and spends {_number(spent)}, {_number(on_tiers)} of it on Tiers"
        )
    else:
        text += f"; {names[other]} summons {archons[other]} in {whole_percent(share[other])}"
    return side, text + "."


def matchup(tally: dict, roster: dict, snapshot: dict, names: tuple[str, str], counts=None) -> dict:
    """The verdict for one matchup: the headline and the reasons, the winner's first.
    `counts`: `log_counts` of the logs of its first battles (the tally's `replayed`), when
    the caller has them.

    Returns {"headline", "winner", "even", "why" (the first reason), "reasons" (the rest)}."""
    head = headline(tally, names)
    winner = head["winner"]
    reasons: list[tuple[int, str]] = []
    sides = (winner, 1 - winner) if winner is not None else (0, 1)
    fighters = [best_fighter(tally, roster, s) for s in (0, 1)]
    lead = fighters[sides[0]]
    test = singled_out(tally, roster, lead, snapshot) if lead is not None else None
    named = test is not None
    if named:
        reasons.append(
            (sides[0], _fighter_reason(lead, test, tally["battles"], names[sides[0]],
                                       names[sides[1]]))
        )  # fmt: skip
    elif any(fighters):
        # Said as a plain fact, no side's reason: it goes first, before "Against that".
        why = _no_one_why(tally, snapshot)
        reasons.append((winner if winner is not None else 0,
                        _hitters_reason(tally, fighters, names, why)))  # fmt: skip
    for found in (
        _type_reason(tally, roster, snapshot.get("chart", []), names, counts),
        _speed_reason(snapshot, names),
        _archon_reason(tally, roster, names),
    ):
        if found:
            reasons.append(found)
    if head["even"] and named and fighters[sides[1]]:
        f = fighters[sides[1]]
        reasons.append(
            (sides[1], f"{f['name']} answers for {names[sides[1]]} with "
             f"{_number(f['damage'])} damage a battle.")
        )  # fmt: skip
    # The winner's reasons first, then what the other side has going for it. Every reason
    # starts with a name, so "Against that, " goes in front as it is.
    if winner is not None:
        reasons.sort(key=lambda r: r[0] != winner)
        reasons = [(s, text if s == winner else f"Against that, {text}") for s, text in reasons]
    texts = [t for _, t in reasons]
    return {
        "headline": head["text"],
        "winner": winner,
        "even": head["even"],
        "why": texts[0] if texts else "",
        "reasons": texts[1:],
    }


def field(rows: list[dict], tally: dict, roster: dict, name_a: str) -> dict:
    """Against the field: side A over every opponent, its best and worst opponent, and its
    best fighter. rows: report.matchup_row()s."""
    a, b = tally["wins"]
    decided = a + b
    if decided == 0:
        text = f"No battle had a winner: all {plural(tally['battles'], 'battle')} were draws."
        return {"headline": text, "winner": None, "even": True, "why": "", "reasons": []}
    low, high = stats.wilson(a, decided)
    text = (
        f"{name_a} wins {whole_percent(a / decided)} of decided battles "
        f"{interval(low, high)} against {plural(len(rows), 'opponent')} together."
    )

    def decided_rate(row):
        wins = row["outcome"]["a"]["count"], row["outcome"]["b"]["count"]
        return wins[0] / sum(wins) if sum(wins) else 0.5

    ranked = sorted(rows, key=decided_rate)
    why = (
        f"Best against {ranked[-1]['name_b']} ({whole_percent(decided_rate(ranked[-1]))}), "
        f"worst against {ranked[0]['name_b']} ({whole_percent(decided_rate(ranked[0]))})."
    )
    reasons = []
    f = best_fighter(tally, roster, 0)
    test = singled_out(tally, roster, f) if f else None
    if test:
        reasons.append(_fighter_reason(f, test, tally["battles"], name_a, "its opponents"))
    return {
        "headline": text,
        "winner": 0 if low > 0.5 else (1 if high < 0.5 else None),
        "even": low <= 0.5 <= high,
        "why": why,
        "reasons": reasons,
    }


def _points(x: float) -> str:
    """A signed number of percentage points, and a plain 0 (never "+0" or "-0")."""
    n = round(100 * x)
    return f"{n:+d}" if n else "0"


def difference(row: dict, name_a: str, change: str) -> str:
    """A "what if" in one sentence: report.compare()'s row over all opponents."""
    d, low, high = row["diff"], row["low"], row["high"]
    points = abs(round(100 * d))
    before, after = whole_percent(row["base"]["rate"]), whole_percent(row["variant"]["rate"])
    span = f"95% interval {_points(low)} to {_points(high)} points"
    lead = f"What if {change}: {possessive(name_a)} win rate"
    if low > 0 or high < 0:
        way = "rises" if d > 0 else "falls"
        return (
            f"{lead} {way} by {plural(points, 'point')}, to {after} of all battles from "
            f"{before} (a draw counts as not won; {span}): a clear difference."
        )
    return (
        f"{lead} is {after} of all battles against {before} before (a draw counts as not "
        f"won; {span}): no clear difference; more battles would tell a small one apart from "
        "luck."
    )
