"""A render's processes die with their task worker (issue 33.3): a worker killed alone
(not its process group: an out-of-memory kill, or a supervisor that kills its child)
leaves no fork server or render child rendering on, past its time limit and unseen."""

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from cards.printing import store
from cards.printing.deck import character_faces
from cards.printing.layout import sheet_layout
from cards.printing.render import prepare
from cards.printing.store import Render

from .conftest import make_card, make_memeyori
from .test_workers import kill, start, wait_for


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rpartition(")")[2].split()[1])


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"  # a zombie renders nothing


def _rendering(worker: int) -> set[int]:
    """The worker's processes while a render child of its fork server is at work."""
    tree = descendants(worker)
    working = [p for p in tree if _parent(p) in tree and _alive(p)]
    return tree if working else set()


def descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (parent := _parent(int(entry.name))) is not None:
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_render_leaves_no_render_process_behind(
    alice, types, queued_tasks, settings
):
    settings.PRINT_RENDER_WORKERS = 1  # one child renders the whole sheet
    faces = []
    for n in range(30):
        pup = make_memeyori(alice, types["Blaze"], name=f"Emberpup {n}")
        for c in range(8):
            make_card(pup, types["Blaze"], name=f"Cinder Nip {c}")
        faces += character_faces(pup)
    # The most one PDF takes, in one child: seconds of rendering, here some 3 s.
    spec = prepare(faces[:240], sheet=sheet_layout("a4"), title="many")
    store.find_or_queue(kind=Render.Kind.SHEET, spec=spec, requester="ip:1", filename="m.pdf")
    worker = start(
        "db_worker",
        "--no-reload",
        "--no-startup-delay",
        "--interval",
        "0.1",
        "--queue-name",
        "interactive",
        "--worker-id",
        "doomed",
        env={"DJANGO_RENDER_PROCESSES": "1", "DJANGO_RENDER_TIMEOUT": "120"},
    )
    try:
        wait_for(lambda: Render.objects.filter(status=Render.Status.RENDERING).exists(),
                 what="the worker to start rendering")  # fmt: skip
        # The fork server, and under it a render child (a grandchild of the worker) at work.
        tree = wait_for(lambda: _rendering(worker.pid), timeout=120, what="a render child")
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
        deadline = time.monotonic() + 1  # less than the render still needs
        while time.monotonic() < deadline and any(_alive(p) for p in tree):
            time.sleep(0.05)
        survivors = [p for p in tree if _alive(p)]
    finally:
        kill(worker)  # its process group: whatever survived
        for pid in descendants(worker.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert survivors == [], survivors
