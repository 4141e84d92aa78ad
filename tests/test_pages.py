"""The read-only pages that the foundation serves."""

import pytest
from django.urls import reverse

from .conftest import make_memeyori


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
