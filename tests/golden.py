"""Golden battles: digests of thousands of logs and summaries, so that a change to the
engine (a speed-up, a refactor) is proven byte-identical for the policies it must not change.

The inputs are frozen here, apart from the live demo (which the demo balance may change):
- the twelve ordered pairings of the four demo parties as they were when the digests were
  recorded (`golden_demo.json`), `DEMO_SEEDS` seeds each;
- `RANDOM_SNAPSHOTS` snapshots of two random parties (tests.test_battle_groups.random_party
  from one seeded generator), `RANDOM_SEEDS` seeds each; their digest is recorded too, so a
  change to that generator reads as "the inputs changed", not as an engine change.

For each pair of policy versions in `POLICY_PAIRS` (the policies as they were when recorded:
a policy whose play changes gets a new version, and these keep the old one), every full log
(`battles.engine.run.log_json`) and every summary-mode summary is hashed with SHA-256, and
each chunk of `CHUNK` battles' hashes are hashed together into `golden_battles.json`.

    .venv/bin/python -m tests.golden            # check every chunk, name those that differ
    .venv/bin/python -m tests.golden --add      # record the groups not recorded yet
    .venv/bin/python -m tests.golden --write    # record again (only for a new golden set)
"""

import hashlib
import itertools
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent
DEMO_FILE = HERE / "golden_demo.json"
DIGEST_FILE = HERE / "golden_battles.json"

DEMO_PARTIES = ["Sunrise Squad", "Night Shift", "Cold Front", "Wild Bunch"]
DEMO_SEEDS = 200
RANDOM_SNAPSHOTS = 300
RANDOM_SEEDS = 2
RANDOM_GENERATOR_SEED = 19_2026
CHUNK = 100
# (name, version) for side A and side B. The first three were recorded from main's engine
# before issue 19's speed work; greedy 2's when it was released, so that it stays as played.
POLICY_PAIRS = [
    (("greedy", 1), ("greedy", 1)),
    (("random", 1), ("random", 1)),
    (("greedy", 1), ("random", 1)),
    (("greedy", 2), ("greedy", 2)),
    (("greedy", 2), ("random", 1)),
]


def _policy(name: str, version: int):
    from battles.engine import policies

    lookup = getattr(policies, "policy_version", None)
    if lookup is not None:
        return lookup(name, version)
    if version != 1:
        raise LookupError(f"{name} version {version} is not known")
    return policies.POLICIES[name]


def demo_snapshots() -> list[tuple[str, dict]]:
    from battles.snapshot import snapshot

    frozen = json.loads(DEMO_FILE.read_text(encoding="utf-8"))
    chart = {(a, d): e for a, d, e in frozen["chart"]}
    return [
        (f"{a} vs {b}", snapshot([frozen["sides"][a], frozen["sides"][b]], chart, frozen["types"]))
        for a, b in itertools.permutations(DEMO_PARTIES, 2)
    ]


def random_snapshots() -> list[dict]:
    from battles.snapshot import snapshot
    from tests.test_battle_groups import random_party
    from tests.test_battle_invariants import CHART

    rng = random.Random(RANDOM_GENERATOR_SEED)
    pairs = [(random_party(rng), random_party(rng)) for _ in range(RANDOM_SNAPSHOTS)]
    return [snapshot([a, b], CHART) for a, b in pairs]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def inputs_digest(snapshots) -> str:
    return _sha(json.dumps(snapshots, sort_keys=True, separators=(",", ":")))


def battle_sets() -> dict[str, list[tuple[dict, int]]]:
    """{set name: [(snapshot, seed), ...]} in a fixed order."""
    demo = [(snap, seed) for _, snap in demo_snapshots() for seed in range(DEMO_SEEDS)]
    rand = [(snap, seed) for snap in random_snapshots() for seed in range(RANDOM_SEEDS)]
    return {"demo": demo, "random": rand}


def group_name(set_name: str, pair, mode: str) -> str:
    (a, va), (b, vb) = pair
    return f"{set_name} {a}@{va}/{b}@{vb} {mode}"


def chunk_digests(battles, pair, mode: str, chunks=None) -> list[str | None]:
    """The digest of each chunk of `battles` (None for chunks not asked for)."""
    from battles.engine.battle import run_battle, run_summary
    from battles.engine.run import input_for, log_json

    policies = tuple(_policy(name, version) for name, version in pair)
    out = []
    for index in range(0, -(-len(battles) // CHUNK)):
        if chunks is not None and index not in chunks:
            out.append(None)
            continue
        h = hashlib.sha256()
        for snap, seed in battles[index * CHUNK : (index + 1) * CHUNK]:
            data = input_for(snap)
            if mode == "log":
                text = log_json(run_battle(data, policies, random.Random(seed), seed=seed))
            else:
                summary = run_summary(data, policies, random.Random(seed), seed=seed)
                text = json.dumps(summary, separators=(",", ":"))
            h.update(_sha(text).encode())
        out.append(h.hexdigest())
    return out


def compute(chunks=None, skip=()) -> dict:
    sets = battle_sets()
    groups = {}
    for set_name, battles in sets.items():
        for pair in POLICY_PAIRS:
            for mode in ("log", "summary"):
                name = group_name(set_name, pair, mode)
                if name not in skip:
                    groups[name] = chunk_digests(battles, pair, mode, chunks)
    return {
        "inputs": {
            "demo": inputs_digest([s for _, s in demo_snapshots()]),
            "random": inputs_digest(random_snapshots()),
        },
        "chunk": CHUNK,
        "groups": groups,
    }


def freeze_demo() -> None:
    """Write the demo parties as they are now (run once, when the golden set is recorded)."""
    from battles.snapshot import demo_snapshot

    first = demo_snapshot(DEMO_PARTIES[0], DEMO_PARTIES[1])
    sides = {}
    for a, b in zip(DEMO_PARTIES[::2], DEMO_PARTIES[1::2], strict=True):
        snap = demo_snapshot(a, b)
        sides[a], sides[b] = snap["sides"]
    frozen = {"chart": first["chart"], "types": first["types"], "sides": sides}
    DEMO_FILE.write_text(json.dumps(frozen, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv) -> int:
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memeyori_site.settings")
    django.setup()
    if "--write" in argv:
        if not DEMO_FILE.exists():
            freeze_demo()
        DIGEST_FILE.write_text(json.dumps(compute(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {DIGEST_FILE}")
        return 0
    want = json.loads(DIGEST_FILE.read_text(encoding="utf-8"))
    if "--add" in argv:
        added = compute(skip=set(want["groups"]))["groups"]
        want["groups"].update(added)
        DIGEST_FILE.write_text(json.dumps(want, indent=1) + "\n", encoding="utf-8")
        print(f"added {', '.join(added) or 'nothing'}")
        return 0
    got = compute()
    bad = 0
    for key in ("demo", "random"):
        if want["inputs"][key] != got["inputs"][key]:
            print(f"the {key} inputs changed: restore them before comparing")
            bad += 1
    for name, digests in want["groups"].items():
        for index, (w, g) in enumerate(zip(digests, got["groups"][name], strict=True)):
            if w != g:
                print(f"differs: {name}, battles {index * CHUNK}-{(index + 1) * CHUNK - 1}")
                bad += 1
    print("identical" if not bad else f"{bad} chunk(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
