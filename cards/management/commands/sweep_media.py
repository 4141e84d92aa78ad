from django.core.management.base import BaseCommand

from cards.media import sweep


class Command(BaseCommand):
    help = (
        "Delete portrait files no character names that are older than an hour (uploads "
        "of writes that rolled back, workers killed mid-upload). Safe to run any time."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than", type=int, default=3600, metavar="SECONDS",
            help="only files older than this many seconds (default 3600)",
        )  # fmt: skip

    def handle(self, *args, older_than, **options):
        from datetime import timedelta

        removed = sweep(max_age=timedelta(seconds=older_than))
        for name in removed:
            self.stdout.write(f"removed {name}")
        self.stdout.write(self.style.SUCCESS(f"{len(removed)} unreferenced files removed."))
