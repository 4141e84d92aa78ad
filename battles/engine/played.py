"""Played battles (issue 17): a side's plans may come from outside, one round at a time.

A played battle is the same battle as `battle.run_battle`, except that a side marked as a
player takes its R9.2 plan (Switch, Archon summon, cards) from a recorded plan for
(round, side). When the plan of the round being played is missing, the battle stops there
(`PlanNeeded`), with each side's View as planning began. So the state at any round is a
pure function of (snapshot, seed, policies and their versions, the plans recorded so far):
a player's plan draws nothing from the generator, and the AI's and the dice's draws keep
their fixed order. Nothing of the engine is stored; each request replays (about a
millisecond a battle).

This module is the battle loop that stops where a plan is missing, and the replays that
probe a round before it resolves (`staged`, `ai_plans`). What a recorded plan holds and
how each side plays it is in played_record.py; a player's plan is checked before it is
recorded in plan_check.py, and what the plan page shows of each card is in
plan_choices.py.

A game played with own draws (`own_draws`, ruling 8 for everyone, issue 31) lets a player
make the Switch and summon first, as a step that draws at once (a stage), and then plan
cards that include what they drew: `staged` replays the game to that moment and answers
the side's View there. Its log says `"draws": "own"`.

The finished log is a `memeyori-battle-log/2` log with the plan records (PROTOCOL.md):
`plans` (every plan, with its round, side and who made it: player, ai or timeout), the
`by` of each `plan` event, and a `forfeit` record and event when a side gave up.
"""

from . import end, plan, resolve, start
from .battle import LOG_FORMAT, Engine, side_records
from .field import View
from .keyed import rng_for
from .model import MAX_ROUNDS, BattleInput
from .played_record import (
    RecordedPlans,
    Staged,
    empty_plan,
    inputs_from_log,
    own_draws_of,
    plan_of,
)


class PlanNeeded(Exception):  # noqa: N818 (not an error: the battle waits for a plan)
    """The battle stopped at `round` because `sides` have no plan for it yet.

    `views[s]` is side s's View as planning began (what its player plans against), and
    `engine` the battle's state at that moment. `thinking` are the AI sides whose thinking
    policy (Policy.thinks) has not made its plan for the round yet, in a replay that may
    not think (`play(..., think=False)`): `sides` may then be empty, every player having
    planned, and the round waits for the AI alone."""

    def __init__(
        self,
        round_no: int,
        sides: tuple[int, ...],
        views: list[View],
        engine,
        thinking: tuple[int, ...] = (),
    ):
        super().__init__(
            f"round {round_no} needs a plan from side(s) {list(sides)}"
            + (f", the AI's of side(s) {list(thinking)}" if thinking else "")
        )
        self.round = round_no
        self.sides = sides
        self.views = views
        self.engine = engine
        self.thinking = thinking


class Played:
    """Where a played battle stands: `log` when it is over, else `needed` (PlanNeeded).

    `resume()` carries on from where it stopped once the missing plans are in the `plans`
    dict it was given, without replaying the rounds before (a submission that resolves a
    round replays once)."""

    def __init__(
        self,
        data: BattleInput,
        policies: tuple,
        seed: int,
        plans: dict,
        forfeit,
        *,
        stop: int | None = None,
        own_draws: bool = False,
        probe: tuple[int, int] | None = None,
        think: bool = True,
    ):
        self.data = data
        self.seed = seed
        self.recorded = RecordedPlans(plans, policies, probe)
        self.made = self.recorded.made
        self.own_draws = own_draws
        self.think = think
        self.log: dict | None = None
        self.needed: PlanNeeded | None = None
        # True when the battle stopped as round `stop`'s planning began (a fork's origin).
        self.stopped = False
        self._rounds = self._begin(policies, plans, forfeit, stop)
        self.resume()

    def _begin(self, policies: tuple, plans: dict, forfeit, stop):
        """The engine, and the rounds to play (a fork begins elsewhere: engine/fork.py)."""
        self.engine = Engine(
            self.data,
            (self.recorded.policy(0), self.recorded.policy(1)),
            rng_for(self.seed),  # a key's stream, or Mersenne Twister for an int (keyed.py)
            own_draws=self.own_draws,
        )
        return _rounds(
            self.engine, self.recorded, policies, plans, forfeit, stop=stop, think=self.think
        )

    def resume(self) -> "Played":
        try:
            self.needed = next(self._rounds)
        except StopIteration as stop:
            self.needed = None
            if stop.value is None:
                self.stopped = True
            else:
                self.log = self._finish(*stop.value)
        return self

    def _finish(self, winner, forfeited) -> dict:
        engine, data, seed, recorded = self.engine, self.data, self.seed, self.recorded
        if winner is False:
            winner = end.at_limit(engine)  # R9.6, or a draw at the limit
        engine.emit("end", winner=winner)
        result = {"winner": winner, "rounds": engine.round, "growth": end.growth(engine, winner)}
        log = {
            "format": LOG_FORMAT,
            "seed": seed,
            "policies": [p.name for p in engine.policies],
            "policy_versions": [p.version for p in engine.policies],
        }
        if engine.own_draws:
            log["draws"] = "own"
        if data.limit is not None:
            log["limit"] = data.limit  # R9.6's rule, written only since R9.6
        log |= {
            "sides": side_records(data),
            "events": engine.events,
            "plans": recorded.made,
        }
        if forfeited is not None:
            log["forfeit"] = {"round": engine.round, "side": forfeited}
        log["result"] = result
        return log


def open_round(engine, *, started: bool = False):
    """R9.1 for `engine.round`: (the upheavals before it, to tell after the resolution
    whether to look for a winner; the winner its start decided, or False). A round whose
    start was already played (a fork's first round: its origin played it) has nothing to
    start, and its winner is looked for after its resolution, whatever happened."""
    if started:
        return -1, False
    seen = engine.upheavals if engine.round > 1 else -1
    start.round_start(engine)
    return seen, end.winner(engine) if engine.upheavals != seen else False


def _rounds(
    engine,
    recorded: RecordedPlans,
    policies: tuple,
    plans: dict,
    forfeit,
    *,
    first: int = 1,
    started: bool = False,
    stop: int | None = None,
    think: bool = True,
):
    """The battle loop of `Engine.run`, stopping (a yield) at each plan it lacks; it returns
    (winner, the side that forfeited or None).

    A fork (engine/fork.py) carries on from round `first`, whose start (R9.1) its origin
    already played (`started`); `stop` ends the loop as round `stop`'s planning begins
    (the state a fork starts from), returning None. With `think` false an AI side whose
    policy thinks (`_thinking`) and whose plan for the round is not recorded is a plan it
    lacks too (PlanNeeded.thinking): the replay never runs that policy."""
    if not started:
        start.setup(engine)
    winner = False
    forfeited = None
    for engine.round in range(first, MAX_ROUNDS + 1):
        seen, winner = open_round(engine, started=started and engine.round == first)
        if winner is not False:
            break
        if engine.round == stop:
            return None
        if forfeit is not None and forfeit[0] == engine.round:
            forfeited = forfeit[1]
            engine.emit("forfeit", side=forfeited)
            winner = 1 - forfeited
            break
        while True:
            missing = tuple(
                s for s in (0, 1) if policies[s] is None and (engine.round, s) not in plans
            )
            thinking = () if think else _thinking(policies, plans, engine.round)
            if not missing and not thinking:
                break
            yield PlanNeeded(engine.round, missing, plan.begin(engine), engine, thinking)
        first = len(engine.events)
        plans_made = plan.plan_round(engine)
        # The plan events of this round say who made each plan (the plan records).
        by = {rec["side"]: rec["by"] for rec in recorded.made[-2:]}
        for event in engine.events[first:]:
            if event["kind"] == "plan":
                event["by"] = by[event["side"]]
        resolve.resolve_round(engine, plans_made)
        if engine.upheavals != seen:
            winner = end.winner(engine)
            if winner is not False:
                break
        end.round_end(engine)
    return winner, forfeited


def _thinking(policies: tuple, plans: dict, round_no: int) -> tuple[int, ...]:
    """The AI sides whose policy thinks (Policy.thinks) and whose plan for `round_no` is not
    recorded. Only a policy that replays from its record (Policy.replays_from_record): an
    older one (lookahead 1 and 2) drew from the battle's own generator, so its plan cannot
    be recorded and made apart from the round; it is run where the replay reaches it, as
    it always was (no new game plays those versions)."""
    return tuple(
        s
        for s in (0, 1)
        if (ai := policies[s]) is not None
        and ai.thinks
        and ai.replays_from_record
        and (round_no, s) not in plans
    )


def play(
    data: BattleInput,
    policies: tuple,
    seed: int,
    plans: dict,
    *,
    forfeit: tuple[int, int] | None = None,
    own_draws: bool = False,
    think: bool = True,
) -> Played:
    """Play the battle as far as the recorded plans go.

    `policies[s]` is side s's AI Policy, or None for a player; `plans` maps (round, side)
    to a recorded plan (a player's, the AI's as it made it, or a timeout's `{"policy",
    "version"}`); `forfeit` is (round, side) when that side gave up as that round's
    planning began; `own_draws`, the draws made while planning come from each side's own
    generator (Engine.own_draws). With `think` false the replay stops before running a
    thinking policy whose plan is not recorded (PlanNeeded.thinking; `ai_plans` makes
    it): what a page request replays."""
    return Played(data, policies, seed, plans, forfeit, own_draws=own_draws, think=think)


def _builder(data: BattleInput, policies: tuple, seed, forfeit):
    """A replay of this battle from any set of plans, with any of Played's options: what
    `staged` and `ai_plans` probe with (a fork passes its own, fork._builder)."""

    def build(plans_, **options):
        return Played(data, policies, seed, plans_, forfeit, **options)

    return build


def staged(
    data: BattleInput,
    policies: tuple,
    seed: int,
    plans: dict,
    round_no: int,
    side: int,
    stage: dict,
    *,
    forfeit: tuple[int, int] | None = None,
    build=None,
    think: bool = True,
) -> Staged:
    """A side's View after its stage (`{"switch", "summon"}`) for `round_no` has drawn, in
    a game with own draws: the recorded plans replayed to that round, where the other side
    plans nothing (its real plan, recorded or an AI's, never reaches this side) and this
    side makes its stage, then stops where it would choose its cards. With own draws the
    stage draws the same cards whatever the other side plans, so the round, when it
    resolves, draws what this showed. ValueError when the round is not reached (with
    `think` false, also when an AI's thinking plan before it is not recorded)."""
    probe = dict(plans)
    probe[round_no, side] = {"switch": stage["switch"], "summon": stage["summon"], "cards": []}
    probe[round_no, 1 - side] = empty_plan()
    if build is None:  # `build`: a fork's (engine/fork.py)
        build = _builder(data, policies, seed, forfeit)
    try:
        build(probe, own_draws=True, probe=(round_no, side), think=think)
    except Staged as stopped:
        return stopped
    raise ValueError(f"round {round_no} is not planned in this game")


def ai_plans(
    data: BattleInput,
    policies: tuple,
    seed: int,
    plans: dict,
    round_no: int,
    *,
    forfeit: tuple[int, int] | None = None,
    own_draws: bool = False,
    build=None,
) -> dict[int, dict]:
    """The plans the AI sides make for `round_no` ({side: {"switch", "summon", "cards"}}),
    thinking as it must: what `play(..., think=False)` stopped for (PlanNeeded.thinking),
    made apart from any page request (battles/play/thinking.py).

    A plan depends on the record alone, so it is the one the replay would have made where
    it reached the round (and `replay`, which runs the AI again, makes it once more, byte
    for byte). When every player's plan for the round is in, the round is replayed as it
    will be; before that, in a game with own draws, each player plans nothing in the
    probe: an AI plans against the table as planning began, from dice and draws of its
    own (Policy.dice, Engine.own_draws), so nothing a player plans that round reaches it.
    Without own draws a player's Switch could move what the AI's own Switch draws from the
    battle's generator: there the AI waits for the players' plans ({} until then)."""
    players = [s for s in (0, 1) if policies[s] is None]
    probe = dict(plans)
    for s in players:
        if (round_no, s) not in plans:
            if not own_draws:
                return {}
            probe[round_no, s] = empty_plan()
    if build is None:  # `build`: a fork's (engine/fork.py)
        build = _builder(data, policies, seed, forfeit)
    played = build(probe, own_draws=own_draws, stop=round_no + 1)
    return {
        rec["side"]: plan_of(rec)
        for rec in played.made
        if rec["round"] == round_no and rec["by"] == "ai"
    }


def replay(data: BattleInput, log: dict) -> dict:
    """A played log again, from its input, seed and plan records (`manage.py replay`)."""
    policies, plans, forfeit = inputs_from_log(log)
    again = play(data, policies, log["seed"], plans, forfeit=forfeit, own_draws=own_draws_of(log))
    if again.log is None:
        raise ValueError(f"the plan records stop at round {again.needed.round}")
    return again.log
