"""Fork from any round (issue 32 §6): a played game that starts where another battle stood
as round N's planning began, with the draw piles shuffled anew and new dice.

A fork's record is its origin's record, the fork round, the fork's own seed and the plans
recorded in the fork (with its AI policies and any forfeit), so a fork is a pure function
of its record like any played game:

1. The origin is replayed to round N: a stored battle from its seed and policies
   (`battle.run_battle`'s order of draws), a played game from its seed and plan records
   (`played.play`), a fork from its own record (recursively). The replay stops after round
   N's start (R9.1: Resonance or upkeep, the draw, the MP refill), as planning begins: the
   same parties, HP, statuses, hands, Resonance, MP and Archon as the origin had then.
   Everything up to there is in the origin's log, so both hands are known to anyone who
   can read it.
2. The engine's generator is replaced by `keyed.rng_for(fork seed)`; each side's draw pile
   is shuffled with it (the origin's log says what was drawn next, so its order would give
   a reader the other side's future); a `fork` event says so. The policies' own dice
   (Engine.policy_rng) now start from the fork's generator too.
3. The battle goes on as a played battle from round N with the fork's own policies and
   plans: its round numbers continue from N (a fork from round 3 plans round 3 first), and
   it still ends after round 30, where R9.6 decides under its origin's rule (the
   snapshot's `limit`: a fork plays with its origin's input).

Nothing is kept between forks: each one builds its engine from its own record.
"""

from .dice import shuffle
from .field import Policy
from .keyed import rng_for
from .model import MAX_ROUNDS, BattleInput
from .played import Played, _rounds, ai_plans, staged
from .played import replay as played_replay
from .played_record import inputs_from_log, own_draws_of, plan_of

FORK_VERSION = 1


class ForkRefused(ValueError):
    """The origin cannot be forked at that round (said in words)."""


def origin_record(log: dict) -> dict:
    """What replays a battle's log to any of its rounds: its seed, its policies and their
    versions, every plan record (a played game's, the AI's included, so a read never thinks
    again), its forfeit, and its own fork when it is one. A copy: nothing of the log is
    shared with it."""
    record = {
        "seed": log["seed"],
        "policies": list(log["policies"]),
        "policy_versions": list(log.get("policy_versions", [1, 1])),
        "plans": [dict(rec) for rec in log.get("plans", [])],
    }
    if log.get("forfeit"):
        record["forfeit"] = dict(log["forfeit"])
    if log.get("draws"):
        record["draws"] = log["draws"]
    if log.get("fork"):
        record["fork"] = log["fork"]
    return record


def record_inputs(record: dict) -> tuple[tuple, dict, tuple[int, int] | None]:
    """(AI policies per side, the recorded plans, forfeit) of a record with `seed`,
    `policies`, `policy_versions`, `plans` and `forfeit`: an origin record or a played log.
    The AI's plans are taken as it made them, so that a policy that replays from its record
    (Policy.replays_from_record) never thinks again. A stored battle's own log has no plan
    records (`fork_record(..., data=)` adds them); without them its two AIs plan again, as
    the battle's own replay does."""
    ai, plans, forfeit = inputs_from_log(record)
    for rec in record["plans"]:
        if rec["by"] == "ai":
            plans[rec["round"], rec["side"]] = plan_of(rec)
    return ai, plans, forfeit


def rounds_forkable(log: dict) -> list[int]:
    """The rounds whose planning the battle reached: 1 to its last round (a battle that ends
    at a round's start, as an Archon alone is dismissed, or a forfeit, may refuse its last
    round; `state_at_round` says so)."""
    last = log["result"]["rounds"]
    return list(range(1, min(last, MAX_ROUNDS) + 1))


def state_at_round(data: BattleInput, origin: dict, round_no: int):
    """The origin's Engine as round `round_no`'s planning began (after its R9.1), with the
    origin's own events so far. ForkRefused when the record does not get there."""
    return _replay_to(data, origin, round_no).engine


def _replay_to(data: BattleInput, origin: dict, round_no: int) -> Played:
    if not isinstance(round_no, int) or not 1 <= round_no <= MAX_ROUNDS:
        raise ForkRefused(f"A fork starts at a round from 1 to {MAX_ROUNDS}.")
    fork = origin.get("fork")
    if fork is not None and round_no < fork["round"]:
        # Before the fork round, a fork is its own origin.
        return _replay_to(data, fork["origin"], round_no)
    ai, plans, forfeit = record_inputs(origin)
    own = own_draws_of(origin)
    if fork is not None:
        played = Forked(
            data, fork, ai, origin["seed"], plans, forfeit, stop=round_no, own_draws=own
        )
    else:
        played = Played(data, ai, origin["seed"], plans, forfeit, stop=round_no, own_draws=own)
    if played.needed is not None:
        raise ForkRefused(f"The battle's record stops at round {played.needed.round}.")
    if not played.stopped:
        raise ForkRefused(f"The battle was over before round {round_no} was planned.")
    if "player" not in origin["policies"]:
        # A stored battle's plan events say nobody made them (its log has no `by`): the
        # fork's log is the battle's own, event for event, up to the fork.
        for event in played.engine.events:
            if event["kind"] == "plan":
                event.pop("by", None)
    return played


def begin_fork(
    engine, seed: int, policies: tuple[Policy, Policy], *, own_draws: bool = False
) -> None:
    """Step 2: the fork's own generator, policies and draws (Engine.own_draws, whatever its
    origin's were); each side's draw pile shuffled anew."""
    engine.rng = rng_for(seed)  # a fork's key, or an older fork's int seed (keyed.py)
    engine.policies = policies
    engine.own_draws = own_draws
    # Engine.__init__'s rule: a policy with dice of its own (and own draws) draws them from
    # where the battle's generator started, which for a fork is its own seed.
    own = own_draws or any(getattr(p, "dice", "battle") == "own" for p in policies)
    engine._origin = engine.rng.getstate() if own else None
    engine._dice_root = None
    for side in engine.sides:
        shuffle(engine.rng, side.pile)
    engine.emit("fork", piles=[len(side.pile) for side in engine.sides])


class Forked(Played):
    """A played battle that begins at a fork (`fork` = {"round", "origin"}); otherwise a
    Played: `needed`, `log`, `resume()`. Its log carries the `fork` record."""

    def __init__(self, data, fork: dict, policies, seed, plans, forfeit, **options):
        self.fork = fork
        super().__init__(data, policies, seed, plans, forfeit, **options)

    def _begin(self, policies, plans, forfeit, stop):
        round_no = self.fork["round"]
        self.engine = state_at_round(self.data, self.fork["origin"], round_no)
        begin_fork(
            self.engine, self.seed, (self.recorded.policy(0), self.recorded.policy(1)),
            own_draws=self.own_draws,
        )  # fmt: skip
        return _rounds(
            self.engine, self.recorded, policies, plans, forfeit,
            first=round_no, started=True, stop=stop, think=self.think,
        )  # fmt: skip

    def _finish(self, winner, forfeited) -> dict:
        log = super()._finish(winner, forfeited)
        result = log.pop("result")
        log["fork"] = self.fork
        log["result"] = result
        return log


def fork_record(origin_log: dict, round_no: int, *, data: BattleInput | None = None, **names):
    """A fork's `fork` record: the version of this module, the round, the origin's replay
    record, and what names the origin for a reader (`names`: the battle's code, say).

    With `data` the origin is replayed to that round once, here (ForkRefused when it does
    not get there), and the plans made on the way are kept in the record, the AI's
    included: a policy that replays from its record (Policy.replays_from_record) then never
    thinks again when the fork is read, so a fork of a battle of two lookaheads replays in
    milliseconds instead of the seconds its AIs took. The plans of a fork's own rounds are
    its log's already."""
    record = {"version": FORK_VERSION, "round": round_no, "origin": origin_record(origin_log)}
    record |= {k: v for k, v in names.items() if v is not None}
    if data is not None:
        origin = record["origin"]
        played = _replay_to(data, origin, round_no)
        if "fork" not in origin:
            origin["plans"] = [dict(rec) for rec in played.made]
    return record


def play_fork(
    data: BattleInput,
    fork: dict,
    policies: tuple,
    seed: int,
    plans: dict,
    *,
    forfeit: tuple[int, int] | None = None,
    own_draws: bool = False,
    think: bool = True,
) -> Forked:
    """A fork played as far as its recorded plans go (`played.play`'s twin)."""
    return Forked(data, fork, policies, seed, plans, forfeit, own_draws=own_draws, think=think)


def _builder(data, fork: dict, policies, seed, forfeit):
    def build(plans_, **options):
        return Forked(data, fork, policies, seed, plans_, forfeit, **options)

    return build


def staged_fork(
    data, fork: dict, policies, seed, plans, round_no, side, stage, *, forfeit=None, think=True
):
    """`played.staged` for a fork: a side's View after its stage drew."""
    build = _builder(data, fork, policies, seed, forfeit)
    return staged(
        data, policies, seed, plans, round_no, side, stage, forfeit=forfeit, build=build,
        think=think,
    )  # fmt: skip


def ai_plans_fork(
    data, fork: dict, policies, seed, plans, round_no, *, forfeit=None, own_draws=False
):
    """`played.ai_plans` for a fork: the plans its AI sides make for `round_no`."""
    build = _builder(data, fork, policies, seed, forfeit)
    return ai_plans(
        data, policies, seed, plans, round_no, forfeit=forfeit, own_draws=own_draws, build=build
    )


def replay(data: BattleInput, log: dict) -> dict:
    """A fork's finished log again, from its record; any other played log by played.replay
    (`manage.py replay` calls this for every played log)."""
    if "fork" not in log:
        return played_replay(data, log)
    ai, plans, forfeit = record_inputs(log)
    again = play_fork(
        data, log["fork"], ai, log["seed"], plans, forfeit=forfeit,
        own_draws=own_draws_of(log),
    )  # fmt: skip
    if again.log is None:
        raise ValueError(f"the plan records stop at round {again.needed.round}")
    return again.log
