"""What search engines and link previews see (issue 21.10): every page describes itself in
a <meta name="description">, /robots.txt keeps private pages and share links out of
indexes, and share links say noindex themselves."""

import re
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from protego import Protego

from battles.demo import seed_demo_battles
from battles.models import Battle, BattleVisibility
from cards.demo import DEMO_USERNAME, seed_demo
from cards.tables import services as tables

DESCRIPTION = re.compile(r'<meta name="description" content="([^"]*)">')
SKIP = re.compile(r"^/(static|media|admin)/|/accounts/logout/|\.(pdf|png|jpg|json|ico|css)$")


@pytest.fixture
def demo(db):
    seed_demo()
    user = get_user_model().objects.get(username=DEMO_USERNAME)
    seed_demo_battles(user)
    return user


def crawl(client, start: list[str], limit: int = 120) -> dict[str, str]:
    """Every page reachable by plain links from `start` (no query strings: a viewer's
    steps are one page), as {path: html}."""
    seen, queue, pages = set(start), list(start), {}
    while queue and len(pages) < limit:
        path = queue.pop(0)
        response = client.get(path)
        if response.status_code != 200 or not response["Content-Type"].startswith("text/html"):
            continue
        html = response.content.decode()
        pages[path] = html
        for href in re.findall(r'href="([^"#?]+)"', html):
            href = urlsplit(href).path
            if href.startswith("/") and href not in seen and not SKIP.search(href):
                seen.add(href)
                queue.append(href)
    return pages


def check_descriptions(pages: dict[str, str], *, at_least: int = 15):
    assert len(pages) >= at_least
    for path, html in pages.items():
        found = DESCRIPTION.findall(html)
        assert len(found) == 1, f"{path}: {len(found)} meta descriptions"
        assert 40 <= len(found[0]) <= 300, f"{path}: description {found[0]!r}"


def test_every_page_a_visitor_reaches_describes_itself(client, demo):
    pages = crawl(client, ["/", "/accounts/login/", "/accounts/signup/", "/labs/about/"])
    check_descriptions(pages)
    # Pages of one thing say what that thing is, not the site's general line.
    battle = Battle.objects.filter(visibility=BattleVisibility.PUBLIC).first()
    (text,) = DESCRIPTION.findall(pages[battle.get_absolute_url()])
    assert text.startswith(battle.preview_text)
    (rules,) = DESCRIPTION.findall(pages["/rules/"])
    assert "R1 to R10" in rules


def test_every_page_a_player_reaches_describes_itself(client, demo):
    client.force_login(demo)
    table = tables.table_create(gm=demo, name="Demo Table")
    pages = crawl(client, ["/", "/my/", "/parties/", table.get_absolute_url()])
    check_descriptions(pages)
    assert "/tables/" in pages and "/battles/" in pages


def test_error_and_question_pages_describe_themselves_too(client, demo):
    battle = Battle.objects.filter(visibility=BattleVisibility.PUBLIC).first()
    client.force_login(demo)
    table = tables.table_create(gm=demo, name="Demo Table")
    pages = {
        "404": client.get("/no/such/page/"),
        "400": client.get(battle.get_absolute_url() + "?step=-1"),
        "question": client.get(f"/tables/{table.code}/leave/"),
    }
    assert [r.status_code for r in pages.values()] == [404, 400, 200]
    check_descriptions({k: r.content.decode() for k, r in pages.items()}, at_least=3)


@pytest.fixture
def robots(client, db) -> Protego:
    response = client.get("/robots.txt")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    assert client.head("/robots.txt").status_code == 200
    return Protego.parse(response.content.decode())


PUBLIC = [
    "/",
    "/rules/",
    "/types/",
    "/battles/public/",
    "/battles/0b7e4c0e-3d2a-4a8e-9b1a-4c1f2e3d4a5b/",
    "/labs/public/",
    "/labs/about/",
    "/c/memeyori/0b7e4c0e-3d2a-4a8e-9b1a-4c1f2e3d4a5b/",
    "/parties/0b7e4c0e-3d2a-4a8e-9b1a-4c1f2e3d4a5b/",
    "/build/memeyori/",
]
PRIVATE = [
    "/accounts/login/",
    "/my/",
    "/parties/",
    "/battles/",
    "/labs/",
    "/tables/",
    "/tables/join/sometoken/",
    "/import/",
    "/c/memeyori/0b7e4c0e-3d2a-4a8e-9b1a-4c1f2e3d4a5b/edit/",
    "/parties/0b7e4c0e-3d2a-4a8e-9b1a-4c1f2e3d4a5b/edit/",
    "/c/memeyori/0b7e4c0e-3d2a-4a8e-9b1a-4c1f2e3d4a5b/export.json",
    "/build/memeyori/stats/",
]
SHARE_LINKS = ["/battles/s/sometoken/", "/battles/s/sometoken/og.png", "/labs/s/sometoken/"]


def test_robots_txt_lets_crawlers_index_public_pages_only(robots):
    for path in PUBLIC:
        assert robots.can_fetch(path, "Googlebot"), path
    for path in PRIVATE + SHARE_LINKS:
        assert not robots.can_fetch(path, "Googlebot"), path


def test_link_previews_may_read_a_share_link_but_nothing_private(robots):
    for agent in ("Twitterbot", "facebookexternalhit", "Slackbot-LinkExpanding", "Discordbot"):
        for path in SHARE_LINKS:
            assert robots.can_fetch(path, agent), (agent, path)
        for path in PRIVATE:
            assert not robots.can_fetch(path, agent), (agent, path)


def test_share_links_say_noindex_in_their_headers_and_their_page(client, demo):
    battle = Battle.objects.filter(owner=demo).first()
    battle.visibility = BattleVisibility.UNLISTED
    battle.save()
    from battles.services import battle_share_regenerate

    url = battle_share_regenerate(battle=battle).share_url()
    page = client.get(url)
    assert page["X-Robots-Tag"] == "noindex"
    assert '<meta name="robots" content="noindex">' in page.content.decode()
    assert client.get(url + "log.json")["X-Robots-Tag"] == "noindex"
    # Unlisted, the battle's own page is noindex too; a public battle's page may be indexed.
    client.force_login(demo)
    assert (
        '<meta name="robots" content="noindex">'
        in client.get(battle.get_absolute_url()).content.decode()
    )
    public = Battle.objects.filter(visibility=BattleVisibility.PUBLIC).first()
    html = client.get(public.get_absolute_url()).content.decode()
    assert 'name="robots"' not in html


def test_an_invite_link_says_noindex(client, demo):
    table = tables.table_create(gm=demo, name="Demo Table")
    token = tables.table_invite_open(table=table).invite_token
    assert client.get(f"/tables/join/{token}/")["X-Robots-Tag"] == "noindex"


def test_the_standalone_500_page_describes_itself(db):
    from django.template.loader import render_to_string

    html = render_to_string("500.html")
    check_descriptions({"500": html}, at_least=1)
