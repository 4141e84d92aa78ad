"""Every error a person can reach is a page of the site that says what happened and what to
do, with the status that fits, with debug on (`make run`) and off (issue 21.5)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from battles.models import BattleVisibility
from cards.tables import services as tables

from .conftest import make_user
from .test_battle_pages import make_team, run

DEBUG = pytest.mark.parametrize("debug", [True, False], ids=["debug", "no-debug"])


def site_page(response) -> str:
    """The body, after checking it is the site's own page and not Django's."""
    html = response.content.decode()
    assert response["Content-Type"].startswith("text/html")
    assert 'class="site-header"' in html and 'class="error-page"' in html
    assert "Using the URLconf" not in html and "Traceback" not in html
    assert f"Error {response.status_code}" in html
    return html


@pytest.fixture
def table(alice):
    return tables.table_create(gm=alice, name="Sunday Table")


@DEBUG
def test_a_revoked_invite_says_so_and_what_to_do(client, settings, table, bob, debug):
    settings.DEBUG = debug
    token = tables.table_invite_open(table=table).invite_token
    tables.table_invite_revoke(table=table)
    client.force_login(bob)
    response = client.get(f"/tables/join/{token}/")
    assert response.status_code == 404
    html = site_page(response)
    assert "This invite link no longer works" in html
    assert "Ask your GM for a new one." in html
    assert "Sunday Table" not in html  # a dead link names no table


@DEBUG
def test_an_expired_invite_reads_the_same_even_before_logging_in(client, settings, table, debug):
    settings.DEBUG = debug
    token = tables.table_invite_open(table=table, days=1).invite_token
    table.invite_expires = timezone.now() - timedelta(minutes=1)
    table.save()
    response = client.get(f"/tables/join/{token}/")  # nobody logged in: no login detour
    assert response.status_code == 404
    assert "Ask your GM for a new one." in site_page(response)


def test_a_live_invite_still_asks_a_visitor_to_log_in_first(client, table):
    token = tables.table_invite_open(table=table).invite_token
    response = client.get(f"/tables/join/{token}/")
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/?next=/tables/join/")


def test_an_invite_that_dies_between_the_page_and_the_button_says_so(client, table, bob):
    token = tables.table_invite_open(table=table).invite_token
    client.force_login(bob)
    assert client.get(f"/tables/join/{token}/").status_code == 200
    tables.table_invite_revoke(table=table)
    response = client.post(f"/tables/join/{token}/")
    assert response.status_code == 404
    assert "This invite link no longer works" in site_page(response)


@pytest.fixture
def shared_battle(alice, bob, types):
    a = make_team(alice, types, "Sunrise", visibility="public")
    b = make_team(bob, types, "Night", visibility="public")
    return run(alice, a, b, visibility=BattleVisibility.UNLISTED)


@DEBUG
def test_a_bad_step_on_a_share_link_is_a_styled_400_with_a_way_back(
    client, settings, shared_battle, debug
):
    settings.DEBUG = debug
    url = shared_battle.share_url()
    response = client.get(url + "?round=999&step=-4")
    assert response.status_code == 400
    html = site_page(response)
    assert "That step is not in this battle" in html
    assert f'href="{url}">Open the battle at its start</a>' in html
    # A round past the end is only clamped: the last round opens.
    assert client.get(url + "?round=999").status_code == 200


@DEBUG
def test_a_revoked_share_link_says_so(client, settings, shared_battle, debug):
    settings.DEBUG = debug
    url = shared_battle.share_url()
    shared_battle.share_token = None
    shared_battle.save()
    response = client.get(url)
    assert response.status_code == 404
    html = site_page(response)
    assert "This share link no longer works" in html and "Ask them for a new link." in html


@DEBUG
def test_an_address_that_matches_nothing_is_the_sites_404(client, settings, debug, db):
    settings.DEBUG = debug
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    html = site_page(response)
    assert "Not found" in html and "Back to the start" in html
    # With debug on, the developer's reason is folded away beneath the page.
    assert ("No URL pattern matches /no/such/page/." in html) is debug


def test_a_code_nobody_can_see_is_the_sites_404_in_debug(client, settings, alice, db):
    settings.DEBUG = True
    client.force_login(alice)
    response = client.get("/battles/00000000-0000-0000-0000-000000000000/")
    assert response.status_code == 404
    assert "There is nothing here." in site_page(response)


def test_a_form_left_open_past_its_session_is_a_page_that_says_reload(settings, alice):
    settings.DEBUG = True
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post("/tables/new/", {"name": "Late"})
    assert response.status_code == 403
    html = site_page(response)
    assert "This form has expired" in html and "reload the page" in html


def test_not_allowed_is_a_page_that_says_why(client, alice, db):
    client.force_login(alice)
    response = client.post("/types/save/", {})
    assert response.status_code == 403
    assert "Only staff edit the type chart." in site_page(response)


def test_a_request_the_site_cannot_read_is_a_styled_400(client, settings, db):
    settings.DEBUG = False
    response = client.get("/", headers={"Host": "evil.example"})
    assert response.status_code == 400
    assert "That request did not make sense" in site_page(response)


def test_error_pages_ask_not_to_be_indexed(client, db):
    html = client.get("/no/such/page/").content.decode()
    assert '<meta name="robots" content="noindex">' in html


def test_the_debug_404_keeps_json_endpoints_answering_with_a_status(client, settings, db):
    # The presenter poll's JavaScript only reads the status code.
    settings.DEBUG = True
    make_user("carol")
    assert client.get("/battles/p/nonsense/").status_code == 404
