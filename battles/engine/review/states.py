"""The game review's states: the battle replayed from its record, two states a round.

The states. The battle is replayed from its record (the engine's own loop, the recorded
policies and plans, the battle's own generator) and two states of each round are kept:
- planning: after R9.1 (the round's draw and MP), as planning begins (the `win_a` of the
  round: "from the start of the round", once its cards are drawn);
- planned: after both plans (Switches, summons, cards committed), before any die.
Between one round's planning and planned states only the plans act; between its planned
state and the next round's planning state only chance does (dice, the replacements'
draws, the next draw). So a round's luck is Win%(next planning) - Win%(planned), and the
sum of all rounds' luck and plan effects adds up to the result.
"""

import random

from .. import end, plan, resolve, start
from ..battle import Engine
from ..field import Policy, Side
from ..fork import begin_fork, record_inputs, state_at_round
from ..keyed import rng_for
from ..model import MAX_ROUNDS, BattleInput
from ..played import open_round
from ..played_record import RecordedPlans, is_played, own_draws_of
from ..policies import GREEDY, policy_version
from ..worlds import Sink


class _Recording:
    """A side's policy that notes the plan it makes: {"switch", "summon", "cards"}."""

    def __init__(self, policy: Policy, made: dict):
        self.policy = policy
        self.made = made

    def switch(self, view, rng):
        choice = self.policy.switch(view, rng)
        self.made[view.side.index] = {
            "switch": list(choice) if choice else None,
            "summon": False,
            "cards": [],
        }
        return choice

    def summon(self, view, rng):
        choice = bool(self.policy.summon(view, rng))
        self.made[view.side.index]["summon"] = choice
        return choice

    def plays(self, view, rng):
        chosen = self.policy.plays(view, rng)
        self.made[view.side.index]["cards"] = [[c, t, x] for c, t, x in chosen]
        return chosen

    def as_policy(self) -> Policy:
        p = self.policy
        # The same dice as the policy it records (plan.dice_for), so the replay is the log's.
        return Policy(p.name, self.switch, self.summon, self.plays, p.version, p.dice)


def clone(real, rng: random.Random):
    """A copy of an engine's state that shares nothing a battle changes (summary mode, both
    sides by greedy from here on)."""
    world = object.__new__(Engine)
    world.chart = real.chart
    world.rng = rng
    world.events = None
    world.tally = Sink()
    world.memos = real.memos
    world.blows = real.blows
    world.round = real.round
    world.upheavals = real.upheavals
    world.shown = list(real.shown) if real.shown is not None else None
    world.policies = (GREEDY, GREEDY)
    world._origin, world._dice_root = real._origin, real._dice_root
    world.own_draws = real.own_draws
    world.limit = real.limit
    by_id = {}
    sides = []
    for real_side in real.sides:
        side = Side(real_side.index, real_side.spec)
        pairs = zip(
            [*side.roster, *([side.archon] if side.archon else [])],
            [*real_side.roster, *([real_side.archon] if real_side.archon else [])],
            strict=True,
        )
        for f, rf in pairs:
            f.hp, f.status, f.played_nonquick, f.fielded = (
                rf.hp, rf.status, rf.played_nonquick, rf.fielded,
            )  # fmt: skip
            by_id[f.id] = f
        side.slots = [by_id[f.id] if f is not None else None for f in real_side.slots]
        side.resonance, side.mp = real_side.resonance, real_side.mp
        side.pile = list(real_side.pile)
        side.hand = list(real_side.hand)
        side.discard = list(real_side.discard)
        side.in_play = list(real_side.in_play)
        side.heirs = {out: by_id[f.id] for out, f in real_side.heirs.items()}
        side.last_switch = real_side.last_switch
        sides.append(side)
    world.sides = sides
    world.by_id = by_id
    world.owners = {cid: by_id[f.id] for cid, f in real.owners.items()}
    return world


class RoundStates:
    """One round of the battle as played: its planning and planned states (engine copies),
    the plans committed, and each side's plan as made (None for a side not replayed)."""

    def __init__(self, round_no, planning, planned, plans, made, by):
        self.round = round_no
        self.planning = planning
        self.planned = planned
        self.plans = plans
        self.made = made
        self.by = by  # per side: "player", "ai" or "timeout"


def _card_id(card) -> str:
    return card.id


def replay_states(data: BattleInput, log: dict) -> tuple[list[RoundStates], float]:
    """The battle replayed from its record: each round's states, and side A's result (1 a
    win, 0 a loss, 0.5 a draw). ValueError when the record does not replay to its result."""
    made: dict = {}
    if is_played(log):
        # The AI's plans as recorded, so a lookahead side is not thought out again.
        ai, plans, forfeit = record_inputs(log)
        recorded = RecordedPlans(plans, ai)
        inner = (recorded.policy(0), recorded.policy(1))
    else:
        versions = log.get("policy_versions", [1, 1])
        inner = tuple(policy_version(n, v) for n, v in zip(log["policies"], versions, strict=True))
        forfeit, recorded = None, None
    policies = tuple(_Recording(p, made).as_policy() for p in inner)
    engine, first = _first_round(data, log, policies)
    rounds: list[RoundStates] = []
    winner = False
    for engine.round in range(first, MAX_ROUNDS + 1):
        seen, winner = open_round(engine, started=engine.round == first and "fork" in log)
        if winner is not False:
            break
        if forfeit is not None and forfeit[0] == engine.round:
            winner = 1 - forfeit[1]
            break
        plan.begin(engine)  # what each side shows the table as planning begins (Seen)
        planning = clone(engine, random.Random(0))
        made.clear()
        plans = plan.plan_round(engine)
        by = ["ai", "ai"]
        if recorded is not None:
            for rec in recorded.made[-2:]:
                by[rec["side"]] = rec["by"]
        rounds.append(
            RoundStates(
                engine.round,
                planning,
                clone(engine, random.Random(0)),
                plans,
                [made.get(0), made.get(1)],
                by,
            )
        )
        resolve.resolve_round(engine, plans)
        if engine.upheavals != seen:
            winner = end.winner(engine)
            if winner is not False:
                break
        end.round_end(engine)
    if winner is False:
        winner = end.at_limit(engine)  # R9.6 under the battle's rule, or a draw
    expected = log["result"]["winner"]
    if winner != expected or engine.round != log["result"]["rounds"]:
        raise ValueError(
            f"the record replays to winner {winner} in round {engine.round}, not its log's"
            f" {expected} in round {log['result']['rounds']}"
        )
    return rounds, _points(winner, 0)


def _first_round(data: BattleInput, log: dict, policies) -> tuple[Engine, int]:
    """The engine the review replays, and its first round: round 1 after the setup, or for a
    fork (engine/fork.py) the fork round as its planning began, with the fork's own dice and
    draw piles. A fork's review rates the rounds played in the fork; the rounds before are
    its origin's, whose own review rates them."""
    fork = log.get("fork")
    own = own_draws_of(log)
    if fork is None:
        engine = Engine(data, policies, rng_for(log["seed"]), summary=True, own_draws=own)
        start.setup(engine)
        return engine, 1
    engine = state_at_round(data, fork["origin"], fork["round"])
    begin_fork(engine, log["seed"], policies, own_draws=own)
    return engine, fork["round"]


def _points(winner, me: int) -> float:
    return 0.5 if winner is None else (1.0 if winner == me else 0.0)
