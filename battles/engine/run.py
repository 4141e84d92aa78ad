"""The engine's front door: a snapshot dict, two policy names and a seed in, a log out."""

import copy
import json
import random

from .battle import run_battle
from .model import BattleInput, battle_input
from .policies import POLICIES, policy_version

# The inputs of the last few snapshots, each with a private copy to compare against: a
# lab runs thousands of seeds of one snapshot, and an equal snapshot gives an equal input
# (a caller that changes its dict in place just misses the cache).
_INPUTS: list[tuple[dict, BattleInput]] = []
INPUTS_KEPT = 4


def input_for(snapshot: dict) -> BattleInput:
    for seen, data in _INPUTS:
        if seen == snapshot:
            return data
    data = battle_input(snapshot)
    _INPUTS.insert(0, (copy.deepcopy(snapshot), data))
    del _INPUTS[INPUTS_KEPT:]
    return data


def chosen_policies(policies, versions=None) -> tuple:
    """Policy objects for (name, name), at (version, version), or the current ones (None)."""
    if versions is None:
        return tuple(POLICIES[name] for name in policies)
    return tuple(policy_version(n, v) for n, v in zip(policies, versions, strict=True))


def simulate(snapshot: dict, *, seed: int, policies=("greedy", "greedy"), versions=None) -> dict:
    """Run a whole battle (R9-R10) from a snapshot; the same arguments give the same log.
    `versions` picks the policies' versions (a stored battle's); None plays today's."""
    chosen = chosen_policies(policies, versions)
    return run_battle(input_for(snapshot), chosen, random.Random(seed), seed=seed)


def simulate_keeping_plans(
    snapshot: dict, *, seed: int, policies=("greedy", "greedy"), versions=None
) -> tuple[dict, list[dict]]:
    """`simulate`'s log, the same log, and the plans each thinking AI made on the way (the
    played replay's records: round, side, policy, switch, summon, cards; [] when no policy
    thinks). A battle whose AI thinks keeps them, so that a fork from any of its rounds
    replays them with the engine alone (fork.record_inputs) instead of thinking again
    inside a request (issue 39). The same cost as `simulate`: the plans are those the
    battle's own run makes."""
    from .played import play  # played imports the policies this module's callers pick

    chosen = chosen_policies(policies, versions)
    if not any(p.thinks for p in chosen):
        return simulate(snapshot, seed=seed, policies=policies, versions=versions), []
    played = play(input_for(snapshot), chosen, seed, {})
    log = played.log
    # What a played replay adds to a battle's log: who made each plan, and the plan records
    # (they are returned apart). Without them the log is simulate's, event for event.
    log.pop("plans", None)
    for event in log["events"]:
        if event["kind"] == "plan":
            event.pop("by", None)
    return log, [dict(rec) for rec in played.made]


def log_json(log: dict) -> str:
    """The canonical text of a log: what `--json` prints and what replays compare."""
    return json.dumps(log, ensure_ascii=False, separators=(",", ":"))


def canonical(log: dict) -> str:
    """The log with sorted keys: equal for equal logs even after PostgreSQL's jsonb, which
    keeps values but not key order, has stored one."""
    return json.dumps(log, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
