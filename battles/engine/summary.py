"""One battle in numbers: what the lab tabulates over thousands of battles.

`summarize(log)` reads a whole log (`memeyori-battle-log/1` or `/2`); `simulate_summary`
takes `simulate`'s arguments and returns exactly `summarize(simulate(...))`. The shape is
the contract with the lab; names are not in it, the lab
reads them from the snapshot or a log's `sides`.

Definitions that a log leaves open, fixed here:
- `hp_left`: the side's Memeyori (not its Archon) HP at the end over their total max HP.
- `rounds_on_field` and `archon_rounds`: rounds in which it was on the field when its side
  fixed its plan (the `plan` event), so a Memeyori switched in counts for that round and a
  replacement from the next one.
- `tierN_plays` and card `played`: cards that resolved (`play` events); a planned card that
  fizzled is not a play, though its Tier's Resonance is in `resonance_spent`.
- `damage_dealt`, `damage_taken`, card `damage`: R5's amounts (`damage` events), not
  capped at the HP the target had left.
- `healing_done`, card `healing`: HP actually restored. In /2, where a group's heals and
  blows land together (R9.3), a combatant's restored HP is hp_after - (hp_before - damage)
  of its `apply` event, shared among its heals in log order, each taking at most its own.
- `knockouts`: /1 credits the blow that took the target from above 0 to 0; /2 credits
  every combatant that dealt the target damage in the group that knocked it out.
"""

import random
from collections import deque

from .battle import run_summary
from .run import chosen_policies, input_for
from .tally import card_totals, combatant_totals, side_totals


def summarize(log: dict) -> dict:
    """One battle's summary computed from a full log (format /1 or /2)."""
    sides = [side_totals(), side_totals()]
    combatants = {}
    hp = {}
    max_hp = {}
    memeyori = ([], [])
    archons: list[str | None] = [None, None]
    for index, side in enumerate(log["sides"]):
        for c in side["combatants"]:
            combatants[c["id"]] = combatant_totals()
            hp[c["id"]] = max_hp[c["id"]] = c["max_hp"]
            if c["kind"] == "archon":
                archons[index] = c["id"]
            else:
                memeyori[index].append(c["id"])
    on_field: list[set] = [set(), set()]
    cards: dict[str, dict] = {}
    # The cards whose damage or heal events are still to come, in log order: a group's
    # damage and heal events follow all its plays in the order the cards resolved.
    owed: deque = deque()
    lethal: dict[str, str] = {}  # /1: who last took a combatant from above 0 to 0
    hit_by: dict[str, list[str]] = {}  # /2: who damaged it in the current group
    heals: dict[str, list[tuple[str, str, int]]] = {}  # /2: (source, card, amount) per target

    for event in log["events"]:
        kind = event["kind"]
        if kind == "attack":
            row = cards[event["card"]]
            row["attacks"] += 1
            if event["landed"]:
                row["landed"] += 1
                row["criticals"] += 1 if event["critical"] else 0
                owed.append(event["card"])
        elif kind == "damage":
            card = owed.popleft()
            amount = event["amount"]
            source, target = event["source"], event["target"]
            combatants[source]["damage_dealt"] += amount
            combatants[target]["damage_taken"] += amount
            cards[card]["damage"] += amount
            if "hp_after" in event:  # /1: applied one after another
                hp[target] = event["hp_after"]
                if event["hp_before"] > 0 and event["hp_after"] <= 0:
                    lethal[target] = source
            else:
                sources = hit_by.setdefault(target, [])
                if source not in sources:
                    sources.append(source)
        elif kind == "heal":
            card = owed.popleft()
            if "hp_after" in event:  # /1: the amount is already what it restored
                hp[event["target"]] = event["hp_after"]
                combatants[event["source"]]["healing_done"] += event["amount"]
                cards[card]["healing"] += event["amount"]
            else:
                heals.setdefault(event["target"], []).append(
                    (event["source"], card, event["amount"])
                )
        elif kind == "apply":  # /2: one combatant's share of a group, applied at once
            target = event["combatant"]
            hp[target] = event["hp_after"]
            restored = event["hp_after"] - (event["hp_before"] - event["damage"])
            for source, card, amount in heals.pop(target, ()):
                share = min(amount, max(0, restored))
                restored -= share
                combatants[source]["healing_done"] += share
                cards[card]["healing"] += share
            if event["hp_after"] > 0:
                hit_by.pop(target, None)
        elif kind == "play":
            card = event["card"]
            row = cards.get(card)
            if row is None:
                row = cards[card] = card_totals()
            row["played"] += 1
            if event["category"] == "support":
                owed.append(card)
            if event["tier"] == 2:
                sides[event["side"]]["tier2_plays"] += 1
            elif event["tier"] == 3:
                sides[event["side"]]["tier3_plays"] += 1
        elif kind == "ko":
            target = event["combatant"]
            combatants[target]["knocked_out"] = True
            on_field[event["side"]].discard(target)
            if target in hit_by:
                for source in hit_by.pop(target):
                    combatants[source]["knockouts"] += 1
            elif target in lethal:
                combatants[lethal.pop(target)]["knockouts"] += 1
        elif kind == "resonance":
            delta = event["delta"]
            if delta >= 0:
                sides[event["side"]]["resonance_gained"] += delta
            else:
                sides[event["side"]]["resonance_spent"] -= delta
        elif kind == "summon":
            on_field[event["side"]].add(event["combatant"])
            if event["reason"] == "resonance":
                sides[event["side"]]["archon_summons"] += 1
        elif kind == "switch":
            on_field[event["side"]].discard(event["out"])
            on_field[event["side"]].add(event["in"])
        elif kind == "dismiss":
            on_field[event["side"]].discard(event["combatant"])
            sides[event["side"]]["archon_dismissals"] += 1
        elif kind == "plan":
            index = event["side"]
            for cid in on_field[index]:
                combatants[cid]["rounds_on_field"] += 1
            if archons[index] in on_field[index]:
                sides[index]["archon_rounds"] += 1

    hp_left = []
    for ids in memeyori:
        total = sum(max_hp[cid] for cid in ids)
        left = sum(max(0, hp[cid]) for cid in ids if not combatants[cid]["knocked_out"])
        hp_left.append(round(left / total, 6) if total else 0.0)
    result = log["result"]
    return {
        "seed": log["seed"],
        "winner": result["winner"],
        "rounds": result["rounds"],
        "hp_left": hp_left,
        "sides": sides,
        "combatants": combatants,
        "cards": cards,
    }


def simulate_summary(
    snapshot: dict, *, seed: int, policies=("greedy", "greedy"), versions=None
) -> dict:
    """Exactly `summarize(simulate(snapshot, seed=seed, policies=policies, versions=...))`,
    but the engine counts as it goes (summary mode) instead of building the log's events."""
    chosen = chosen_policies(policies, versions)
    return run_summary(input_for(snapshot), chosen, random.Random(seed), seed=seed)
