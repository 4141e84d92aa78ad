"""My characters: list, search, create, edit, duplicate, delete; ownership, CSRF, escaping."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from PIL import Image

from cards.models import Archon, Card, Memeyori

from .conftest import make_archon, make_card, make_memeyori, make_party
from .test_builder_live import form_data

HTMX = {"HX-Request": "true"}


@pytest.fixture
def ember(alice, types):
    m = make_memeyori(alice, types["Blaze"], name="Ember", visibility="private")
    make_card(m, types["Blaze"], name="Cinder Nip")
    return m


def edit_url(character):
    return reverse("character_edit", kwargs={"kind": character.kind, "code": character.code})


def url(name, character):
    return reverse(name, kwargs={"kind": character.kind, "code": character.code})


def test_my_characters_lists_only_mine(client, alice, bob, types, ember):
    make_memeyori(bob, types["Tide"], name="Bobby")
    make_archon(alice, types["Tide"], name="Vela")
    client.force_login(alice)
    html = client.get(reverse("my_characters")).content.decode()
    assert "Ember" in html and "Vela" in html
    assert "Bobby" not in html


def test_my_characters_searches_by_name_and_filters_by_type(client, alice, types, ember):
    make_memeyori(alice, types["Tide"], name="Puddle")
    client.force_login(alice)
    html = client.get(reverse("my_characters"), {"q": "emb"}).content.decode()
    assert "Ember" in html and "Puddle" not in html
    html = client.get(reverse("my_characters"), {"type": "tide"}).content.decode()
    assert "Puddle" in html and "Ember" not in html


def test_the_search_answers_htmx_with_the_results_partial(client, alice, types, ember):
    client.force_login(alice)
    response = client.get(reverse("my_characters"), {"q": "emb"}, headers=HTMX)
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="results">')
    assert "<html" not in html
    assert "HX-Request" in response.headers["Vary"]


def test_anonymous_visitors_are_sent_to_log_in(client, types, ember):
    for target in [reverse("my_characters"), edit_url(ember), url("character_delete", ember)]:
        response = client.get(target)
        assert response.status_code == 302
        assert reverse("login") in response.url


def test_alice_edits_her_character(client, alice, types, ember):
    client.force_login(alice)
    response = client.post(
        edit_url(ember), form_data(types, name="Ember II", strength=9, visibility="public")
    )
    assert response.status_code == 302
    ember.refresh_from_db()
    assert (ember.name, ember.strength, ember.visibility) == ("Ember II", 9, "public")


def test_an_archon_is_created_without_a_rank(client, alice, types):
    client.force_login(alice)
    data = form_data(types, name="Vela")
    del data["rank"]
    response = client.post(reverse("builder_new", kwargs={"kind": "archon"}), data)
    assert response.status_code == 302
    assert Archon.objects.get().name == "Vela"


@pytest.mark.parametrize("name", ["character_edit", "character_delete", "card_editor"])
def test_bob_gets_a_404_for_alices_private_and_public_characters_pages_to_change(
    client, bob, types, ember, name
):
    client.force_login(bob)
    assert client.get(url(name, ember)).status_code == 404
    ember.visibility = "public"
    ember.save()
    assert client.get(url(name, ember)).status_code == 404


def test_bob_cannot_change_alices_character_with_a_crafted_post(client, bob, types, ember):
    client.force_login(bob)
    response = client.post(edit_url(ember), form_data(types, name="Stolen"))
    assert response.status_code == 404
    assert client.post(url("character_delete", ember)).status_code == 404
    assert client.post(url("character_duplicate", ember)).status_code == 404
    ember.refresh_from_db()
    assert ember.name == "Ember"
    assert Memeyori.objects.count() == 1


def test_bob_views_alices_public_character_read_only(client, bob, types, ember):
    ember.visibility = "public"
    ember.save()
    client.force_login(bob)
    html = client.get(ember.get_absolute_url()).content.decode()
    assert "Ember" in html
    assert "Edit in the builder" not in html


def test_duplicate_copies_the_character_and_its_cards_as_private(client, alice, types, ember):
    ember.visibility = "public"
    ember.save()
    client.force_login(alice)
    response = client.post(url("character_duplicate", ember))
    copy = Memeyori.objects.exclude(pk=ember.pk).get()
    assert response.url == edit_url(copy)
    assert copy.name == "Ember (copy)"
    assert copy.visibility == "private"
    assert copy.code != ember.code
    assert [c.name for c in copy.cards.all()] == ["Cinder Nip"]
    assert Card.objects.count() == 2


def test_duplicate_and_delete_are_post_only(client, alice, types, ember):
    client.force_login(alice)
    assert client.get(url("character_duplicate", ember)).status_code == 405
    page = client.get(url("character_delete", ember))
    assert page.status_code == 200
    assert "Delete Ember?" in page.content.decode()
    assert Memeyori.objects.filter(pk=ember.pk).exists()


def test_delete_after_confirmation_removes_the_character_and_its_cards(client, alice, types, ember):
    party = make_party(alice, level=1)
    party.slots.create(memeyori=ember, position=0)
    client.force_login(alice)
    assert "Sunrise Squad" in client.get(url("character_delete", ember)).content.decode()
    response = client.post(url("character_delete", ember))
    assert response.status_code == 302
    assert not Memeyori.objects.exists()
    assert not Card.objects.exists()
    assert party.slots.count() == 0


def png_bytes(fmt="PNG", size=(8, 8)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "orange").save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_a_portrait_is_stored_when_it_is_a_real_image(
    client, alice, types, ember, fmt, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    upload = SimpleUploadedFile(f"me.{fmt.lower()}", png_bytes(fmt))
    # Processed by cards.tasks.process_portrait once the save commits.
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(edit_url(ember), {**form_data(types), "portrait": upload})
    assert response.status_code == 302
    ember.refresh_from_db()
    assert ember.portrait.name.startswith("portraits/")
    # The builder's upload goes through the print pipeline: cropped print and thumbnail.
    assert ember.portrait_print.name.startswith("portraits/print/")
    assert ember.portrait_thumb.name.startswith("portraits/thumbs/")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not an image at all", "This file is not a PNG, JPEG or WebP image."),
        (png_bytes("GIF"), "GIF images are not accepted: upload a PNG, JPEG or WebP image."),
    ],
)
def test_a_bad_portrait_is_refused_and_nothing_changes(
    client, alice, types, ember, content, message
):
    client.force_login(alice)
    upload = SimpleUploadedFile("me.png", content)
    data = {**form_data(types, name="Renamed"), "portrait": upload}
    html = client.post(edit_url(ember), data).content.decode()
    assert message in html
    ember.refresh_from_db()
    assert ember.name == "Ember"
    assert not ember.portrait


def test_a_portrait_over_10_mb_is_refused(client, alice, types, ember, settings):
    client.force_login(alice)
    big = png_bytes() + b"\0" * (10 * 1024 * 1024)
    upload = SimpleUploadedFile("big.png", big)
    html = client.post(edit_url(ember), {**form_data(types), "portrait": upload}).content.decode()
    assert "at most 10 MB" in html
    ember.refresh_from_db()
    assert not ember.portrait


HOSTILE = '<script>alert("x")</script>'


def test_html_in_names_flavour_and_cards_is_escaped_everywhere(client, alice, types):
    m = make_memeyori(alice, types["Blaze"], name=HOSTILE, flavour=HOSTILE, visibility="public")
    make_card(m, types["Blaze"], name=HOSTILE, text=HOSTILE)
    party = make_party(alice, name=HOSTILE, visibility="public")
    party.slots.create(memeyori=m, position=0)
    client.force_login(alice)
    pages = [
        reverse("home"),
        m.get_absolute_url(),
        edit_url(m),
        url("card_editor", m),
        url("character_delete", m),
        reverse("my_characters"),
        party.get_absolute_url(),
        reverse("party_edit", kwargs={"code": party.code}),
        reverse("party_list"),
    ]
    for page in pages:
        html = client.get(page).content.decode()
        assert HOSTILE not in html, page
        assert "&lt;script&gt;" in html, page


def csrf_posts(character, card, party):
    c = {"kind": character.kind, "code": character.code}
    return [
        reverse("builder_new", kwargs={"kind": "memeyori"}),
        reverse("character_edit", kwargs=c),
        reverse("character_duplicate", kwargs=c),
        reverse("character_delete", kwargs=c),
        reverse("card_add", kwargs=c),
        reverse("card_edit", kwargs={**c, "card": card.code}),
        reverse("card_reorder", kwargs={**c, "card": card.code}),
        reverse("card_remove", kwargs={**c, "card": card.code}),
        reverse("party_new"),
        reverse("party_edit", kwargs={"code": party.code}),
        reverse("party_remove", kwargs={"code": party.code}),
        reverse("type_chart_save"),
        reverse("import"),
        reverse("import_confirm"),
        reverse("logout"),
        reverse("password_change"),
    ]


def test_every_post_enforces_csrf(alice, types, ember):
    alice.is_staff = True
    alice.save()
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    card = ember.cards.get()
    party = make_party(alice)
    for target in csrf_posts(ember, card, party):
        response = strict.post(target, form_data(types), headers=HTMX)
        assert response.status_code == 403, target
    assert Memeyori.objects.filter(pk=ember.pk, name="Ember").exists()
    assert Card.objects.filter(pk=card.pk).exists()


def test_pages_link_by_code_never_by_integer_key(client, alice, types, ember):
    client.force_login(alice)
    html = client.get(edit_url(ember)).content.decode()
    assert str(ember.code) in html
    assert f"/{ember.pk}/" not in html


def test_the_clear_box_removes_the_portrait(
    client, alice, types, ember, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    upload = SimpleUploadedFile("me.png", png_bytes())
    with django_capture_on_commit_callbacks(execute=True):
        client.post(edit_url(ember), {**form_data(types), "portrait": upload})
    ember.refresh_from_db()
    assert ember.portrait
    page = client.get(edit_url(ember)).content.decode()
    assert 'name="portrait-clear"' in page
    client.post(edit_url(ember), {**form_data(types), "portrait-clear": "on"})
    ember.refresh_from_db()
    assert not ember.portrait


def test_saving_without_a_new_upload_keeps_the_portrait(
    client, alice, types, ember, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    upload = SimpleUploadedFile("me.png", png_bytes())
    with django_capture_on_commit_callbacks(execute=True):
        client.post(edit_url(ember), {**form_data(types), "portrait": upload})
    ember.refresh_from_db()
    before = ember.portrait.name
    client.post(edit_url(ember), form_data(types, name="Renamed"))
    ember.refresh_from_db()
    assert (ember.name, ember.portrait.name) == ("Renamed", before)
