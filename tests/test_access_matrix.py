"""Every URL with an object in it, for its owner, another player and an anonymous visitor.

The table below says what each of them may do. A URL that takes an object and is missing
from it fails `test_every_object_url_has_an_access_rule`, so a new page cannot ship
without saying who may see it. A private object is a 404 for everyone but its owner, the
same 404 as a code that never existed; a crafted POST by someone else changes nothing.
"""

import pytest
from django.core import serializers
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from battles import services as battle_services
from battles.models import Battle
from cards.models import Archon, Card, Memeyori, Party, PartySlot
from cards.services import party_set_memeyori

from .conftest import make_archon, make_card, make_memeyori, make_party

VIEW = "view"  # owner reads; others read only when public
OWNER = "owner"  # owner only, for reading and for writing
SHARED = "shared"  # anyone holding the token, no account needed

# url name -> (rule, method the owner's happy path uses, status the owner gets)
RULES = {
    "character": (VIEW, "GET", 200),
    "character_edit": (OWNER, "GET", 200),
    "character_stats": (OWNER, "GET", 200),
    "character_duplicate": (OWNER, "POST", 302),
    "character_delete": (OWNER, "GET", 200),
    "character_export": (OWNER, "GET", 200),
    "card_editor": (OWNER, "GET", 200),
    "card_add": (OWNER, "POST", 302),
    "card_edit": (OWNER, "GET", 200),
    "card_reorder": (OWNER, "POST", 302),
    "card_remove": (OWNER, "GET", 200),
    "party": (VIEW, "GET", 200),
    "party_edit": (OWNER, "GET", 200),
    "party_remove": (OWNER, "GET", 200),
    "party_export": (OWNER, "GET", 200),
    "print_mastercard": (VIEW, "GET", 200),
    "print_share_png": (VIEW, "GET", 200),
    "print_portrait": (OWNER, "GET", 200),
    "battle": (VIEW, "GET", 200),
    "battle_log": (VIEW, "GET", 200),
    "battle_og": (VIEW, "GET", 200),
    "battle_share": (OWNER, "POST", 302),
    "battle_shared": (SHARED, "GET", 200),
    "battle_shared_log": (SHARED, "GET", 200),
    "battle_shared_og": (SHARED, "GET", 200),
}
OBJECT_KWARGS = {"code", "card", "token"}
# Django's own signed, single-use reset links: checked by Django's token generator, and by
# test_a_forged_reset_link_changes_no_password below instead of the matrix.
DJANGO_TOKEN_URLS = {"password_reset_confirm"}


def object_url_names() -> set[str]:
    def walk(patterns):
        for p in patterns:
            if isinstance(p, URLResolver):
                if p.app_name != "admin":
                    yield from walk(p.url_patterns)
            elif isinstance(p, URLPattern) and OBJECT_KWARGS & set(p.pattern.converters):
                yield p.name

    return set(walk(get_resolver().url_patterns))


def test_every_object_url_has_an_access_rule():
    assert object_url_names() - DJANGO_TOKEN_URLS == set(RULES)


def test_a_forged_reset_link_changes_no_password(client, alice, bob):
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    uid = urlsafe_base64_encode(force_bytes(alice.pk))
    bobs_token = default_token_generator.make_token(bob)  # a real token, for someone else
    before = alice.password
    for token in (bobs_token, "set-password", "x" * 40):
        url = reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": token})
        data = {"new_password1": "Pwned-pass-123!", "new_password2": "Pwned-pass-123!"}
        response = client.post(url, data, follow=True)
        assert "This link does not work" in response.content.decode()
    alice.refresh_from_db()
    assert alice.password == before


@pytest.fixture
def world(alice, types):
    """Alice's private things, one of each kind that a URL can name."""
    m = make_memeyori(alice, types["Blaze"], name="Secret Pup")
    second = make_memeyori(alice, types["Tide"], name="Secret Frog")
    archon = make_archon(alice, types["Lumen"], name="Secret Archon")
    card = make_card(m, types["Blaze"], name="Secret Nip")
    make_card(m, types["Blaze"], name="Second Nip")
    party = make_party(alice, name="Secret Party", archon=archon)
    party_set_memeyori(party=party, memeyori=[m, second])
    battle = battle_services.battle_run(owner=alice, party_a=party, party_b=party, seed=3)
    battle = battle_services.battle_set_visibility(battle=battle, visibility="unlisted")
    # A complete, valid post for every form: a missing ownership check would save it.
    payload = {
        "name": "Pwned", "type": types["Shade"].pk, "rank": 6, "strength": 20, "endurance": 20,
        "iq": 20, "wit": 20, "speed": 20, "aura": 20, "visibility": "public", "category": "magic",
        "power": 99, "mp_cost": 0, "unlock_rank": 1, "level": 1, "action": "regenerate",
        "direction": "down", "focus_x": "0.1", "focus_y": "0.1",
    }  # fmt: skip
    # The card editor's add form carries a prefix.
    payload.update({f"new-{k}": v for k, v in payload.items()})
    return {
        "memeyori": m, "archon": archon, "card": card, "party": party, "battle": battle,
        "payload": payload,
    }  # fmt: skip


def urls_for(name: str, world) -> list[str]:
    m, battle = world["memeyori"], world["battle"]
    if name in ("card_edit", "card_reorder", "card_remove"):
        return [
            reverse(name, kwargs={"kind": "memeyori", "code": m.code, "card": world["card"].code})
        ]
    if name.startswith(("character", "print_", "card_")):
        return [
            reverse(name, kwargs={"kind": "memeyori", "code": m.code}),
            reverse(name, kwargs={"kind": "archon", "code": world["archon"].code}),
        ]
    if name.startswith("party"):
        return [reverse(name, kwargs={"code": world["party"].code})]
    if name.startswith("battle_shared"):
        return [reverse(name, kwargs={"token": battle.share_token})]
    return [reverse(name, kwargs={"code": battle.code})]


def stored_state() -> str:
    rows = [
        *Memeyori.objects.all(), *Archon.objects.all(), *Card.objects.all(),
        *Party.objects.all(), *PartySlot.objects.all(), *Battle.objects.all(),
    ]  # fmt: skip
    return serializers.serialize("json", rows)


def request(client: Client, method: str, url: str, data: dict):
    return client.post(url, data) if method == "POST" else client.get(url)


@pytest.mark.parametrize("name", sorted(RULES))
def test_the_owner_can_use_every_url(client, alice, world, name):
    rule, method, status = RULES[name]
    client.force_login(alice)
    for url in urls_for(name, world):
        response = request(client, method, url, world["payload"])
        assert response.status_code == status, (url, response.status_code)


@pytest.mark.parametrize("name", sorted(n for n, (rule, *_) in RULES.items() if rule != SHARED))
@pytest.mark.parametrize("who", ["bob", "anonymous"])
def test_others_get_a_404_and_change_nothing(client, bob, world, name, who):
    if who == "bob":
        client.force_login(bob)
    before = stored_state()
    for url in urls_for(name, world):
        for method in ("GET", "POST"):
            response = request(client, method, url, world["payload"])
            if who == "anonymous" and response.status_code == 302:
                # Log in first, then the same 404 as for bob.
                assert response.url.startswith(reverse("login")), url
                continue
            assert response.status_code in (404, 405), (method, url, response.status_code)
    assert stored_state() == before


@pytest.mark.parametrize("name", sorted(n for n, (rule, *_) in RULES.items() if rule == SHARED))
def test_a_share_link_opens_for_anyone_until_it_is_revoked(client, world, name):
    url = urls_for(name, world)[0]
    assert client.get(url).status_code == 200
    battle_services.battle_share_revoke(battle=world["battle"])
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("name", sorted(n for n, (rule, *_) in RULES.items() if rule == VIEW))
def test_public_objects_are_readable_by_anyone(client, world, name):
    for key in ("memeyori", "archon", "party"):
        world[key].visibility = "public"
        world[key].save(update_fields=["visibility"])
    battle_services.battle_set_visibility(battle=world["battle"], visibility="public")
    for url in urls_for(name, world):
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize(
    "name", sorted(n for n, (_, method, _s) in RULES.items() if method == "POST")
)
def test_csrf_is_enforced_on_every_post(alice, world, name):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    before = stored_state()
    for url in urls_for(name, world):
        assert client.post(url, {"name": "x"}).status_code == 403
    assert stored_state() == before
