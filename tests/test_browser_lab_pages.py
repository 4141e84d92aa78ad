"""The lab's pages on a phone and in the dark (issue 21.2), in headless Chromium.

At 390 px the outcome chart and the length histogram fit the width, the histogram's top
label is inside the chart, every text passes axe's contrast check in both colour schemes,
the <pre> on /labs/about/ takes keyboard focus, and the landmarks of the rules and lab
pages have names of their own. Each page is also saved at 390x844 and 1366x900, light and
dark (SHOTS_DIR, default artifacts/screenshots/lab-pages/), to be looked at.
"""

import os
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from battles.lab import services
from cards.models import Memeyori, Party
from tests.conftest import seed_demo_with_login

from .browser import ARTIFACTS

pytestmark = pytest.mark.browser

SIZES = {"phone": (390, 844), "desktop": (1366, 900)}
SCHEMES = ("light", "dark")
# Checked whatever axe calls their impact (landmark-unique is only "moderate").
RULES = ("color-contrast", "landmark-unique", "scrollable-region-focusable")
_axe = Axe()


def shots_dir() -> Path:
    path = Path(os.environ.get("SHOTS_DIR", ARTIFACTS / "lab-pages"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def problems(page) -> list[str]:
    """axe's serious and critical violations, and every one of RULES."""
    found = _axe.run(page, options={"resultTypes": ["violations"]}).response["violations"]
    return [
        f"{v['id']} ({v['impact']}) at {[' '.join(map(str, n['target'])) for n in v['nodes'][:4]]}"
        for v in found
        if v["id"] in RULES or v["impact"] in ("serious", "critical")
    ]


@pytest.fixture
def labs(transactional_db):
    """A finished public lab, a "what if" of it and one against the field, as a GM has
    them after an evening: real battles, run here rather than by a worker."""
    seed_demo_with_login()
    parties = {p.name: p for p in Party.objects.all()}
    owner = parties["Sunrise Squad"].owner
    one = services.lab_create(
        owner=owner, party_a=parties["Sunrise Squad"], party_b=parties["Night Shift"],
        battles=300, seed=7, visibility="public",
    )  # fmt: skip
    services.run_inline(one)
    newcomer = Memeyori.objects.get(name="Mochimunch")
    what_if = services.lab_what_if(
        owner=owner, base=one, kind="replace", slot=4, character=newcomer
    )
    services.run_inline(what_if)
    field = services.lab_create(
        owner=owner, party_a=parties["Cold Front"], party_b=None, battles=100, seed=7,
        visibility="public",
    )  # fmt: skip
    services.run_inline(field)
    return {"one": one, "what_if": what_if, "field": field}


def _pages(url, labs) -> dict[str, str]:
    return {
        "lab": url + labs["one"].get_absolute_url(),
        "what-if": url + labs["what_if"].get_absolute_url(),
        "field": url + labs["field"].get_absolute_url(),
        "about": url + "/labs/about/",
        "rules": url + "/rules/",
    }


def test_lab_pages_fit_a_phone_and_pass_axe_in_both_schemes(_browser, live_server, labs):
    out = shots_dir()
    label = os.environ.get("SHOTS_LABEL", "after")
    found = []
    for scheme in SCHEMES:
        for size, (w, h) in SIZES.items():
            context = _browser.new_context(viewport={"width": w, "height": h}, color_scheme=scheme)
            page = context.new_page()
            page.set_default_timeout(10_000)
            for name, address in _pages(live_server.url, labs).items():
                page.goto(address)
                found += [f"{name} {size} {scheme}: {p}" for p in problems(page)]
                page.screenshot(
                    path=out / f"{label}-{name}-{size}-{scheme}.png", full_page=True, timeout=60_000
                )
            context.close()
    print("\n".join(found))
    assert found == []


def _box(page, selector):
    return page.locator(selector).first.bounding_box()


def test_at_390_px_the_charts_fit_the_width_and_no_label_is_clipped(_browser, live_server, labs):
    context = _browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(live_server.url + labs["one"].get_absolute_url())
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for label in ("Wins, draws and losses", "Battles by length in rounds"):
        chart = page.locator(f'svg.chart[data-label^="{label}"] >> visible=true')
        assert chart.count() == 1  # the narrow drawing; the wide one is hidden
        box = chart.bounding_box()
        figure = chart.locator("xpath=..").bounding_box()
        # The whole chart is in view: it fits its figure, which fits the phone.
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (label, box)
        assert box["width"] <= figure["width"] + 0.5, (label, box, figure)
        # Every text of the chart lies inside the chart's own box (no "l218" for "1218").
        texts = chart.locator("text")
        for i in range(texts.count()):
            t = texts.nth(i).bounding_box()
            assert t["x"] >= box["x"] - 0.5 and t["x"] + t["width"] <= box["x"] + box["width"] + 0.5
            assert (
                t["y"] >= box["y"] - 0.5 and t["y"] + t["height"] <= box["y"] + box["height"] + 0.5
            )
    context.close()


def test_the_about_pages_example_takes_keyboard_focus(_browser, live_server, labs):
    context = _browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(live_server.url + "/labs/about/")
    pre = page.locator("main pre")
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.tagName") == "PRE":
            break
    assert page.evaluate("document.activeElement.tagName") == "PRE"
    assert pre.evaluate("e => getComputedStyle(e).outlineStyle") != "none"
    context.close()
