"""`manage.py lab A B --battles N`: the matchup lab from the command line, nothing stored."""

import json

from django.core.management.base import BaseCommand, CommandError

from battles.engine.policies import POLICIES, current_versions
from battles.lab import report, stats
from battles.lab.runner import roster, run_range
from battles.lab.services import MAX_BATTLES
from battles.services import SEED_MAX, limit_rule, random_seed
from battles.snapshot import battle_snapshot

from .battle import find_party


def _round(value):
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, dict):
        return {k: _round(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_round(v) for v in value]
    return value


def lab_result(snap: dict, *, battles: int, seed: int, policies) -> dict:
    """The lab's numbers for one matchup as one JSON-able dict (what --json prints)."""
    tally = run_range(snap, lab_seed=seed, start=0, end=battles, policies=policies)
    names = roster(snap)
    name_a, name_b = (side["name"] for side in snap["sides"])
    n = tally["battles"]

    def pick(c):
        return (
            None if c is None else {k: c[k] for k in ("i", "seed", "winner", "rounds", "hp_left")}
        )

    return _round(
        {
            "party_a": name_a,
            "party_b": name_b,
            "seed": seed,
            "seed_rule": "battle i: first 4 bytes of sha256('memeyori-lab/1:SEED:i'), big-endian",
            "policies": list(policies),
            "policy_versions": list(current_versions(policies)),
            "battles": n,
            "wins_a": tally["wins"][0],
            "wins_b": tally["wins"][1],
            "draws": tally["draws"],
            "ci95_a": list(stats.wilson(tally["wins"][0], n)),
            "ci95_b": list(stats.wilson(tally["wins"][1], n)),
            "ci95_draw": list(stats.wilson(tally["draws"], n)),
            "rounds": {
                "mean": tally["rounds_sum"] / n,
                "median": stats.round_percentile(tally, 0.5),
                "p90": stats.round_percentile(tally, 0.9),
                "histogram": {str(r): c for r, c in stats.length_histogram(tally)},
            },
            "closest": pick(tally["closest"]),
            "upset": pick(stats.upset(tally)),
            "sides": report.side_rows(tally, (name_a, name_b)),
            "combatants": report.combatant_rows(tally, names),
            "cards": report.card_rows(tally, names),
        }
    )


class Command(BaseCommand):
    help = "Fight two parties N times and print who wins, how often and why (JSON with --json)."

    def add_arguments(self, parser):
        parser.add_argument("party_a", help="party id or exact name")
        parser.add_argument("party_b", help="party id or exact name")
        parser.add_argument("--battles", type=int, default=1000, help="how many (default 1000)")
        parser.add_argument("--seed", type=int, help="the lab's seed (random if absent)")
        parser.add_argument("--policy", choices=sorted(POLICIES), default="greedy")
        parser.add_argument(
            "--policy-b", choices=sorted(POLICIES), help="side B's policy (default: --policy)"
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--draw-at-limit",
            action="store_true",
            help="a draw when round 30 ends with both sides standing, instead of R9.6's decision",
        )

    def handle(self, *args, **options):
        battles = options["battles"]
        if not 1 <= battles <= MAX_BATTLES:
            raise CommandError(f"--battles must be from 1 to {MAX_BATTLES}.")
        seed = options["seed"] if options["seed"] is not None else random_seed()
        if not 0 <= seed <= SEED_MAX:
            raise CommandError(f"--seed must be from 0 to {SEED_MAX}.")
        a, b = find_party(options["party_a"]), find_party(options["party_b"])
        snap = battle_snapshot(a, b, limit=limit_rule(draw_at_limit=options["draw_at_limit"]))
        if not all(side["memeyori"] for side in snap["sides"]):
            raise CommandError("Each party needs at least one Memeyori to battle.")
        policies = (options["policy"], options["policy_b"] or options["policy"])
        result = lab_result(snap, battles=battles, seed=seed, policies=policies)
        if options["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
            return
        n = result["battles"]
        lo, hi = result["ci95_a"]
        self.stdout.write(
            f"{result['party_a']} vs {result['party_b']}: {n} battles, seed {seed}, "
            f"{policies[0]} vs {policies[1]}\n"
            f"  {result['party_a']} wins {result['wins_a']} ({100 * result['wins_a'] / n:.1f}%, "
            f"95% {100 * lo:.1f}-{100 * hi:.1f}%)\n"
            f"  {result['party_b']} wins {result['wins_b']}, draws {result['draws']}\n"
            f"  rounds: mean {result['rounds']['mean']:.1f}, median {result['rounds']['median']}"
        )
