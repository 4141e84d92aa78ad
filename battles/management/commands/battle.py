"""`manage.py battle PARTY_A PARTY_B`: run a battle from the command line (the GM's tool)."""

import uuid

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from battles.engine.log import render_text
from battles.engine.policies import POLICIES
from battles.engine.run import log_json, simulate
from battles.engine.words import plural
from battles.services import SEED_MAX, battle_run, growth_refusal, limit_rule, random_seed
from battles.snapshot import battle_snapshot
from cards.models import Party, Table


def find_party(value: str) -> Party:
    """A party by id or by exact name."""
    if value.isdigit():
        party = Party.objects.filter(pk=int(value)).first()
        if party:
            return party
    matches = list(Party.objects.filter(name=value)[:2])
    if not matches:
        raise CommandError(f"No party with id or name {value!r}; see `battle --list`.")
    if len(matches) > 1:
        raise CommandError(f"Several parties are named {value!r}; give its id instead.")
    return matches[0]


def find_table(code: str) -> Table:
    try:
        return Table.objects.select_related("gm").get(code=uuid.UUID(code))
    except (ValueError, Table.DoesNotExist):
        raise CommandError(f"No table with code {code!r}.") from None


class Command(BaseCommand):
    help = "Run a battle between two parties and print its log (JSON with --json)."

    def add_arguments(self, parser):
        parser.add_argument("party_a", nargs="?", help="party id or exact name")
        parser.add_argument("party_b", nargs="?", help="party id or exact name")
        parser.add_argument("--seed", type=int, help="the battle's seed (random if absent)")
        parser.add_argument("--policy", choices=sorted(POLICIES), default="greedy")
        parser.add_argument(
            "--policy-b", choices=sorted(POLICIES), help="side B's policy (default: --policy)"
        )
        parser.add_argument("--json", action="store_true", help="print only the JSON log")
        parser.add_argument(
            "--repeat",
            type=int,
            default=1,
            metavar="K",
            help="with --jsonl: K battles, seeds N .. N+K-1 (N is --seed)",
        )
        parser.add_argument(
            "--jsonl", action="store_true", help="print each log as JSON, one log a line"
        )
        parser.add_argument(
            "--save", action="store_true", help="store the battle, owned by side A's owner"
        )
        parser.add_argument(
            "--growth",
            action="store_true",
            help="with --save and --table: the table's GM makes the battle count for growth"
            " (R10); refused for a party against itself or two parties sharing a Memeyori",
        )
        parser.add_argument(
            "--table",
            metavar="CODE",
            help="with --save: run the battle at this table (its GM runs it)",
        )
        parser.add_argument(
            "--draw-at-limit",
            action="store_true",
            help="a draw when round 30 ends with both sides standing, instead of R9.6's"
            " decision (at a table: its GM's rule)",
        )
        parser.add_argument("--list", action="store_true", help="print `ID NAME` for each party")

    def handle(self, *args, **options):
        if options["list"]:
            for pk, name in Party.objects.order_by("pk").values_list("pk", "name"):
                self.stdout.write(f"{pk} {name}")
            return
        if not options["party_a"] or not options["party_b"]:
            raise CommandError("Give two parties (id or exact name), or --list.")
        a, b = find_party(options["party_a"]), find_party(options["party_b"])
        seed = options["seed"] if options["seed"] is not None else random_seed()
        if not 0 <= seed <= SEED_MAX:
            raise CommandError(f"--seed must be from 0 to {SEED_MAX}.")
        policies = (options["policy"], options["policy_b"] or options["policy"])
        repeat = options["repeat"]
        if repeat < 1:
            raise CommandError("--repeat must be at least 1.")
        if repeat > 1 and not options["jsonl"]:
            raise CommandError("--repeat needs --jsonl (one log a line).")
        if options["jsonl"] and options["save"]:
            raise CommandError("--jsonl prints logs; --save stores one battle. Choose one.")
        if seed + repeat - 1 > SEED_MAX:
            raise CommandError(f"--seed plus --repeat must stay within {SEED_MAX}.")
        if options["growth"] and not options["save"]:
            raise CommandError("--growth needs --save: only a stored battle counts for growth.")
        if options["table"] and not options["save"]:
            raise CommandError("--table needs --save: only a stored battle sits at a table.")
        if options["growth"] and not options["table"]:
            raise CommandError(
                "--growth needs --table: outside a table no battle counts for growth (R10)."
            )
        if options["growth"] and (refusal := growth_refusal(a, b)):
            raise CommandError(refusal)
        table = find_table(options["table"]) if options["table"] else None
        draw = options["draw_at_limit"]
        if table is not None and draw and not table.draw_at_limit:
            raise CommandError(
                "At this table its GM chose that the round limit decides (R9.6):"
                " leave out --draw-at-limit."
            )
        limit = limit_rule(table=table, draw_at_limit=draw)
        if options["jsonl"]:
            snap = battle_snapshot(a, b, limit=limit)
            if not all(side["memeyori"] for side in snap["sides"]):
                raise CommandError("Each party needs at least one Memeyori to battle.")
            for n in range(seed, seed + repeat):
                self.stdout.write(log_json(simulate(snap, seed=n, policies=policies)))
            return
        if options["save"]:
            # At a table its GM runs the battle (growth is the GM's call); else side A's owner.
            owner = table.gm if table else get_user_model().objects.get(pk=a.owner_id)
            try:
                battle = battle_run(
                    owner=owner,
                    party_a=a,
                    party_b=b,
                    seed=seed,
                    policy_a=policies[0],
                    policy_b=policies[1],
                    counts_for_growth=options["growth"],
                    table=table,
                    draw_at_limit=draw,
                )
            except ValidationError as e:
                raise CommandError("; ".join(e.messages)) from e
            log = battle.log
        else:
            snap = battle_snapshot(a, b, limit=limit)
            if not all(side["memeyori"] for side in snap["sides"]):
                raise CommandError("Each party needs at least one Memeyori to battle.")
            log = simulate(snap, seed=seed, policies=policies)
        if options["json"]:
            self.stdout.write(log_json(log))
            return
        self.stdout.write(render_text(log))
        result = log["result"]
        winner = "draw" if result["winner"] is None else log["sides"][result["winner"]]["name"]
        rounds = plural(result["rounds"], "round")
        self.stdout.write(f"Result: {winner} after {rounds} (seed {seed}).")
        if options["save"]:
            self.stdout.write(f"Saved as battle {battle.code}.")
            for grown in battle.growth_applied:
                self.stdout.write(
                    f"Growth: Memeyori {grown['memeyori']} Rank {grown['rank_before']}"
                    f" -> {grown['rank_after']}."
                )
