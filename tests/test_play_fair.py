"""The opponent picker (issue 31.4): each opponent's Rank and Level, the player's chance at
every AI level from a quick lab kept for next time, the gap a newcomer faces, the fair fight."""

import random

import pytest
from django.urls import reverse

from battles.engine.battle import run_summary
from battles.engine.model import battle_input
from battles.engine.policies import BEGINNER, GREEDY, LEVELS
from battles.play import fair, fair_tasks
from battles.play.fair import FairEstimate, digest, in_words
from battles.snapshot import battle_snapshot
from cards.demo import seed_demo
from cards.models import Party
from tests.playing import make_side

pytestmark = pytest.mark.django_db


@pytest.fixture
def quick(monkeypatch):
    """A few battles an estimate: the figures mean little, the machinery is the same."""
    monkeypatch.setattr(fair, "BATTLES", 6)
    monkeypatch.setattr(fair, "BATTLES_BY_POLICY", {"lookahead": 2})


@pytest.fixture
def newcomer(alice, types):
    party = make_side(alice, types, "First Steps", prefix="Step")
    Party.objects.filter(pk=party.pk).update(level=1, dp_sp=0)
    party.refresh_from_db()
    return party


def test_a_chance_is_said_in_words():
    assert in_words(0.2) == "about 1 in 5"
    assert in_words(0.26) == "about 1 in 4"
    assert in_words(0.5) == "about even"
    assert in_words(0.76) == "about 3 in 4"
    assert in_words(0.01) == "less than 1 in 20"
    assert in_words(0.99) == "more than 19 in 20"


def test_the_words_name_the_draws_when_there_are_many():
    even = FairEstimate(battles=2000, wins=570, losses=591, draws=839, done=True)
    assert fair.Choice(None, "greedy", "Greedy", "", even).words == (
        "about 2 in 7, and about 2 in 5 are draws"
    )
    half = FairEstimate(battles=2, wins=1, losses=0, draws=1, done=True)
    assert fair.Choice(None, "greedy", "Greedy", "", half).words == (
        "about even, and about 1 in 2 are draws"
    )
    few = FairEstimate(battles=2000, wins=1462, losses=528, draws=10, done=True)
    assert fair.Choice(None, "greedy", "Greedy", "", few).words == "about 3 in 4"


def test_a_digest_is_how_a_party_plays_not_what_it_is_called(alice, bob, types, newcomer):
    other = make_side(bob, types, "Night", prefix="Moon", visibility="public")
    snap = battle_snapshot(newcomer, other)
    mine, theirs = snap["sides"]
    renamed = {**mine, "name": "Renamed", "code": "x", "owner": "someone"}
    assert digest(renamed, snap["chart"]) == digest(mine, snap["chart"])
    stronger = {**mine, "level": mine["level"] + 1}
    assert digest(stronger, snap["chart"]) != digest(mine, snap["chart"])
    assert digest(theirs, snap["chart"]) != digest(mine, snap["chart"])


def _work_the_queue() -> int:
    """What a db_worker on the bulk queue would do: run each queued estimate's task."""
    from django_tasks_db.models import DBTaskResult

    queued = list(DBTaskResult.objects.filter(status="READY"))
    for row in queued:
        assert row.queue_name == "bulk" and row.task_path.endswith("fair_tasks.estimate_chance")
        fair_tasks.run_estimate(*row.args_kwargs["args"])
    DBTaskResult.objects.filter(pk__in=[r.pk for r in queued]).delete()
    return len(queued)


def test_a_newcomer_hears_about_the_gap_and_is_offered_a_fair_fight(
    client, alice, newcomer, quick, queued_tasks, django_capture_on_commit_callbacks
):
    seed_demo()
    demo = list(Party.objects.filter(owner__username="demo").exclude(slots=None).distinct())
    assert demo
    client.force_login(alice)
    url = reverse("play_fair") + f"?party={newcomer.code}"
    with django_capture_on_commit_callbacks(execute=True):
        first = client.get(url)
    assert first.status_code == 200
    # One estimate per opponent and level, each queued once on the bulk queue: the
    # demo's parties, and the newcomer's own (a mirror match).
    count = (len(demo) + 1) * len(LEVELS)
    assert f"Working out {count} chances in the background" in first.content.decode()
    assert _work_the_queue() == count == FairEstimate.objects.filter(done=True).count()
    assert {e.battles for e in FairEstimate.objects.all()} == {6, 2}

    with django_capture_on_commit_callbacks(execute=True):
        page = client.get(url).content.decode()
    assert _work_the_queue() == 0  # kept: nothing is played twice
    assert "Working out" not in page
    assert "Your party: Level 1, Rank 1." in page
    for party in demo:
        assert party.name in page
    # The gap is said of every demo party but First Friends, whose Memeyori are Rank 1 too.
    stronger = [p for p in demo if p.name != "First Friends"]
    assert len(stronger) == len(demo) - 1
    assert page.count("Stronger than yours: its Memeyori average Rank") == len(stronger)
    assert "A fair fight:" in page
    assert "your own party: a mirror match" in page
    fair_pick = min(FairEstimate.objects.all(), key=lambda e: e.imbalance)
    assert f"policy_b={fair_pick.policy}" in page.split("A fair fight:")[1].split("</p>")[0]
    for label, _ in LEVELS.values():
        assert label in page


def test_without_a_task_worker_the_picker_plays_nothing_in_the_request(client, alice, newcomer):
    # The suite's immediate backend would run a task inside the request that queues it.
    client.force_login(alice)
    page = client.get(reverse("play_fair") + f"?party={newcomer.code}").content.decode()
    assert "Your party: Level 1, Rank 1." in page and "(not estimated)" in page
    assert FairEstimate.objects.count() == 0


def test_the_new_game_page_loads_the_picker_into_its_opponent_section(client, alice, newcomer):
    client.force_login(alice)
    page = client.get(reverse("play_new")).content.decode()
    assert f'hx-get="{reverse("play_fair")}"' in page and 'hx-include="#id_party"' in page
    panel = client.get(reverse("play_fair"), headers={"HX-Request": "true"})
    assert panel.status_code == 200
    assert b"<html" not in panel.content and b'id="fair"' in panel.content


def test_the_picker_reads_only_the_players_own_party(client, alice, bob, types, newcomer):
    theirs = make_side(bob, types, "Night", prefix="Moon", visibility="public")
    client.force_login(alice)
    page = client.get(reverse("play_fair") + f"?party={theirs.code}").content.decode()
    # Bob's party is not Alice's to pick: her own is used, and Bob's is an opponent.
    assert "Your chances with First Steps" in page and "Night" in page
    assert client.get(reverse("play_fair") + "?party=not-a-code").status_code == 200


def test_one_person_has_at_most_a_pickers_worth_of_estimates_waiting(
    client,
    alice,
    bob,
    types,
    newcomer,
    quick,
    queued_tasks,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    monkeypatch.setattr(fair, "PENDING_PER_PERSON", 5)
    seed_demo()
    opponents = 1 + Party.objects.filter(owner__username="demo").exclude(slots=None).count()
    waiting = opponents * len(LEVELS) - 5
    client.force_login(alice)

    def picker_page(party):
        with django_capture_on_commit_callbacks(execute=True):
            return client.get(reverse("play_fair") + f"?party={party.code}").content.decode()

    first = picker_page(newcomer)
    assert "Working out 5 chances in the background" in first
    assert f"{waiting} more chances will be worked out once some of yours" in first
    assert first.count("(waiting its turn)") == waiting
    assert 'hx-trigger="every 3s"' in first  # it keeps asking
    # Asking again, or for another of her parties, queues nothing while her five wait.
    picker_page(newcomer)
    picker_page(make_side(alice, types, "Second Steps", prefix="Again"))
    assert FairEstimate.objects.filter(requested_by=alice).count() == 5
    assert _work_the_queue() == 5

    # Bob is not held back by alice's queue.
    client.force_login(bob)
    assert "Working out 5 chances" in picker_page(make_side(bob, types, "Night", prefix="Moon"))
    assert FairEstimate.objects.filter(requested_by=bob, done=False).count() == 5
    # Alice's five are done: her next five are asked for, and the rest wait their turn.
    client.force_login(alice)
    again = picker_page(newcomer)
    assert "Working out 5 chances in the background" in again
    # (Second Steps is an opponent now too, so count what still waits on the page.)
    still = again.count("(waiting its turn)")
    assert 0 < still < waiting and f"{still} more chances will be worked out" in again
    assert FairEstimate.objects.filter(requested_by=alice, done=False).count() == 5


def test_a_newcomers_first_game_against_the_demos_first_friends_can_be_won(newcomer):
    """Every other demo party beats a new Level 1 party in every battle, at every level;
    First Friends (Level 1, Rank 1, weak on purpose) loses to it at Beginner."""
    seed_demo()
    friends = Party.objects.get(owner__username="demo", name="First Friends")
    cold_front = Party.objects.get(owner__username="demo", name="Cold Front")
    won = {}
    for opponent in (friends, cold_front):
        data = battle_input(battle_snapshot(newcomer, opponent))
        results = [run_summary(data, (GREEDY, BEGINNER), random.Random(n)) for n in range(30)]
        won[opponent.name] = sum(r["winner"] == 0 for r in results)
    assert won["First Friends"] >= 24, won
    assert won["Cold Front"] == 0, won
