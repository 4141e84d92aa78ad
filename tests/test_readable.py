"""get_readable_or_404 lets a reader have exactly what the visibility rule (visible_to) lets
them read: its shortcut for public objects and the owner's own must never open more."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import Http404

from battles import services as battle_services
from battles.models import Battle
from cards.models import Memeyori, TableMembership, get_readable_or_404, visible_to
from cards.services import party_set_memeyori
from cards.tables.services import table_create

from .conftest import make_card, make_memeyori, make_party, make_user

VISIBILITIES = ("private", "tables", "public")


def _battle(owner, types, **run):
    fighter = make_memeyori(owner, types["Blaze"], visibility="public")
    make_card(fighter, types["Blaze"])
    party = make_party(owner, visibility="public")
    party_set_memeyori(party=party, memeyori=[fighter])
    return battle_services.battle_run(owner=owner, party_a=party, party_b=party, seed=1, **run)


def _may_read(model, user, code, *, at_table=False) -> bool:
    try:
        get_readable_or_404(model.objects.all(), user, at_table=at_table, code=code)
    except Http404:
        return False
    return True


@pytest.fixture
def readers(alice, bob):
    """The owner, someone at the owner's table, someone at no table, a visitor."""
    table = table_create(gm=alice, name="Tuesday")
    TableMembership.objects.create(table=table, user=bob)
    return {"owner": alice, "table mate": bob, "stranger": make_user("carol"),
            "visitor": AnonymousUser()}  # fmt: skip


@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize("who", ["owner", "table mate", "stranger", "visitor"])
def test_a_character_is_readable_exactly_when_the_rule_says(readers, types, visibility, who):
    character = make_memeyori(readers["owner"], types["Blaze"], visibility=visibility)
    user = readers[who]
    expected = Memeyori.objects.filter(visible_to(user), code=character.code).exists()
    assert _may_read(Memeyori, user, character.code) is expected
    assert expected is (who == "owner" or visibility == "public" or
                        (visibility == "tables" and who == "table mate"))  # fmt: skip


@pytest.mark.parametrize("visibility", ["private", "unlisted", "public"])
@pytest.mark.parametrize("who", ["owner", "table mate", "stranger", "visitor"])
def test_a_battle_is_readable_exactly_when_the_rule_says(readers, types, visibility, who):
    battle = _battle(readers["owner"], types)
    Battle.objects.filter(pk=battle.pk).update(visibility=visibility)
    user = readers[who]
    expected = Battle.objects.filter(visible_to(user, at_table=True), code=battle.code).exists()
    assert _may_read(Battle, user, battle.code, at_table=True) is expected
    assert expected is (who == "owner" or visibility == "public")


def test_a_battle_run_at_a_table_is_readable_by_its_members_only(readers, types):
    mate = readers["table mate"]
    table = TableMembership.objects.get(user=mate).table
    battle = _battle(readers["owner"], types, table=table)
    assert _may_read(Battle, mate, battle.code, at_table=True)
    assert not _may_read(Battle, mate, battle.code)  # the table widens only when asked
    assert not _may_read(Battle, readers["stranger"], battle.code, at_table=True)
    assert not _may_read(Battle, readers["visitor"], battle.code, at_table=True)


def test_an_unknown_code_is_the_same_404(readers):
    with pytest.raises(Http404):
        get_readable_or_404(Memeyori.objects.all(), readers["owner"],
                            code="00000000-0000-4000-8000-000000000000")  # fmt: skip
