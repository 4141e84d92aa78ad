"""A played game replayed from its record: its snapshot, seed and policies and the plans
recorded so far (the players', and the AI's as it made them). No engine state is stored,
so a restarted server, or any process, carries on where the game was.

Time limits (off, 60, 120 or 300 seconds a round): a read never writes (GET never changes
anything), so a read works out the timed-out plans lazily: when a round's deadline has
passed, the AI (`greedy`, at the version recorded on the game) plans for each side that did
not, and the round resolves, in what the read answers. `rounds.expire_time_limit` writes
those plans (by "timeout") and is called by every write on the game (a plan, a forfeit)
before it does anything else, so what a read showed is what is recorded. The plans written
are the same whichever comes first: they depend on the record alone.

Thinking (issue 39): no replay here runs a thinking policy (Policy.thinks, the Thinker).
Where the AI's plan for the round is not recorded, the replay stops there
(PlanNeeded.thinking: "the AI is thinking"), and a task makes and records it
(battles/play/thinking.py, `ai_plans` below). No clock runs on the AI: only a player's
missing plan times out.
"""

from datetime import timedelta

from django.utils import timezone

from ..engine.fork import ai_plans_fork, play_fork, staged_fork
from ..engine.played import Played, play, staged
from ..engine.played import ai_plans as engine_ai_plans
from ..engine.played_record import PLAYER, Staged
from ..engine.policies import policy_version
from ..engine.run import input_for
from .models import Game, PlanBy, PlanStage, PlayedPlan

TIMEOUT_POLICY = "greedy"


def ai_policies(game: Game) -> tuple:
    return tuple(
        None if name == PLAYER else policy_version(name, version)
        for name, version in zip(game.policies, game.policy_versions, strict=True)
    )


def recorded_plans(game: Game) -> dict:
    plans = {}
    rows = PlayedPlan.objects.filter(game=game).values_list("round", "side", "plan", "by")
    for round_no, side, plan, by in rows:
        if by == PlanBy.TIMEOUT:
            plan["by"] = "timeout"
        plans[round_no, side] = plan
    return plans


def recorded_stages(game: Game) -> dict:
    """Each stage made (a Switch and summon before the cards, ruling 8): {(round, side):
    {"switch", "summon"}}. None in a game without own draws, which offers no stage."""
    if not game.own_draws:
        return {}
    rows = PlanStage.objects.filter(game=game).values_list("round", "side", "switch", "summon")
    return {(r, s): {"switch": switch, "summon": summon} for r, s, switch, summon in rows}


def forfeit_of(game: Game):
    if game.forfeit_side is None:
        return None
    return (game.forfeit_round, game.forfeit_side)


def timeout_plan(game: Game, made: dict | None = None, stage: dict | None = None) -> dict:
    """What a timeout records: the policy that planned, and, once it has (`made`, the log's
    record of that plan), the plan itself, so that a later read replays it without running
    the AI. Only for a policy that draws nothing from the battle's generator (greedy). A
    side's `stage` (its Switch and summon, made before the time ran out) stands: the AI
    plans its cards only."""
    plan = {"by": "timeout", "policy": TIMEOUT_POLICY, "version": game.timeout_policy_version}
    if stage is not None:
        plan["stage"] = stage
    if made is not None and policy_version(plan["policy"], plan["version"]).replays_from_record:
        plan.update(switch=made["switch"], summon=made["summon"], cards=made["cards"])
    return plan


class Replay:
    """The game replayed from its record, with the timed-out plans a read may add."""

    def __init__(self, game: Game, *, now=None):
        self.game = game
        self.plans = recorded_plans(game)
        self.stages = recorded_stages(game)
        self._staged: dict[int, Staged] = {}
        self.timeouts: list[tuple[int, int]] = []  # (round, side) planned by a timeout
        self.round_started_at = game.round_started_at
        self.played = self._play()
        if game.time_limit and now is not None:
            self._expire(now)

    def _play(self) -> Played:
        game = self.game
        if game.fork:
            # A fork (battles/engine/fork.py): its origin's record to the fork round, then
            # its own seed and plans.
            return play_fork(
                input_for(game.snapshot),
                game.fork,
                ai_policies(game),
                game.seed,
                self.plans,
                forfeit=forfeit_of(game),
                own_draws=game.own_draws,
                think=False,
            )
        return play(
            input_for(game.snapshot),
            ai_policies(game),
            game.seed,
            self.plans,
            forfeit=forfeit_of(game),
            own_draws=game.own_draws,
            think=False,
        )

    def _expire(self, now) -> None:
        limit = timedelta(seconds=self.game.time_limit)
        while self.played.needed is not None and self.round_started_at is not None:
            deadline = self.round_started_at + limit
            if deadline > now:
                break
            needed = self.played.needed
            if not needed.sides:
                break  # every player planned: the round waits for the AI's thinking alone
            for side in needed.sides:
                stage = self.stages.get((needed.round, side))
                self.plans[needed.round, side] = timeout_plan(self.game, stage=stage)
                self.timeouts.append((needed.round, side))
            self.played = self._play()
            # The next round's clock starts when this one ran out.
            self.round_started_at = deadline

    def staged(self, side: int) -> Staged | None:
        """The side's View after its stage for the round being planned drew (ruling 8), or
        None when it made none or is not planning. A probe of its own: the other side's
        plan this round never enters it (played.staged)."""
        needed = self.played.needed
        if needed is None or side not in needed.sides or (needed.round, side) in self.plans:
            return None
        stage = self.stages.get((needed.round, side))
        if stage is None:
            return None
        if side not in self._staged:
            game = self.game
            args = (ai_policies(game), game.seed, self.plans, needed.round, side, stage)
            if game.fork:
                probe = staged_fork(
                    input_for(game.snapshot),
                    game.fork,
                    *args,
                    forfeit=forfeit_of(game),
                    think=False,
                )
            else:
                probe = staged(
                    input_for(game.snapshot), *args, forfeit=forfeit_of(game), think=False
                )
            self._staged[side] = probe
        return self._staged[side]

    @property
    def needed(self):
        return self.played.needed

    @property
    def thinking(self) -> tuple[int, ...]:
        """The AI sides whose plan for the round being planned is still to be made."""
        needed = self.played.needed
        return needed.thinking if needed is not None else ()

    def ai_plans(self) -> dict[int, dict]:
        """The plans the AI makes for the round being planned where it is still thinking
        ({side: plan}; {} when it waits for a player's plan first): runs the Thinker, so a
        task's work (battles/play/thinking.py), never a request's."""
        needed = self.played.needed
        if needed is None or not needed.thinking:
            return {}
        game = self.game
        args = (input_for(game.snapshot),)
        rest = (ai_policies(game), game.seed, self.plans, needed.round)
        options = {"forfeit": forfeit_of(game), "own_draws": game.own_draws}
        if game.fork:
            made = ai_plans_fork(*args, game.fork, *rest, **options)
        else:
            made = engine_ai_plans(*args, *rest, **options)
        return {side: plan for side, plan in made.items() if side in needed.thinking}

    def deadline(self):
        if not self.game.time_limit or self.round_started_at is None:
            return None
        return self.round_started_at + timedelta(seconds=self.game.time_limit)


def replay_game(game: Game) -> Replay:
    return Replay(game, now=timezone.now() if game.time_limit else None)
