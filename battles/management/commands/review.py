"""`manage.py review BATTLE [--json]`: the game review of a stored battle (issue 32), its
Win% by round, each plan rated and the dice's luck (battles.engine.review)."""

import json

from django.core.management.base import BaseCommand, CommandError

from battles.engine import review as estimator
from battles.engine.battle import ENGINE_VERSION
from battles.engine.run import input_for
from battles.models import Battle
from battles.review.words import review_words


def find_battle(key: str) -> Battle:
    """A battle by its public code or its id, as `manage.py replay` takes them."""
    found = None
    if key.isdigit():
        found = Battle.objects.filter(pk=int(key)).first()
    else:
        try:
            found = Battle.objects.filter(code=key).first()
        except Exception:  # a malformed UUID is just "no such battle"
            found = None
    if found is None:
        raise CommandError(f"No battle {key!r}.")
    return found


class Command(BaseCommand):
    help = "Review a stored battle (by its code or id): Win% by round, plans rated, luck."

    def add_arguments(self, parser):
        parser.add_argument("battle", help="the battle's public code (UUID) or its id")
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="print the review as JSON"
        )
        parser.add_argument(
            "--rate-ai",
            action="store_true",
            help="rate the AI sides' plans too (a person's plans are always rated)",
        )

    def handle(self, *args, battle, as_json=False, rate_ai=False, **options):
        found = find_battle(battle)
        if found.engine_version != ENGINE_VERSION:
            raise CommandError(
                f"{found} was run by engine version {found.engine_version}; only battles of"
                f" today's engine (version {ENGINE_VERSION}) replay, so only they are reviewed."
            )
        stored = getattr(found, "review", None)
        if (
            stored is not None
            and stored.data
            and (stored.data["rated"] == [True, True] or not rate_ai)
        ):
            data = stored.data
        else:
            rate = (True, True) if rate_ai else None
            try:
                data = estimator.review(input_for(found.snapshot), found.log, rate_sides=rate)
            except (LookupError, ValueError) as e:
                raise CommandError(f"Cannot review {found}: {e}") from None
        if as_json:
            self.stdout.write(json.dumps(data, ensure_ascii=False))
            return
        for line in review_words(data, (found.name_a, found.name_b)):
            self.stdout.write(line)
