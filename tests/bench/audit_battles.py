"""Issue 9's audit figures, measured on demo battles from their logs alone (run by hand).

    .venv/bin/python -m tests.bench.audit_battles [--save-winners FILE | --compare-winners FILE]

Reads /1 and /2 logs alike. Nothing here is asserted: the tests hold the rules; this
prints how often each weak ruling the audit found shows up, before and after a change.
"""

import argparse
import itertools
import json

PARTIES = ["Sunrise Squad", "Night Shift", "Cold Front", "Wild Bunch"]
PAIRS = list(itertools.product(PARTIES, repeat=2))  # 16 ordered pairs, self-battles included


def _battles(seeds: int, policies=("greedy", "greedy")):
    from battles.engine.run import simulate
    from battles.snapshot import demo_snapshot

    for a, b in PAIRS:
        snap = demo_snapshot(a, b)
        for seed in range(seeds):
            yield (a, b, seed), simulate(snap, seed=seed, policies=policies)


def audit(log: dict, tally: dict) -> None:
    """Add one log's counts to tally."""
    from battles.engine.state import apply, initial_state

    records = {c["id"]: c for side in log["sides"] for c in side["combatants"]}
    side_of = {cid: i for i, s in enumerate(log["sides"]) for c in s["combatants"]
               for cid in [c["id"]]}  # fmt: skip
    state = initial_state(log)
    switched_in = {}  # this round: out -> in
    last_switch = [None, None]  # (round, out, in) per side
    summoned_at = [None, None]
    initiative_of_ko = {}  # combatant -> Initiative of the group that knocked it out, this round
    group_initiative = None
    initiative = {}
    field_at_play = None
    for event in log["events"]:
        kind = event["kind"]
        hp, status = state["hp"], state["status"]
        if kind == "round_start":
            switched_in = {}
            initiative_of_ko = {}
        elif kind == "switch":
            tally["switches"] += 1
            s = event["side"]
            prev = last_switch[s]
            if (
                prev
                and prev[0] == event["round"] - 1
                and (prev[1], prev[2])
                == (
                    event["in"],
                    event["out"],
                )
            ):
                tally["switch_undone"] += 1
            last_switch[s] = (event["round"], event["out"], event["in"])
            switched_in[event["out"]] = event["in"]
        elif kind == "summon" and event["reason"] == "resonance":
            summoned_at[event["side"]] = event["round"]
        elif kind == "dismiss":
            tally["dismissals"] += 1
            if summoned_at[event["side"]] == event["round"] - 1:
                tally["dismissed_at_first_upkeep"] += 1
        elif kind == "play":
            group_initiative = event["initiative"]
            field_at_play = dict(hp)
            old = event["retargeted_from"]
            if old is not None:
                target = event["targets"][0]
                if event["category"] == "support":
                    tally["heals_retargeted"] += 1
                    hurt = [cid for cid, st in status.items()
                            if st == "field" and side_of[cid] == event["side"]
                            and 0 < hp[cid] < records[cid]["max_hp"]]  # fmt: skip
                    if hp[target] >= records[target]["max_hp"] and hurt:
                        tally["heal_retargeted_to_full_hp_while_ally_hurt"] += 1
                elif status[old] == "stored" and old in switched_in:
                    heir = switched_in[old]
                    if status[heir] == "field" and hp[heir] > 0:
                        tally["blows_at_switched_out"] += 1
                        if target != heir:
                            tally["blows_at_switched_out_elsewhere"] += 1
        elif kind == "heal":
            tally["heals"] += 1
            before = event.get("hp_before", field_at_play.get(event["target"]))
            if before is not None and before <= 0:
                tally["heals_on_0_hp"] += 1
                tally[f"heals_on_0_hp_by_side_{side_of[event['source']]}"] += 1
        elif kind == "ko":
            initiative_of_ko[event["combatant"]] = group_initiative
        elif kind == "fizzle" and event["reason"] == "user knocked out":
            lost = event["combatant"]
            # Knocked out this round by a group of its own Initiative: a rival struck "at
            # the same time" and still took this card away.
            if (
                initiative_of_ko.get(lost) is not None
                and initiative[lost] == initiative_of_ko[lost]
            ):
                tally["cards_lost_to_equal_initiative_ko"] += 1
        apply(state, event)
        if kind == "plan" and event["side"] == 1:
            initiative = _initiatives(records, state)


def _initiatives(records, state) -> dict:
    """R9.3: SPD + floor(highest AUR on the side's field / 2), as resolution starts."""
    out = {}
    for side in state["sides"]:
        field = [cid for cid in [*side["slots"], side["archon"]]
                 if cid and state["status"][cid] == "field"]  # fmt: skip
        bonus = max((records[cid]["crit_rate"] for cid in field), default=0) // 2
        for cid in field:
            out[cid] = records[cid]["initiative"] + bonus
    return out


# (figure, what it is a part of): printed even when 0, so before and after line up.
FIGURES = [
    ("heals_on_0_hp", "heals"),
    ("heals_on_0_hp_by_side_1", "heals_on_0_hp"),
    ("cards_lost_to_equal_initiative_ko", None),
    ("blows_at_switched_out_elsewhere", "blows_at_switched_out"),
    ("heal_retargeted_to_full_hp_while_ally_hurt", "heals_retargeted"),
    ("switch_undone", "switches"),
    ("dismissed_at_first_upkeep", "dismissals"),
]


def main() -> None:
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memeyori_site.settings")
    django.setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=160)
    parser.add_argument("--save-winners")
    parser.add_argument("--compare-winners")
    args = parser.parse_args()

    from collections import Counter

    tally = Counter()
    winners = {}
    fmt = None
    for key, log in _battles(args.seeds):
        fmt = log["format"]
        tally["battles"] += 1
        audit(log, tally)
        winners["/".join(map(str, key))] = log["result"]["winner"]
    print(f"{fmt}: {tally['battles']:,} greedy-vs-greedy demo battles"
          f" ({len(PAIRS)} ordered pairs x {args.seeds} seeds)")  # fmt: skip
    for name, of in FIGURES:
        total = f" of {tally[of]:,}" if of else ""
        print(f"  {name}: {tally[name]:,}{total}")
    if args.save_winners:
        with open(args.save_winners, "w") as f:
            json.dump(winners, f)
    if args.compare_winners:
        with open(args.compare_winners) as f:
            before = json.load(f)
        changed = sum(before[k] != v for k, v in winners.items() if k in before)
        print(f"  winner differs from the saved run: {changed:,} of {len(winners):,}")


if __name__ == "__main__":
    main()
