"""A battle is a pure function of its record in any thread: the same battle replayed in
eight threads of one process at once, over and over, with the interpreter switching threads
as often as it can, gives the same log to the byte every time.

What broke before (issue 31): lookahead kept its plan's knowledge in a memo shared by every
battle of the same input object, so a thread planning the same battle replaced another's
mid-plan, which then drew one more number from the battle's generator, and every later
die shifted.
"""

import hashlib
import random
import sys
import threading

import pytest

from battles.engine.battle import run_battle, run_summary
from battles.engine.played import play
from battles.engine.policies import policy_version
from battles.engine.run import input_for, log_json
from battles.snapshot import demo_snapshot

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine

THREADS = 8


@pytest.fixture
def busy_switching():
    """Switch threads about every microsecond: a shared half-made entry would be seen."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _at_once(work, times: int) -> list[str]:
    """Run `work()` in THREADS threads at once, `times` times each; every answer."""
    answers: list[str] = []
    failures: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(THREADS)

    def run():
        try:
            start.wait()
            for _ in range(times):
                answer = work()
                with lock:
                    answers.append(answer)
        except BaseException as error:  # noqa: BLE001 (reported below, in the test's thread)
            failures.append(error)

    threads = [threading.Thread(target=run) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    return answers


def _digest(log: dict) -> str:
    return hashlib.sha256(log_json(log).encode()).hexdigest()


# One input object for every thread, as a lab or a game's replays share it (run.input_for).
SNAPSHOT = demo_snapshot("Night Shift", "Cold Front")


@pytest.mark.parametrize(
    "policies",
    [
        (("lookahead", 3), ("lookahead", 3)),
        (("lookahead", 2), ("lookahead", 2)),
        (("greedy", 2), ("random", 2)),
    ],
    ids=lambda p: "-".join(f"{n}{v}" for n, v in p),
)
def test_the_same_battle_in_eight_threads_gives_one_log(policies, busy_switching):
    data = input_for(SNAPSHOT)
    chosen = tuple(policy_version(name, version) for name, version in policies)
    seeds = iter(range(10**9))
    lock = threading.Lock()

    def work():
        with lock:  # each thread replays a few different battles, all of them many times
            seed = next(seeds) % 3
        return f"{seed}:{_digest(run_battle(data, chosen, random.Random(seed), seed=seed))}"

    answers = _at_once(work, times=3)
    alone = {
        f"{seed}:{_digest(run_battle(data, chosen, random.Random(seed), seed=seed))}"
        for seed in range(3)
    }
    assert set(answers) == alone


def test_summaries_in_eight_threads_agree_with_one(busy_switching):
    data = input_for(SNAPSHOT)
    chosen = (policy_version("lookahead", 3), policy_version("greedy", 2))
    alone = repr(run_summary(data, chosen, random.Random(7), seed=7))
    answers = _at_once(lambda: repr(run_summary(data, chosen, random.Random(7), seed=7)), 3)
    assert set(answers) == {alone}


def test_a_played_lookahead_game_replays_the_same_in_eight_threads(busy_switching):
    """A played game's record (AI sides both, so it plays to its end) in eight threads."""
    data = input_for(SNAPSHOT)
    ai = (policy_version("lookahead", 3), policy_version("lookahead", 2))
    alone = play(data, ai, 5, {}).log
    answers = _at_once(lambda: _digest(play(data, ai, 5, {}).log), times=2)
    assert set(answers) == {_digest(alone)}


def test_a_labs_chunks_tally_the_same_in_any_order_and_any_thread(busy_switching):
    """A lab's result is the same whatever the order and the worker its chunks run in:
    each chunk run alone in order, against all of them at once in threads, last first."""
    from battles.lab.runner import run_range
    from battles.lab.stats import merge_all

    policies = ("lookahead", "greedy")
    chunks = [(start, start + 4) for start in range(0, 24, 4)]

    def tally(start, end):
        return run_range(SNAPSHOT, lab_seed=9, start=start, end=end, policies=policies)

    in_order = merge_all(tally(*chunk) for chunk in chunks)
    results: dict = {}
    lock = threading.Lock()

    def run(chunk):
        result = tally(*chunk)
        with lock:
            results[chunk] = result

    threads = [threading.Thread(target=run, args=(chunk,)) for chunk in reversed(chunks)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert merge_all(results[chunk] for chunk in chunks) == in_order
