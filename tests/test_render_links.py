"""A stored render's link follows what it drew (issue 33.5): it dies with its character,
or when the reader may no longer see it, and a shared cache never keeps a private one."""

import pytest
from django.urls import reverse

from cards.models import Visibility
from cards.printing.store import Render

from .conftest import make_card, make_memeyori


@pytest.fixture
def pup(alice, types):
    m = make_memeyori(alice, types["Blaze"], name="Emberpup", visibility=Visibility.PRIVATE)
    make_card(m, types["Blaze"], name="Cinder Nip")
    return m


def _rendered(client, character) -> str:
    """The stored Mastercard's file link, rendered as its owner asked for it."""
    url = reverse("print_mastercard", kwargs={"kind": character.kind, "code": character.code})
    answer = client.get(url + "?paper=a4")
    assert answer.status_code == 200, answer.status_code
    assert ("private" in answer.get("Cache-Control", "")) != (
        character.visibility == Visibility.PUBLIC
    )
    return reverse("print_render_file", kwargs={"code": Render.objects.get().code})


def test_a_deleted_characters_render_is_a_404_to_a_visitor_with_its_link(client, alice, pup):
    client.force_login(alice)
    link = _rendered(client, pup)
    visitor = client.__class__()
    pup.visibility = Visibility.PUBLIC
    pup.save(update_fields=["visibility"])
    assert visitor.get(link).status_code == 200  # public: anyone holding the link
    pup.delete()
    assert visitor.get(link).status_code == 404
    assert client.get(link).status_code == 404


def test_a_private_characters_render_is_for_its_owner_only(client, alice, bob, pup):
    client.force_login(alice)
    link = _rendered(client, pup)
    owner = client.get(link)
    assert owner.status_code == 200 and owner["Content-Type"] == "application/pdf"
    assert "private" in owner["Cache-Control"]
    assert client.__class__().get(link).status_code == 404
    other = client.__class__()
    other.force_login(bob)
    assert other.get(link).status_code == 404
    status = reverse("print_render", kwargs={"code": Render.objects.get().code})
    assert other.get(status).status_code == 404


def test_a_render_made_public_then_private_again_closes_its_link(client, alice, pup):
    pup.visibility = Visibility.PUBLIC
    pup.save(update_fields=["visibility"])
    link = _rendered(client, pup)  # asked for by a visitor
    visitor = client.get(link)
    assert visitor.status_code == 200
    assert "private" not in visitor.get("Cache-Control", "")
    pup.visibility = Visibility.PRIVATE
    pup.save(update_fields=["visibility"])
    assert client.get(link).status_code == 404
