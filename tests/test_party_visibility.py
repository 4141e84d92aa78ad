"""A party can be no more visible than its members (issue 11.2)."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from battles.models import Battle
from battles.services import battle_run
from cards.models import Memeyori, Party, Visibility, visibility_rank
from cards.services import party_save, party_set_memeyori

from .conftest import make_archon, make_card, make_memeyori, make_party
from .test_parties import party_data


@pytest.fixture
def secret(alice, types):
    m = make_memeyori(alice, types["Blaze"], name="Secret Pup", flavour="Hidden lore.")
    make_card(m, types["Blaze"], name="Hidden Bite")
    return m


@pytest.fixture
def shown(alice, types):
    return make_memeyori(alice, types["Tide"], name="Shown Frog", visibility="public")


def test_the_levels_are_ordered_from_private_to_public():
    assert visibility_rank(Visibility.PRIVATE) < visibility_rank(Visibility.PUBLIC)
    assert sorted(Visibility.values, key=visibility_rank)[0] == Visibility.PRIVATE
    assert sorted(Visibility.values, key=visibility_rank)[-1] == Visibility.PUBLIC


def test_saving_a_public_party_with_a_private_member_is_refused_naming_it(
    client, alice, secret, shown
):
    client.force_login(alice)
    response = client.post(reverse("party_new"), party_data([shown, secret], visibility="public"))
    assert response.status_code == 200
    assert "Secret Pup" in response.content.decode()
    assert not Party.objects.exists()
    # Private, the same party is fine.
    client.post(reverse("party_new"), party_data([shown, secret], visibility="private"))
    assert Party.objects.get().visibility == "private"


def test_a_private_archon_keeps_its_party_private(client, alice, types, shown):
    archon = make_archon(alice, types["Lumen"], name="Hidden Archon")
    client.force_login(alice)
    data = party_data([shown], visibility="public", archon=archon.pk)
    response = client.post(reverse("party_new"), data)
    assert "Hidden Archon" in response.content.decode()
    assert not Party.objects.exists()


def test_the_service_refuses_it_too(alice, secret):
    party = make_party(alice, visibility="public")
    with pytest.raises(ValidationError, match="Secret Pup"):
        party_set_memeyori(party=party, memeyori=[secret])
    with pytest.raises(ValidationError, match="Secret Pup"):
        party_save(party=Party(owner=alice, name="Other", visibility="public"), memeyori=[secret])
    assert not party.slots.exists()


def test_making_a_member_private_is_refused_naming_its_parties(client, alice, types, shown):
    party = make_party(alice, name="Sunrise Squad", visibility="public")
    party_set_memeyori(party=party, memeyori=[shown])
    client.force_login(alice)
    url = reverse("character_edit", kwargs={"kind": "memeyori", "code": shown.code})
    data = {"name": shown.name, "type": types["Tide"].pk, "rank": 1, "strength": 5,
            "endurance": 5, "iq": 3, "wit": 2, "speed": 4, "aura": 2, "flavour": "",
            "visibility": "private"}  # fmt: skip
    response = client.post(url, data)
    assert response.status_code == 200
    assert "Sunrise Squad" in response.content.decode()
    shown.refresh_from_db()
    assert shown.visibility == "public"
    # Once the party is private, so may the member be.
    Party.objects.filter(pk=party.pk).update(visibility="private")
    assert client.post(url, data).status_code == 302
    shown.refresh_from_db()
    assert shown.visibility == "private"


def test_a_public_party_never_shows_a_private_member(client, alice, bob, secret, shown):
    party = make_party(alice, visibility="private")
    party_set_memeyori(party=party, memeyori=[shown, secret])
    party.visibility = "public"
    with pytest.raises(ValidationError):
        party_save(party=party, memeyori=[shown, secret])
    party.refresh_from_db()
    assert party.visibility == "private"
    client.force_login(bob)
    assert client.get(reverse("party", kwargs={"code": party.code})).status_code == 404
    response = client.get(reverse("print_sheet"), {"party": party.code, "paper": "a4"})
    assert response.status_code == 400


def test_stored_battles_keep_their_snapshots(alice, shown):
    party = make_party(alice, visibility="public")
    make_card(shown, shown.type, name="Splash")
    party_set_memeyori(party=party, memeyori=[shown])
    battle = battle_run(owner=alice, party_a=party, party_b=party, seed=3)
    before = Battle.objects.get(pk=battle.pk).snapshot
    Party.objects.filter(pk=party.pk).update(visibility="private")
    Memeyori.objects.filter(pk=shown.pk).update(visibility="private")
    assert Battle.objects.get(pk=battle.pk).snapshot == before


def test_the_migration_lowers_parties_saved_before_the_rule(alice, secret, shown):
    import importlib

    from django.apps import apps

    migration = importlib.import_module("cards.migrations.0003_party_no_more_visible_than_members")
    leaky = make_party(alice, name="Leaky", visibility="public")
    fine = make_party(alice, name="Fine", visibility="public")
    # Written straight to the table, as rows saved before the rule were.
    from cards.models import PartySlot

    PartySlot.objects.create(party=leaky, memeyori=secret, position=0)
    PartySlot.objects.create(party=fine, memeyori=shown, position=0)
    migration.lower_parties(apps, None)
    leaky.refresh_from_db()
    fine.refresh_from_db()
    assert (leaky.visibility, fine.visibility) == ("private", "public")
