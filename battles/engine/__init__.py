"""The battle rules core (RULES.md R4-R10): pure Python, no Django import.

Every random choice comes from a `random.Random` passed in by the caller.

Speed (`make bench`, tests/bench/battles.py), with the same log for the same seed:
- The engine rolls with `dice.roll_faces`, which must draw exactly what
  `dice.roll_attack_reference` draws die by die, in the same order (a test checks faces
  and rng state; `roll_attack` is roll_faces checked and recorded), so
  stored battles still replay to the byte. Both roll up to five dice per random(), and
  shuffles draw one random() per card (`dice.shuffle`).
- Events are dict literals appended in place (key order is part of the byte-identical
  log); `resolve.blow` keeps what a card does to a target, and the policies' memos what
  they derived from the specs, shared by every battle of one input object.
- Summary mode (`battle.run_summary`, behind `summary.simulate_summary`) builds no event
  dicts: `tally.Tally` counts one call per resolved card, and `settle.apply_group` counts a
  group's blows, heals and knock-outs in place. A test checks it against
  `summary.summarize` of the full log on 10,000 seeds.
- No import circle: `summary` (which reads logs) imports the engine, never the reverse
  (tests/test_engine_imports.py imports each module alone).
- Greedy's expected-damage rows live in module tables shared by every battle, keyed by
  interned value keys (card and user stats, enemy defences, chart); they hold floats
  that steer choices only, never log values. Its shortcut skips the scan over targets
  only where the scan is provably bound to pick the same play. Rows are kept per card and
  enemy (a new enemy field reuses them), and each outcome keeps its capped means by room:
  every cached float is the one the plain sum gives, so greedy chooses exactly as written.
- Summary mode rolls with `dice.roll_counts` (the same draws as roll_faces, no faces) and
  draws its cards in one slice when no reshuffle is due.
"""

# The compiled engine (`make compile-engine`, battles/compile_engine.py): the modules of
# COMPILED built by mypyc from this very source into build/engine-<tag>/, loaded in their
# place only when that build was made from the source as it is now (its digest matches), so
# the Python source stays the one definition of the rules and a stale build is never run.
# MEMEYORI_ENGINE: "python" (the default: the source), "auto" (compiled when fresh, else the
# source), "compiled" (an ImportError without a fresh build: .ci/run's compiled pass of the
# engine's tests). The source is the default because the build is not faster yet: these
# modules as they are typed today (parameters mostly untyped, the state in plain classes),
# mypyc's code ran 200 greedy battles in 0.72-0.77 s of CPU against 0.60-0.85 s for the
# source, alternating in one session (issue 42's note); it pays once the hot state is typed.
import hashlib as _hashlib
import os as _os
import sys as _sys
from pathlib import Path as _Path

COMPILED = (
    "dice", "damage", "resolve", "settle", "tally", "start", "plan", "greedy", "greedy_tables",
)  # fmt: skip
_SOURCE = _Path(__file__).resolve().parent
# MEMEYORI_ENGINE_BUILD moves it (the tests' stale and missing builds).
BUILD = _Path(
    _os.environ.get("MEMEYORI_ENGINE_BUILD")
    or _SOURCE.parent.parent / "build" / f"engine-{_sys.implementation.cache_tag}"
)


def source_digest() -> str:
    """What a build was made from: the compiled modules' source, byte for byte."""
    digest = _hashlib.sha256()
    for name in COMPILED:
        digest.update(name.encode() + b"\0" + (_SOURCE / f"{name}.py").read_bytes() + b"\0")
    return digest.hexdigest()


def _build_state() -> str:
    """ "fresh", "stale" (made from other source) or "missing"."""
    try:
        made_from = (BUILD / "SOURCE").read_text(encoding="utf-8").strip()
    except OSError:
        return "missing"
    return "fresh" if made_from == source_digest() else "stale"


def _load() -> str:
    mode = _os.environ.get("MEMEYORI_ENGINE", "python")
    if mode not in ("auto", "python", "compiled"):
        raise ImportError(f"MEMEYORI_ENGINE must be auto, python or compiled; got {mode!r}")
    if mode == "python":
        return "python"
    state = _build_state()
    if state != "fresh":
        if mode == "compiled":
            raise ImportError(f"MEMEYORI_ENGINE=compiled, but the build in {BUILD} is {state}")
        return f"python (compiled build {state})"
    # The build's own modules first; the rest of the engine from the source. mypyc's shared
    # runtime module of the build lives at its top, so its folder joins sys.path (last).
    __path__.insert(0, str(BUILD / "battles" / "engine"))
    if str(BUILD) not in _sys.path:
        _sys.path.append(str(BUILD))
    return "compiled"


ENGINE_BUILD = _load()
