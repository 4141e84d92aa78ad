"""The review's words hold for every game, a rout too (issue 41.7): no percentage below 0%,
no list of the dice's swings of 0.0 points, a game decided from the start said in words,
and no accuracy claimed where no plan could change the result."""

import html
import re

import pytest

from battles.models import Review, ReviewStatus
from battles.review import graph, words
from tests.test_review_pages import _review_text, battle  # noqa: F401 (a fixture)

NAMES = ("Ash and Drip", "Night Shift")


def rout(rounds: int, *, luck_round_1: float = 1.0) -> dict:
    """A review as the engine stores it of a game side B won from the first round on: its
    Win% at 0% throughout, careless plans that gave nothing up (everything was lost), one
    kind roll for side A in round 1 and none after (the stored accuracy, luck-adjusted
    result and swings are the engine's)."""
    rows = []
    for n in range(1, rounds + 1):
        luck = luck_round_1 if n == 1 else 0.0
        rows.append(
            {
                "round": n, "win_a": 0.0, "win_a_low": 0.0, "win_a_high": 0.03,
                "planned_win_a": 0.0, "planned_low": 0.0, "planned_high": 0.03,
                "playouts": [100, 0], "plan_loss": [0.0, 0.0], "mark": [None, None],
                "better": [None, None], "plan_win": [0.0, 1.0], "by": ["player", "player"],
                "luck": [luck, -luck],
            }
        )  # fmt: skip
    luck_a = round(sum(r["luck"][0] for r in rows), 1)
    return {
        "format": "memeyori-review/1", "rounds": rows, "accuracy": [100.0, 100.0],
        "luck": [luck_a, -luck_a], "plan_loss": [0.0, 0.0], "result": [0.0, 1.0],
        "luck_adjusted": [round(0 - luck_a / 100, 4), round(1 + luck_a / 100, 4)],
        "swings": list(range(1, min(rounds, 3) + 1)), "rated": [True, True],
        "playouts": 100 * rounds, "half_width": 3.0,
    }  # fmt: skip


def test_it_never_writes_a_negative_or_over_100_percentage():
    assert words.pct(-0.01) == "0%"
    assert words.pct(1.012) == "100%"
    lines = "\n".join(words.review_words(rout(3), NAMES))
    assert "-1%" not in lines and "101%" not in lines
    assert "Luck-adjusted result: Ash and Drip 0%, Night Shift 100%" in lines


def test_it_lists_only_the_swings_that_moved_the_game():
    data = rout(4)
    assert words.swings(data) == [1]
    assert words.swings(rout(4, luck_round_1=0.0)) == []
    lines = "\n".join(words.review_words(rout(4, luck_round_1=0.0), NAMES))
    assert "0.0 points" not in lines
    assert "The dice never moved the Win% by a tenth of a point." in lines
    assert "The dice favoured neither side" in lines


def test_it_says_in_words_that_a_game_was_decided_from_the_start():
    said = words.decided_sentence(rout(3), NAMES)
    assert said.startswith("Night Shift's win was certain from the start")
    late = rout(3)
    late["rounds"][0]["win_a"] = 0.4
    assert words.decided_sentence(late, NAMES).startswith(
        "Night Shift's win was certain from round 2"
    )
    late["rounds"][2]["win_a"] = 0.2
    assert words.decided_sentence(late, NAMES) == ""


def test_it_claims_no_accuracy_where_no_plan_could_change_the_result():
    data = rout(3)
    assert words.counted_accuracy(data) == [None, None]
    assert words.unclaimed_accuracy(data, NAMES)[0].startswith("No accuracy for Ash and Drip")
    # A round in doubt counts; so does a settled one where the plan gave points up.
    data["rounds"][1]["win_a"] = 0.3
    data["rounds"][2]["plan_loss"] = [12.0, 0.0]
    counted = words.counted_accuracy(data)
    assert counted[0] is not None and counted[0] < 100
    assert counted[1] == 100.0  # its one round in doubt, given nothing up


@pytest.mark.django_db
def test_the_viewer_says_a_rout_in_words_that_hold(client, alice, battle):  # noqa: F811
    Review.objects.create(battle=battle, status=ReviewStatus.DONE, data=rout(battle.rounds))
    client.force_login(alice)
    last = battle.rounds
    length = len(battle.log["events"]) - battle.frames[last]["first_event"]
    page = client.get(battle.get_absolute_url(), {"round": last, "step": length}).content
    text = html.unescape(re.sub(r"<[^>]+>", "", _review_text(page.decode())))
    assert "-1%" not in text and "0.0 points" not in text and "Accuracy:" not in text
    assert "Luck-adjusted, Aces scores 0%." in text
    assert "Bees' win was certain from the start" in text
    assert "No accuracy for Aces: no plan of theirs could change the result" in text
    assert "The dice swung the game most in round 1 (+1.0 points for Aces)." in text


def test_the_graph_keeps_its_words_to_the_rounds_shown():
    data = rout(3)
    early = graph.graph(data, NAMES, upto=2, ended=False, log={"events": []}, frames=[])
    assert early["decided"] == "" and early["unclaimed"] == [] and early["swings"] == []
