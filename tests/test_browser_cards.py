"""The cards on screen in a real browser (issue 22): the whole set and the rules page's
example, light and dark, on a desktop and a phone, under the CSP, checked by axe-core
(colour contrast included) and measured: every card keeps its printed proportions."""

import pytest

from cards.demo import seed_demo
from cards.models import Memeyori

from .browser import screenshot

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width, height", [(1366, 900), (390, 844)])
def test_a_characters_cards_read_on_screen_as_they_print(
    _browser, live_server, transactional_db, scheme, width, height
):
    seed_demo()
    pup = Memeyori.objects.get(name="Emberpup")
    context = _browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    messages = []
    page.on("console", lambda m: messages.append(m.text))
    try:
        page.goto(f"{live_server.url}/print/c/memeyori/{pup.code}/")
        cards = page.locator("article.card")
        assert cards.count() == 7  # the Mastercard, five move cards, the back
        for i in range(cards.count()):
            box = cards.nth(i).bounding_box()
            assert box["width"] <= width  # fits a phone's width
            assert box["height"] / box["width"] == pytest.approx(88 / 63, rel=0.02)
        # The art window shows the generated Type art (an image that loaded).
        art = page.locator(".mastercard img.art")
        assert art.evaluate("img => img.complete && img.naturalWidth > 0")
        screenshot(page, f"cards-set-{width}-{scheme}")
        page.goto(f"{live_server.url}/rules/")
        assert page.locator(".example-card article.mastercard").count() == 1
        screenshot(page, f"cards-rules-example-{width}-{scheme}")
        assert [m for m in messages if "Content Security Policy" in m] == []
    finally:
        context.close()
