"""R9.6 on the site: the choice of "a draw at the limit" on the forms that start battles,
games and labs, the table's GM's setting, and the viewer saying why a battle was won at the
limit."""

import re

import pytest
from django.urls import reverse

from battles.lab import services as lab_services
from battles.models import Battle
from battles.play.models import Game
from cards.tables.services import table_create
from tests.test_battle_pages import make_team, run


@pytest.fixture
def doves(alice, types):
    """Three Memeyori that only heal: nobody falls, so every battle reaches round 30."""
    return make_team(alice, types, "Doves", size=3, support_only=True)


@pytest.fixture
def lambs(alice, types):
    return make_team(alice, types, "Lambs", size=2, support_only=True)


def post_battle(client, a, b, **fields):
    data = {"party_a": a.code, "party_b": b.code, "seed": 7, "policy_a": "greedy"}
    data |= {"policy_b": "greedy", "visibility": "private", **fields}
    return client.post(reverse("battle_new"), data)


def test_a_new_battle_is_decided_at_the_limit_unless_a_draw_is_chosen(client, alice, doves, lambs):
    client.force_login(alice)
    assert post_battle(client, doves, lambs).status_code == 302
    decided = Battle.objects.latest("id")
    assert decided.snapshot["limit"] == decided.log["limit"] == "decide"
    assert (decided.winner, decided.rounds) == (0, 30)
    assert post_battle(client, doves, lambs, draw_at_limit="on").status_code == 302
    drawn = Battle.objects.latest("id")
    assert drawn.snapshot["limit"] == drawn.log["limit"] == "draw"
    assert (drawn.winner, drawn.rounds) == (None, 30)


def test_the_viewer_says_why_the_battle_was_won_at_the_limit(client, alice, doves, lambs):
    battle = run(alice, doves, lambs, visibility="public")
    client.force_login(alice)
    start = client.get(battle.get_absolute_url()).content.decode()
    assert "round limit decides" not in start  # the result waits for the viewer to reach it
    end = client.get(battle.get_absolute_url(), {"round": 30, "step": 999}).content.decode()
    assert "Doves wins." in end
    assert (
        "Round 30 ends with both sides standing: the round limit decides (R9.6). Doves has"
        " more combatants standing, 3 to 2: Doves wins."
    ) in end
    drawn = run(alice, doves, lambs, visibility="public", draw_at_limit=True)
    end = client.get(drawn.get_absolute_url(), {"round": 30, "step": 999}).content.decode()
    assert "The battle ends in a draw." in end and "round limit decides" not in end
    # Its rematch keeps the draw at the limit; the decided battle's does not ask for one.
    assert "draw_at_limit=on" in end
    assert "draw_at_limit=on" not in client.get(battle.get_absolute_url()).content.decode()
    page = client.get(reverse("battle_new"), {"draw_at_limit": "on", "party_a": doves.code})
    box = re.search(r'<input[^>]*name="draw_at_limit"[^>]*>', page.content.decode()).group(0)
    assert "checked" in box


def test_the_gms_draw_at_the_limit_rules_the_tables_battles(client, alice, bob, doves, lambs):
    table = table_create(gm=alice, name="Slow Table")
    client.force_login(bob)
    assert client.post(reverse("table_rules", kwargs={"code": table.code})).status_code == 404
    client.force_login(alice)
    response = client.post(
        reverse("table_rules", kwargs={"code": table.code}), {"draw_at_limit": "on"}
    )
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.draw_at_limit
    page = client.get(table.get_absolute_url()).content.decode()
    assert "A draw at the limit: when round 30 ends" in page
    # The battle form opened from the table is ticked as its GM chose; unticked, refused.
    form = client.get(reverse("battle_new"), {"table": table.code}).context["form"]
    assert form.initial["draw_at_limit"] is True
    refused = post_battle(client, doves, lambs, table=table.code)
    assert refused.status_code == 400
    assert "its GM chose a draw at the limit" in refused.content.decode()
    assert not Battle.objects.exists()
    assert (
        post_battle(client, doves, lambs, table=table.code, draw_at_limit="on").status_code == 302
    )
    battle = Battle.objects.get()
    assert battle.table == table and battle.log["limit"] == "draw" and battle.winner is None


def test_a_new_table_may_start_with_a_draw_at_the_limit(client, alice):
    client.force_login(alice)
    response = client.post(reverse("table_new"), {"name": "Old School", "draw_at_limit": "on"})
    assert response.status_code == 302
    client.get(response["Location"])
    from cards.models import Table

    assert Table.objects.get(name="Old School").draw_at_limit


def test_a_game_started_with_a_draw_at_the_limit_keeps_it_in_its_snapshot(
    client, alice, doves, lambs
):
    client.force_login(alice)
    for fields, rule in (({}, "decide"), ({"draw_at_limit": "on"}, "draw")):
        data = {"party": doves.code, "opponent": "ai", "party_b": lambs.code}
        data |= {"policy_b": "greedy", "seed": 5, **fields}
        assert client.post(reverse("play_new"), data).status_code == 302
        game = Game.objects.latest("id")
        assert game.snapshot["limit"] == rule
        assert game.draw_at_limit is (rule == "draw")


def test_a_lab_runs_under_the_rule_chosen(alice, doves, lambs):
    for draw, rule in ((False, "decide"), (True, "draw")):
        lab = lab_services.lab_create(
            owner=alice, party_a=doves, party_b=lambs, battles=100, seed=3, draw_at_limit=draw
        )
        matchup = lab.matchups.get()
        assert matchup.snapshot["limit"] == rule
        battle = lab_services.lab_battle(lab=lab, matchup=matchup, i=0)
        assert battle.winner == (None if draw else 0)
        lab.delete()


def test_a_game_won_at_the_limit_says_why_on_its_page(client, alice, doves, lambs):
    from battles.play import services as play_services

    client.force_login(alice)
    data = {"party": doves.code, "opponent": "ai", "party_b": lambs.code}
    assert (
        client.post(reverse("play_new"), data | {"policy_b": "greedy", "seed": 5}).status_code
        == 302
    )
    game = Game.objects.latest("id")
    for round_no in range(1, 31):
        play_services.submit_plan(game, 0, round_no, {"switch": None, "summon": False, "cards": []})
        game.refresh_from_db()
    assert game.status == "finished" and game.winner == 0
    state = play_services.game_state(game, 0)
    assert state["limit_words"].endswith("Doves has more combatants standing, 3 to 2: Doves wins.")
    page = client.get(game.get_absolute_url()).content.decode()
    assert state["limit_words"] in page


def test_the_battle_and_lab_commands_take_a_draw_at_the_limit(doves, lambs):
    import io
    import json

    from django.core.management import call_command

    for extra, winner in (([], 0), (["--draw-at-limit"], None)):
        out = io.StringIO()
        call_command("battle", "Doves", "Lambs", "--seed", "3", "--json", *extra, stdout=out)
        log = json.loads(out.getvalue())
        assert log["result"]["winner"] == winner
        assert log["limit"] == ("draw" if extra else "decide")
        out = io.StringIO()
        call_command("lab", "Doves", "Lambs", "--battles", "4", "--seed", "1", "--json", *extra,
                     stdout=out)  # fmt: skip
        assert json.loads(out.getvalue())["draws"] == (4 if extra else 0)
