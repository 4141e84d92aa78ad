"""Tables: a group and its GM; invites, members, "my tables" visibility, the feed, printing."""

import io
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone
from pypdf import PdfReader

from cards.models import VISIBILITY_ORDER, Memeyori, Party, TableMembership, Visibility, visible_to
from cards.tables import services

from .conftest import make_memeyori, make_user


@pytest.fixture
def table(alice):
    return services.table_create(gm=alice, name="Sunday Table", description="Weekly game")


def test_the_creator_is_the_gm_and_a_member(table, alice):
    assert table.gm == alice and services.is_member(table, alice)


def test_an_invite_is_256_bits_and_a_new_one_replaces_the_old(table, bob):
    first = services.table_invite_open(table=table).invite_token
    assert len(first) >= 43  # 32 bytes, URL-safe base64
    second = services.table_invite_open(table=table).invite_token
    assert first != second
    with pytest.raises(ValidationError):
        services.table_join(token=first, user=bob)
    services.table_join(token=second, user=bob)
    assert services.is_member(table, bob)


def test_it_refuses_an_expired_invite(table, bob):
    token = services.table_invite_open(table=table, days=1).invite_token
    assert services.table_for_invite(token, now=timezone.now() + timedelta(days=2)) is None
    assert services.table_for_invite(token) == table


def test_the_gm_removes_a_member_and_hands_over_the_role(table, alice, bob):
    carol = make_user("carol")
    for user in (bob, carol):
        TableMembership.objects.create(table=table, user=user)
    services.table_remove_member(table=table, member=carol)
    assert not services.is_member(table, carol)
    with pytest.raises(ValidationError):
        services.table_remove_member(table=table, member=alice)  # the GM stays
    with pytest.raises(ValidationError):
        services.table_hand_gm(table=table, member=carol)  # not at the table any more
    services.table_hand_gm(table=table, member=bob)
    table.refresh_from_db()
    assert table.gm == bob


def test_members_leave_and_a_gm_hands_over_first(table, alice, bob):
    TableMembership.objects.create(table=table, user=bob)
    with pytest.raises(ValidationError, match="Hand the GM role"):
        services.table_leave(table=table, user=alice)
    assert services.table_leave(table=table, user=bob) is False
    assert services.table_leave(table=table, user=alice) is True  # alone: the table closes
    assert not TableMembership.objects.exists()


def test_my_tables_sits_between_private_and_unlisted():
    assert VISIBILITY_ORDER.index("private") < VISIBILITY_ORDER.index(Visibility.TABLES)
    assert VISIBILITY_ORDER.index(Visibility.TABLES) < VISIBILITY_ORDER.index("unlisted")
    assert VISIBILITY_ORDER.index("unlisted") < VISIBILITY_ORDER.index(Visibility.PUBLIC)


def test_my_tables_shows_a_memeyori_to_table_mates_only(table, alice, bob, types):
    carol = make_user("carol")
    TableMembership.objects.create(table=table, user=bob)
    pup = make_memeyori(alice, types["Blaze"], visibility=Visibility.TABLES)
    assert Memeyori.objects.filter(visible_to(bob)).get() == pup
    assert not Memeyori.objects.filter(visible_to(carol)).exists()
    # Leaving the table closes it again.
    services.table_leave(table=table, user=bob)
    assert not Memeyori.objects.filter(visible_to(bob)).exists()


def test_the_table_page_shows_members_shared_things_and_the_feed(client, table, alice, bob, types):
    TableMembership.objects.create(table=table, user=bob)
    make_memeyori(bob, types["Tide"], name="Shared Frog", visibility=Visibility.TABLES)
    make_memeyori(bob, types["Tide"], name="Hidden Frog")
    Party.objects.create(owner=bob, name="Shared Crew", visibility=Visibility.TABLES)
    client.force_login(alice)
    html = client.get(table.get_absolute_url()).content.decode()
    assert "Shared Frog" in html and "Shared Crew" in html and "Hidden Frog" not in html
    assert "bob shared the Memeyori Shared Frog" in html


def test_the_gm_prints_one_members_cards_in_one_pdf(client, table, alice, bob, types):
    TableMembership.objects.create(table=table, user=bob)
    make_memeyori(bob, types["Tide"], name="Shared Frog", visibility=Visibility.TABLES)
    make_memeyori(alice, types["Blaze"], name="Gm Pup", visibility=Visibility.TABLES)
    client.force_login(alice)
    response = client.get(f"{table.get_absolute_url()}cards.pdf", {"member": "bob"})
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"

    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(response.content)).pages)
    assert "Shared Frog" in text and "Gm Pup" not in text
    client.force_login(bob)
    assert client.get(f"{table.get_absolute_url()}cards.pdf").status_code == 404


def test_it_refuses_a_blank_table_name(client, alice):
    client.force_login(alice)
    response = client.post("/tables/new/", {"name": "", "description": "x"})
    assert response.status_code == 400 and "This field is required" in response.content.decode()
    response = client.post("/tables/new/", {"name": "Friday", "description": "x"})
    assert response.status_code == 302
