"""The engine's front door: a snapshot dict, two policy names and a seed in, a log out."""

import json
import random

from .battle import run_battle
from .model import battle_input
from .policies import POLICIES


def simulate(snapshot: dict, *, seed: int, policies=("greedy", "greedy")) -> dict:
    """Run a whole battle (R9-R10) from a snapshot; the same arguments give the same log."""
    chosen = tuple(POLICIES[name] for name in policies)
    return run_battle(battle_input(snapshot), chosen, random.Random(seed), seed=seed)


def log_json(log: dict) -> str:
    """The canonical text of a log: what `--json` prints and what replays compare."""
    return json.dumps(log, ensure_ascii=False, separators=(",", ":"))


def canonical(log: dict) -> str:
    """The log with sorted keys: equal for equal logs even after PostgreSQL's jsonb, which
    keeps values but not key order, has stored one."""
    return json.dumps(log, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
