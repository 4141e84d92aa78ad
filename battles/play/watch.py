"""A played game's rounds in the battle viewer, as one reader may see them (issue 17).

The game's log so far runs past the last resolved round: the next round's start (its
draws) is already written when the engine stops for plans. A reader sees only resolved
rounds, and never which cards the other side drew, only how many (R9.2: each side plans
"without seeing the other's choice", and its hand is its own).
"""

from battles import viewer
from battles.engine.state import round_frames
from battles.engine.words import plural


def resolved_log(log: dict, resolved: int) -> tuple[dict, list[dict]]:
    """The log and frames through round `resolved` (0: the setup only)."""
    frames = round_frames(log)
    keep = frames[: resolved + 1]
    end = frames[resolved + 1]["first_event"] if resolved + 1 < len(frames) else None
    events = log["events"][:end] if end is not None else log["events"]
    # A game in progress has no result yet; the viewer reads one.
    result = log.get("result") or {"winner": None, "rounds": resolved, "growth": []}
    return {**log, "events": events, "result": result}, keep


def hide_draws(view: dict, log: dict, frames: list[dict], hidden: set[int]) -> dict:
    """Each draw of a side in `hidden` reads as a count: "Sunrise draws 2 cards."."""
    if not hidden:
        return view
    first = frames[view["round"]]["first_event"]
    names = [s["name"] for s in log["sides"]]
    for row in view["events"]:
        event = log["events"][first + row["n"] - 1]
        if event["kind"] == "draw" and event["side"] in hidden:
            row["text"] = f"{names[event['side']]} draws {plural(len(event['cards']), 'card')}."
            if row["current"]:
                view["now"] = row["text"]
    return view


def viewer_context(
    *,
    log: dict,
    types: dict,
    resolved: int,
    hidden: set[int],
    base_url: str,
    round_no,
    step,
    codes: dict[str, str] | None = None,
) -> dict:
    """What templates/battles/viewer.html#viewer needs, for the resolved rounds only."""
    shown, frames = resolved_log(log, resolved)
    round_no, step = viewer.clamp_position(shown, frames, round_no, step)
    view = viewer.build(shown, frames, types, round_no, step, codes)
    view = hide_draws(view, shown, frames, hidden)
    links = {
        name: (f"{base_url}?round={pos[0]}&step={pos[1]}" if pos else None)
        for name, pos in viewer.nav(view, frames, shown).items()
    }
    return {
        "view": view,
        "links": links,
        "base_url": base_url,
        "rounds": range(view["last_round"] + 1),
        "at_round": round_no,
        "at_step": step,
        # Nothing of a game is kept rendered: its rounds grow, and each side sees its own.
        "fragment_key": None,
        "can_present": False,
        # The viewer's last step of the newest round: the place to offer the next plan.
        "at_newest_end": round_no == view["last_round"] and step == view["length"],
    }
