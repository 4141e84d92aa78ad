"""Every URL with an object in it, for its owner, a member of the owner's table, another
player and an anonymous visitor.

The table below says what each of them may do. A URL that takes an object and is missing
from it fails `test_every_object_url_has_an_access_rule`, so a new page cannot ship
without saying who may see it. A private object is a 404 for everyone but its owner, the
same 404 as a code that never existed; a crafted POST by someone else changes nothing.
"""

import pytest
from django.core import serializers
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.utils.http import urlencode

from battles import services as battle_services
from battles import views as battle_views
from battles.lab import services as lab_services
from battles.models import Battle, BattleJob, Game, Lab, LabBattle, PlayedPlan, Presentation
from battles.play import services as play_services
from battles.play.views import common as play_views
from battles.play.views.watching import presented_as
from cards.models import Archon, Card, Memeyori, Party, PartySlot, Table, TableMembership
from cards.printing import layout, store
from cards.printing.deck import character_faces
from cards.printing.render import prepare
from cards.services import party_set_memeyori
from cards.tables.services import table_create, table_invite_open, table_invite_revoke

from .conftest import make_archon, make_card, make_memeyori, make_party, make_user, set_portrait
from .test_portraits import image_bytes

PNG = image_bytes((60, 80), fmt="PNG")

VIEW = "view"  # owner reads; others read only when public
OWNER = "owner"  # owner only, for reading and for writing
SHARED = "shared"  # anyone holding the token, no account needed
HOLDER = "holder"  # anyone holding a render's code: it was given only to whoever asked
MEMBER = "member"  # anyone who sits at the table
INVITE = "invite"  # any logged-in player holding the invite token
POLL = "poll"  # whoever a poll token was handed to, while they could open the battle
COPY = "copy"  # anyone who may read it may copy it into their own collection (a POST)

# url name -> (rule, method the owner's happy path uses, status the owner gets)
RULES = {
    "character": (VIEW, "GET", 200),
    "character_edit": (OWNER, "GET", 200),
    "character_stats": (OWNER, "GET", 200),
    "character_duplicate": (OWNER, "POST", 302),
    "character_delete": (OWNER, "GET", 200),
    "character_borrow": (COPY, "POST", 302),
    "character_export": (OWNER, "GET", 200),
    "character_portrait": (VIEW, "GET", 200),
    "card_editor": (OWNER, "GET", 200),
    "card_add": (OWNER, "POST", 302),
    "card_edit": (OWNER, "GET", 200),
    "card_reorder": (OWNER, "POST", 302),
    "card_remove": (OWNER, "GET", 200),
    "party": (VIEW, "GET", 200),
    "party_edit": (OWNER, "GET", 200),
    "party_remove": (OWNER, "GET", 200),
    "party_borrow": (COPY, "POST", 302),
    "party_share": (OWNER, "POST", 302),
    "party_export": (OWNER, "GET", 200),
    "print_mastercard": (VIEW, "GET", 200),
    "print_share_png": (VIEW, "GET", 200),
    "print_portrait": (OWNER, "GET", 200),
    "print_cards": (VIEW, "GET", 200),
    # Issue 34: the generated art, and the page a printed card's QR code opens (which asks
    # a visitor to sign in, in a 404 page) and its code.
    "print_default_art": (VIEW, "GET", 200),
    "print_printed": (VIEW, "GET", 200),
    "print_printed_qr": (VIEW, "GET", 200),
    "print_render": (HOLDER, "GET", 200),
    "print_render_file": (HOLDER, "GET", 200),
    "battle": (VIEW, "GET", 200),
    "battle_log": (VIEW, "GET", 200),
    "battle_og": (VIEW, "GET", 200),
    "battle_share": (OWNER, "POST", 302),
    "battle_shared": (SHARED, "GET", 200),
    "battle_shared_log": (SHARED, "GET", 200),
    "battle_shared_og": (SHARED, "GET", 200),
    "battle_growth": (OWNER, "POST", 302),
    # A battle a task worker is playing (issue 39.3): only whoever asked for it sees it.
    "battle_job": (OWNER, "GET", 200),
    "battle_present": (MEMBER, "POST", 302),
    "battle_follow": (VIEW, "GET", 200),
    "battle_review": (MEMBER, "POST", 302),
    # Play from here (issue 32 §6): whoever reads the battle; a visitor reads the page and
    # is asked to log in before playing.
    "battle_fork": (VIEW, "GET", 200),
    "battle_shared_follow": (SHARED, "GET", 200),
    "battle_presented": (POLL, "GET", 200),
    # Under WSGI (the test client) a stream is refused with 204, so the page polls instead.
    "battle_presented_stream": (POLL, "GET", 204),
    "table": (MEMBER, "GET", 200),
    "table_leave": (MEMBER, "POST", 302),
    "table_invite": (OWNER, "POST", 302),
    "table_member": (OWNER, "POST", 302),
    "table_rules": (OWNER, "POST", 302),  # R9.6: the GM's rule at the round limit
    # Alice's characters are private, so her table has nothing to print: a clear 400.
    "table_print": (OWNER, "GET", 400),
    "table_join": (INVITE, "GET", 302),
    "lab": (VIEW, "GET", 200),
    "lab_open": (VIEW, "GET", 200),
    "lab_share": (OWNER, "POST", 302),
    "lab_resume": (OWNER, "POST", 302),
    "lab_what_if": (OWNER, "GET", 200),
    "lab_shared": (SHARED, "GET", 200),
    "lab_shared_open": (SHARED, "GET", 200),
    # Played games (issue 17): the pages (battles/play/views/) and the JSON protocol.
    "play_game": (OWNER, "GET", 200),
    "play_watch": (OWNER, "GET", 200),
    # The matrix posts no round: the plan form's clear 400.
    "play_plan_form": (OWNER, "POST", 400),
    "play_forfeit": (OWNER, "GET", 200),
    # The live check of a plan for no round sends the page to the game (issue 31.5).
    "play_plan_check": (OWNER, "POST", 302),
    # "Switch/summon now" with no round: said on the game's page.
    "play_stage": (OWNER, "POST", 302),
    # The matrix posts a form; stage.json takes JSON: the owner gets a clear 400.
    "play_stage_json": (OWNER, "POST", 400),
    # No plan in to take back: said on the game's page.
    "play_cancel": (OWNER, "POST", 302),
    # A challenge with no user name: the invite page with the field's error.
    "play_challenge": (OWNER, "POST", 400),
    "play_timeout": (OWNER, "POST", 302),
    "play_invite": (OWNER, "GET", 200),
    "play_share": (OWNER, "POST", 302),
    "play_shared": (SHARED, "GET", 200),
    "play_status": (POLL, "GET", 200),
    "play_stream": (POLL, "GET", 204),
    "play_state": (OWNER, "GET", 200),
    # The matrix posts a form; plan.json takes JSON: the owner gets a clear 400.
    "play_plan": (OWNER, "POST", 400),
    "play_shared_state": (SHARED, "GET", 200),
    # Presenter mode on a game (battles/play/presenting.py): as a battle's.
    "play_present": (OWNER, "POST", 302),
    "play_follow": (OWNER, "GET", 200),
    "play_shared_follow": (SHARED, "GET", 200),
    "play_presented": (POLL, "GET", 200),
    "play_presented_stream": (POLL, "GET", 204),
    # Alice started the friend game: her own invite sends her back to it.
    "play_join": (INVITE, "POST", 302),
}
# A URL whose happy path needs another action than the shared payload's.
PAYLOAD_FOR = {"battle_present": {"action": "start"}, "play_present": {"action": "start"}}
# What carol, who sits at alice's table, may do where alice shares with "my tables".
MEMBER_READS = {VIEW, MEMBER}
# A lab is private, unlisted or public on its own (issue 14), never "my tables": sharing
# its parties with a table does not open it.
OWN_VISIBILITY = {"lab", "lab_open", "lab_what_if"}
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
    for holder in (m, archon):
        set_portrait(holder, upload=SimpleUploadedFile("p.png", PNG))
    party = make_party(alice, name="Secret Party", archon=archon)
    party_set_memeyori(party=party, memeyori=[m, second])
    table = table_create(gm=alice, name="Secret Table")
    table_invite_open(table=table)
    TableMembership.objects.create(table=table, user=make_user("carol"))
    other = make_party(alice, name="Other Party")
    party_set_memeyori(party=other, memeyori=[second])
    battle = battle_services.battle_run(
        owner=alice, party_a=party, party_b=other, seed=3, table=table
    )
    # Unlisted though its parties are private: a battle shared before issue 18.6's rule
    # (the service refuses it now), so that its share link has something to open.
    Battle.objects.filter(pk=battle.pk).update(visibility="unlisted", share_token="b" * 43)
    battle.refresh_from_db()
    Presentation.objects.create(battle=battle, presenter=alice, html='<section id="viewer">')
    battle_job = BattleJob.objects.create(owner=alice, request={"party_a": party.pk})  # queued
    lab = lab_services.lab_create(owner=alice, party_a=party, party_b=party, battles=100, seed=3)
    lab_services.run_inline(lab)
    Lab.objects.filter(pk=lab.pk).update(visibility="unlisted", share_token="l" * 43)
    lab.refresh_from_db()
    game = play_services.start_game(user=alice, party=party, opponent="ai", party_b=other, seed=3)
    play_services.share_game(game)
    Presentation.objects.create(
        game=game,
        presenter=alice,
        html='<section id="viewer">',
        html_shared='<section id="viewer">',
    )
    friend_game = play_services.start_game(user=alice, party=party, opponent="friend")
    # A complete, valid post for every form: a missing ownership check would save it.
    payload = {
        "name": "Pwned", "type": types["Shade"].pk, "rank": 6, "strength": 20, "endurance": 20,
        "iq": 20, "wit": 20, "speed": 20, "aura": 20, "visibility": "public", "category": "magic",
        "power": 99, "mp_cost": 0, "unlock_rank": 1, "level": 1, "action": "regenerate",
        "direction": "down", "focus_x": "0.1", "focus_y": "0.1", "member": "carol",
    }  # fmt: skip
    # The card editor's add form carries a prefix.
    payload.update({f"new-{k}": v for k, v in payload.items()})
    # A stored render of her private Mastercard: its code is what she was given.
    job = store.find_or_queue(
        kind="mastercard", requester=f"user:{alice.pk}", filename="secret-pup.pdf",
        spec=prepare(character_faces(m)[:1], sheet=layout.single_card_layout("a4")),
    )  # fmt: skip
    return {
        "memeyori": m, "archon": archon, "card": card, "party": party, "battle": battle,
        "table": table, "lab": lab, "payload": payload, "render": job,
        "second": second, "other": other, "game": game, "friend_game": friend_game,
        "job": battle_job,
    }  # fmt: skip


def urls_for(name: str, world) -> list[str]:
    m, battle = world["memeyori"], world["battle"]
    if name == "battle_job":
        return [reverse(name, kwargs={"code": world["job"].code})]
    if name in ("print_render", "print_render_file"):
        return [reverse(name, kwargs={"code": world["render"].code})]
    if name in ("card_edit", "card_reorder", "card_remove"):
        return [
            reverse(name, kwargs={"kind": "memeyori", "code": m.code, "card": world["card"].code})
        ]
    if name == "character_portrait":
        return [
            reverse(name, kwargs={"kind": c.kind, "code": c.code, "size": size})
            for c in (m, world["archon"])
            for size in ("full", "print", "thumb")
        ]
    if name in ("print_default_art", "print_printed", "print_printed_qr"):
        extra = {"look": "x"} if name == "print_default_art" else {"digest": "0123456789abcdef"}
        return [
            reverse(name, kwargs={"kind": c.kind, "code": c.code, **extra})
            for c in (m, world["archon"])
        ]
    if name.startswith(("character", "print_", "card_")):
        return [
            reverse(name, kwargs={"kind": "memeyori", "code": m.code}),
            reverse(name, kwargs={"kind": "archon", "code": world["archon"].code}),
        ]
    if name.startswith("party"):
        return [reverse(name, kwargs={"code": world["party"].code})]
    if name.startswith("lab"):
        lab = world["lab"]
        query = "?m=0&i=5" if name.endswith("open") else ""
        if name.startswith("lab_shared"):
            return [reverse(name, kwargs={"token": lab.share_token}) + query]
        return [reverse(name, kwargs={"code": lab.code}) + query]
    if name.startswith("battle_shared"):
        return [reverse(name, kwargs={"token": battle.share_token})]
    if name in ("battle_presented", "battle_presented_stream"):
        p = battle.presentation
        member = "?as=" + battle_views.presented_as(p.token, f"u{battle.owner_id}")
        shared = "?as=" + battle_views.presented_as(
            p.token_shared, "s" + battle_views._share_digest(battle.share_token)
        )
        return [
            reverse(name, kwargs={"token": p.token}) + member,
            reverse(name, kwargs={"token": p.token_shared}) + shared,
        ]
    if name == "play_join":
        return [reverse(name, kwargs={"token": world["friend_game"].invite_token})]
    if name in ("play_shared_state", "play_shared"):
        return [reverse(name, kwargs={"token": world["game"].share_token})]
    if name in ("play_invite", "play_challenge"):
        return [reverse(name, kwargs={"code": world["friend_game"].code})]
    if name in ("play_presented", "play_presented_stream"):
        game = world["game"]
        p = game.presentation
        member = "?" + urlencode({"as": presented_as(game, f"u{game.created_by_id}")})
        shared_as = presented_as(game, "s" + play_views.share_digest(game.share_token))
        shared = "?" + urlencode({"as": shared_as})
        return [
            reverse(name, kwargs={"token": p.token}) + member,
            reverse(name, kwargs={"token": p.token_shared}) + shared,
        ]
    if name == "play_shared_follow":
        return [reverse(name, kwargs={"token": world["game"].share_token})]
    if name in ("play_status", "play_stream"):
        holder = "?as=" + play_views.signer.sign(f"u{world['game'].created_by_id}")
        return [reverse(name, kwargs={"code": world["game"].code}) + holder]
    if name.startswith("play"):
        return [reverse(name, kwargs={"code": world["game"].code})]
    if name == "table_join":
        return [reverse(name, kwargs={"token": world["table"].invite_token})]
    if name.startswith("table"):
        return [reverse(name, kwargs={"code": world["table"].code})]
    return [reverse(name, kwargs={"code": battle.code})]


def stored_state() -> str:
    rows = [
        *Memeyori.objects.all(), *Archon.objects.all(), *Card.objects.all(),
        *Party.objects.all(), *PartySlot.objects.all(), *Battle.objects.all(),
        *Table.objects.all(), *TableMembership.objects.all(), *Presentation.objects.all(),
        *Lab.objects.all(), *LabBattle.objects.all(), *Game.objects.all(),
        *PlayedPlan.objects.all(), *BattleJob.objects.all(),
    ]  # fmt: skip
    return serializers.serialize("json", rows)


def request(client: Client, method: str, url: str, data: dict):
    name = resolve(url.partition("?")[0]).url_name
    data = {**data, **PAYLOAD_FOR.get(name, {})}
    return client.post(url, data) if method == "POST" else client.get(url)


@pytest.mark.parametrize("name", sorted(RULES))
def test_the_owner_can_use_every_url(client, alice, world, name):
    rule, method, status = RULES[name]
    client.force_login(alice)
    for url in urls_for(name, world):
        response = request(client, method, url, world["payload"])
        assert response.status_code == status, (url, response.status_code)


@pytest.mark.parametrize(
    "name",
    sorted(n for n, (rule, *_) in RULES.items() if rule not in (SHARED, HOLDER, INVITE, POLL)),
)
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
    assert client.get(url).status_code == RULES[name][2]
    battle_services.battle_share_revoke(battle=world["battle"])
    lab_services.lab_share_revoke(lab=world["lab"])
    play_services.unshare_game(world["game"])
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("name", sorted(n for n, (rule, *_) in RULES.items() if rule == VIEW))
def test_public_objects_are_readable_by_anyone(client, world, name):
    for key in ("memeyori", "second", "archon", "party", "other"):
        world[key].visibility = "public"
        world[key].save(update_fields=["visibility"])
    battle_services.battle_set_visibility(battle=world["battle"], visibility="public")
    lab_services.lab_set_visibility(lab=world["lab"], visibility="public")
    for url in urls_for(name, world):
        # The owner's status (a lab's battle i is shown at its own address).
        assert client.get(url).status_code == RULES[name][2], url


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


@pytest.mark.parametrize("name", sorted(n for n, (rule, *_) in RULES.items() if rule == HOLDER))
@pytest.mark.parametrize("who", ["bob", "anonymous"])
def test_a_render_opens_for_whoever_holds_its_code_and_no_other(client, bob, world, name, who):
    if who == "bob":
        client.force_login(bob)
    url = urls_for(name, world)[0]
    assert client.get(url).status_code == 200
    made_up = reverse(name, kwargs={"code": "x" * 43})
    assert client.get(made_up).status_code == 404
    assert client.post(url).status_code == 405


def share_with_my_tables(world):
    for key in ("memeyori", "archon", "party"):
        world[key].visibility = "tables"
        world[key].save(update_fields=["visibility"])


@pytest.mark.parametrize(
    "name",
    sorted(
        n for n, (rule, *_) in RULES.items() if rule in MEMBER_READS and n not in OWN_VISIBILITY
    ),
)
def test_a_table_member_reads_what_is_shared_with_my_tables(client, world, name):
    share_with_my_tables(world)
    client.force_login(world["table"].memberships.get(user__username="carol").user)
    rule, method, status = RULES[name]
    for url in urls_for(name, world):
        response = request(client, method, url, world["payload"])
        assert response.status_code == (status if rule == MEMBER else 200), url


@pytest.mark.parametrize(
    "name", sorted(n for n, (rule, *_) in RULES.items() if rule in MEMBER_READS)
)
@pytest.mark.parametrize("who", ["bob", "anonymous"])
def test_my_tables_stays_closed_to_non_members_and_visitors(client, bob, world, name, who):
    share_with_my_tables(world)
    if who == "bob":
        client.force_login(bob)
    before = stored_state()
    for url in urls_for(name, world):
        for method in ("GET", "POST"):
            response = request(client, method, url, world["payload"])
            if who == "anonymous" and response.status_code == 302:
                assert response.url.startswith(reverse("login")), url
                continue
            assert response.status_code in (404, 405), (method, url, response.status_code)
    assert stored_state() == before


@pytest.mark.parametrize("name", sorted(n for n, (rule, *_) in RULES.items() if rule == OWNER))
def test_a_table_member_cannot_use_the_owners_or_the_gms_urls(client, world, name):
    share_with_my_tables(world)
    client.force_login(world["table"].memberships.get(user__username="carol").user)
    before = stored_state()
    for url in urls_for(name, world):
        for method in ("GET", "POST"):
            response = request(client, method, url, world["payload"])
            assert response.status_code in (404, 405), (method, url, response.status_code)
    assert stored_state() == before


def test_an_invite_lets_a_player_join_until_it_is_revoked(client, bob, world):
    url = urls_for("table_join", world)[0]
    assert client.get(url).url.startswith(reverse("login"))
    client.force_login(bob)
    assert client.get(url).status_code == 200
    assert not TableMembership.objects.filter(user=bob).exists()  # a GET joins nobody
    table_invite_revoke(table=world["table"])
    assert client.get(url).status_code == 404
    assert client.post(url).status_code == 404
    assert not TableMembership.objects.filter(user=bob).exists()


def test_a_game_invite_lets_a_player_join_until_it_is_revoked(client, bob, world):
    url = urls_for("play_join", world)[0]
    party = make_party(bob, name="Bob's Party")
    party_set_memeyori(party=party, memeyori=[make_memeyori(bob, world["memeyori"].type)])
    assert client.post(url, {"party": str(party.code)}).url.startswith(reverse("login"))
    client.force_login(bob)
    assert client.get(url).status_code == 200  # the join page: a GET joins nobody
    assert Game.objects.get(pk=world["friend_game"].pk).user_b is None
    play_services.revoke_invite(world["friend_game"])
    assert client.post(url, {"party": str(party.code)}).status_code == 404  # a dead link
    assert Game.objects.get(pk=world["friend_game"].pk).user_b is None


def test_a_presentation_poll_answers_its_holder_until_it_stops(client, alice, world):
    member_url, visitor_url = urls_for("battle_presented", world)
    first = client.get(visitor_url)
    assert first.status_code == 200
    assert client.get(visitor_url, headers={"If-None-Match": first["ETag"]}).status_code == 304
    battle_services.battle_share_revoke(battle=world["battle"])
    assert client.get(visitor_url).status_code == 404  # the share link's followers stop
    assert client.get(member_url).status_code == 200
    battle_services.presentation_stop(battle=world["battle"], by=alice)
    assert client.get(member_url).status_code == 404
