"""A first journey in a real browser: the site loads under its CSP with htmx working."""

import pytest

from .browser import screenshot

pytestmark = pytest.mark.browser


def test_the_home_page_loads_with_no_csp_violation(page, live_server, types):
    messages = []
    page.on("console", lambda m: messages.append(m.text))
    page.goto(live_server.url + "/")
    assert page.locator("h1").first.inner_text().startswith("Build Memeyori")
    assert page.evaluate("typeof htmx") == "object"
    page.goto(live_server.url + "/types/")
    assert page.locator("table.type-chart td.weak").count() > 0
    screenshot(page, "smoke-type-chart")
    assert [m for m in messages if "Content Security Policy" in m] == []
