"""The small words (issue 21.9): one helper each for plurals, possessives and chances
(battles/engine/words.py, and the `words` template filters), used wherever a count, a
name's possessive or a percentage is shown; names that say their limit and refuse a longer
one; shared parties in a table's feed."""

import re
from fractions import Fraction

import pytest
from django.template import Context, Template
from hypothesis import given
from hypothesis import strategies as st

from battles.engine import log as text
from battles.engine.words import duration, percent, plural, possessive
from battles.models import Battle
from cards.models import Memeyori, Party, Table, Visibility
from cards.tables import services as tables

from .conftest import make_memeyori, make_party
from .test_builder_live import form_data, stats_url


def test_plural_counts_read_as_english():
    assert plural(1, "card") == "1 card"
    assert [plural(n, "card") for n in (0, 2)] == ["0 cards", "2 cards"]
    assert plural(1, "glitch") == "1 glitch" and plural(3, "glitch") == "3 glitches"
    assert plural(2, "party") == "2 parties" and plural(2, "day") == "2 days"
    assert plural(2, "Memeyori") == "2 Memeyori"
    assert plural(2, "critical hit") == "2 critical hits"


def test_a_name_ending_in_s_takes_the_apostrophe_alone():
    assert possessive("Ana") == "Ana's"
    assert possessive("Sparks") == "Sparks'"
    assert possessive("Ana's Sparks") == "Ana's Sparks'"  # not "Ana's Sparks's"


@given(st.fractions(min_value=0, max_value=1))
def test_a_chance_never_reads_as_certain_or_impossible_unless_it_is(p):
    shown = percent(p)
    if p == 1:
        assert shown == "100%"
    elif p == 0:
        assert shown == "0%"
    else:
        assert shown not in ("100%", "100.0%", "0%", "0.0%")
        assert "0000" not in shown  # never "100.0000%"
        number = float(re.search(r"[\d.]+", shown)[0])
        if shown.startswith("over"):
            assert p * 100 >= Fraction("99.95")
        elif shown.startswith("under"):
            assert p * 100 < Fraction("0.05")
        else:
            assert abs(number - float(p) * 100) <= 0.05 + 1e-9


def test_durations_read_in_their_largest_whole_unit():
    assert duration(86400) == "24 hours"
    assert duration(3 * 86400) == "3 days"
    assert duration(3600) == "1 hour" and duration(5400) == "90 minutes"
    assert duration(45) == "45 seconds"


def test_the_template_filters_are_the_same_rules():
    rendered = Template(
        '{% load words %}{{ 1|plural:"glitch" }}; {{ 2|plural:"die,dice" }}; '
        "{{ name|possessive }}; {{ chance|percent }}"
    ).render(Context({"name": "Sparks", "chance": Fraction(999999, 1000000)}))
    assert rendered == "1 glitch; 2 dice; Sparks&#x27;; over 99.9%"


NAMES = {"A1": "Fizzlet", "A2": "Vela", "c1": "Spark"}
SIDES = ["Ana's Sparks", "Wild Bunch"]


def line(**event) -> str:
    return text.describe({"round": 1, **event}, NAMES, SIDES)


def test_the_battle_log_counts_in_english():
    plan = line(kind="plan", side=0, cards=1, mp_spent=2, mp_left=1)
    assert plan == "Ana's Sparks plans 1 card for 2 MP (1 left)."
    attack = line(
        kind="attack", attacker="A1", hits=1, glitches=1, explosive_hits=0, defender_hits=2,
        landed=False, critical=False, complication=False, accuracy=3, evasion=2, crit_rate=1,
    )  # fmt: skip
    assert attack.startswith("Fizzlet rolls 1 hit (1 glitch, +0 explosive) against 2: misses.")
    assert "2 discarded cards" in line(kind="reshuffle", side=1, cards=2)
    assert "1 discarded card into" in line(kind="reshuffle", side=1, cards=1)


def test_a_side_named_with_an_s_owns_its_archon_properly():
    dismissed = line(kind="dismiss", side=0, combatant="A2")
    assert dismissed.startswith("Ana's Sparks' Archon Vela is dismissed")


def test_odds_in_the_log_never_round_a_near_certainty_up_to_100():
    attack = line(
        kind="attack", attacker="A1", hits=9, glitches=0, explosive_hits=0, defender_hits=0,
        landed=True, critical=True, complication=False, accuracy=30, evasion=2, crit_rate=1,
    )  # fmt: skip
    assert "land over 99.9%" in attack and "100.0%" not in attack


def test_the_builder_says_over_99_9_not_100_0000(client, types):
    html = client.get(stats_url(), form_data(types, iq=20), headers={"HX-Request": "true"})
    page = html.content.decode()
    assert "100.0000%" not in page and "100.0%" not in page
    assert "over 99.9%" in page


def test_one_round_is_one_round(alice, types):
    battle = Battle(name_a="Ana's Sparks", name_b="Wild Bunch", rounds=1, winner=0)
    assert battle.rounds_text == "1 round"
    assert battle.result_text == "Ana's Sparks wins in 1 round"
    battle.winner = None
    assert battle.result_text == "Draw after 1 round"


def test_the_growth_button_says_what_it_does_in_a_sentence(client, alice, bob, types):
    from cards.models import TableMembership

    from .test_battle_pages import make_team, run

    table = tables.table_create(gm=alice, name="Sunday")
    TableMembership.objects.create(table=table, user=bob)
    a = make_team(alice, types, "Sunrise", visibility="tables")
    b = make_team(bob, types, "Night", visibility="tables")
    battle = run(alice, a, b, table=table)
    client.force_login(alice)
    html = client.get(battle.get_absolute_url()).content.decode()
    assert "the Memeyori R10 grants a Rank gain it" not in html
    assert "each Memeyori that R10 grants a Rank gains it in its owner's collection" in html


# --- Names: the limit is shown, and a longer one is refused with a message, never cut ---


def test_a_name_field_shows_its_limit_and_has_no_maxlength_to_cut_a_paste(client, alice):
    client.force_login(alice)
    for url in ("/build/memeyori/", "/build/archon/", "/parties/new/", "/tables/new/"):
        html = client.get(url).content.decode()
        name = re.search(r'<input[^>]*name="name"[^>]*>', html)[0]
        assert "maxlength" not in name, url
        assert 'data-limit="60"' in name, url
        assert "At most 60 characters." in html, url
        assert "limits.js" in html


def test_a_300_character_name_is_refused_with_a_message_and_nothing_saved(client, alice, types):
    client.force_login(alice)
    long = "S" * 300
    response = client.post("/build/memeyori/", form_data(types, name=long, save="1"))
    assert "Name can be at most 60 characters; this one has 300. Shorten it." in (
        response.content.decode()
    )
    assert not Memeyori.objects.filter(owner=alice).exists()
    response = client.post("/tables/new/", {"name": long})
    assert response.status_code == 400 and "this one has 300" in response.content.decode()
    assert not Table.objects.exists()


def test_a_name_of_exactly_60_characters_is_kept_whole(client, alice, types):
    client.force_login(alice)
    client.post("/build/memeyori/", form_data(types, name="N" * 60, save="1"))
    assert Memeyori.objects.get(owner=alice).name == "N" * 60


def test_card_and_party_forms_refuse_long_names_the_same_way(alice):
    from cards.forms import CardForm, PartyForm

    card = CardForm(data={"name": "x" * 61})
    assert "Name can be at most 60 characters; this one has 61. Shorten it." in card.errors["name"]
    party = PartyForm(data={"name": "x" * 61}, owner=alice)
    assert "this one has 61" in party.errors["name"][0]
    assert "maxlength" not in str(card["text"])  # the rules text counts too
    assert 'data-limit="600"' in str(card["text"])


# --- The table's feed ---


@pytest.fixture
def table(alice):
    return tables.table_create(gm=alice, name="Sunday")


def test_the_feed_tells_the_table_about_shared_parties(alice, types, table):
    pup = make_memeyori(alice, types["Blaze"], visibility=Visibility.TABLES)
    party = make_party(alice, name="Ana's Sparks", visibility=Visibility.TABLES)
    from cards.services import party_set_memeyori

    party_set_memeyori(party=party, memeyori=[pup])
    make_party(alice, name="Secret", visibility=Visibility.PRIVATE)
    feed = [item.text for item in tables.table_feed(table)]
    assert "alice shared the party Ana's Sparks" in feed
    assert not any("Secret" in t for t in feed)
    assert Party.objects.count() == 2


@pytest.mark.django_db
def test_a_limit_its_help_already_says_is_not_said_twice(client, alice):
    client.force_login(alice)
    page = client.get("/build/memeyori/").content.decode()
    at = page.index('id="id_flavour"')
    assert page[at - 600 : at].lower().count("at most 200 characters") == 1
