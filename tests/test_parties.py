"""Parties (R8): an Archon, up to six Memeyori in slot order, Party Level and DP."""

import pytest
from django.urls import reverse

from cards.models import Party

from .conftest import make_archon, make_memeyori, make_party

HTMX = {"HX-Request": "true"}


@pytest.fixture
def roster(alice, types):
    return [make_memeyori(alice, types["Blaze"], name=f"M{i}") for i in range(1, 8)]


def party_data(memeyori=(), **overrides):
    data = {
        "name": "Dawn",
        "archon": "",
        "level": 1,
        "dp_sp": 0,
        "dp_mp": 0,
        "dp_draw": 0,
        "visibility": "private",
    }
    for i, m in enumerate(memeyori):
        data[f"slot_{i + 1}"] = str(m.code)
    data.update(overrides)
    return data


def test_alice_creates_a_party_in_slot_order(client, alice, types, roster):
    archon = make_archon(alice, types["Tide"])
    client.force_login(alice)
    chosen = [roster[2], roster[0], roster[1]]
    response = client.post(reverse("party_new"), party_data(chosen, archon=archon.pk))
    party = Party.objects.get()
    assert response.status_code == 302
    assert party.memeyori_in_order() == chosen
    assert party.archon == archon


def test_empty_slots_close_up(client, alice, roster):
    client.force_login(alice)
    data = party_data(slot_2=str(roster[0].code), slot_5=str(roster[1].code))
    client.post(reverse("party_new"), data)
    assert Party.objects.get().memeyori_in_order() == [roster[0], roster[1]]


def test_r8_refuses_more_memeyori_than_sp_allows_and_saves_nothing(client, alice, roster):
    client.force_login(alice)
    html = client.post(reverse("party_new"), party_data(roster[:4])).content.decode()
    assert "SP 3 allows 3 Memeyori; you chose 4." in html
    assert not Party.objects.exists()


def test_dp_on_sp_lets_the_party_hold_more(client, alice, roster):
    client.force_login(alice)
    response = client.post(reverse("party_new"), party_data(roster[:4], level=2, dp_sp=1))
    assert response.status_code == 302
    assert len(Party.objects.get().memeyori_in_order()) == 4


def test_r8_caps_a_party_at_six_memeyori_whatever_the_sp(client, alice, roster):
    client.force_login(alice)
    data = party_data(roster[:6], level=5, dp_sp=4, slot_6=str(roster[6].code))
    response = client.post(reverse("party_new"), data)
    assert response.status_code == 302
    assert len(Party.objects.get().memeyori_in_order()) == 6
    assert "slot_7" not in client.get(reverse("party_new")).content.decode()


def test_spending_more_dp_than_the_level_gives_is_refused(client, alice, roster):
    client.force_login(alice)
    html = client.post(reverse("party_new"), party_data(level=2, dp_sp=1, dp_mp=1)).content
    assert "Party Level 2 gives 1 DP; you spent 2." in html.decode()
    assert not Party.objects.exists()


def test_the_same_memeyori_twice_is_refused(client, alice, roster):
    client.force_login(alice)
    data = party_data([roster[0], roster[0]])
    html = client.post(reverse("party_new"), data).content.decode()
    assert "already in another slot" in html
    assert not Party.objects.exists()


@pytest.mark.parametrize(
    ("field", "bad"), [("level", "0"), ("level", "x"), ("dp_sp", "-1"), ("dp_mp", "2.5")]
)
def test_bad_numbers_are_refused_by_name(client, alice, field, bad):
    client.force_login(alice)
    html = client.post(reverse("party_new"), party_data(**{field: bad})).content.decode()
    assert "must be a whole number" in html
    assert not Party.objects.exists()


def test_the_totals_update_live_with_htmx(client, alice, roster):
    client.force_login(alice)
    response = client.get(
        reverse("party_totals"), party_data(roster[:4], level=3, dp_sp=1, dp_draw=1), headers=HTMX
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="totals"')
    assert "<dt>SP</dt><dd>4</dd>" in html
    assert "<dt>Draw</dt><dd>3</dd>" in html
    assert "<dt>DP</dt><dd>2 of 2</dd>" in html
    assert "This party follows the party rules" in html
    html = client.get(
        reverse("party_totals"), party_data(roster[:4]), headers=HTMX
    ).content.decode()
    assert "SP 3 allows 3 Memeyori; you chose 4." in html
    assert not Party.objects.exists()


def test_bob_cannot_put_alices_memeyori_or_archon_in_his_party(client, alice, bob, types, roster):
    archon = make_archon(alice, types["Tide"])
    client.force_login(bob)
    html = client.post(
        reverse("party_new"), party_data(roster[:1], archon=archon.pk)
    ).content.decode()
    assert "Select a valid choice" in html
    assert not Party.objects.exists()


def test_bob_gets_a_404_for_alices_party_pages_to_change(client, alice, bob, roster):
    party = make_party(alice, visibility="public")
    client.force_login(bob)
    assert client.get(party.get_absolute_url()).status_code == 200
    for name in ("party_edit", "party_remove", "party_export"):
        assert client.get(reverse(name, kwargs={"code": party.code})).status_code == 404
    response = client.post(
        reverse("party_edit", kwargs={"code": party.code}), party_data(name="Stolen")
    )
    assert response.status_code == 404
    assert client.post(reverse("party_remove", kwargs={"code": party.code})).status_code == 404
    party.refresh_from_db()
    assert party.name == "Sunrise Squad"


def test_a_private_party_is_a_404_for_others(client, alice, bob):
    party = make_party(alice)
    assert client.get(party.get_absolute_url()).status_code == 404
    client.force_login(bob)
    assert client.get(party.get_absolute_url()).status_code == 404


def test_alice_edits_and_deletes_her_party(client, alice, roster):
    party = make_party(alice)
    client.force_login(alice)
    edit = reverse("party_edit", kwargs={"code": party.code})
    page = client.get(edit).content.decode()
    assert 'value="Sunrise Squad"' in page
    client.post(edit, party_data(roster[:2], name="Dusk"))
    party.refresh_from_db()
    assert party.name == "Dusk" and len(party.memeyori_in_order()) == 2
    remove = reverse("party_remove", kwargs={"code": party.code})
    assert "Delete Dusk?" in client.get(remove).content.decode()
    client.post(remove)
    assert not Party.objects.exists()
    assert len(roster) == 7  # the Memeyori stay


def test_a_new_party_starts_at_level_1_with_no_dp_spent(client, alice):
    client.force_login(alice)
    html = client.get(reverse("party_new")).content.decode()
    assert 'name="level" value="1"' in html
    assert 'name="dp_sp" value="0"' in html


def test_the_totals_have_a_full_page_fallback(client, alice, roster):
    client.force_login(alice)
    html = client.get(reverse("party_totals"), party_data(roster[:2])).content.decode()
    assert "<html" in html
    assert "This party follows the party rules" in html
