from django.conf import settings
from django.core.management.base import BaseCommand

from cards.demo import DEMO_PASSWORD, DEMO_USERNAME, seed_demo


class Command(BaseCommand):
    help = "Load the default Types, chart, demo characters, parties and two battles (idempotent)."

    def handle(self, *args, **options):
        counts = seed_demo()
        # Battles live in the battles app, which builds on cards; the command joins them.
        from django.contrib.auth import get_user_model

        from battles.demo import seed_demo_battles

        user = get_user_model().objects.get(username=DEMO_USERNAME)
        counts["new public battles"] = seed_demo_battles(user)
        summary = ", ".join(f"{n} {what}" for what, n in counts.items())
        self.stdout.write(self.style.SUCCESS(f"Demo data ready: {summary}."))
        if settings.DEBUG:
            self.stdout.write(f"Demo login (local only): {DEMO_USERNAME} / {DEMO_PASSWORD}")
        else:
            self.stdout.write("Debug is off: the demo user cannot log in; its content is public.")
