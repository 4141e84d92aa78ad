"""A played battle's plan record (issue 17): what a recorded plan is, the recorded plans
played as each side's policy, and the record read back from a finished log.

A recorded plan is one of
- `{"switch": None | [out, in], "summon": bool, "cards": [[card, tier, target], ...]}`, a
  player's own, checked by `plan_check.check_plan` (the engine's R9.2 rules, in words)
  before it is recorded; or
- `{"policy": "greedy", "version": 2}`: the AI plans that round for the side (a time limit
  ran out), with the battle's own generator, as it would for an AI side; with a `stage`
  (`{"switch", "summon"}`, made before the time ran out) the AI plans the cards only.

`RecordedPlans` is the policy of every side of a played battle: it hands the engine the
recorded plan, or the AI's, and notes each plan made in the log's `plans` record (round,
side, who made it: player, ai or timeout; PROTOCOL.md). The replay (played.py) and the
game review (review/states.py) both play a battle through it, so both read the record
the same way.
"""

from dataclasses import dataclass

from .field import Policy, View
from .policies import policy_version

PLAYER = "player"  # the policy name of a side whose plans come from outside
PLAYER_VERSION = 1
BY = ("player", "ai", "timeout")  # who made a plan: its side's player, the AI side, a timeout


@dataclass
class Staged(Exception):  # noqa: N818 (not an error: a probe's answer)
    """A probe replay (`played.staged`) stopped where the staged side was to choose its
    cards (RecordedPlans.plays raises it): `view` is that side's View after its Switch and
    summon drew, `drawn` the ids of the cards they drew (the hand less the hand as planning
    began)."""

    def __init__(self, view: View, drawn: list[str]):
        super().__init__(f"round {view.round}: side {view.side.index}'s stage")
        self.view = view
        self.drawn = drawn


def empty_plan() -> dict:
    """A plan that does nothing, made fresh for each use: nothing module-level is handed to
    a battle, where a plan's dict could be written."""
    return {"switch": None, "summon": False, "cards": []}


class RecordedPlans:
    """The recorded plans as a side's policy, and the record of every plan made."""

    def __init__(self, plans: dict, ai: tuple, probe: tuple[int, int] | None = None):
        self.plans = plans  # {(round, side): recorded plan}
        self.ai = ai  # per side: the AI's Policy, or None for a player
        self.made: list[dict] = []  # the log's `plans`, in order
        self.current: dict[int, dict] = {}
        # (round, side) of a stage being probed (`played.staged`): that side's plan stops at its
        # cards, and the other side's plan that round is the empty plan, whoever makes it,
        # so nothing of it reaches the staged side.
        self.probe = probe

    def _begin(self, view: View, rng) -> dict:
        key = (view.round, view.side.index)
        recorded = self.plans.get(key)
        ai = self.ai[view.side.index]
        probe = self.probe
        if probe is not None and probe[0] == view.round:
            rec = {"round": view.round, "side": view.side.index, "by": "player"}
            delegate = None
            if probe[1] != view.side.index:
                recorded = empty_plan()
        elif ai is not None:
            rec = {"round": view.round, "side": view.side.index, "by": "ai", "policy": ai.name}
            # The AI's plan recorded when it was made replays as it stands: its policy drew
            # nothing from the battle's generator (Policy.replays_from_record), so a read
            # never thinks again. Older policies are run again, as they always were.
            replay = recorded is not None and ai.replays_from_record
            delegate = None if replay else ai
        elif "policy" in recorded:
            rec = {
                "round": view.round,
                "side": view.side.index,
                "by": recorded.get("by", "timeout"),
                "policy": recorded["policy"],
                "version": recorded["version"],
            }
            # A timeout's plan stored as the AI made it ("cards" beside the policy) replays
            # as it stands, as the AI side's own do; an older record names the policy only.
            made = "cards" in recorded
            delegate = None if made else policy_version(recorded["policy"], recorded["version"])
        else:
            rec = {"round": view.round, "side": view.side.index, "by": "player"}
            delegate = None
        stage = recorded.get("stage") if recorded else None
        if stage is not None:
            rec["staged"] = True  # the Switch and summon were the player's (replay keeps them)
        rec.update({"switch": None, "summon": False, "cards": []})
        self.current[view.side.index] = {
            "rec": rec,
            "delegate": delegate,
            "plan": recorded,
            # A stage the player made before the time ran out stands; the AI plans the rest.
            "stage": stage,
            "hand": [c.id for c in view.side.hand],
        }
        self.made.append(rec)
        return self.current[view.side.index]

    def switch(self, view: View, rng):
        now = self._begin(view, rng)
        delegate = now["delegate"]
        if now["stage"] is not None:
            choice = now["stage"]["switch"]
        else:
            choice = delegate.switch(view, rng) if delegate else now["plan"]["switch"]
        now["rec"]["switch"] = list(choice) if choice else None
        return tuple(choice) if choice else None

    def summon(self, view: View, rng) -> bool:
        now = self.current[view.side.index]
        delegate = now["delegate"]
        if now["stage"] is not None:
            choice = bool(now["stage"]["summon"])
        else:
            choice = bool(delegate.summon(view, rng) if delegate else now["plan"]["summon"])
        now["rec"]["summon"] = choice
        return choice

    def plays(self, view: View, rng):
        now = self.current[view.side.index]
        if self.probe == (view.round, view.side.index):
            before = set(now["hand"])
            raise Staged(view, [c.id for c in view.side.hand if c.id not in before])
        delegate = now["delegate"]
        chosen = delegate.plays(view, rng) if delegate else now["plan"]["cards"]
        now["rec"]["cards"] = [[c, t, x] for c, t, x in chosen]
        return [(c, t, x) for c, t, x in chosen]

    def policy(self, side: int) -> Policy:
        ai = self.ai[side]
        if ai is None:  # a player; a timeout's greedy draws nothing
            return Policy(PLAYER, self.switch, self.summon, self.plays, PLAYER_VERSION, "none")
        return Policy(ai.name, self.switch, self.summon, self.plays, ai.version, ai.dice, ai.thinks)


def plan_of(rec: dict) -> dict:
    """The plan a plan record holds (a player's or an AI's), as a replay takes it."""
    return {"switch": rec["switch"], "summon": rec["summon"], "cards": rec["cards"]}


def inputs_from_log(log: dict) -> tuple[tuple, dict, tuple[int, int] | None]:
    """What replays a played log: (AI policies per side, the recorded plans, forfeit)."""
    policies = tuple(
        None if name == PLAYER else policy_version(name, version)
        for name, version in zip(log["policies"], log["policy_versions"], strict=True)
    )
    plans = {}
    for rec in log["plans"]:
        if rec["by"] == "player":
            plans[rec["round"], rec["side"]] = plan_of(rec)
        elif rec["by"] == "timeout":
            plans[rec["round"], rec["side"]] = {
                "by": "timeout",
                "policy": rec["policy"],
                "version": rec["version"],
            }
            if rec.get("staged"):
                stage = {"switch": rec["switch"], "summon": rec["summon"]}
                plans[rec["round"], rec["side"]]["stage"] = stage
    forfeit = log.get("forfeit")
    return policies, plans, (forfeit["round"], forfeit["side"]) if forfeit else None


def own_draws_of(log: dict) -> bool:
    """Whether a played log's planning draws came from each side's own generator."""
    return log.get("draws") == "own"


def is_played(log: dict) -> bool:
    """Whether a log holds plan records (a played battle's), so it replays from them."""
    return "plans" in log
