"""The read-only pages that the foundation serves."""

import re

import pytest
from django.core.cache import caches
from django.urls import reverse

from .conftest import make_archon, make_memeyori


@pytest.fixture
def public_and_private(alice, types):
    public = make_memeyori(alice, types["Blaze"], name="Sunny", visibility="public")
    private = make_memeyori(alice, types["Shade"], name="Secret", visibility="private")
    return public, private


def test_home_lists_recent_public_memeyori_only(client, public_and_private):
    html = client.get(reverse("home")).content.decode()
    assert "Sunny" in html
    assert "Secret" not in html


def test_a_private_character_is_a_404_for_bob_and_visitors(client, bob, public_and_private):
    _, private = public_and_private
    assert client.get(private.get_absolute_url()).status_code == 404
    client.force_login(bob)
    assert client.get(private.get_absolute_url()).status_code == 404


def test_the_owner_sees_their_private_character_with_its_stats(client, alice, public_and_private):
    _, private = public_and_private
    client.force_login(alice)
    html = client.get(private.get_absolute_url()).content.decode()
    assert "Secret" in html
    assert "HP 41 = 6 + 5 x END 5 + 2 x STR 5" in html


def test_character_urls_carry_codes_not_integer_keys(public_and_private):
    public, _ = public_and_private
    assert str(public.code) in public.get_absolute_url()
    assert f"/{public.pk}/" not in public.get_absolute_url()


def test_html_in_a_name_is_escaped(client, alice, types):
    m = make_memeyori(alice, types["Blaze"], name="<script>alert(1)</script>", visibility="public")
    html = client.get(m.get_absolute_url()).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;" in html


def test_the_type_chart_marks_weak_and_strong_with_symbols(client, types):
    html = client.get(reverse("type_chart")).content.decode()
    assert "weak, x3/2" in html
    assert "strong, x1/2" in html


def test_pages_carry_a_strict_content_security_policy(client, types):
    response = client.get(reverse("home"))
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self' 'nonce-" in policy
    assert "unsafe-inline" not in policy
    html = response.content.decode()
    assert 'src="/static/django-htmx/' in html or "htmx" in html


def test_type_colours_come_from_a_stylesheet(client, types):
    css = client.get(reverse("types_css")).content.decode()
    assert f".type-blaze {{ --type-colour: {types['Blaze'].colour};" in css


def test_it_shows_each_characters_own_numbers_when_another_with_the_same_has_been_shown(
    client, alice, types
):
    """The attributes and stats lists are kept rendered (CACHES["fragments"]) under the
    numbers they show: a Rank 6 Memeyori, a Rank 1 one and an Archon with the same
    attributes each show their own, as when nothing is kept; a private one stays private."""
    same = dict(strength=8, endurance=6, iq=4, wit=3, speed=5, aura=2, visibility="public")
    characters = [
        make_memeyori(alice, types["Blaze"], name="Six", rank=6, **same),
        make_memeyori(alice, types["Tide"], name="One", rank=1, **same),
        make_archon(alice, types["Stone"], name="Arch", **same),
    ]

    def page(character):
        html = client.get(character.get_absolute_url()).content.decode()
        return re.sub(r'(csrfmiddlewaretoken" value=|X-CSRFToken": |nonce=)"[^"]+"', "", html)

    caches["fragments"].clear()
    fresh = []
    for character in characters:
        fresh.append(page(character))
        caches["fragments"].clear()
    for order in (characters, characters[::-1]):
        for character in order:
            assert page(character) == fresh[characters.index(character)]
    assert "HP 59 = 6 + 5 x END 7 (6 + 1 at Rank 6) + 2 x STR 9 (8 + 1 at Rank 6)" in fresh[0]
    assert "HP 52 = 6 + 5 x END 6 + 2 x STR 8" in fresh[1] and "Rank 6" not in fresh[1]
    assert "HP 52 = 6 + 5 x END 6 + 2 x STR 8" in fresh[2]
    secret = make_memeyori(
        alice, types["Shade"], name="Hidden", **{**same, "visibility": "private"}
    )
    assert client.get(secret.get_absolute_url()).status_code == 404


def test_it_shows_each_reader_their_own_nav_when_the_sites_links_are_kept(client, alice, bob):
    """The site's links in every page's head and nav are kept rendered (CACHES["fragments"]),
    a visitor's nav apart from a logged-in reader's; the name and log-out form are each
    reader's own."""
    caches["fragments"].clear()
    readers = [None, alice, bob, None, alice]
    for reader in readers:
        client.logout()
        if reader is not None:
            client.force_login(reader)
        html = client.get(reverse("home")).content.decode()
        assert f'href="{reverse("types_css")}"' in html
        assert (f'href="{reverse("lab_list")}">Labs' in html) is (reader is not None)
        assert (f'href="{reverse("lab_public")}">Labs' in html) is (reader is None)
        assert (f'href="{reverse("my_characters")}"' in html) is (reader is not None)
        assert (f'href="{reverse("login")}"' in html) is (reader is None)
        for other in (alice, bob):
            assert (f'class="who">{other.username}</a>' in html) is (other == reader)
