"""The card editor (R7): add, edit, reorder and delete inline, with every field validated."""

import pytest
from django.urls import reverse

from cards.models import Card

from .conftest import make_archon, make_card, make_memeyori

HTMX = {"HX-Request": "true"}


@pytest.fixture
def ember(alice, types):
    m = make_memeyori(alice, types["Blaze"], name="Ember", rank=2)
    make_card(m, types["Blaze"], name="First", unlock_rank=1)
    make_card(m, types["Blaze"], name="Second", unlock_rank=3, position=1)
    return m


def c(m, **extra):
    return {"kind": m.kind, "code": m.code, **extra}


def card_data(types, prefix="new", **overrides):
    data = {
        "name": "Flare",
        "type": types["Blaze"].pk,
        "category": "physical",
        "power": 5,
        "mp_cost": 2,
        "unlock_rank": 1,
        "text": "",
        "tier2_power": "",
        "tier2_text": "",
        "tier3_power": "",
        "tier3_text": "",
    }
    data.update(overrides)
    return {f"{prefix}-{k}": v for k, v in data.items()}


def names(m):
    return list(m.cards.order_by("position").values_list("name", flat=True))


def test_the_editor_shows_which_cards_the_rank_has_unlocked(client, alice, ember):
    client.force_login(alice)
    html = client.get(reverse("card_editor", kwargs=c(ember))).content.decode()
    assert "Rank 2 has unlocked 1 of 2 cards" in html
    assert "✓ unlocked (Rank 1)" in html
    assert "locked until Rank 3" in html


def test_an_archons_cards_are_all_playable(client, alice, types):
    archon = make_archon(alice, types["Tide"])
    make_card(archon, types["Tide"], unlock_rank=5)
    client.force_login(alice)
    html = client.get(reverse("card_editor", kwargs=c(archon))).content.decode()
    assert "locked until" not in html
    assert "✓ unlocked" in html


def test_adding_a_card_with_htmx_returns_the_editor_partial(client, alice, types, ember):
    client.force_login(alice)
    response = client.post(
        reverse("card_add", kwargs=c(ember)), card_data(types, quick="on"), headers=HTMX
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="card-editor"')
    assert "cardsChanged" in response.headers["HX-Trigger"]
    card = Card.objects.get(name="Flare")
    assert (card.memeyori, card.power, card.quick, card.position) == (ember, 5, True, 2)


def test_adding_a_card_without_javascript_redirects_to_the_editor(client, alice, types, ember):
    client.force_login(alice)
    response = client.post(reverse("card_add", kwargs=c(ember)), card_data(types))
    assert response.status_code == 302
    assert response.url == reverse("card_editor", kwargs=c(ember))


@pytest.mark.parametrize(
    ("field", "bad", "message"),
    [
        ("name", "", "Give the card a name."),
        ("power", "100", "Power must be a whole number from 0 to 99."),
        ("power", "2.5", "Power must be a whole number"),
        ("power", "abc", "Power must be a whole number"),
        ("mp_cost", "21", "MP cost must be a whole number from 0 to 20."),
        ("unlock_rank", "0", "Unlocks at Rank must be a whole number from 1 to 6."),
        ("unlock_rank", "7", "Unlocks at Rank must be a whole number from 1 to 6."),
        ("category", "fire", "Select a valid choice"),
        ("type", "99999", "Select a valid choice"),
        ("tier3_power", "5", "Give the card a Tier 2 version before a Tier 3 one."),
        ("tier2_text", "More!", "Tier 2 text needs a Tier 2 power."),
    ],
)
def test_a_bad_card_field_shows_an_inline_error_and_saves_nothing(
    client, alice, types, ember, field, bad, message
):
    client.force_login(alice)
    response = client.post(
        reverse("card_add", kwargs=c(ember)), card_data(types, **{field: bad}), headers=HTMX
    )
    assert message in response.content.decode()
    assert "HX-Trigger" not in response.headers
    assert ember.cards.count() == 2


def test_editing_a_card_inline(client, alice, types, ember):
    client.force_login(alice)
    first = ember.cards.get(name="First")
    edit = reverse("card_edit", kwargs=c(ember, card=first.code))
    form = client.get(edit, headers=HTMX).content.decode()
    assert 'name="edit-name"' in form and 'value="First"' in form
    client.post(edit, card_data(types, prefix="edit", name="Renamed", power=9), headers=HTMX)
    first.refresh_from_db()
    assert (first.name, first.power) == ("Renamed", 9)


def test_reordering_moves_a_card_and_keeps_the_ends(client, alice, types, ember):
    client.force_login(alice)
    second = ember.cards.get(name="Second")
    move = reverse("card_reorder", kwargs=c(ember, card=second.code))
    client.post(move, {"direction": "up"}, headers=HTMX)
    assert names(ember) == ["Second", "First"]
    client.post(move, {"direction": "up"}, headers=HTMX)
    assert names(ember) == ["Second", "First"]
    client.post(move, {"direction": "down"})
    assert names(ember) == ["First", "Second"]


def test_deleting_a_card_asks_first_then_deletes_on_post(client, alice, types, ember):
    client.force_login(alice)
    first = ember.cards.get(name="First")
    remove = reverse("card_remove", kwargs=c(ember, card=first.code))
    assert "Delete the card “First”?" in client.get(remove).content.decode()
    assert ember.cards.count() == 2
    client.post(remove, headers=HTMX)
    assert names(ember) == ["Second"]
    assert ember.cards.get().position == 0


def test_bob_cannot_touch_alices_cards(client, bob, types, ember):
    client.force_login(bob)
    first = ember.cards.get(name="First")
    assert client.post(reverse("card_add", kwargs=c(ember)), card_data(types)).status_code == 404
    edit = reverse("card_edit", kwargs=c(ember, card=first.code))
    assert client.post(edit, card_data(types, prefix="edit", name="X")).status_code == 404
    remove = reverse("card_remove", kwargs=c(ember, card=first.code))
    assert client.post(remove).status_code == 404
    assert names(ember) == ["First", "Second"]


def test_a_card_code_from_another_character_is_a_404(client, alice, types, ember):
    other = make_memeyori(alice, types["Tide"], name="Other")
    foreign = make_card(other, types["Tide"], name="Foreign")
    client.force_login(alice)
    edit = reverse("card_edit", kwargs=c(ember, card=foreign.code))
    assert client.post(edit, card_data(types, prefix="edit", name="X")).status_code == 404
    foreign.refresh_from_db()
    assert foreign.name == "Foreign"


def test_the_builder_page_embeds_the_card_editor(client, alice, ember):
    client.force_login(alice)
    html = client.get(reverse("character_edit", kwargs=c(ember))).content.decode()
    assert 'id="card-editor"' in html
    # The odds panel refreshes when the card editor says the cards changed.
    assert "cardsChanged from:body" in html


def test_the_editor_answers_htmx_with_its_partial_and_a_plain_get_with_the_page(
    client, alice, ember
):
    client.force_login(alice)
    url = reverse("card_editor", kwargs=c(ember))
    partial = client.get(url, headers=HTMX)
    assert partial.content.decode().lstrip().startswith('<div id="card-editor"')
    assert "HX-Request" in partial.headers["Vary"]
    assert "<html" in client.get(url).content.decode()


def test_editing_without_javascript_shows_the_form_in_the_full_page(client, alice, ember):
    client.force_login(alice)
    first = ember.cards.get(name="First")
    html = client.get(reverse("card_edit", kwargs=c(ember, card=first.code))).content.decode()
    assert "<html" in html
    assert 'name="edit-name"' in html
