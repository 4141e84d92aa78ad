"""Reviews take turns in the bulk queue (issue 39.4): one person's many reviews do not hold
another person's lab, a person has at most WAITING_PER_PERSON waiting, and a player's
review of the game they just played goes on the interactive queue, ahead of bulk work."""

import json
import math
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from battles.engine import review as estimator
from battles.engine.run import input_for, simulate
from battles.engine.state import round_frames
from battles.lab.models import Lab, LabStatus
from battles.lab.services import lab_create
from battles.models import Battle, Review, ReviewStatus
from battles.play.models import Game, GameStatus
from battles.review import services, tasks
from battles.snapshot import demo_snapshot
from cards import workers
from cards.printing.tasks import render_task
from tests.playing import make_side
from tests.test_review_pages import duel_snapshot

pytestmark = pytest.mark.django_db


def _battles(owner, count: int) -> list[Battle]:
    snap = duel_snapshot()
    log = simulate(snap, seed=1)
    return [
        Battle.objects.create(
            owner=owner,
            name_a="Aces",
            name_b="Bees",
            snapshot=snap,
            seed=1,
            log=log,
            frames=round_frames(log),
            winner=log["result"]["winner"],
            rounds=log["result"]["rounds"],
        )  # fmt: skip
        for _ in range(count)
    ]


def _next_bulk_task():
    """The task a db_worker on the bulk queue claims next (the queue's own order)."""
    return DBTaskResult.objects.ready().filter(queue_name=workers.BULK).first()


def _run(row) -> None:
    row.task.call(*row.args_kwargs["args"], **row.args_kwargs["kwargs"])
    row.delete()


def test_one_persons_21_reviews_do_not_hold_another_persons_100_battle_lab(
    alice, bob, types, queued_tasks, settings
):
    settings.REVIEW_PART_SECONDS = math.inf  # one part each: this counts reviews, not parts
    for battle in _battles(alice, 21):
        services.start(battle, alice)
    mine = make_side(bob, types, "Mine", prefix="Mine")
    theirs = make_side(bob, types, "Theirs", prefix="Their")
    lab = lab_create(owner=bob, party_a=mine, party_b=theirs, battles=100, seed=7)
    # Alice's reviews wait as rows; two of them are in the task queue, ahead of Bob's lab.
    assert Review.objects.filter(status=ReviewStatus.QUEUED).count() == 21
    assert DBTaskResult.objects.filter(task_path__endswith="run_review").count() == 2
    reviews_first = 0
    while Lab.objects.get(pk=lab.pk).status != LabStatus.DONE:
        row = _next_bulk_task()
        assert row is not None, "the lab's chunk is not in the queue"
        reviews_first += row.task_path.endswith("run_review")
        _run(row)
    assert reviews_first <= tasks.QUEUED_PER_PERSON
    # And each review that ends queues Alice's next: all 21 are made in turn.
    while row := _next_bulk_task():
        _run(row)
    assert Review.objects.filter(status=ReviewStatus.DONE).count() == 21
    assert not Review.objects.filter(in_queue=True).exists()


def test_a_person_has_at_most_so_many_reviews_waiting(alice, bob, queued_tasks, monkeypatch):
    monkeypatch.setattr(services, "WAITING_PER_PERSON", 3)
    first, second, third, fourth = _battles(alice, 4)
    for battle in (first, second, third):
        services.start(battle, alice)
    with pytest.raises(ValidationError, match="You have 3 reviews waiting or being made"):
        services.start(fourth, alice)
    assert not Review.objects.filter(battle=fourth, status=ReviewStatus.QUEUED).exists()
    # Bob's own count is his: Alice's reviews do not stop his.
    Battle.objects.filter(pk=fourth.pk).update(owner=bob)
    fourth.refresh_from_db()
    assert services.start(fourth, bob).status == ReviewStatus.QUEUED
    # One of Alice's done: she may start another.
    _run(_next_bulk_task())
    services.start(_battles(alice, 1)[0], alice)


def test_a_players_review_of_the_game_just_played_goes_ahead_of_bulk_work(alice, queued_tasks):
    played, older, watched = _battles(alice, 3)
    for battle, ended in ((played, timezone.now()), (older, None)):
        game = Game.objects.create(
            created_by=alice, kind="ai", user_a=alice, name_a="Aces", name_b="Bees", seed=1,
            policy_b="greedy", status=GameStatus.FINISHED, battle=battle,
        )  # fmt: skip
        if ended is None:  # a game that ended two hours ago is not "just played"
            Game.objects.filter(pk=game.pk).update(updated=timezone.now() - timedelta(hours=2))
    for battle in (watched, older, played):
        services.start(Battle.objects.get(pk=battle.pk), alice)  # as a request reads it
    rows = {r.args_kwargs["args"][0]: r for r in DBTaskResult.objects.all()}
    now = rows[Review.objects.get(battle=played).pk]
    assert (now.queue_name, now.priority) == (workers.INTERACTIVE, workers.THINKING_PRIORITY)
    for battle in (watched, older):
        row = rows[Review.objects.get(battle=battle).pk]
        assert (row.queue_name, row.priority) == (workers.BULK, workers.BULK_PRIORITY)
    # The first task any worker claims (one serving both queues, as `make run` did).
    assert DBTaskResult.objects.ready().first().pk == now.pk
    # A render asked for while the review waits goes first: its reader waits on a page too.
    render = render_task.enqueue(0)
    assert str(DBTaskResult.objects.ready().first().pk) == render.id


def test_a_render_asked_for_during_a_players_review_waits_for_a_part_not_the_whole(
    alice, queued_tasks, settings
):
    # On `make run`'s one interactive worker, a render asked for just after a player's
    # review began waited for the whole review; now for the part being made (about a
    # second: REVIEW_PART_SECONDS, here 0, a round a part).
    settings.REVIEW_PART_SECONDS = 0
    snap = demo_snapshot("Sunrise Squad", "Night Shift")
    log = simulate(snap, seed=5)
    battle = Battle.objects.create(
        owner=alice, name_a="Sunrise Squad", name_b="Night Shift", snapshot=snap, seed=5,
        log=log, frames=round_frames(log), winner=log["result"]["winner"],
        rounds=log["result"]["rounds"],
    )  # fmt: skip
    Game.objects.create(
        created_by=alice, kind="ai", user_a=alice, name_a="Sunrise Squad",
        name_b="Night Shift", seed=5, policy_b="greedy", status=GameStatus.FINISHED,
        battle=battle,
    )  # fmt: skip
    review = services.start(Battle.objects.get(pk=battle.pk), alice)
    _run(DBTaskResult.objects.ready().get())  # the first part: round 1
    review.refresh_from_db()
    assert review.status == ReviewStatus.RUNNING and review.done == 1 < battle.rounds
    rest = DBTaskResult.objects.ready().get()  # the rest, queued as the review was
    assert (rest.queue_name, rest.priority) == (workers.INTERACTIVE, workers.THINKING_PRIORITY)
    render = render_task.enqueue(0)
    assert str(DBTaskResult.objects.ready().first().pk) == render.id
    DBTaskResult.objects.filter(pk=render.id).delete()
    parts = 1
    while row := DBTaskResult.objects.ready().first():
        _run(row)
        parts += 1
    review.refresh_from_db()
    assert (review.status, parts, review.in_queue) == (ReviewStatus.DONE, battle.rounds, False)
    whole = estimator.review(input_for(snap), log)
    assert review.data == json.loads(json.dumps(whole))  # as stored whole (-0.0 == 0 in jsonb)
