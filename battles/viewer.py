"""What the viewer page shows at (round, step), from a battle's log and stored frames.

No database: everything comes from the record already loaded, so a page is one query.
"""

from fractions import Fraction

from django.urls import NoReverseMatch, reverse

from .engine import log as text
from .engine.odds import attack_odds
from .engine.state import frame_end, state_at
from .engine.words import percent, plural

DIE_CLASSES = {1: "glitch", 2: "blank", 3: "blank", 4: "hit", 5: "hit", 6: "hit explode"}


def _dice(faces, *, attack: bool) -> list[dict]:
    out = []
    for face in faces:
        cls = DIE_CLASSES[face] if attack else ("hit" if face >= 4 else "blank")
        out.append({"face": face, "cls": cls})
    return out


def round_length(log: dict, frames: list[dict], round_no: int) -> int:
    return frame_end(frames, round_no, len(log["events"])) - frames[round_no]["first_event"]


def landing(log: dict, frames: list[dict], round_no: int) -> tuple[int, int]:
    """Where a round opens: the setup with the teams on the field, else its first event.

    Opening a round on its last event would show how it ends before it is played.
    """
    if round_no == 0:
        return 0, round_length(log, frames, 0)
    return round_no, min(1, round_length(log, frames, round_no))


def clamp_position(log: dict, frames: list[dict], round_no, step) -> tuple[int, int]:
    """No round: the start (the teams before round 1); a round without a step: its landing."""
    last_round = len(frames) - 1
    round_no = 0 if round_no is None else min(round_no, last_round)
    if step is None:
        return landing(log, frames, round_no)
    return round_no, min(step, round_length(log, frames, round_no))


def character_codes(snapshot: dict, log: dict) -> dict[str, str]:
    """Each combatant's character code, from the snapshot the battle was run from (the log
    keeps none): a side's Memeyori in party order, then its Archon. For the art shown
    where a character has no portrait (issue 41.9)."""
    codes = {}
    for side, record in zip(snapshot.get("sides", []), log.get("sides", []), strict=False):
        rows = {
            "memeyori": list(side.get("memeyori") or []),
            "archon": [side["archon"]] if side.get("archon") else [],
        }
        seen = {"memeyori": 0, "archon": 0}
        for c in record.get("combatants", []):
            kind = c.get("kind")
            if kind in seen and seen[kind] < len(rows[kind]):
                code = rows[kind][seen[kind]].get("code")
                if code:
                    codes[c["id"]] = code
                seen[kind] = seen.get(kind, 0) + 1
    return codes


def build(
    log: dict,
    frames: list[dict],
    types: dict,
    round_no: int,
    step: int,
    codes: dict[str, str] | None = None,
) -> dict:
    names = text.names(log)
    side_names = [s["name"] for s in log["sides"]]
    records = {c["id"]: c for s in log["sides"] for c in s["combatants"]}
    state = state_at(log, frames, round_no, step)
    first = frames[round_no]["first_event"]
    end = frame_end(frames, round_no, len(log["events"]))
    round_events = log["events"][first:end]
    landed = hp_change(round_events[step - 1]) if step else {}

    def combatant(cid):
        c = records[cid]
        t = types.get(c["type"], {})
        hp = state["hp"][cid]
        return {
            **hp_bar(hp, c["max_hp"], landed.get(cid)),
            "id": cid,
            "name": c["name"],
            "kind": c["kind"],
            "type": c["type"],
            "type_slug": t.get("slug", "ether"),
            "type_symbol": t.get("symbol", "◆"),
            "portrait": _portrait_url({"code": (codes or {}).get(cid), **c}),
            "hp": hp,
            "max_hp": c["max_hp"],
            "status": state["status"][cid],
            "rank": c.get("rank"),
        }

    sides = []
    for index, (side, side_state) in enumerate(zip(log["sides"], state["sides"], strict=True)):
        on_field = [cid for cid in side_state["slots"] if cid]
        if side_state["archon"]:
            on_field.append(side_state["archon"])
        bench = [c["id"] for c in side["combatants"] if c["id"] not in on_field]
        sides.append(
            {
                "index": index,
                "name": side["name"],
                "resonance": side_state["resonance"],
                "mp": side_state["mp"],
                "mp_pool": side["mp"],
                "field": [combatant(cid) for cid in on_field],
                "bench": [combatant(cid) for cid in bench],
            }
        )

    events = []
    for i, event in enumerate(round_events, start=1):
        row = {
            "n": i,
            "kind": event["kind"],
            "text": text.describe(event, names, side_names, odds=False),
            "done": i <= step,
            "current": i == step,
            "side": event.get("side"),
        }
        if event["kind"] == "attack":
            odds = attack_odds(event["accuracy"], event["evasion"], event["crit_rate"])
            row["attack_dice"] = _dice(event["attack_dice"], attack=True)
            row["explosive_dice"] = _dice(event["explosive_dice"], attack=False)
            row["evasion_dice"] = _dice(event["evasion_dice"], attack=False)
            row["odds"] = {
                "land": percent(odds.p_land),
                "critical": percent(odds.p_critical),
                "complication": percent(odds.p_complication),
            }
        if event["kind"] == "damage":
            row["formula"] = text.damage_formula(event)
        events.append(row)

    summary = _summary(round_events, names, side_names)
    growth = [
        f"{names[g['combatant']]}: Rank {g['rank_before']} -> {g['rank_after']}"
        f" (opponents averaged Rank {average_rank(g['opponents_average_rank'])})"
        for g in log["result"].get("growth", [])
    ]
    return {
        "round": round_no,
        "step": step,
        "now": events[step - 1]["text"] if step else "",
        "length": len(round_events),
        "last_round": len(frames) - 1,
        "sides": sides,
        "events": events,
        "summary": summary,
        "ended": state["ended"],
        "growth": growth if state["ended"] else [],
        "winner": state["winner"],
        "winner_name": side_names[state["winner"]] if state["winner"] is not None else None,
        "limit_words": limit_words(log, side_names) if state["ended"] else "",
    }


def limit_words(log: dict, side_names: list[str]) -> str:
    """Why the battle was won (or drawn) at the round limit (R9.6), or "" when it was not
    decided there: the log's `limit` event, right before `end`."""
    for event in log["events"][-2:]:
        if event["kind"] == "limit":
            return text.limit_words(event, side_names)
    return ""


def hp_change(event: dict) -> dict[str, int]:
    """The HP this event moves: {combatant: HP before}. In a /2 log a group's damage and
    heals land together at its `apply` event; a /1 log changes HP at each one."""
    if event["kind"] == "apply":
        return {event["combatant"]: event["hp_before"]}
    if event["kind"] in ("damage", "heal") and "hp_after" in event:
        return {event["target"]: event["hp_before"]}
    return {}


def hp_bar(hp: int, max_hp: int, before: int | None) -> dict:
    """What an HP bar draws: the fill's width, its colour band (low up to a quarter, high
    past half), and what this step took off or gave back."""
    share = 100 * hp / max_hp if max_hp else 0
    band = "high" if hp > max_hp // 2 else ("mid" if hp > max_hp // 4 else "low")
    delta = hp - before if before is not None else 0
    lost = 100 * -delta / max_hp if delta < 0 and max_hp else 0
    return {
        "hp_width": f"{share:.1f}",
        "hp_band": band,
        "delta": delta,
        "delta_text": f"+{delta}" if delta > 0 else (f"\u2212{-delta}" if delta else ""),
        "lost_width": f"{lost:.1f}" if lost else "",
    }


def _summary(events, names, side_names) -> list[str]:
    dealt = [0, 0]
    healed = [0, 0]
    crits = [0, 0]
    kos = []
    owner_side = {}
    for e in events:
        if e["kind"] == "play":
            owner_side[e["combatant"]] = e["side"]
        elif e["kind"] == "damage":
            dealt[owner_side.get(e["source"], 0)] += e["amount"]
        elif e["kind"] == "heal" and "hp_after" in e:  # /1: the amount it restored
            healed[owner_side.get(e["source"], 0)] += e["amount"]
        elif e["kind"] == "apply" and e["healing"]:  # /2: a group's heals, capped at max HP
            restored = e["hp_after"] - (e["hp_before"] - e["damage"])
            healed[e["side"]] += min(e["healing"], max(0, restored))
        elif e["kind"] == "attack" and e["critical"] and e["landed"]:
            crits[owner_side.get(e["attacker"], 0)] += 1
        elif e["kind"] == "ko":
            kos.append(names[e["combatant"]])
    lines = [
        f"{side_names[i]}: {dealt[i]} damage dealt, {healed[i]} healed,"
        f" {plural(crits[i], 'critical hit')}."
        for i in (0, 1)
    ]
    if kos:
        lines.append("Knocked out: " + ", ".join(kos) + ".")
    return lines


def nav(view: dict, frames: list[dict], log: dict) -> dict:
    """(round, step) for each control; None where it cannot go."""
    r, s, length, last = view["round"], view["step"], view["length"], view["last_round"]

    def round_len(n):
        return round_length(log, frames, n)

    start = landing(log, frames, 0)
    end = (last, round_len(last))
    nxt = (r, s + 1) if s < length else ((r + 1, 1) if r < last else None)
    prev = (r, s - 1) if s > 0 else ((r - 1, round_len(r - 1)) if r > 0 else None)
    # Round navigation lands on a round's first event, never on how it ends.
    this_round = landing(log, frames, r)
    if (r, s) != this_round and s > this_round[1]:
        prev_round = this_round
    else:
        prev_round = landing(log, frames, r - 1) if r > 0 else None
    return {
        "first": start if (r, s) != start else None,
        "prev_round": prev_round,
        "prev": prev,
        "next": nxt,
        "next_round": landing(log, frames, r + 1) if r < last else None,
        "last": end if (r, s) != end else None,
    }


def _portrait_url(c: dict) -> str:
    """Snapshots from before issue 11.5 name a /media/ file, which is not served: those go
    through the portrait view too, which applies the character's visibility today. A
    character with no portrait shows its generated art, as its card does (issue 41.9),
    through the art view (the same visibility); a look it does not know ("today") answers
    with today's look, kept a minute. Only a snapshot with no character code (a made-up
    party) keeps the Type's symbol."""
    url = c.get("portrait", "")
    if not c.get("code") or c.get("kind") not in KINDS:
        return url
    if url and not url.startswith("/c/"):
        return reverse(
            "character_portrait", kwargs={"kind": c["kind"], "code": c["code"], "size": "thumb"}
        )
    if not url:
        try:
            return reverse(
                "print_default_art", kwargs={"kind": c["kind"], "code": c["code"], "look": "today"}
            )
        except NoReverseMatch:  # a code that is not a character's (a made-up snapshot)
            return ""
    return url


KINDS = ("memeyori", "archon")
# Part of the key a stored battle's viewer parts are kept under (battles/views.py): a new
# number when what they show changes, so no reader is served the old parts (2: the
# generated art in place of the Type's symbol, issue 41.9).
KEPT_PARTS = 2


def average_rank(exact: str) -> str:
    """The log's exact average ("11/4") as a reader reads it ("2.75"; "3" when whole)."""
    value = Fraction(exact)
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.2f}".rstrip("0")
