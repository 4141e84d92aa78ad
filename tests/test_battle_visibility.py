"""A battle or lab is no more visible than the least visible party in it (issue 18.6)."""

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from battles import services
from battles.lab import services as lab_services
from battles.models import Battle, Lab
from cards.models import TableMembership
from cards.services import party_set_memeyori
from cards.tables.services import table_create

from .conftest import make_memeyori, make_party, make_user


def party_of(owner, types, name, visibility):
    pup = make_memeyori(owner, types["Blaze"], name=f"{name} pup", visibility=visibility)
    party = make_party(owner, name=name, visibility=visibility)
    party_set_memeyori(party=party, memeyori=[pup])
    return party


@pytest.fixture
def sides(alice, types):
    """Alice's public party, and a table-mate's party shared with "my tables"."""
    table = table_create(gm=alice, name="Tuesday")
    member = make_user("member1")
    TableMembership.objects.create(table=table, user=member)
    return {
        "public": party_of(alice, types, "Sunrise", "public"),
        "tables": party_of(member, types, "Hidden Den", "tables"),
        "mine": party_of(alice, types, "Drafts", "private"),
        "table": table,
        "member": member,
    }


def test_a_public_battle_with_a_table_only_party_is_refused_naming_it(alice, sides):
    for visibility in ("public", "unlisted"):
        with pytest.raises(ValidationError, match="cannot show Hidden Den \\(my tables\\)"):
            services.battle_run(owner=alice, party_a=sides["public"], party_b=sides["tables"],
                                seed=1, visibility=visibility)  # fmt: skip
    with pytest.raises(ValidationError, match="Drafts \\(private\\)"):
        services.battle_run(owner=alice, party_a=sides["public"], party_b=sides["mine"],
                            seed=1, visibility="public")  # fmt: skip
    assert not Battle.objects.exists()
    battle = services.battle_run(
        owner=alice, party_a=sides["public"], party_b=sides["tables"], seed=1
    )
    assert Client().get(reverse("battle_log", kwargs={"code": battle.code})).status_code == 404


def test_sharing_a_battle_wider_than_its_parties_is_refused_on_the_page(client, alice, sides):
    battle = services.battle_run(
        owner=alice, party_a=sides["public"], party_b=sides["tables"], seed=1
    )
    client.force_login(alice)
    url = reverse("battle_share", kwargs={"code": battle.code})
    page = client.post(url, {"action": "visibility", "visibility": "public"}, follow=True)
    assert "cannot show Hidden Den (my tables)" in page.content.decode()
    battle.refresh_from_db()
    assert battle.visibility == "private" and battle.share_token is None


def test_at_a_table_a_table_only_party_must_be_of_someone_who_sits_there(alice, sides, types):
    elsewhere = table_create(gm=alice, name="Friday")
    with pytest.raises(ValidationError, match="member1 does not sit at Friday"):
        services.battle_run(owner=alice, party_a=sides["public"], party_b=sides["tables"],
                            seed=1, table=elsewhere)  # fmt: skip
    services.battle_run(owner=alice, party_a=sides["public"], party_b=sides["tables"],
                        seed=1, table=sides["table"])  # fmt: skip


def test_a_public_lab_against_the_field_takes_only_public_opponents(alice, sides, types):
    other = party_of(make_user("bob"), types, "Open Door", "public")
    lab = lab_services.lab_create(owner=alice, party_a=sides["public"], party_b=None,
                                  battles=100, seed=1, visibility="public")  # fmt: skip
    assert [m.party_b for m in lab.matchups.all()] == [other]
    private_lab = lab_services.lab_create(owner=alice, party_a=sides["public"], party_b=None,
                                          battles=100, seed=1)  # fmt: skip
    names = {m.name_b for m in private_lab.matchups.all()}
    assert names == {"Open Door", "Hidden Den", "Drafts"}
    # Made public later: refused, naming the party that would show.
    with pytest.raises(ValidationError, match="Hidden Den"):
        lab_services.lab_set_visibility(lab=private_lab, visibility="public")
    assert Lab.objects.get(pk=private_lab.pk).visibility == "private"


def test_a_lab_of_one_opponent_is_held_to_the_rule(alice, sides):
    with pytest.raises(ValidationError, match="a lab can be no more visible"):
        lab_services.lab_create(owner=alice, party_a=sides["public"], party_b=sides["tables"],
                                battles=100, seed=1, visibility="unlisted")  # fmt: skip
