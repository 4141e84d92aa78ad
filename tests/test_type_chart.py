"""The type chart grid (R6): everyone views it, staff edit it, Ether stays neutral."""

import pytest
from django.urls import reverse

from cards.forms import TypeChartForm
from cards.models import Effect, Matchup, Type


@pytest.fixture
def staff(alice):
    alice.is_staff = True
    alice.save()
    return alice


def chart_post(types, **cells):
    """The whole chart as stored, with some cells changed."""
    stored = {
        (m.attacking_id, m.defending_id): m.effect
        for m in Matchup.objects.exclude(effect=Effect.NEUTRAL)
    }
    data = {}
    ordered = list(Type.objects.all())
    for a in ordered:
        for d in ordered:
            data[TypeChartForm.cell_name(a, d)] = stored.get((a.id, d.id), Effect.NEUTRAL)
    data.update(cells)
    return data


def effect(types, attacking, defending):
    row = Matchup.objects.filter(attacking=types[attacking], defending=types[defending]).first()
    return row.effect if row else Effect.NEUTRAL


def test_everyone_sees_the_grid_with_symbols_not_colour_alone(client, types):
    html = client.get(reverse("type_chart")).content.decode()
    assert '▲<span class="sr">weak, x3/2</span>' in html
    assert "<select" not in html


def test_staff_get_a_select_per_cell_with_a_label(client, staff, types):
    client.force_login(staff)
    html = client.get(reverse("type_chart")).content.decode()
    assert 'name="cell-blaze-verdant"' in html
    assert "Blaze attacking Verdant</label>" in html


def test_staff_change_a_cell(client, staff, types):
    client.force_login(staff)
    assert effect(types, "Blaze", "Verdant") == "weak"
    response = client.post(
        reverse("type_chart_save"),
        chart_post(types, **{"cell-blaze-verdant": "strong", "cell-tide-stone": "neutral"}),
    )
    assert response.status_code == 302
    assert effect(types, "Blaze", "Verdant") == "strong"


def test_setting_a_cell_to_neutral_removes_it(client, staff, types):
    client.force_login(staff)
    client.post(reverse("type_chart_save"), chart_post(types, **{"cell-blaze-verdant": "neutral"}))
    assert effect(types, "Blaze", "Verdant") == "neutral"
    assert not Matchup.objects.filter(
        attacking=types["Blaze"], defending=types["Verdant"], effect="weak"
    ).exists()


def test_ether_stays_neutral_and_a_refused_chart_saves_nothing(client, staff, types):
    client.force_login(staff)
    before = list(Matchup.objects.values_list("attacking", "defending", "effect"))
    html = client.post(
        reverse("type_chart_save"),
        chart_post(types, **{"cell-ether-blaze": "weak", "cell-blaze-verdant": "strong"}),
    ).content.decode()
    assert "Ether is neutral" in html
    assert list(Matchup.objects.values_list("attacking", "defending", "effect")) == before


def test_a_bad_cell_value_is_refused(client, staff, types):
    client.force_login(staff)
    html = client.post(
        reverse("type_chart_save"), chart_post(types, **{"cell-blaze-verdant": "mega"})
    ).content.decode()
    assert "Select a valid choice" in html
    assert effect(types, "Blaze", "Verdant") == "weak"


def test_players_and_visitors_cannot_edit_the_chart(client, bob, types):
    data = chart_post(types, **{"cell-blaze-verdant": "strong"})
    assert client.post(reverse("type_chart_save"), data).status_code == 403
    client.force_login(bob)
    assert client.post(reverse("type_chart_save"), data).status_code == 403
    assert effect(types, "Blaze", "Verdant") == "weak"
