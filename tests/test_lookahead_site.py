"""lookahead on the site: offered in the battle and lab forms, bounded in a lab, and on
the command line."""

import json
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse

from battles.engine.policies import LOOKAHEAD
from battles.lab import services
from battles.lab.models import Lab
from battles.making import make_battle
from battles.models import Battle, BattleJob
from cards.demo import seed_demo
from cards.models import Party


@pytest.fixture
def demo(db):
    seed_demo()
    return {p.name: p for p in Party.objects.all()}


def test_the_battle_form_offers_lookahead_and_the_battle_records_its_version(client, alice, demo):
    client.force_login(alice)
    page = client.get(reverse("battle_new")).content.decode()
    assert 'value="lookahead"' in page
    response = client.post(
        reverse("battle_new"),
        {"party_a": demo["Cold Front"].code, "party_b": demo["Wild Bunch"].code, "seed": 3,
         "policy_a": "lookahead", "policy_b": "greedy", "visibility": "private"},
    )  # fmt: skip
    # Played by a task worker (issue 39.3): the page answers with the job's progress.
    job = BattleJob.objects.get()
    assert response.status_code == 302 and response.url == job.get_absolute_url()
    make_battle.call(str(job.code))
    battle = Battle.objects.get()
    assert client.get(job.get_absolute_url()).url == battle.get_absolute_url()
    assert (battle.policy_a, battle.policy_version_a) == ("lookahead", LOOKAHEAD.version)
    assert (battle.policy_b, battle.policy_version_b) == ("greedy", 2)
    out = StringIO()
    call_command("replay", str(battle.code), stdout=out)
    assert (
        f"lookahead version {LOOKAHEAD.version} (side A)" in out.getvalue()
        and "Identical" in out.getvalue()
    )


def _lab_post(client, demo, **fields):
    data = {"party_a": demo["Sunrise Squad"].code, "against": "one",
            "party_b": demo["Night Shift"].code, "battles": 100, "seed": 7,
            "policy_a": "lookahead", "policy_b": "greedy", "visibility": "private"}  # fmt: skip
    data.update(fields)
    return client.post(reverse("lab_new"), data)


def test_the_lab_form_says_the_lookahead_bound_and_refuses_a_lab_beyond_it(client, alice, demo):
    client.force_login(alice)
    page = client.get(reverse("lab_new")).content.decode()
    assert "With the Thinker a lab runs at most 250 battles in all" in page
    response = _lab_post(client, demo, battles=251)
    assert response.status_code == 400
    assert "at most 250 battles" in response.context["form"].errors["battles"][0]
    response = _lab_post(client, demo, battles=150, policy_b="lookahead")
    assert "at most 125 battles" in response.context["form"].errors["battles"][0]
    assert not Lab.objects.exists()
    # Against the field the bound counts every opponent's battles.
    response = _lab_post(client, demo, against="field", party_b="", battles=100)
    assert "at most 250 battles" in response.context["form"].errors["battles"][0]
    # Greedy alone keeps the usual limits.
    response = _lab_post(client, demo, battles=5000, policy_a="greedy")
    assert response.status_code == 302


def test_the_service_refuses_a_lookahead_lab_beyond_the_bound_too(alice, demo):
    with pytest.raises(ValidationError, match="at most 250 battles"):
        services.lab_create(
            owner=alice, party_a=demo["Sunrise Squad"], party_b=demo["Night Shift"],
            battles=300, seed=1, policy_a="lookahead",
        )  # fmt: skip
    lab = services.lab_create(
        owner=alice, party_a=demo["Sunrise Squad"], party_b=demo["Night Shift"],
        battles=100, seed=1, policy_a="lookahead",
    )  # fmt: skip
    assert lab.policy_versions == (LOOKAHEAD.version, 2)


def test_the_lab_command_runs_lookahead_against_greedy_as_json(demo):
    out = StringIO()
    call_command(
        "lab", "Cold Front", "Wild Bunch", "--policy", "lookahead", "--policy-b", "greedy",
        "--battles", "6", "--seed", "4", "--json", stdout=out,
    )  # fmt: skip
    result = json.loads(out.getvalue())
    assert result["policies"] == ["lookahead", "greedy"]
    assert result["policy_versions"] == [LOOKAHEAD.version, 2]
    assert result["battles"] == 6 == result["wins_a"] + result["wins_b"] + result["draws"]
