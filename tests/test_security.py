"""What issue 6 asks of the whole site beyond the access matrix and hostile text:
tokens, failures half-way, and templates that the CSP can trust."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from battles import services as battle_services
from battles.models import new_share_token
from cards import exchange
from cards.models import Archon, Card, Memeyori, Party, PartySlot
from cards.services import party_set_memeyori

from .conftest import make_card, make_memeyori, make_party, without_per_request_tokens

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def test_share_tokens_carry_256_bits():
    tokens = {new_share_token() for _ in range(200)}
    assert len(tokens) == 200
    # token_urlsafe(32): 32 random bytes as 43 URL-safe base64 characters.
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{43}", t) for t in tokens)


def test_revoked_and_never_issued_tokens_are_indistinguishable(client, alice, types):
    # Public parts for an unlisted battle (issue 18.6).
    party = make_party(alice, name="Duo", visibility="public")
    m = make_memeyori(alice, types["Blaze"], visibility="public")
    make_card(m, types["Blaze"])
    party_set_memeyori(party=party, memeyori=[m])
    battle = battle_services.battle_run(
        owner=alice, party_a=party, party_b=party, seed=1, visibility="unlisted"
    )
    revoked = battle.share_token
    battle_services.battle_share_revoke(battle=battle)
    never = new_share_token()
    for suffix in ("", "log.json", "og.png"):
        a = client.get(f"/battles/s/{revoked}/{suffix}")
        b = client.get(f"/battles/s/{never}/{suffix}")
        assert a.status_code == b.status_code == 404
        assert without_per_request_tokens(a) == without_per_request_tokens(b)
        assert a.headers.get("Content-Type") == b.headers.get("Content-Type")


def counts():
    return [m.objects.count() for m in (Memeyori, Archon, Card, Party, PartySlot)]


def test_an_import_that_fails_half_way_leaves_nothing_behind(alice, bob, types, monkeypatch):
    m = make_memeyori(alice, types["Blaze"], name="Exported")
    make_card(m, types["Blaze"])
    party = make_party(alice, name="To Copy")
    party_set_memeyori(party=party, memeyori=[m])
    plan = exchange.import_parse(exchange.dumps(exchange.export_party(party)), owner=bob)
    before = counts()

    def fail(*args, **kwargs):
        raise RuntimeError("the disk is full")  # after the characters and cards are written

    # The parties are the last batch written (issue 18.4's batch inserts).
    monkeypatch.setattr(exchange.PartySlot.objects, "bulk_create", fail)
    with pytest.raises(RuntimeError):
        exchange.import_create(plan=plan, owner=bob)
    assert counts() == before
    assert not Memeyori.objects.filter(owner=bob).exists()


def template_files():
    return sorted(TEMPLATES.rglob("*.html"))


@pytest.mark.parametrize("path", template_files(), ids=lambda p: str(p.relative_to(TEMPLATES)))
def test_templates_have_no_inline_script_style_or_handler_without_a_nonce(path):
    html = path.read_text(encoding="utf-8")
    # The print templates are for WeasyPrint, which runs no script and ignores the CSP.
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in tag or "nonce=" in tag, f"{path}: inline script without a nonce"
    if "print/" not in str(path.relative_to(TEMPLATES)):
        for tag in re.findall(r"<style\b[^>]*>", html):
            assert "nonce=" in tag, f"{path}: inline style without a nonce"
        assert not re.search(r"\sstyle=\"", html), f"{path}: a style attribute (CSP refuses it)"
    assert not re.search(r"\son[a-z]+=\"", html), f"{path}: an inline event handler"
    assert not re.search(r"\shx-on", html), f"{path}: hx-on needs eval"
    assert "://" not in re.sub(r"https?://(www\.)?w3\.org[^\"]*", "", html) or "{{" in html


def test_htmx_comes_from_our_own_static_files(client, db):
    html = client.get(reverse("home")).content.decode()
    srcs = re.findall(r'<script[^>]*src="([^"]+)"', html)
    assert srcs and all(src.startswith("/static/") for src in srcs)


def test_a_404_is_a_page_of_the_site_that_gives_nothing_away(client, settings, db):
    settings.DEBUG = False
    response = client.get("/battles/s/" + new_share_token() + "/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "Not found" in html and "Back to the start" in html
    assert "Traceback" not in html
