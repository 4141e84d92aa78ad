"""What every logged-in page and builder keystroke reads with SQL compiled once
(memeyori_site/compiled.py, sessions.py, auth.py): the session, the user, the Types, a
chart column, a character's cards. Each must read exactly what the ORM (Django's own
database sessions, ModelBackend, the querysets) reads."""

import uuid
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.backends.db import SessionStore as DjangoSessionStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from memeyori_site.auth import UserBackend
from memeyori_site.sessions import SessionStore

User = get_user_model()


def _fields(user) -> dict:
    return {f.attname: getattr(user, f.attname) for f in User._meta.concrete_fields}


def test_it_reads_a_session_as_djangos_database_sessions_do(db):
    ours = SessionStore()
    ours["picked"] = {"memeyori": "a3"}
    ours.set_expiry(600)
    ours.save()
    again = SessionStore(ours.session_key)
    assert dict(again.items()) == dict(DjangoSessionStore(ours.session_key).items())
    assert again["picked"] == {"memeyori": "a3"}
    assert again.session_key == ours.session_key


def test_an_expired_session_is_not_read_and_its_key_is_dropped(db):
    store = SessionStore()
    store["x"] = 1
    store.save()
    Session.objects.filter(session_key=store.session_key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    again = SessionStore(store.session_key)
    assert "x" not in again
    assert again.session_key is None  # as Django's: a new session, never the old key


def test_an_unknown_session_key_reads_nothing(db):
    store = SessionStore("x" * 32)
    assert dict(store.items()) == {}
    assert store.session_key is None


def test_it_reads_the_same_user_as_modelbackend_field_for_field(alice):
    ours, django = UserBackend().get_user(alice.pk), ModelBackend().get_user(alice.pk)
    assert _fields(ours) == _fields(django)
    # Converted as the ORM does: aware datetimes, booleans, not the database's raw values.
    assert type(ours.is_active) is bool and timezone.is_aware(ours.date_joined)
    assert ours._state.db == "default" and not ours._state.adding
    # The session stores the key as text; it reads the same.
    assert _fields(UserBackend().get_user(str(alice.pk))) == _fields(django)


def test_an_inactive_missing_or_malformed_user_is_nobody(alice):
    backend = UserBackend()
    assert backend.get_user(alice.pk + 1000) is None
    assert backend.get_user("not a number") is None
    alice.is_active = False
    alice.save()
    assert backend.get_user(alice.pk) is None
    assert ModelBackend().get_user(alice.pk) is None


def test_a_logged_in_page_reads_its_session_and_user_in_two_queries(client, alice):
    client.force_login(alice)
    client.get(reverse("my_characters"))
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("my_characters")).status_code == 200
    reads = [q["sql"] for q in queries.captured_queries]
    assert "django_session" in reads[0] and "auth_user" in reads[1]


def test_a_password_login_is_read_back_on_the_next_page_and_logout_ends_it(client, alice):
    assert client.login(username="alice", password="alice-pass-123!")
    assert client.get(reverse("my_characters")).status_code == 200
    client.post(reverse("logout"))
    assert client.get(reverse("my_characters")).status_code == 302


def test_compiled_lookups_read_what_the_orm_reads_and_see_a_change_at_once(types):
    from cards.models import Effect, Matchup, Type
    from cards.views import live

    orm_types = list(Type.objects.all())
    assert [_model_fields(t) for t in live.ALL_TYPES.objects()] == [
        _model_fields(t) for t in orm_types
    ]
    for t in orm_types:
        orm = dict(
            Matchup.objects.filter(defending=t)
            .exclude(effect=Effect.NEUTRAL)
            .values_list("attacking_id", "effect")
        )
        assert live.chart_against(t) == orm
        assert live.types_and_chart(t.slug) == (live.ALL_TYPES.objects(), orm)
    assert live.types_and_chart("no-such-type")[1] == {}
    # A GM's edit shows on the next keystroke: nothing is kept but the SQL.
    blaze, tide = types["Blaze"], types["Tide"]
    Matchup.objects.update_or_create(
        attacking=tide, defending=blaze, defaults={"effect": Effect.WEAK}
    )
    assert live.chart_against(blaze)[tide.pk] == Effect.WEAK


def _model_fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def test_a_compiled_lookup_refuses_values_it_could_not_place(db):
    from cards.models import Type
    from memeyori_site.compiled import Compiled

    by_slug = Compiled(lambda slug: Type.objects.filter(slug=slug), "\x00example")
    with pytest.raises(TypeError):
        by_slug.objects(7)  # an int where the SQL was compiled for a str
    with pytest.raises(TypeError):
        Compiled(lambda a, b: Type.objects.filter(slug=a, name=b), "same", "same")
    # A value the queryset changes before it reaches the SQL cannot be put in its place.
    within = Compiled(lambda slug: Type.objects.filter(slug__contains=slug), "\x00example")
    with pytest.raises(ValueError):
        within.objects("laz")  # compiled as "%...%"


def test_an_owners_cards_read_compiled_are_the_querysets_cards(alice, bob, types):
    from django.http import Http404
    from django.test import RequestFactory

    from cards.models import Card
    from cards.views.access import get_cards_for_owner
    from tests.conftest import make_archon, make_card, make_memeyori

    memeyori = make_memeyori(alice, types["Blaze"])
    archon = make_archon(alice, types["Tide"])
    for i, position in enumerate([2, 0, 1]):
        make_card(memeyori, types["Blaze"], name=f"M{i}", position=position, power=3 + i)
        make_card(archon, types["Tide"], name=f"A{i}", position=position)
    request = RequestFactory().get("/")
    for kind, character in (("memeyori", memeyori), ("archon", archon)):
        request.user = alice
        ours = get_cards_for_owner(request, kind, character.code)
        orm = list(character.cards.order_by("position", "id"))
        assert [c.pk for c in ours] == [c.pk for c in orm]
        assert [(c.name, c.power, c.type_id) for c in ours] == [
            (c.name, c.power, c.type_id) for c in orm
        ]
        assert all(c._state.db == "default" for c in ours)
        request.user = bob  # someone else's character is a 404, as one that does not exist
        with pytest.raises(Http404):
            get_cards_for_owner(request, kind, character.code)
    assert Card.objects.count() == 6


def test_a_viewer_reads_its_battle_and_presentation_as_the_orm_does(alice, bob, types):
    from battles.models import Battle, BattleVisibility, Presentation
    from battles.views import BATTLE_BY_CODE, BATTLE_BY_SHARE_TOKEN, CONTENT, _presentation
    from tests.test_battle_pages import make_team, run

    battle = run(alice, make_team(alice, types, "Sunrise"), make_team(bob, types, "Night"),
                 visibility=BattleVisibility.PUBLIC)  # fmt: skip
    (ours,) = BATTLE_BY_CODE.objects(battle.code)
    orm = Battle.objects.defer(*CONTENT).get(code=battle.code)
    assert ours.get_deferred_fields() == orm.get_deferred_fields() == set(CONTENT)
    assert _model_fields(ours) == _model_fields(orm)  # the content loads on use, as deferred
    assert BATTLE_BY_CODE.objects(uuid.uuid4()) == []
    (shared,) = BATTLE_BY_SHARE_TOKEN.objects(battle.share_token)
    assert _model_fields(shared) == _model_fields(orm)
    battle.visibility = BattleVisibility.PRIVATE  # a private battle's link is dead
    battle.save()
    assert BATTLE_BY_SHARE_TOKEN.objects(battle.share_token) == []
    assert _presentation(battle) is None
    Presentation.objects.create(battle=battle, presenter=alice, round=2, step=1)
    presented = _presentation(battle)
    assert (presented.round, presented.step, presented.presenter.username) == (2, 1, "alice")


def test_it_names_a_battles_owner_and_links_its_parties_on_the_viewer_page_as_the_orm_did(
    client, alice, bob, types
):
    """The owner and the parties of a battle, read compiled for its viewer page: each
    reader sees the name and (logged in) the rematch links, in no more queries."""
    from battles.models import BattleVisibility
    from tests.test_battle_pages import make_team, run

    mine, theirs = make_team(alice, types, "Sunrise"), make_team(bob, types, "Night")
    battle = run(alice, mine, theirs, visibility=BattleVisibility.PUBLIC)
    rematch = f"?party_a={mine.code}&amp;party_b={theirs.code}&amp;policy_a="
    for reader in (alice, bob, None):
        client.logout()
        if reader is not None:
            client.force_login(reader)
        for url in (battle.get_absolute_url(), battle.share_url()):
            with CaptureQueriesContext(connection) as queries:
                html = client.get(url, {"round": 1}).content.decode()
            assert "run by alice" in html
            assert (rematch in html) is (reader is not None)
            # Session and user, the battle, its presentation, the owner (unless reading),
            # the two parties (logged in), a member check for someone else's battle, and
            # its review (issue 32).
            assert len(queries) <= 8
            assert all("JOIN" not in q["sql"] for q in queries.captured_queries)


def test_a_character_read_for_a_viewer_comes_with_its_type_owner_and_cards(alice, bob, types):
    from django.http import Http404
    from django.test import RequestFactory

    from cards.models import Memeyori
    from cards.views.access import cards_with_types, get_character_for_viewer
    from tests.conftest import make_card, make_memeyori

    memeyori = make_memeyori(alice, types["Blaze"], visibility="public")
    make_card(memeyori, types["Tide"], name="Splash", position=1)
    make_card(memeyori, types["Blaze"], name="Ember", position=0)
    secret = make_memeyori(alice, types["Stone"], name="Secret")
    request = RequestFactory().get("/")
    orm = Memeyori.objects.select_related("type", "owner").get(pk=memeyori.pk)
    for reader in (alice, bob):
        request.user = reader
        ours = get_character_for_viewer(request, "memeyori", memeyori.code)
        assert _model_fields(ours) == _model_fields(orm)
        assert _model_fields(ours.type) == _model_fields(orm.type)
        assert _model_fields(ours.owner) == _model_fields(orm.owner)
        cards = cards_with_types(ours)
        expected = list(orm.cards.select_related("type"))
        assert [(c.name, c.type.name) for c in cards] == [(c.name, c.type.name) for c in expected]
        assert [c.name for c in cards] == ["Ember", "Splash"]
    request.user = bob
    with pytest.raises(Http404):
        get_character_for_viewer(request, "memeyori", secret.code)
    request.user = alice
    assert get_character_for_viewer(request, "memeyori", secret.code).type.name == "Stone"
