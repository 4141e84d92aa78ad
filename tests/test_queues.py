"""Fair shares of the task workers (issue 18.2): what a person waits for goes ahead of bulk
work, one person's bulk work takes turns with everyone else's, and every cap holds when
requests arrive at the same moment (threads, on SQLite and on PostgreSQL)."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.tasks import task
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from battles.lab import services
from battles.lab.models import Lab, LabChunk
from battles.lab.tasks import run_lab_chunk
from cards.demo import seed_demo
from cards.models import Party, Type
from cards.printing import store
from cards.printing.store import Render
from cards.printing.tasks import render_task
from cards.tasks import process_party_back, process_portrait

from .conftest import make_memeyori

LAB_CHUNK = "battles.lab.tasks.run_lab_chunk"


def at_once(n: int, work) -> tuple[list, list[BaseException]]:
    """Run work(i) in n threads released together; each thread has its own connection."""
    results, errors = [], []
    start = threading.Barrier(n)

    def run(i: int):
        try:
            start.wait()
            results.append(work(i))
        except BaseException as exc:  # noqa: BLE001 - every outcome is reported
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results, errors


@pytest.fixture
def demo(db):
    seed_demo()
    return {p.name: p for p in Party.objects.all()}


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(services, "CHUNK", 50)


def new_lab(owner, demo, battles=500, **kw) -> Lab:
    return services.lab_create(
        owner=owner, party_a=demo["Sunrise Squad"], party_b=demo["Night Shift"],
        battles=battles, seed=7, **kw,
    )  # fmt: skip


def spec(n: int) -> dict:
    """A tiny document of its own: a render with its own key."""
    job = {"html": f"<p>render {n}</p>", "zones": {}, "generated": {}, "png_dpi": None}
    return {"jobs": [job], "zones": {}, "png_only": False}


def queued_chunks(owner=None):
    rows = DBTaskResult.objects.ready().filter(task_path=LAB_CHUNK)
    codes = [row.args_kwargs["args"][0] for row in rows]
    if owner is None:
        return codes
    mine = {str(c) for c in Lab.objects.filter(owner=owner).values_list("code", flat=True)}
    return [code for code in codes if code in mine]


def work_one() -> DBTaskResult:
    """What one db_worker serving every queue does once: claim the first ready task (the
    order it claims in, DBTaskResult's own), run it, mark it done."""
    row = DBTaskResult.objects.ready().first()
    row.claim("test-worker")
    row.set_successful(row.task.call(*row.args_kwargs["args"], **row.args_kwargs["kwargs"]))
    return row


# ---- What a person waits for goes first


def test_renders_previews_and_portraits_wait_on_a_queue_of_their_own_ahead_of_lab_chunks():
    interactive = {render_task, process_portrait, process_party_back}
    assert {t.queue_name for t in interactive} == {"interactive"}
    assert run_lab_chunk.queue_name == "bulk"
    assert min(t.priority for t in interactive) > run_lab_chunk.priority


def test_a_render_asked_for_after_a_big_lab_is_claimed_before_its_chunks(
    alice, bob, demo, queued_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        new_lab(alice, demo, battles=20_000)
    assert queued_chunks()
    theirs = make_memeyori(bob, Type.objects.get(name="Blaze"), name="Vela")
    client = Client()
    client.force_login(bob)
    url = reverse("print_mastercard", kwargs={"kind": "memeyori", "code": theirs.code})
    assert client.get(url).status_code == 202
    # A worker serving both queues (make run's) takes the render next...
    assert DBTaskResult.objects.ready().first().task_path == render_task.module_path
    # ...and a worker serving renders only (make serve's) never sees the lab at all.
    renders_only = DBTaskResult.objects.ready().filter(queue_name=render_task.queue_name)
    assert [row.task_path for row in renders_only] == [render_task.module_path]


@task(queue_name="interactive", priority=50)
def render_stand_in() -> str:
    return "a render"


@task(queue_name="bulk", priority=-50)
def bulk_stand_in() -> str:
    return "a lab chunk"


@pytest.mark.parametrize("queues", [["interactive"], ["interactive", "bulk"]])
def test_a_rounds_deadline_is_taken_first_while_renders_and_bulk_work_wait(
    db, queued_tasks, queues
):
    """Issue 39.6: a timed round's deadline ran 14 s late behind bulk work. It goes on the
    interactive queue at the top priority, so a worker of make run's and make serve's
    (interactive alone) and one serving both queues take it before anything waiting."""
    from battles.play.clock import expire_round
    from cards import workers

    for _ in range(3):
        bulk_stand_in.enqueue()
    render_stand_in.enqueue()
    expire_round.enqueue("00000000-0000-0000-0000-000000000000", timezone.now().isoformat())
    assert expire_round.priority == workers.DEADLINE_PRIORITY > render_stand_in.priority
    # What a db_worker of these queues claims next (django_tasks_db's own query).
    claimed = DBTaskResult.objects.ready().filter(queue_name__in=queues).first()
    assert claimed.task_path == expire_round.module_path


def test_a_render_waiting_behind_bulk_work_is_never_marked_failed(
    alice, bob, demo, queued_tasks, django_capture_on_commit_callbacks
):
    from cards import workers

    workers.register("renders-1", [workers.INTERACTIVE])  # a live worker for renders
    with django_capture_on_commit_callbacks(execute=True):
        new_lab(alice, demo, battles=20_000)
    job = store.find_or_queue(kind="mastercard", spec=spec(1), requester="user:1", filename="a")
    Render.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert store.expire_if_stale(Render.objects.get(pk=job.pk)).status == Render.Status.QUEUED
    # With no worker for renders left, an hour's wait says so, and frees its requester.
    workers.TaskWorker.objects.update(beat_at=timezone.now() - timedelta(hours=1))
    stale = store.expire_if_stale(Render.objects.get(pk=job.pk))
    assert stale.status == Render.Status.FAILED
    assert "no render worker is running" in stale.error


# ---- Bulk work takes turns


def test_one_persons_lab_keeps_at_most_two_chunks_in_the_queue(
    alice, demo, small_chunks, queued_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        lab = new_lab(alice, demo)
    assert lab.chunks.count() == 10
    assert len(queued_chunks()) == 2  # tasks.QUEUED_PER_PERSON
    work_one()  # a chunk done queues the next one, at the back of the queue
    assert len(queued_chunks()) == 2
    assert lab.chunks.filter(finished=True).count() == 1


def test_peoples_labs_take_turns_in_the_bulk_queue(
    alice, bob, demo, small_chunks, queued_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(3):
            new_lab(alice, demo, battles=250)  # 3 labs of 5 chunks, asked for first
        new_lab(bob, demo, battles=250)
    owners = []
    for _ in range(12):
        with django_capture_on_commit_callbacks(execute=True):
            row = work_one()
        owners.append(Lab.objects.get(code=row.args_kwargs["args"][0]).owner)
    # Never more than two of one person's chunks in a row while the other has work waiting.
    assert owners[:8] == [alice, alice, bob, bob] * 2
    assert Lab.objects.get(owner=bob).done == 250


# ---- Caps by the database, under concurrent requests


@pytest.mark.django_db(transaction=True)
def test_six_simultaneous_lab_requests_by_one_person_start_at_most_three(alice, demo, queued_tasks):
    def ask(i: int) -> int:
        client = Client(REMOTE_ADDR=f"192.0.2.{10 + i}")  # six addresses, as in the attack
        client.force_login(alice)
        response = client.post(
            reverse("lab_new"),
            {"party_a": demo["Sunrise Squad"].code, "against": "field", "battles": 1000,
             "seed": i, "policy_a": "greedy", "policy_b": "greedy", "visibility": "private"},
        )  # fmt: skip
        return response.status_code

    statuses, errors = at_once(6, ask)
    assert errors == []
    assert Lab.objects.filter(owner=alice).count() == services.MAX_RUNNING == 3
    assert sorted(statuses) == [302, 302, 302, 400, 400, 400]


@pytest.mark.django_db(transaction=True)
def test_three_labs_asked_for_at_once_by_one_person_queue_two_chunks_in_all(
    alice, demo, queued_tasks
):
    _, errors = at_once(3, lambda i: new_lab(alice, demo, battles=2000))
    assert errors == []
    assert Lab.objects.count() == 3
    assert len(queued_chunks(alice)) == 2  # tasks.QUEUED_PER_PERSON
    assert LabChunk.objects.filter(queued=True).count() == 2


@pytest.mark.django_db(transaction=True)
def test_simultaneous_renders_never_pass_the_bound_on_renders_in_flight(
    types, queued_tasks, settings
):
    settings.RENDER_QUEUE_MAX = 3

    def ask(i: int):
        return store.find_or_queue(
            kind="mastercard", spec=spec(i), requester=f"user:{i}", filename="x.pdf"
        )

    queued, refused = at_once(8, ask)
    assert Render.objects.filter(status__in=Render.IN_FLIGHT).count() == 3
    assert len(queued) == 3
    assert len(refused) == 5 and all(isinstance(e, store.QueueFull) for e in refused)
    assert DBTaskResult.objects.count() == 3


@pytest.mark.django_db(transaction=True)
def test_simultaneous_renders_by_one_person_queue_one(types, queued_tasks):
    def ask(i: int):
        return store.find_or_queue(kind="mastercard", spec=spec(i), requester="user:7",
                                   filename="x.pdf")  # fmt: skip

    queued, refused = at_once(6, ask)
    assert len(queued) == 1 and Render.objects.count() == 1
    assert len(refused) == 5 and all(isinstance(e, store.Busy) for e in refused)


def test_a_render_that_leaves_the_queue_frees_its_place(db, queued_tasks, settings):
    settings.RENDER_QUEUE_MAX = 1
    first = store.find_or_queue(kind="mastercard", spec=spec(1), requester="a", filename="a")
    with pytest.raises(store.QueueFull):
        store.find_or_queue(kind="mastercard", spec=spec(2), requester="b", filename="b")
    render_task.call(first.pk)
    assert Render.objects.get(pk=first.pk).status == Render.Status.DONE
    second = store.find_or_queue(kind="mastercard", spec=spec(2), requester="b", filename="b")
    assert second.status == Render.Status.QUEUED
