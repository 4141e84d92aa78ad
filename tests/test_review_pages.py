"""The game review on the site (issue 32): who may start it, its task and stored row, the
graph under the viewer (spoiler-free), and `manage.py review`."""

import json
import math
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from battles.engine.run import simulate
from battles.engine.state import round_frames
from battles.models import Battle, Review, ReviewStatus
from battles.review import tasks
from battles.snapshot import snapshot
from tests.conftest import make_user
from tests.test_battle_engine import card, fighter, party


def duel_snapshot():
    """Two Memeyori a side with blows of 20: a battle of a few rounds either way."""
    a = party("Aces", fighter("Ace", strength=8, speed=6, cards=[card("Slam", power=20)] * 2),
              fighter("Ash", strength=8, cards=[card("Slam", power=20)] * 2))  # fmt: skip
    b = party("Bees", fighter("Bee", strength=8, speed=3, cards=[card("Sting", power=20)] * 2),
              fighter("Bog", strength=8, cards=[card("Sting", power=20)] * 2))  # fmt: skip
    return snapshot([a, b], {})


@pytest.fixture
def battle(alice):
    snap = duel_snapshot()
    for seed in range(50):
        log = simulate(snap, seed=seed)
        if log["result"]["rounds"] >= 3:
            break
    return Battle.objects.create(
        owner=alice, name_a="Aces", name_b="Bees", snapshot=snap, seed=seed, log=log,
        frames=round_frames(log), winner=log["result"]["winner"], rounds=log["result"]["rounds"],
        visibility="public",
    )  # fmt: skip


@pytest.fixture
def post(django_capture_on_commit_callbacks):
    """POST to the review control, running what it queues (the task) on commit."""

    def send(client, battle, **data):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(reverse("battle_review", kwargs={"code": battle.code}), data)

    return send


def test_the_owner_starts_the_review_and_it_is_stored_once(client, alice, battle, post):
    client.force_login(alice)
    response = post(client, battle, action="start", round=1, step=1)
    assert response.status_code == 302
    assert response["Location"].endswith("?round=1&step=1#review")
    review = Review.objects.get(battle=battle)
    assert review.status == ReviewStatus.DONE
    assert [r["round"] for r in review.data["rounds"]] == list(range(1, battle.rounds + 1))
    first = review.data
    post(client, battle, action="start")
    assert Review.objects.count() == 1
    assert tasks.run(review.pk) is False  # never computed twice
    assert Review.objects.get().data == first


def test_a_stranger_starts_it_only_when_the_owner_allows(client, alice, battle, post):
    carol = make_user("carol")
    client.force_login(carol)
    post(client, battle, action="start")
    assert not Review.objects.filter(status=ReviewStatus.DONE).exists()
    post(client, battle, action="open", open_to_viewers="on")  # not carol's to say
    assert not Review.objects.filter(open_to_viewers=True).exists()
    client.force_login(alice)
    post(client, battle, action="open", open_to_viewers="on")
    client.force_login(carol)
    post(client, battle, action="start")
    assert Review.objects.get().status == ReviewStatus.DONE


def _review_text(html: str) -> str:
    match = re.search(r'<section class="review".*?</section>', html, re.S)
    return match.group(0) if match else ""


def test_the_graph_reaches_only_the_round_shown_until_the_result(client, alice, battle, post):
    client.force_login(alice)
    post(client, battle, action="start")
    url = battle.get_absolute_url()
    early = _review_text(client.get(url, {"round": 1, "step": 1}).content.decode())
    assert "<svg" in early and "Round 1:" in early
    assert "Round 2:" not in early and "dice swung" not in early
    assert early.count("<circle") == 1
    last = battle.rounds
    length = len(battle.log["events"]) - battle.frames[last]["first_event"]
    end = _review_text(client.get(url, {"round": last, "step": length}).content.decode())
    assert f"Round {last}:" in end and "dice swung the game most" in end
    assert end.count("<circle") == last + 1  # every round and the result


def test_manage_py_review_json_has_the_curve_the_losses_and_the_luck(battle):
    out = StringIO()
    call_command("review", str(battle.code), "--json", "--rate-ai", stdout=out)
    data = json.loads(out.getvalue())
    assert len(data["rounds"]) == battle.rounds
    for row in data["rounds"]:
        assert {"round", "win_a", "win_a_low", "win_a_high", "plan_loss", "luck"} <= set(row)
        assert 0 <= row["win_a_low"] <= row["win_a"] <= row["win_a_high"] <= 1
        assert len(row["plan_loss"]) == 2 and len(row["luck"]) == 2
    assert len(data["accuracy"]) == 2 and len(data["luck"]) == 2
    words = StringIO()
    call_command("review", str(battle.pk), stdout=words)
    assert "Win% of Aces (side A)" in words.getvalue()


QUEUED = "The review is queued"


def test_the_queued_note_shows_in_the_review_and_leaves_with_the_queue(client, alice, battle):
    client.force_login(alice)
    # No worker yet: the review waits in the queue.
    url = reverse("battle_review", kwargs={"code": battle.code})
    page = client.post(url, {"action": "start", "round": 1, "step": 1}, follow=True)
    html = page.content.decode()
    review = html[html.index('id="review"') :]
    assert QUEUED in review and "waiting for a worker" in review
    assert QUEUED not in html[: html.index('id="review"')]  # not a banner at the top
    # The worker makes it; the page's poll (or a reload) has the review and no note.
    tasks.run(Review.objects.get(battle=battle).pk, seconds=math.inf)
    for follow_up in (page.redirect_chain[-1][0], battle.get_absolute_url()):
        html = client.get(follow_up).content.decode()
        assert "review-graph" in html and QUEUED not in html, follow_up


def test_a_review_made_at_once_never_says_it_is_queued(client, alice, battle, post):
    client.force_login(alice)
    response = post(client, battle, action="start", round=1, step=1)
    html = client.get(response["Location"]).content.decode()
    assert "review-graph" in html and QUEUED not in html
