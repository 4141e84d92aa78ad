"""`manage.py replay BATTLE`: re-run a stored battle from its snapshots and seed (and, for
a played game, the plans its log records)."""

from django.core.management.base import BaseCommand, CommandError

from battles.engine import fork, played_record
from battles.engine.battle import ENGINE_VERSION, LOG_FORMAT
from battles.engine.run import canonical, input_for, simulate
from battles.models import Battle


class Command(BaseCommand):
    help = "Re-run a stored battle (by its code or id) and say whether the log is identical."

    def add_arguments(self, parser):
        parser.add_argument("battle", help="the battle's public code (UUID) or its id")

    def handle(self, *args, battle, **options):
        found = None
        if battle.isdigit():
            found = Battle.objects.filter(pk=int(battle)).first()
        else:
            try:
                found = Battle.objects.filter(code=battle).first()
            except Exception:  # a malformed UUID is just "no such battle"
                found = None
        if found is None:
            raise CommandError(f"No battle {battle!r}.")
        if found.engine_version != ENGINE_VERSION:
            self.stdout.write(
                f"Made by the earlier engine: {found} (seed {found.seed}) was run by engine"
                f" version {found.engine_version} ({found.log.get('format')}); today's engine"
                f" (version {ENGINE_VERSION}, {LOG_FORMAT}) plays by other rulings, so it is not"
                " replayed. Its stored log stays as it was and is still viewable."
            )
            return
        played_by = (
            f"{found.policy_a} version {found.policy_version_a} (side A) and "
            f"{found.policy_b} version {found.policy_version_b} (side B)"
        )
        self.stdout.write(f"Played by {played_by}.")
        try:
            if played_record.is_played(found.log):
                # A played game: its sides' plans are in the log's plan records.
                self.stdout.write(f"A played game: {len(found.log['plans'])} recorded plans.")
                # A fork replays its origin to the fork round first (engine/fork.py).
                again = fork.replay(input_for(found.snapshot), found.log)
            else:
                again = simulate(
                    found.snapshot,
                    seed=found.seed,
                    policies=(found.policy_a, found.policy_b),
                    versions=found.policy_versions,
                )
        except LookupError as e:
            raise CommandError(f"Cannot replay {found}: {e}") from None
        except ValueError as e:  # a plan record the rules refuse where the replay got to
            raise CommandError(
                f"Different: {found} does not replay to its stored log: {e}."
            ) from None
        if canonical(again) == canonical(found.log):
            self.stdout.write(
                f"Identical: {found} (seed {found.seed}) replays to the same log with {played_by}."
            )
            return
        for i, (old, new) in enumerate(zip(found.log["events"], again["events"], strict=False)):
            if old != new:
                self.stdout.write(f"First difference at event {i}:\n  stored {old}\n  replay {new}")
                break
        raise CommandError(f"Different: {found} does not replay to its stored log.")
