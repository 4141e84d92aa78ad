"""`manage.py run_workers --interactive 2 --bulk 1`: task workers per queue, kept running.

`make serve` runs this. Each worker is a `db_worker` process of its own that serves one
queue (cards/workers.py). One that exits (killed, crashed, out of memory) is started again,
after a pause that doubles while it keeps dying young, and the task it was running is
queued again at once: this process saw it die, so nobody waits for its heartbeat to fall
silent. Bulk workers run BULK_NICE steps nicer still, so that on one machine a render wins
the CPU from a lab chunk.

SIGTERM stops the workers (each finishes its task; one still busy after STOP_GRACE seconds
is killed and its task queued again) and then this process. On SIGINT (Ctrl-C in a
terminal, which every worker in the process group has received too) it gives them a moment
to stop by themselves first, so that none is signalled twice.
"""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils.crypto import get_random_string

from cards import workers

BULK_NICE = 9
# A render's time limit (PRINT_RENDER_TIMEOUT, 30 s) and some: a stop never cuts one short.
STOP_GRACE = 45
YOUNG = 10  # seconds: a worker that dies sooner than this after starting died young
MAX_PAUSE = 30


@dataclass
class Child:
    queue: str
    number: int
    proc: subprocess.Popen | None = None
    worker_id: str = ""
    started: float = 0.0
    pause: float = 1.0
    restart_at: float = field(default=0.0)

    @property
    def name(self) -> str:
        return f"{self.queue}-{self.number}"


class Command(BaseCommand):
    help = "Run task workers per queue and start again any that dies"

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--interactive",
            type=int,
            default=1,
            metavar="N",
            help="workers for renders, previews and portraits (default 1)",
        )
        parser.add_argument(
            "--bulk",
            type=int,
            default=1,
            metavar="N",
            help="workers for lab chunks and upkeep (default 1)",
        )
        parser.add_argument("--interval", type=float, default=0.25,
                            help="seconds an idle worker waits before looking again")  # fmt: skip

    def handle(self, *, interactive: int, bulk: int, interval: float, verbosity: int, **_):
        self.interval, self.verbosity = interval, verbosity
        self.signalled: int | None = None
        signal.signal(signal.SIGTERM, self._signal)
        signal.signal(signal.SIGINT, self._signal)
        children = [Child(workers.INTERACTIVE, n + 1) for n in range(interactive)]
        children += [Child(workers.BULK, n + 1) for n in range(bulk)]
        for child in children:
            self._start(child)
        while self.signalled is None:
            now = time.monotonic()
            for child in children:
                if child.proc is None:
                    if now >= child.restart_at:
                        self._start(child)
                elif child.proc.poll() is not None:
                    self._died(child, now)
            time.sleep(0.2)
        self._stop(children)

    def _signal(self, signum, frame) -> None:
        if self.signalled is None:
            self.signalled = signum

    def _start(self, child: Child) -> None:
        host = socket.gethostname()[:30]
        child.worker_id = f"{host}-{child.name}-{get_random_string(8)}"
        nice = BULK_NICE if child.queue == workers.BULK else 0
        child.proc = subprocess.Popen(
            [sys.executable, str(settings.BASE_DIR / "manage.py"), "db_worker", "--no-reload",
             "--queue-name", child.queue, "--worker-id", child.worker_id,
             "--interval", str(self.interval), "--verbosity", str(self.verbosity)],
            preexec_fn=(lambda: os.nice(nice)) if nice else None,
        )  # fmt: skip
        child.started = time.monotonic()
        self._say(f"worker {child.name} started (pid {child.proc.pid}, id {child.worker_id})")

    def _died(self, child: Child, now: float) -> None:
        code = child.proc.returncode
        taken = workers.reclaim_quietly({child.worker_id})
        young = now - child.started < YOUNG
        child.pause = min(MAX_PAUSE, child.pause * 2) if young else 1.0
        child.restart_at = now + child.pause
        child.proc = None
        self.stderr.write(
            f"worker {child.name} exited ({code}); {taken} task(s) queued again; "
            f"starting it again in {child.pause:.0f} s"
        )

    def _stop(self, children: list[Child]) -> None:
        running = [c for c in children if c.proc is not None]
        if self.signalled == signal.SIGINT:
            self._wait(running, 2)  # the terminal's Ctrl-C reached them too
        for child in running:
            if child.proc.poll() is None:
                child.proc.send_signal(signal.SIGTERM)
        self._wait(running, STOP_GRACE)
        for child in running:
            if child.proc.poll() is None:
                child.proc.kill()
                child.proc.wait()
            workers.reclaim_quietly({child.worker_id})
        self._say("workers stopped")

    @staticmethod
    def _wait(children: list[Child], seconds: float) -> None:
        deadline = time.monotonic() + seconds
        for child in children:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.proc.wait(timeout=max(0.0, deadline - time.monotonic()))

    def _say(self, line: str) -> None:
        if self.verbosity:
            self.stdout.write(line)
