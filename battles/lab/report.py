"""What the results page shows, built from the stored tallies (no battles are run here)."""

from ..engine.words import plural
from . import charts, stats, verdict


def _per(total: int, n: int) -> float:
    return total / n if n else 0.0


def matchup_row(m) -> dict:
    t = m.tally
    o = stats.outcome(t)
    up = stats.upset(t)
    return {
        "index": m.index,
        "name_b": m.name_b,
        "outcome": o,
        "mean_rounds": _per(t["rounds_sum"], t["battles"]),
        "median_rounds": stats.round_percentile(t, 0.5),
        "closest": t["closest"],
        "upset": up,
        "upset_side": None if up is None else up["winner"],
    }


def side_rows(t: dict, names: tuple[str, str], sides=(0, 1)) -> list[dict]:
    n = t["battles"]
    rows = []
    for s in sides:
        totals = t["sides"][s]
        rows.append(
            {
                "name": names[s],
                "resonance_gained": _per(totals["resonance_gained"], n),
                "resonance_spent": _per(totals["resonance_spent"], n),
                "tier2": _per(totals["tier2_plays"], n),
                "tier3": _per(totals["tier3_plays"], n),
                "archon_share": _per(t["archon_battles"][s], n),
                "archon_summons": _per(totals["archon_summons"], n),
                "archon_rounds": _per(totals["archon_rounds"], n),
            }
        )
    return rows


def _sort_key(cid: str):
    # A1..A6 then AX, then B1..BX; cards in their owner's order.
    head, _, card = cid.partition(".")
    return (head[0], head[1:] == "X", head[1:], int(card or 0))


def combatant_rows(t: dict, roster: dict, sides=(0, 1)) -> list[dict]:
    n = t["battles"]
    rows = []
    for cid in sorted(t["combatants"], key=_sort_key):
        info = roster["combatants"].get(cid, {"name": cid, "kind": "", "side": 0, "type": ""})
        if info["side"] not in sides:
            continue
        c = t["combatants"][cid]
        rows.append(
            {
                "id": cid,
                **info,
                "damage_dealt": _per(c["damage_dealt"], n),
                "damage_taken": _per(c["damage_taken"], n),
                "healing_done": _per(c["healing_done"], n),
                "knockouts": _per(c["knockouts"], n),
                "knocked_out": _per(c["knocked_out"], n),
                "rounds_on_field": _per(c["rounds_on_field"], n),
            }
        )
    return rows


def card_rows(t: dict, roster: dict, sides=(0, 1)) -> list[dict]:
    n = t["battles"]
    rows = []
    for card_id in sorted(t["cards"], key=_sort_key):
        info = roster["cards"].get(card_id, {"name": card_id, "owner": "", "side": 0})
        if info["side"] not in sides:
            continue
        c = t["cards"][card_id]
        owner = roster["combatants"].get(info["owner"], {}).get("name", info["owner"])
        rows.append(
            {
                "id": card_id,
                **info,
                "owner_name": owner,
                "played": c["played"],
                "per_battle": _per(c["played"], n),
                "landed": (c["landed"] / c["attacks"]) if c["attacks"] else None,
                "criticals": (c["criticals"] / c["landed"]) if c["landed"] else None,
                "damage": _per(c["damage"], c["played"]),
                "healing": _per(c["healing"], c["played"]),
            }
        )
    return rows


def outcome_chart(o: dict, name_a: str, name_b: str) -> str:
    rows = [
        {"label": f"{name_a} wins", "kind": "a", **o["a"]},
        {"label": "Draws", "kind": "draw", **o["draw"]},
        {"label": f"{name_b} wins" if name_b else "Opponents win", "kind": "b", **o["b"]},
    ]
    return charts.interval_rows(rows, "Wins, draws and losses with 95% intervals")


def field_chart(rows: list[dict]) -> str:
    return charts.interval_rows(
        [{"label": r["name_b"], "kind": "a", **r["outcome"]["a"]} for r in rows],
        "Win rate against each opponent with 95% intervals",
    )


def build(lab, selected: int | None) -> dict:
    """The results page's numbers. `selected`: a matchup's index, or None for all of them
    together (only side A's combatants and cards, as the opponents differ)."""
    matchups = list(lab.matchups.order_by("index"))
    rows = [matchup_row(m) for m in matchups]
    if selected is None and len(matchups) == 1:
        selected = 0
    if selected is not None and 0 <= selected < len(matchups):
        m = matchups[selected]
        tally, roster, name_b, sides = m.tally, m.roster, m.name_b, (0, 1)
    else:
        selected = None
        tally = stats.merge_all(m.tally for m in matchups)
        roster, name_b, sides = matchups[0].roster, "Opponents", (0,)
    o = stats.outcome(tally)
    names = (lab.name_a, name_b)
    # The answer in words first (battles.lab.verdict): a field lab's top verdict is over all
    # its opponents; a chosen opponent's own verdict heads its details.
    if len(matchups) > 1:
        merged = stats.merge_all(m.tally for m in matchups)
        top = verdict.field(rows, merged, matchups[0].roster, lab.name_a)
    if selected is not None:
        m = matchups[selected]
        # The Type edge from the logs of the matchup's first battles, counted as they ran
        # (battles.lab.runner); a lab stored before that has none, and estimates it.
        counts = m.tally.get("replayed")
        if counts is not None and not counts["battles"]:
            counts = None
        chosen = verdict.matchup(m.tally, m.roster, m.snapshot, names, counts)
        if len(matchups) == 1:
            top = chosen
    return {
        "verdict": top,
        "detail_verdict": chosen if selected is not None and len(matchups) > 1 else None,
        "rows": rows,
        "selected": selected,
        "name_b": name_b,
        "tally": tally,
        "outcome": o,
        "outcome_chart": outcome_chart(o, names[0], name_b if selected is not None else ""),
        "field_chart": field_chart(rows) if len(rows) > 1 else "",
        "histogram": stats.length_histogram(tally),
        "histogram_chart": charts.histogram(
            stats.length_histogram(tally), "Battles by length in rounds"
        ),
        "mean_rounds": _per(tally["rounds_sum"], tally["battles"]),
        "median_rounds": stats.round_percentile(tally, 0.5),
        "p90_rounds": stats.round_percentile(tally, 0.9),
        "sides": side_rows(tally, names, sides),
        "combatants": combatant_rows(tally, roster, sides),
        "cards": card_rows(tally, roster, sides),
    }


def compare(base, variant) -> dict:
    """Side A's win rate in the base lab and its "what if", opponent by opponent and over
    all of them, with the difference and its 95% interval (Newcombe)."""
    pairs = list(
        zip(base.matchups.order_by("index"), variant.matchups.order_by("index"), strict=True)
    )
    rows = []
    for b, v in [*pairs, (None, None)]:
        if b is None:
            if len(pairs) < 2:
                break
            tb = stats.merge_all(p[0].tally for p in pairs)
            tv = stats.merge_all(p[1].tally for p in pairs)
            label = "All opponents"
        else:
            tb, tv, label = b.tally, v.tally, b.name_b
        d, low, high = stats.newcombe_difference(
            tv["wins"][0], tv["battles"], tb["wins"][0], tb["battles"]
        )
        rows.append(
            {
                "label": label,
                "base": stats.rate(tb["wins"][0], tb["battles"]),
                "variant": stats.rate(tv["wins"][0], tv["battles"]),
                "diff": d,
                "low": low,
                "high": high,
                "significant": low > 0 or high < 0,
            }
        )
    overall = rows[-1]
    return {
        "rows": rows,
        "sentence": verdict.difference(overall, base.name_a, variant.change),
        "overall": overall,
        "chart": charts.difference_rows(
            rows, "Difference in win rate, what if minus base, with 95% intervals"
        ),
    }


# A lab whose last chunk was counted longer ago than this has stalled: a chunk takes about
# half a second of battles (services.CHUNK), so a minute of nothing is a dead worker or an
# empty queue, and only then is "queue the rest again" offered.
STALLED_AFTER = 60


def time_left(seconds: int) -> str:
    """About how long, as a person reads it: "less than a minute", "about 3 minutes"."""
    if seconds < 60:
        return "less than a minute"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"about {plural(minutes, 'minute')}"
    return f"about {plural(round(minutes / 60), 'hour')}"


def progress(lab, now) -> dict:
    """The progress line's words and whether the lab has stalled (models.Lab's times)."""
    text = f"{lab.done:,} of {lab.total:,} battles ({lab.percent}%)"
    earlier = lab.earlier_labs_waiting()
    left = lab.seconds_left(now)
    if earlier:
        labs = "earlier lab" if earlier == 1 else f"{earlier} earlier labs"
        text += f", waiting for your {labs} to finish"
    elif lab.status == "queued" and not lab.done:
        text += ", waiting for a worker"
    elif left is not None:
        text += f", {time_left(left)} left"
    idle = int(lab.idle_seconds(now))
    stalled = not earlier and idle > STALLED_AFTER
    if stalled:
        text += f"; nothing has moved for {time_left(idle)}"
    return {"text": text + ".", "stalled": stalled, "earlier": earlier}
