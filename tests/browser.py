"""Real-browser helpers: Playwright's Python package driving Debian's Chromium.

`make test` skips these journeys with a clear message where /usr/bin/chromium is missing;
`.ci/run` installs it, so CI always runs them. Screenshots land in artifacts/screenshots/.
"""

import os
import re
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def require_chromium():
    if not CHROMIUM.exists():
        pytest.skip(f"browser journeys need Chromium at {CHROMIUM} (apt-get install chromium)")


def screenshot(page, name: str, *, a11y: bool = True):
    """Save the page as it looks now, after checking it with axe-core (tests/axe.py)."""
    if a11y:
        from .axe import check_a11y

        check_a11y(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{re.sub(r'[^a-z0-9_-]+', '-', name.lower())}.png")


DESKTOP = {"viewport": {"width": 1366, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def signed_in(browser, base_url: str, user, **options):
    """A new browser context signed in as `user` on the site at `base_url` (a session made
    by Django's test client, its cookie handed to the browser), and a page in it."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    context = browser.new_context(**options)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}]
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page
