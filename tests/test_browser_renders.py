"""Waiting for a render in a real browser: the page updates itself, with and without
JavaScript, while a worker renders."""

import pytest
from playwright.sync_api import expect

from cards.printing.store import Render
from cards.printing.tasks import render_task

from .browser import screenshot
from .conftest import make_card, make_memeyori

pytestmark = pytest.mark.browser


@pytest.fixture
def pup(transactional_db, types, django_user_model):
    owner = django_user_model.objects.create_user("dana", password="a-long-pass-123!")
    m = make_memeyori(owner, types["Blaze"], name="Emberpup", visibility="public")
    make_card(m, types["Blaze"], name="Cinder Nip")
    return m


def log_in(page, url: str):
    page.goto(url + "/accounts/login/")
    page.get_by_label("Username").fill("dana")
    page.get_by_label("Password").fill("a-long-pass-123!")
    page.get_by_role("button", name="Log in").click()


def test_the_print_preview_appears_in_place_once_a_worker_has_rendered_it(
    page, live_server, pup, queued_tasks
):
    log_in(page, live_server.url)
    page.goto(live_server.url + "/print/")
    page.get_by_label("Emberpup (Rank 1)").check()
    page.get_by_role("button", name="Check and preview").click()
    status = page.locator("#render-status")
    expect(status).to_contain_text("Queued: yours is next.")
    screenshot(page, "render-01-queued")
    render_task.call(Render.objects.get().pk)
    expect(page.locator("#print-result")).to_contain_text("Everything fits")
    expect(page.locator("img.sheet-preview")).to_be_visible()
    screenshot(page, "render-02-preview")


def test_without_javascript_a_pdf_link_waits_then_downloads(
    _browser, live_server, pup, queued_tasks
):
    context = _browser.new_context(java_script_enabled=False, accept_downloads=True)
    page = context.new_page()
    try:
        url = f"{live_server.url}/print/c/memeyori/{pup.code}/mastercard.pdf?paper=card"
        page.goto(url)
        expect(page.locator("#render-status")).to_contain_text("Queued")
        # The page reloads itself every second without JS, so axe (which needs the page to
        # hold still) checks the same waiting page in the test with JS instead.
        screenshot(page, "render-03-no-js-queued", a11y=False)
        render_task.call(Render.objects.get().pk)
        with page.expect_download(timeout=10_000) as download:
            pass  # the page refreshes itself, then goes straight to the file
        assert download.value.suggested_filename == "emberpup-mastercard.pdf"
    finally:
        context.close()
