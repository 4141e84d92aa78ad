"""One action shares a party with its characters to the owner's tables (issue 41.9): the
owner confirms once, and the party, its Archon and its Memeyori become "My tables" in one
transaction; before, a GM could pair it only after five saves (three Memeyori, the Archon,
then the party)."""

import pytest
from django.test import Client
from django.urls import reverse

from battles.play.forms import TableGameForm
from cards.models import Memeyori, Party, TableMembership
from cards.tables.services import table_create
from tests.conftest import make_user
from tests.playing import make_side

pytestmark = pytest.mark.django_db


@pytest.fixture
def setting(alice, types):
    """Alice's private party of three and an Archon; Gwen's table, where Alice sits."""
    gwen = make_user("gwen")
    table = table_create(gm=gwen, name="Sunday")
    TableMembership.objects.create(table=table, user=alice)
    party = make_side(alice, types, "Sunrise", prefix="Sun", archon=True)
    return party, table, gwen


def everything(party: Party) -> list:
    party.refresh_from_db()
    return [party, party.archon, *party.memeyori_in_order()]


def test_one_confirmed_action_shares_the_party_and_its_characters(client, alice, setting):
    party, table, gwen = setting
    url = reverse("party_share", kwargs={"code": party.code})
    client.force_login(alice)
    page = client.get(party.get_absolute_url()).content.decode()
    assert url in page  # offered on the party page
    ask = client.get(url).content.decode()  # the question, which changes nothing
    assert "Share these 5" in ask and all(t.name in ask for t in everything(party))
    assert {t.visibility for t in everything(party)} == {"private"}
    assert not TableGameForm(table=table).fields["party_a"].queryset.filter(pk=party.pk)
    response = client.post(url)
    assert response.status_code == 302 and response["Location"] == party.get_absolute_url()
    assert {t.visibility for t in everything(party)} == {"tables"}
    # The GM can pair it now, and the party page offers nothing more to share.
    assert TableGameForm(table=table).fields["party_a"].queryset.filter(pk=party.pk).exists()
    assert url not in client.get(party.get_absolute_url()).content.decode()


def test_sharing_keeps_public_characters_public(client, alice, setting):
    party, _, _ = setting
    first = party.memeyori_in_order()[0]
    Memeyori.objects.filter(pk=first.pk).update(visibility="public")
    client.force_login(alice)
    client.post(reverse("party_share", kwargs={"code": party.code}))
    shown = {t.name: t.visibility for t in everything(party)}
    assert shown.pop(first.name) == "public" and set(shown.values()) == {"tables"}


def test_nobody_else_shares_alices_party(alice, bob, setting):
    party, _, gwen = setting
    url = reverse("party_share", kwargs={"code": party.code})
    for person in (bob, gwen):
        client = Client()
        client.force_login(person)
        assert client.get(url).status_code == 404 and client.post(url).status_code == 404
    assert {t.visibility for t in everything(party)} == {"private"}
