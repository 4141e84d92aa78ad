"""The live builder: the stats and odds panels re-render from the server as the user types."""

import re
from fractions import Fraction

import pytest
from django.core.cache import caches
from django.urls import reverse

from battles.engine.damage import STAB, WEAK, stab_multiplier
from battles.engine.odds import attack_odds, expected_damage
from cards.models import Effect, Matchup, Memeyori
from cards.odds import percent

from .conftest import make_card, make_memeyori

HTMX = {"HX-Request": "true"}


def form_data(types, **overrides):
    data = {
        "name": "Emberpup",
        "type": types["Blaze"].pk,
        "rank": 1,
        "strength": 5,
        "endurance": 5,
        "iq": 3,
        "wit": 2,
        "speed": 4,
        "aura": 2,
        "flavour": "",
        "visibility": "private",
    }
    data.update(overrides)
    return data


def stats_url(kind="memeyori"):
    return reverse("builder_stats", kwargs={"kind": kind})


def test_the_stats_partial_explains_each_stat(client, types):
    response = client.get(stats_url(), form_data(types), headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html
    assert 'id="live-panels"' in html
    assert "HP 41 = 6 + 5 x END 5 + 2 x STR 5" in html
    assert "Physical Accuracy 6 = STR 5 + floor(IQ 3 / 2)" in html
    # Each formula is reachable by keyboard focus, not only by hover.
    assert 'tabindex="0" aria-describedby="formula-hp"' in html
    assert '<dd class="formula" id="formula-hp">' in html


def test_the_stats_panel_shows_the_rank_6_bonus(client, types):
    html = client.get(stats_url(), form_data(types, rank=6), headers=HTMX).content.decode()
    assert "HP 48 = 6 + 5 x END 6 (5 + 1 at Rank 6) + 2 x STR 6 (5 + 1 at Rank 6)" in html


def test_the_stats_endpoint_answers_a_plain_request_with_a_full_page(client, types):
    response = client.get(stats_url(), form_data(types))
    html = response.content.decode()
    assert "<html" in html
    assert "HP 41 = " in html
    assert response.headers["Vary"].count("HX-Request") == 1


def test_the_scale_labels_update_out_of_band(client, types):
    html = client.get(stats_url(), form_data(types, strength=11), headers=HTMX).content.decode()
    assert 'id="hint-strength" hx-swap-oob="true" class="hint">Unnatural</span>' in html
    assert 'id="hint-endurance" hx-swap-oob="true" class="hint">Peak human</span>' in html


@pytest.mark.parametrize("bad", ["0", "21", "2.5", "abc", "", "-3"])
def test_a_bad_strength_shows_its_error_inline_and_names_the_field(client, types, bad):
    html = client.get(stats_url(), form_data(types, strength=bad), headers=HTMX).content.decode()
    assert "Strength" in html and "whole number from 1 to 20" in html
    assert 'id="hint-strength" hx-swap-oob="true" class="hint error">' in html
    # The other fields keep their scale labels; no stats are invented from a bad value.
    assert 'id="hint-endurance" hx-swap-oob="true" class="hint">Peak human' in html
    assert "HP " not in html


@pytest.mark.parametrize("field", ["strength", "endurance", "iq", "wit", "speed", "aura", "rank"])
@pytest.mark.parametrize("bad", ["0", "21", "2.5", "abc", ""])
def test_every_attribute_refuses_bad_values_on_save_and_saves_nothing(
    client, alice, types, field, bad
):
    client.force_login(alice)
    url = reverse("builder_new", kwargs={"kind": "memeyori"})
    response = client.post(url, form_data(types, **{field: bad}, name="Kept <b>name</b>"))
    html = response.content.decode()
    assert response.status_code == 200
    assert "whole number from" in html or "is required" in html
    # Every other field stays as typed (and escaped).
    assert 'value="Kept &lt;b&gt;name&lt;/b&gt;"' in html
    assert not Memeyori.objects.exists()


def test_a_valid_post_saves_and_redirects_to_the_editor(client, alice, types):
    client.force_login(alice)
    url = reverse("builder_new", kwargs={"kind": "memeyori"})
    response = client.post(url, form_data(types, rank=6))
    m = Memeyori.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("character_edit", kwargs={"kind": "memeyori", "code": m.code})
    assert (m.owner, m.rank, m.strength, m.type) == (alice, 6, 5, types["Blaze"])


def test_preview_without_javascript_re_renders_and_saves_nothing(client, alice, types):
    client.force_login(alice)
    url = reverse("builder_new", kwargs={"kind": "memeyori"})
    html = client.post(url, {**form_data(types, strength=7), "preview": "1"}).content.decode()
    assert "HP 45 = 6 + 5 x END 5 + 2 x STR 7" in html
    assert not Memeyori.objects.exists()


def test_anonymous_visitors_can_try_the_builder_but_not_save(client, types):
    url = reverse("builder_new", kwargs={"kind": "memeyori"})
    page = client.get(url).content.decode()
    assert "HP 20 = 6 + 5 x END 2 + 2 x STR 2" in page  # the model's defaults
    assert "Log in to save" in page
    response = client.post(url, form_data(types))
    assert response.status_code == 302
    assert reverse("login") in response.url
    assert not Memeyori.objects.exists()


def test_the_archon_builder_has_no_rank(client, types):
    html = client.get(reverse("builder_new", kwargs={"kind": "archon"})).content.decode()
    assert 'name="rank"' not in html
    assert 'name="strength"' in html


def test_every_builder_input_has_a_label(client, types):
    html = client.get(reverse("builder_new", kwargs={"kind": "memeyori"})).content.decode()
    for name in ["name", "type", "rank", "strength", "aura", "flavour", "visibility", "portrait",
                 "vs_evasion", "vs_defense", "vs_resistance", "vs_type"]:  # fmt: skip
        assert f'<label for="id_{name}">' in html, name


def pct_title(p: Fraction) -> str:
    return f'title="exactly {p.numerator}/{p.denominator}"'


def test_the_odds_panel_shows_exact_r4_odds_against_the_reference_defender(client, types):
    html = client.get(stats_url(), form_data(types), headers=HTMX).content.decode()
    physical = attack_odds(6, 2, 2)
    magic = attack_odds(4, 2, 2)
    assert pct_title(physical.p_land) in html
    assert pct_title(physical.p_critical) in html
    assert pct_title(magic.p_complication) in html
    assert f"{float(physical.p_land) * 100:.1f}%" in html


def test_the_reference_evasion_is_editable_in_place(client, types):
    html = client.get(
        stats_url(), {**form_data(types), "vs_evasion": 7}, headers=HTMX
    ).content.decode()
    assert "Against Evasion 7" in html
    assert pct_title(attack_odds(6, 7, 2).p_land) in html


def test_a_bad_reference_evasion_is_refused_by_name(client, types):
    html = client.get(
        stats_url(), {**form_data(types), "vs_evasion": "x"}, headers=HTMX
    ).content.decode()
    assert "Defender Evasion must be a whole number" in html


@pytest.fixture
def emberpup(alice, types):
    m = make_memeyori(alice, types["Blaze"])
    make_card(m, types["Blaze"], name="Cinder Nip", power=6)
    make_card(m, types["Tide"], name="Deep Spell", category="magic", power=3, unlock_rank=3)
    make_card(m, types["Verdant"], name="Mend", category="support", power=2)
    return m


def card_expected(types, *, defending, power=6):
    """Cinder Nip (Blaze, physical, Power 6) from Emberpup (Blaze) against the reference."""
    effect = (
        Matchup.objects.filter(attacking=types["Blaze"], defending=types[defending])
        .values_list("effect", flat=True)
        .first()
        or Effect.NEUTRAL
    )
    return expected_damage(
        power=power,
        stat=5,
        stab=stab_multiplier("Blaze", "Blaze"),
        type_multiplier={"weak": WEAK, "strong": Fraction(1, 2), "neutral": 1}[effect],
        mitigation=2,
        accuracy=6,
        evasion=2,
        crit_rate=2,
    )


def character_stats_url(m):
    return reverse("character_stats", kwargs={"kind": "memeyori", "code": m.code})


def test_the_odds_panel_gives_each_cards_expected_damage_against_the_picked_type(
    client, alice, types, emberpup
):
    client.force_login(alice)
    data = {**form_data(types), "vs_type": "verdant"}
    html = client.get(character_stats_url(emberpup), data, headers=HTMX).content.decode()
    expected = card_expected(types, defending="Verdant")
    assert f"exactly {expected.numerator}/{expected.denominator}; STAB x{STAB}, Type x3/2" in html
    assert "▲ weak" in html
    assert "heals 4 HP" in html  # Power 2 + Support Power 2 (R5)
    assert "locked until Rank 3" in html


def test_a_type_chart_change_shows_at_once_in_the_odds(client, alice, types, emberpup):
    client.force_login(alice)
    data = {**form_data(types), "vs_type": "verdant"}
    Matchup.objects.filter(attacking=types["Blaze"], defending=types["Verdant"]).update(
        effect=Effect.STRONG
    )
    html = client.get(character_stats_url(emberpup), data, headers=HTMX).content.decode()
    expected = card_expected(types, defending="Verdant")
    assert f"exactly {expected.numerator}/{expected.denominator}; STAB x6/5, Type x1/2" in html
    assert "▼ strong" in html


def test_bob_cannot_read_alices_cards_through_the_stats_endpoint(client, bob, types, emberpup):
    client.force_login(bob)
    response = client.get(character_stats_url(emberpup), form_data(types), headers=HTMX)
    assert response.status_code == 404


def test_html_typed_into_the_builder_is_escaped_in_the_panels(client, types):
    data = form_data(types, strength="<script>alert(1)</script>")
    html = client.get(stats_url(), data, headers=HTMX).content.decode()
    assert "<script>alert(1)" not in html


def _land(accuracy, evasion, crit_rate) -> str:
    """The title the odds table gives a physical or magic attack's chance to land."""
    return f'title="{percent(attack_odds(accuracy, evasion, crit_rate).p_land).exact}"'


def test_it_keeps_the_rules_numbers_rendered_and_each_reader_sees_only_their_own_cards(
    client, alice, bob, types
):
    """The derived stats, the attack odds and the summary are kept rendered
    (CACHES["fragments"]) under the numbers they come from; the cards' rows never are."""
    alices = make_memeyori(alice, types["Blaze"], name="Alices")
    make_card(alices, types["Blaze"], name="Alices Secret Move")
    bobs = make_memeyori(bob, types["Tide"], name="Bobs")
    make_card(bobs, types["Tide"], name="Bobs Own Move")
    data = form_data(types, strength=9, iq=7, aura=3, vs_evasion=4)
    caches["fragments"].clear()
    client.force_login(alice)
    fresh = client.get(character_stats_url(alices), data, headers=HTMX).content.decode()
    kept = client.get(character_stats_url(alices), data, headers=HTMX).content.decode()
    assert kept == fresh and "Alices Secret Move" in kept
    client.force_login(bob)
    html = client.get(character_stats_url(bobs), data, headers=HTMX).content.decode()
    assert "Bobs Own Move" in html and "Alices Secret Move" not in html
    assert "HP 49 = 6 + 5 x END 5 + 2 x STR 9" in html and _land(12, 4, 3) in html
    # Other numbers are other panels: Rank 6 raises every attribute; Evasion 0 is other odds.
    rank6 = client.get(character_stats_url(bobs), {**data, "rank": 6}, headers=HTMX)
    assert "HP 56 = 6 + 5 x END 6 (5 + 1 at Rank 6) + 2 x STR 10 (9 + 1 at Rank 6)" in (
        rank6.content.decode()
    )
    evasion0 = client.get(character_stats_url(bobs), {**data, "vs_evasion": 0}, headers=HTMX)
    assert _land(12, 0, 3) in evasion0.content.decode() and _land(12, 4, 3) != _land(12, 0, 3)


def test_it_shows_the_same_numbers_whichever_page_kept_them(client, alice, types):
    """The builder's page (whose summary is not inside the panels' localize off) and the
    stats endpoint keep the same parts; each shows what it shows when nothing is kept."""
    client.force_login(alice)
    emberpup = make_memeyori(alice, types["Blaze"], strength=7, iq=6, speed=6)
    page_url = reverse("character_edit", kwargs={"kind": "memeyori", "code": emberpup.code})
    data = form_data(types, strength=7, iq=6, speed=6)

    def page():
        html = client.get(page_url).content.decode()
        return re.sub(r'(csrfmiddlewaretoken" value=|X-CSRFToken": |nonce=)"[^"]+"', "", html)

    def panels():
        return client.get(character_stats_url(emberpup), data, headers=HTMX).content.decode()

    caches["fragments"].clear()
    fresh_page = page()
    caches["fragments"].clear()
    fresh_panels = panels()
    assert page() == fresh_page  # its parts kept by the endpoint
    caches["fragments"].clear()
    page()
    assert panels() == fresh_panels  # its parts kept by the page
    assert "HP 45 = 6 + 5 x END 5 + 2 x STR 7" in fresh_panels


def test_it_keeps_the_hints_of_a_memeyori_and_an_archon_with_the_same_numbers_apart(client, types):
    """With every attribute valid the hints are kept with the numbers: a Memeyori's include
    its Rank's, an Archon's do not; a bad value is never kept."""
    caches["fragments"].clear()
    data = form_data(types, strength=11, rank=1)
    for kind in ("memeyori", "archon", "memeyori"):
        html = client.get(stats_url(kind), data, headers=HTMX).content.decode()
        assert 'id="hint-strength" hx-swap-oob="true" class="hint">Unnatural</span>' in html
        assert ('id="hint-rank"' in html) is (kind == "memeyori")
    bad = client.get(stats_url(), {**data, "strength": "x"}, headers=HTMX).content.decode()
    assert 'id="hint-strength" hx-swap-oob="true" class="hint error">' in bad
