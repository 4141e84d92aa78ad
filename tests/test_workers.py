"""Dead workers (issue 18.8): what a worker held when it died is taken up by another, a
lab or render never stays "running" with nobody running it, and the supervisor that
`make serve` runs starts again a worker that dies. The last tests kill real db_worker
processes with SIGKILL in the middle of a lab chunk and of a render."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import close_old_connections
from django.tasks import task
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from battles.lab import services
from battles.lab.models import Lab, LabStatus
from cards import workers
from cards.demo import seed_demo
from cards.management.commands.db_worker import Worker
from cards.models import Party
from cards.printing import store
from cards.printing.store import Render
from cards.printing.tasks import render_task
from cards.workers import TaskWorker

from .conftest import make_card, make_memeyori
from .test_renders import _subprocess_env

ROOT = Path(__file__).resolve().parent.parent
# Beats five times a second, dead after two seconds of silence: the tests wait seconds.
FAST = {"DJANGO_WORKER_BEAT_SECONDS": "0.2", "DJANGO_WORKER_DEAD_SECONDS": "2"}


@pytest.fixture
def demo(db):
    seed_demo()
    return {p.name: p for p in Party.objects.all()}


def spec(n: int) -> dict:
    job = {"html": f"<p>render {n}</p>", "zones": {}, "generated": {}, "png_dpi": None}
    return {"jobs": [job], "zones": {}, "png_only": False}


def stopped(worker_id: str, minutes: int = 5) -> None:
    """A worker that beat last `minutes` ago."""
    workers.register(worker_id, workers.QUEUES)
    TaskWorker.objects.filter(worker_id=worker_id).update(
        beat_at=timezone.now() - timedelta(minutes=minutes)
    )


def claimed(row: DBTaskResult, *worker_ids: str) -> DBTaskResult:
    """The task's row as if each of these workers had claimed it in turn, minutes ago."""
    for worker_id in worker_ids:
        row.claim(worker_id)
    DBTaskResult.objects.filter(pk=row.pk).update(started_at=timezone.now() - timedelta(minutes=5))
    return row


def queue_render(n: int = 1) -> Render:
    return store.find_or_queue(kind="mastercard", spec=spec(n), requester=f"user:{n}",
                               filename="x.pdf")  # fmt: skip


def the_task() -> DBTaskResult:
    return DBTaskResult.objects.get()


def task_of(render: Render) -> DBTaskResult:
    return next(r for r in DBTaskResult.objects.all() if r.args_kwargs["args"] == [render.pk])


# ---- The sweep


def test_a_stopped_workers_task_goes_back_to_the_queue_and_a_live_ones_stays(db, queued_tasks):
    workers.register("alive", workers.QUEUES)
    stopped("gone")
    mine = claimed(task_of(queue_render(1)), "alive")
    theirs = claimed(task_of(queue_render(2)), "gone")
    assert workers.reclaim() == 1
    theirs.refresh_from_db()
    mine.refresh_from_db()
    assert (theirs.status, mine.status) == ("READY", "RUNNING")
    # Back in its place: the first a worker takes next.
    assert DBTaskResult.objects.ready().first() == theirs


def test_a_task_running_on_a_worker_nobody_has_heard_of_is_taken_back(db, queued_tasks):
    render = queue_render()
    claimed(DBTaskResult.objects.get(), "never-registered")
    assert workers.reclaim() == 1
    assert the_task().status == "READY"
    assert Render.objects.get(pk=render.pk).status == Render.Status.QUEUED


def test_a_render_whose_worker_died_is_rendered_by_another(db, queued_tasks):
    render = queue_render()
    stopped("gone")
    claimed(the_task(), "gone")
    Render.objects.filter(pk=render.pk).update(
        status=Render.Status.RENDERING, started_at=timezone.now(), runs=1
    )
    workers.reclaim()
    render.refresh_from_db()
    assert render.status == Render.Status.QUEUED and render.started_at is None
    assert render_task.call(render.pk) == "done"
    render.refresh_from_db()
    assert (render.status, render.runs) == (Render.Status.DONE, 2)


def test_a_render_that_stopped_three_workers_fails_with_the_reason(db, queued_tasks):
    render = queue_render()
    for name in ("one", "two", "three"):
        stopped(name)
    claimed(the_task(), "one", "two", "three")
    Render.objects.filter(pk=render.pk).update(status=Render.Status.RENDERING)
    workers.reclaim()
    row, render = the_task(), Render.objects.get(pk=render.pk)
    assert row.status == "FAILED" and row.exception_class_path == "cards.workers.WorkerStopped"
    assert render.status == Render.Status.FAILED
    assert render.error == "3 render workers stopped while rendering this"
    # Its requester is free to ask for something else.
    other = store.find_or_queue(kind="mastercard", spec=spec(9), requester="user:1",
                                filename="y.pdf")  # fmt: skip
    assert other.status == Render.Status.QUEUED


def test_a_lab_whose_worker_died_waits_for_another_and_counts_each_chunk_once(
    alice, demo, queued_tasks
):
    lab = services.lab_create(owner=alice, party_a=demo["Sunrise Squad"],
                              party_b=demo["Night Shift"], battles=1000, seed=7)  # fmt: skip
    stopped("gone")
    first = DBTaskResult.objects.ready().first()
    first.claim("gone")
    Lab.objects.filter(pk=lab.pk).update(status=LabStatus.RUNNING)
    DBTaskResult.objects.filter(pk=first.pk).update(
        started_at=timezone.now() - timedelta(minutes=5)
    )
    workers.reclaim()
    lab.refresh_from_db()
    assert lab.status == LabStatus.QUEUED  # "waiting for a worker", not "running"
    first.refresh_from_db()
    assert first.status == "READY"
    for _ in range(2):  # the chunk the dead worker held, then the other one
        row = DBTaskResult.objects.ready().first()
        row.task.call(*row.args_kwargs["args"])
        row.set_successful(None)
    # The dead worker's run, had it got that far, would have counted nothing more.
    assert not services.run_chunk(lab_code=str(lab.code), matchup=0, start=0)
    lab.refresh_from_db()
    assert (lab.status, lab.done) == (LabStatus.DONE, 1000)


def test_a_lab_that_stopped_three_workers_fails_and_stops_counting_against_the_cap(
    alice, demo, queued_tasks
):
    labs = [
        services.lab_create(owner=alice, party_a=demo["Sunrise Squad"],
                            party_b=demo["Night Shift"], battles=1000, seed=n)
        for n in range(services.MAX_RUNNING)
    ]  # fmt: skip
    for name in ("one", "two", "three"):
        stopped(name)
    row = DBTaskResult.objects.ready().first()
    claimed(row, "one", "two", "three")
    workers.reclaim()
    labs[0].refresh_from_db()
    assert labs[0].status == LabStatus.FAILED
    assert "stopped several times while running battles 0 to 499" in labs[0].error
    # The person's next lab takes its turn, and they may start another.
    assert Lab.objects.get(pk=labs[1].pk).chunks.filter(queued=True).exists()
    services.lab_create(owner=alice, party_a=demo["Sunrise Squad"],
                        party_b=demo["Night Shift"], battles=100, seed=9)  # fmt: skip


@task(queue_name="interactive")
def stops_its_worker() -> None:
    raise SystemExit(1)  # what a second Ctrl-C does to a worker in the middle of a task


def test_a_task_cut_short_by_its_workers_shutdown_is_queued_again_not_failed(db, queued_tasks):
    stops_its_worker.enqueue()
    worker = Worker(queue_names=["interactive"], interval=0, batch=True, backend_name="default",
                    startup_delay=False, max_tasks=1, worker_id="stopping",
                    excluded_queue_names=[])  # fmt: skip
    row = DBTaskResult.objects.get()
    row.claim("stopping")
    worker.run_task(row)
    row.refresh_from_db()
    assert row.status == "READY" and row.worker_ids == ["stopping"]


@pytest.mark.django_db(transaction=True)
def test_a_worker_that_stops_cleanly_leaves_no_heartbeat_behind(queued_tasks):
    worker = Worker(queue_names=["interactive"], interval=0, batch=True, backend_name="default",
                    startup_delay=False, max_tasks=None, worker_id="tidy",
                    excluded_queue_names=[])  # fmt: skip
    worker.run()
    assert not TaskWorker.objects.exists()


# ---- Real workers, killed


def start(*args: str, env=None) -> subprocess.Popen:
    """A manage.py command in a process group of its own (render children included), on
    this test's database, with fast heartbeats."""
    return subprocess.Popen(
        [sys.executable, "manage.py", *args], cwd=ROOT,
        env={**_subprocess_env(), **FAST, **(env or {})},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip


def db_worker(queue: str, worker_id: str) -> subprocess.Popen:
    return start("db_worker", "--no-reload", "--no-startup-delay", "--interval", "0.1",
                 "--queue-name", queue, "--worker-id", worker_id)  # fmt: skip


def kill(proc: subprocess.Popen) -> str:
    """SIGKILL to the process and everything it started (its render children)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    output, _ = proc.communicate(timeout=30)
    return output


def stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGTERM)
    try:
        output, _ = proc.communicate(timeout=60)
    finally:
        kill(proc) if proc.poll() is None else None
    return output


def wait_for(condition, timeout: float = 180, what: str = "") -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        close_old_connections()
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what or condition}")


@pytest.mark.django_db(transaction=True)
def test_a_db_worker_killed_mid_chunk_leaves_it_to_another_and_it_counts_once(
    alice, demo, queued_tasks
):
    lab = services.lab_create(owner=alice, party_a=demo["Sunrise Squad"],
                              party_b=demo["Night Shift"], battles=2000, seed=7)  # fmt: skip
    first = db_worker("bulk", "first")
    procs = [first]
    try:
        row = wait_for(
            lambda: DBTaskResult.objects.running().filter(worker_ids=["first"]).first(),
            what="the first worker to start a chunk",
        )
        start_of = row.args_kwargs["args"][2]
        kill(first)
        chunk = lab.chunks.get(start=start_of)
        assert not chunk.finished  # killed in the middle of it
        row.refresh_from_db()
        assert row.status == "RUNNING"
        procs.append(db_worker("bulk", "second"))
        wait_for(lambda: Lab.objects.get(pk=lab.pk).status == LabStatus.DONE,
                 what="the lab to finish")  # fmt: skip
    finally:
        outputs = [kill(p) for p in procs]
    lab.refresh_from_db()
    assert (lab.done, lab.total) == (2000, 2000), outputs
    assert lab.chunks.filter(finished=True).count() == 4
    row.refresh_from_db()
    assert (row.status, row.worker_ids) == ("SUCCESSFUL", ["first", "second"])


@pytest.mark.django_db(transaction=True)
def test_a_db_worker_killed_mid_render_leaves_it_to_another(alice, types, queued_tasks, client):
    pup = make_memeyori(alice, types["Blaze"], name="Emberpup")
    make_card(pup, types["Blaze"], name="Cinder Nip")
    client.force_login(alice)
    url = reverse("print_mastercard", kwargs={"kind": "memeyori", "code": pup.code})
    assert client.get(url).status_code == 202
    first = db_worker("interactive", "first")
    procs = [first]
    try:
        wait_for(lambda: Render.objects.filter(status=Render.Status.RENDERING).exists(),
                 what="the first worker to start rendering")  # fmt: skip
        kill(first)
        render = Render.objects.get()
        assert render.status == Render.Status.RENDERING  # nobody is rendering it now
        procs.append(db_worker("interactive", "second"))
        wait_for(lambda: Render.objects.get().status == Render.Status.DONE,
                 what="the render to be done")  # fmt: skip
    finally:
        outputs = [kill(p) for p in procs]
    render = Render.objects.get()
    assert render.runs == 2, outputs
    response = client.get(url)
    assert response.status_code == 200 and response.content.startswith(b"%PDF-")
    assert DBTaskResult.objects.get().worker_ids == ["first", "second"]


@pytest.mark.django_db(transaction=True)
def test_the_supervisor_starts_again_a_worker_that_dies_and_stops_them_all(queued_tasks):
    supervisor = start("run_workers", "--interactive", "1", "--bulk", "1", "--interval", "0.1")
    try:
        rows = wait_for(lambda: list(TaskWorker.objects.order_by("queues")) if
                        TaskWorker.objects.count() == 2 else None,
                        timeout=120, what="two workers")  # fmt: skip
        assert [row.queues for row in rows] == ["bulk", "interactive"]
        bulk = rows[0]
        os.kill(bulk.pid, signal.SIGKILL)
        again = wait_for(
            lambda: TaskWorker.objects.filter(queues="bulk").exclude(pk=bulk.pk).first(),
            timeout=120,
            what="a new bulk worker",
        )
        assert again.pid != bulk.pid
        assert not TaskWorker.objects.filter(pk=bulk.pk).exists()
        pids = list(TaskWorker.objects.values_list("pid", flat=True))
        output = stop(supervisor)
    finally:
        if supervisor.poll() is None:
            kill(supervisor)
    assert supervisor.returncode == 0, output
    assert "worker bulk-1 exited (-9)" in output
    assert not TaskWorker.objects.exists()
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_make_serve_and_make_run_both_run_the_supervisor_with_a_worker_per_queue():
    def recipe(target: str) -> str:
        env = {**os.environ, "PYTHON": sys.executable}
        return subprocess.run(["make", "-n", target], cwd=ROOT, env=env, capture_output=True,
                              text=True, check=True).stdout  # fmt: skip

    assert "manage.py run_workers --interactive 2" in recipe("serve")
    # make run too (issue 39.1): one worker for the interactive queue alone, one for bulk.
    assert "manage.py run_workers --interactive 1" in recipe("run")
    assert "--bulk 1" in recipe("run")
