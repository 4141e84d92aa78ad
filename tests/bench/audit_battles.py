"""Audit figures, measured on demo battles from their logs alone (run by hand).

    .venv/bin/python -m tests.bench.audit_battles [--seeds N] [--random-parties N]
        [--save-winners FILE | --compare-winners FILE]

Issue 9's figures (how often each weak ruling shows up), then issue 19's habits of the
greedy policy, for greedy version 1 (before) and the current version (after) on the same
battles: the 16 ordered demo pairs x N seeds, and N random parties against each other.
Reads /1 and /2 logs alike. Nothing here is asserted: the tests hold the rules.
"""

import argparse
import itertools
import json

PARTIES = ["Sunrise Squad", "Night Shift", "Cold Front", "Wild Bunch"]
PAIRS = list(itertools.product(PARTIES, repeat=2))  # 16 ordered pairs, self-battles included


def _battles(seeds: int, policies=("greedy", "greedy"), versions=None):
    from battles.engine.run import simulate
    from battles.snapshot import demo_snapshot

    for a, b in PAIRS:
        snap = demo_snapshot(a, b)
        for seed in range(seeds):
            yield (a, b, seed), simulate(snap, seed=seed, policies=policies, versions=versions)


def _random_battles(count: int, versions=None):
    """Two random parties a battle (tests.test_battle_groups.random_party), one seed each."""
    import random

    from battles.engine.run import simulate
    from battles.snapshot import snapshot
    from tests.test_battle_groups import random_party
    from tests.test_battle_invariants import CHART

    rng = random.Random(1919)
    for n in range(count):
        snap = snapshot([random_party(rng), random_party(rng)], CHART)
        yield n, simulate(snap, seed=n, versions=versions)


def habits(log: dict, tally) -> None:
    """Add one log's counts of issue 19's greedy habits to tally."""
    cards = {k["id"]: k for s in log["sides"] for c in s["combatants"] for k in c["cards"]}
    max_hp = {c["id"]: c["max_hp"] for s in log["sides"] for c in s["combatants"]}
    hp = dict(max_hp)
    hand = [[], []]
    drawn = [set(), set()]
    played = [set(), set()]
    last_in = [None, None]  # (round, id) of each side's last switch-in
    round_plays = {}  # side -> [(card id, combatant)] resolved or fizzled this round
    plans = {}  # side -> (mp_left) this round

    def owner(card_id):
        return card_id.split(".")[0]

    def drop(side, combatant):
        hand[side] = [c for c in hand[side] if owner(c) != combatant]

    def close_round():
        for side, mp_left in plans.items():
            tally["plans"] += 1
            if mp_left <= 0:
                continue
            tally["plans_with_mp_left"] += 1
            nonquick = {}
            for card_id, who in round_plays.get(side, []):
                if not cards[card_id]["quick"]:
                    nonquick[who] = nonquick.get(who, 0) + 1
            affordable = [
                c for c in hand[side]
                if cards[c]["mp_cost"] + nonquick.get(owner(c), 0) <= mp_left
            ]  # fmt: skip
            if affordable and all(cards[c]["category"] == "support" for c in affordable):
                tally["plans_with_mp_left_only_heals_affordable"] += 1
        plans.clear()
        round_plays.clear()

    for event in log["events"]:
        kind = event["kind"]
        if kind == "round_start":
            close_round()
        elif kind == "draw":
            hand[event["side"]] += event["cards"]
            drawn[event["side"]].update(event["cards"])
        elif kind == "switch":
            side, out, inn = event["side"], event["out"], event["in"]
            tally["switches"] += 1
            lost = sum(1 for c in hand[side] if owner(c) == out)
            tally["cards_lost_to_switches"] += lost
            if hp[inn] * 2 < max_hp[inn]:
                tally["switches_bringing_in_under_half_hp"] += 1
            if last_in[side] == (event["round"] - 1, out):
                tally["switched_out_last_rounds_newcomer"] += 1
            last_in[side] = (event["round"], inn)
            drop(side, out)
        elif kind == "plan":
            plans[event["side"]] = event["mp_left"]
            tally["mp_pool"] += event["mp_spent"] + event["mp_left"]
            tally["mp_unspent"] += event["mp_left"]
        elif kind in ("play", "fizzle"):
            side, card_id = event["side"], event["card"]
            if card_id in hand[side]:
                hand[side].remove(card_id)
            round_plays.setdefault(side, []).append((card_id, event["combatant"]))
            if kind == "play":
                played[side].add(card_id)
                tally["plays"] += 1
                tally["tier_plays"] += event["tier"] > 1
        elif kind == "apply":
            tally["damage"] += event["damage"]
            tally["overkill"] += max(0, event["damage"] - event["healing"] - event["hp_before"])
            hp[event["combatant"]] = event["hp_after"]
        elif kind in ("ko", "dismiss"):
            drop(event["side"], event["combatant"])
            if kind == "dismiss":
                tally["archon_dismissed_for_upkeep"] += 1
        elif kind == "summon" and event["reason"] == "resonance":
            tally["archon_summons"] += 1
    close_round()
    for side in (0, 1):
        tally["distinct_cards_drawn"] += len(drawn[side])
        tally["distinct_drawn_never_played"] += len(drawn[side] - played[side])


# (habit, what it is a part of, how to print the ratio)
HABITS = [
    ("cards_lost_to_switches", "switches", "per switch"),
    ("switches_bringing_in_under_half_hp", "switches", "share"),
    ("switched_out_last_rounds_newcomer", "switches", "share"),
    ("mp_unspent", "mp_pool", "share"),
    ("plans_with_mp_left_only_heals_affordable", "plans", "share"),
    ("distinct_drawn_never_played", "distinct_cards_drawn", "share"),
    ("overkill", "damage", "share"),
    ("archon_dismissed_for_upkeep", "archon_summons", "share"),
    ("tier_plays", "plays", "share"),
]


def _habit_line(name, of, how, before, after) -> str:
    def one(t):
        ratio = t[name] / t[of] if t[of] else 0.0
        shown = f"{ratio:.2f}" if how == "per switch" else f"{ratio:.1%}"
        return f"{t[name]:,} of {t[of]:,} ({shown})"

    return f"  {name}: before {one(before)}; after {one(after)}"


def print_habits(title: str, logs_before, logs_after) -> None:
    from collections import Counter

    before, after = Counter(), Counter()
    for _, log in logs_before:
        habits(log, before)
    for _, log in logs_after:
        habits(log, after)
    print(title)
    for name, of, how in HABITS:
        print(_habit_line(name, of, how, before, after))


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
    parser.add_argument("--random-parties", type=int, default=1000)
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
    from battles.engine.policies import POLICIES

    now = POLICIES["greedy"].version
    print_habits(
        f"greedy's habits (issue 19.1): version 1 (before) vs version {now} (after), the same"
        f" {len(PAIRS) * args.seeds:,} demo battles",
        _battles(args.seeds, versions=(1, 1)),
        _battles(args.seeds),
    )
    print_habits(
        f"the same on {args.random_parties:,} battles of two random parties",
        _random_battles(args.random_parties, versions=(1, 1)),
        _random_battles(args.random_parties),
    )
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
