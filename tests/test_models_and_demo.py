"""The data model's checks (R1, R2, R7, R8) and the demo data (R6)."""

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import IntegrityError, transaction

from cards.models import Archon, Card, Matchup, Memeyori, Party, PartySlot, Type, type_chart
from cards.services import party_set_memeyori

from .conftest import make_archon, make_card, make_memeyori, make_party


def test_a_memeyori_derives_its_stats_from_the_rules_core(alice, types):
    m = make_memeyori(alice, types["Blaze"])
    assert m.derived.hp == 41
    assert m.derived.physical_accuracy == 6


def test_rank_6_memeyori_get_the_bonus_and_archons_never_do(alice, types):
    assert make_memeyori(alice, types["Blaze"], rank=6).derived.hp == 6 + 30 + 12
    assert make_archon(alice, types["Lumen"], endurance=5, strength=3).derived.hp == 6 + 25 + 6


@pytest.mark.parametrize("bad", [0, 21])
def test_it_refuses_attributes_outside_1_to_20_with_a_message(alice, types, bad):
    m = Memeyori(owner=alice, type=types["Blaze"], name="X", strength=bad)
    with pytest.raises(ValidationError) as err:
        m.full_clean()
    assert "strength" in err.value.message_dict


def test_the_database_refuses_strength_21_even_past_the_form(alice, types):
    with pytest.raises(IntegrityError), transaction.atomic():
        make_memeyori(alice, types["Blaze"], strength=21)
    assert not Memeyori.objects.exists()


def test_it_refuses_rank_7(alice, types):
    m = Memeyori(owner=alice, type=types["Blaze"], name="X", rank=7)
    with pytest.raises(ValidationError) as err:
        m.full_clean()
    assert "rank" in err.value.message_dict


def test_a_card_belongs_to_exactly_one_character(alice, types):
    m = make_memeyori(alice, types["Blaze"])
    a = make_archon(alice, types["Lumen"])
    card = Card(memeyori=m, archon=a, type=types["Blaze"], name="Both", category="physical")
    with pytest.raises(ValidationError, match="exactly one"):
        card.full_clean()
    with pytest.raises(IntegrityError), transaction.atomic():
        card.save()


def test_a_tier_3_needs_a_tier_2(alice, types):
    m = make_memeyori(alice, types["Blaze"])
    card = Card(memeyori=m, type=types["Blaze"], name="Big", category="magic", tier3_power=12)
    with pytest.raises(ValidationError) as err:
        card.full_clean()
    assert "Tier 2" in str(err.value.message_dict["tier3_power"])


def test_a_memeyori_plays_only_the_cards_its_rank_unlocked(alice, types):
    m = make_memeyori(alice, types["Blaze"], rank=2)
    make_card(m, types["Blaze"], name="Early", unlock_rank=1)
    make_card(m, types["Blaze"], name="Now", unlock_rank=2)
    make_card(m, types["Blaze"], name="Later", unlock_rank=3)
    assert [c.name for c in m.unlocked_cards()] == ["Early", "Now"]


def test_a_party_refuses_more_memeyori_than_its_sp_allows(alice, types):
    party = make_party(alice)
    four = [make_memeyori(alice, types["Blaze"], name=f"M{i}") for i in range(4)]
    with pytest.raises(ValidationError, match="SP 3 allows 3 Memeyori; you chose 4"):
        party_set_memeyori(party=party, memeyori=four)
    assert not PartySlot.objects.exists()


def test_a_party_with_a_dp_on_sp_holds_four(alice, types):
    party = make_party(alice, level=2, dp_sp=1)
    four = [make_memeyori(alice, types["Blaze"], name=f"M{i}") for i in range(4)]
    party_set_memeyori(party=party, memeyori=four)
    assert party.memeyori_in_order() == four


def test_a_party_refuses_to_spend_dp_it_does_not_have(alice):
    party = Party(owner=alice, name="Greedy", level=2, dp_sp=1, dp_mp=1)
    with pytest.raises(ValidationError, match="Party Level 2 gives 1 DP; you spent 2"):
        party.full_clean()


def test_a_party_refuses_the_same_memeyori_twice(alice, types):
    m = make_memeyori(alice, types["Blaze"])
    with pytest.raises(ValidationError, match="already in another slot"):
        party_set_memeyori(party=make_party(alice), memeyori=[m, m])


def test_a_party_refuses_someone_elses_memeyori_and_archon(alice, bob, types):
    bobs = make_memeyori(bob, types["Blaze"])
    with pytest.raises(ValidationError, match="not yours"):
        party_set_memeyori(party=make_party(alice), memeyori=[bobs])
    party = Party(owner=alice, name="Thief", archon=make_archon(bob, types["Shade"]))
    with pytest.raises(ValidationError):
        party.full_clean()


def test_the_default_chart_gives_every_type_but_ether_a_weakness_and_a_strength(types):
    chart = type_chart()
    others = [name for name in types if name != "Ether"]
    assert len(others) >= 8
    for name in others:
        assert any(d == name and e == "weak" for (_, d), e in chart.items()), name
        assert any(d == name and e == "strong" for (_, d), e in chart.items()), name
        assert any(a == name and e == "weak" for (a, _), e in chart.items()), name
        assert any(a == name and e == "strong" for (a, _), e in chart.items()), name
    assert not any("Ether" in pair for pair in chart)


def test_seed_demo_loads_the_demo_and_is_idempotent(db):
    call_command("seed_demo")
    counts = [
        Type.objects.count(), Matchup.objects.count(), Memeyori.objects.count(),
        Archon.objects.count(), Card.objects.count(), Party.objects.count(),
        PartySlot.objects.count(),
    ]  # fmt: skip
    codes = set(Memeyori.objects.values_list("code", flat=True))
    call_command("seed_demo")
    assert counts == [
        Type.objects.count(), Matchup.objects.count(), Memeyori.objects.count(),
        Archon.objects.count(), Card.objects.count(), Party.objects.count(),
        PartySlot.objects.count(),
    ]  # fmt: skip
    assert set(Memeyori.objects.values_list("code", flat=True)) == codes
    assert Memeyori.objects.count() >= 12
    assert Archon.objects.count() == 2
    assert Party.objects.count() == 5  # the four balanced ones and First Friends
    for m in Memeyori.objects.all():
        assert 4 <= m.cards.count() <= 8, m.name
    categories = set(Card.objects.values_list("category", flat=True))
    assert categories == {"physical", "magic", "support"}
    assert Card.objects.filter(quick=True).exists()
    assert Card.objects.filter(tier3_power__isnull=False).exists()
    assert set(Card.objects.values_list("unlock_rank", flat=True)) == {1, 2, 3, 4, 5, 6}
    for party in Party.objects.all():
        party.full_clean()
        assert len(party.memeyori_in_order()) <= party.totals.max_memeyori
    assert all(a.cards.exists() for a in Archon.objects.all())
