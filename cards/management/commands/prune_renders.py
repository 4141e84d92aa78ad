"""Keep stored renders under their size cap now (each render does this too, when it stores)."""

from django.core.management.base import BaseCommand

from battles.engine.words import plural
from cards.printing.store import prune


class Command(BaseCommand):
    help = (
        "Delete stored renders past RENDER_STORE_MAX_BYTES (least recently served first), "
        "old failures and finished task records."
    )

    def add_arguments(self, parser):
        parser.add_argument("--max-mb", type=int, help="the cap in MB (default: the setting)")

    def handle(self, *args, max_mb=None, **options):
        deleted = prune(None if max_mb is None else max_mb * 1024 * 1024)
        self.stdout.write(f"Deleted {plural(deleted, 'stored render')}.")
