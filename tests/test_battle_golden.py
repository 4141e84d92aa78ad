"""Today's engine writes, to the byte, the logs and summaries recorded in tests/golden_battles.json.

Every speed-up and refactor of battles/engine must keep these for the recorded policy
versions (greedy 1, random 1): stored battles replay from their snapshot and seed alone.
`python -m tests.golden` names the chunks that differ.
"""

import json

import pytest

from tests import golden

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine


def _recorded():
    return json.loads(golden.DIGEST_FILE.read_text(encoding="utf-8"))


def test_the_golden_inputs_are_the_ones_the_digests_were_recorded_from():
    recorded = _recorded()["inputs"]
    assert golden.inputs_digest([s for _, s in golden.demo_snapshots()]) == recorded["demo"]
    assert golden.inputs_digest(golden.random_snapshots()) == recorded["random"]


def _check(chunks=None):
    recorded = _recorded()
    assert recorded["chunk"] == golden.CHUNK
    for set_name, battles in golden.battle_sets().items():
        for pair in golden.POLICY_PAIRS:
            for mode in ("log", "summary"):
                name = golden.group_name(set_name, pair, mode)
                got = golden.chunk_digests(battles, pair, mode, chunks)
                want = recorded["groups"][name]
                for index, (w, g) in enumerate(zip(want, got, strict=True)):
                    if g is not None:
                        assert g == w, f"{name}: battles {index * golden.CHUNK}.. differ"


def test_the_first_hundred_battles_of_each_golden_group_are_byte_identical():
    _check(chunks={0})


@pytest.mark.slow
def test_every_golden_battle_log_and_summary_is_byte_identical():
    _check()
