"""Borrowing a good build (issue 21.8): anyone who may see a character or party may copy it
into their own collection, privately, with whose it was noted, within their bounds."""

import pytest
from django.urls import reverse

from cards.models import Archon, Card, Memeyori, Party, TableMembership
from cards.services import party_set_memeyori
from cards.tables.services import table_create

from .conftest import make_archon, make_card, make_memeyori, make_party, make_user


@pytest.fixture
def builds(alice, types):
    pup = make_memeyori(alice, types["Blaze"], name="Fizzlet", visibility="public")
    make_card(pup, types["Blaze"], name="Cinder Nip")
    vela = make_archon(alice, types["Lumen"], name="Vela", visibility="public")
    party = make_party(alice, name="Sunrise", archon=vela, visibility="public")
    party_set_memeyori(party=party, memeyori=[pup])
    return {"pup": pup, "vela": vela, "party": party}


def borrow(client, obj):
    if isinstance(obj, Party):
        return client.post(reverse("party_borrow", kwargs={"code": obj.code}))
    return client.post(reverse("character_borrow", kwargs={"kind": obj.kind, "code": obj.code}))


def test_anyone_signed_in_copies_a_public_character_privately_noting_whose(client, bob, builds):
    client.force_login(bob)
    assert borrow(client, builds["pup"]).status_code == 302
    copy = Memeyori.objects.get(owner=bob)
    assert (copy.name, copy.visibility, copy.origin) == (
        "Fizzlet", "private", "from alice's Fizzlet",
    )  # fmt: skip
    assert list(copy.cards.values_list("name", flat=True)) == ["Cinder Nip"]
    page = client.get(copy.get_absolute_url()).content.decode()
    assert "copied from alice&#x27;s Fizzlet" in page
    # The original is untouched, and a second copy is named like a duplicate.
    borrow(client, builds["pup"])
    assert set(Memeyori.objects.filter(owner=bob).values_list("name", flat=True)) == {
        "Fizzlet", "Fizzlet (copy)",
    }  # fmt: skip
    assert Memeyori.objects.filter(owner__username="alice").count() == 1


def test_a_party_is_copied_with_its_archon_and_memeyori(client, bob, builds):
    client.force_login(bob)
    assert borrow(client, builds["party"]).status_code == 302
    party = Party.objects.get(owner=bob)
    assert (party.visibility, party.origin) == ("private", "from alice's Sunrise")
    assert party.archon.owner == bob and party.archon.origin == "from alice's Vela"
    assert [m.owner for m in party.memeyori_in_order()] == [bob]
    assert Card.objects.filter(memeyori__owner=bob).count() == 1


def test_nobody_copies_what_they_cannot_see(client, bob, alice, types, builds):
    secret = make_memeyori(alice, types["Tide"], name="Secret")
    tables = make_memeyori(alice, types["Tide"], name="Table pup", visibility="tables")
    client.force_login(bob)
    for obj in (secret, tables):
        assert borrow(client, obj).status_code == 404
    client.logout()
    assert borrow(client, builds["pup"]).url.startswith(reverse("login"))
    assert not Memeyori.objects.exclude(owner=alice).exists()


def test_a_table_mate_copies_what_is_shared_with_my_tables(client, alice, types):
    table = table_create(gm=alice, name="Tuesday")
    carol = make_user("carol")
    TableMembership.objects.create(table=table, user=carol)
    shared = make_memeyori(alice, types["Tide"], name="Table pup", visibility="tables")
    client.force_login(carol)
    assert borrow(client, shared).status_code == 302
    assert Memeyori.objects.get(owner=carol).origin == "from alice's Table pup"


def test_a_copy_counts_against_the_borrowers_bounds(client, bob, builds, settings):
    settings.PERSON_BOUNDS = {"characters": 1, "cards": 100, "parties": 5}
    client.force_login(bob)
    page = client.post(
        reverse("party_borrow", kwargs={"code": builds["party"].code}), follow=True
    ).content.decode()
    assert "one person may keep" in page
    assert not Party.objects.filter(owner=bob).exists()
    assert not Archon.objects.filter(owner=bob).exists()
    assert not Memeyori.objects.filter(owner=bob).exists()
