"""What the field looks like at any point of a `memeyori-battle-log/1` or `/2` log.

The viewer keeps one frame per round (computed once and stored with the battle), so
jumping to round N folds at most that round's events, never the whole battle.
"""


def initial_state(log: dict) -> dict:
    return {
        "round": 0,
        "winner": None,
        "ended": False,
        "hp": {c["id"]: c["max_hp"] for side in log["sides"] for c in side["combatants"]},
        "status": {c["id"]: "stored" for side in log["sides"] for c in side["combatants"]},
        "sides": [
            {"resonance": 0, "mp": 0, "slots": [None, None, None], "archon": None}
            for _ in log["sides"]
        ],
    }


def apply(state: dict, event: dict) -> None:
    """Fold one event into the state, in place."""
    kind = event["kind"]
    state["round"] = event["round"]
    if kind == "summon":
        side = state["sides"][event["side"]]
        state["status"][event["combatant"]] = "field"
        if event.get("place") is None:
            side["archon"] = event["combatant"]
        else:
            side["slots"][event["place"]] = event["combatant"]
    elif kind == "switch":
        side = state["sides"][event["side"]]
        side["slots"][side["slots"].index(event["out"])] = event["in"]
        state["status"][event["out"]] = "stored"
        state["status"][event["in"]] = "field"
    elif kind == "dismiss":
        state["status"][event["combatant"]] = "dismissed"
        state["sides"][event["side"]]["archon"] = None
    elif kind == "ko":
        state["status"][event["combatant"]] = "ko"
    elif kind == "resonance":
        state["sides"][event["side"]]["resonance"] = event["total"]
    elif kind == "mp":
        state["sides"][event["side"]]["mp"] = event["total"]
    elif kind == "plan":
        state["sides"][event["side"]]["mp"] = event["mp_left"]
    elif kind in ("damage", "heal"):
        if "hp_after" in event:  # /1 applied each one at once; /2 applies a group (apply)
            state["hp"][event["target"]] = event["hp_after"]
    elif kind == "apply":
        state["hp"][event["combatant"]] = event["hp_after"]
    elif kind == "end":
        state["ended"] = True
        state["winner"] = event["winner"]


def copy_state(state: dict) -> dict:
    """A copy that shares nothing `apply` changes: as copy.deepcopy would give, for the
    shape above, at a fraction of its cost (a stored battle's frames take one a round)."""
    return {
        **state,
        "hp": dict(state["hp"]),
        "status": dict(state["status"]),
        "sides": [{**side, "slots": list(side["slots"])} for side in state["sides"]],
    }


def round_frames(log: dict) -> list[dict]:
    """One frame per round (index = round; 0 is the setup): where it starts, and its state."""
    state = initial_state(log)
    frames = [{"round": 0, "first_event": 0, "state": copy_state(state)}]
    for index, event in enumerate(log["events"]):
        if event["kind"] == "round_start":
            frames.append(
                {"round": event["round"], "first_event": index, "state": copy_state(state)}
            )
        apply(state, event)
    return frames


def frame_end(frames: list[dict], round_no: int, total_events: int) -> int:
    """Index just past a round's last event."""
    return frames[round_no + 1]["first_event"] if round_no + 1 < len(frames) else total_events


def state_at(log: dict, frames: list[dict], round_no: int, step: int) -> dict:
    """The state after `step` events of round `round_no`, from that round's frame."""
    frame = frames[round_no]
    state = copy_state(frame["state"])
    for event in log["events"][frame["first_event"] : frame["first_event"] + step]:
        apply(state, event)
    return state
