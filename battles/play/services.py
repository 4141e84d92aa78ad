"""Played games: every write (each one transaction) and what each side may see.

The record is the game's snapshot, seed and policies and its recorded plans; every call
replays them with the engine (battles.engine.played, about a millisecond a battle), so no
engine state is stored and a restarted server carries on where it was.

Time limits (off, 60, 120 or 300 seconds a round): a read never writes (GET never changes
anything), so a read works out the timed-out plans lazily: when a round's deadline has
passed, the AI (`greedy`, at the version recorded on the game) plans for each side that did
not, and the round resolves, in what the read answers. `expire_time_limit` writes those
plans (by "timeout") and is called by every write on the game (a plan, a forfeit) before it
does anything else, so what a read showed is what is recorded. The plans written are the
same whichever comes first: they depend on the record alone.
"""

import uuid
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from cards.models import Party, Table, TableMembership, visible_to
from memeyori_site import live

from ..engine.battle import ENGINE_VERSION, LOG_FORMAT, side_records
from ..engine.field import FIELD, KO
from ..engine.model import ARCHON_SUMMON_COST
from ..engine.played import (
    ERRORS_SHOWN,
    PLAYER,
    PLAYER_VERSION,
    Played,
    capped,
    card_choices,
    check_plan,
    play,
    switch_options,
)
from ..engine.policies import POLICIES, policy_version
from ..engine.run import input_for
from ..engine.state import round_frames
from ..models import Battle, BattleVisibility, new_share_token
from ..services import SEED_MAX, random_seed
from ..snapshot import battle_snapshot
from .models import TIME_LIMITS, Game, GameStatus, PlanBy, PlayedPlan, new_seed_salt

FORMAT = "memeyori-play/1"
TIMEOUT_POLICY = "greedy"
OPPONENTS = ("ai", "friend", "hotseat", "table")
# Games one person may have started and not finished (waiting for a friend, or being
# played), so that nobody fills the database alone: a game is a few rows, but each is read
# and replayed on every visit to "My games".
MAX_GAMES_IN_PROGRESS = 20
SECRET_SEED = ("friend", "table")  # games whose seed the server draws and keeps (start_game)


class PlanRefused(Exception):  # noqa: N818 (the protocol's name)
    """The engine's rules refused a plan; nothing was stored."""

    def __init__(self, errors: list[str], by_card: dict[str, list[str]] | None = None):
        super().__init__("; ".join(errors))
        self.errors = errors
        self.by_card = by_card or {}


class WrongRound(Exception):  # noqa: N818
    """A plan for another round than the one being planned (HTTP 409)."""


# -- replaying the record --------------------------------------------------------------------
def _ai_policies(game: Game) -> tuple:
    return tuple(
        None if name == PLAYER else policy_version(name, version)
        for name, version in zip(game.policies, game.policy_versions, strict=True)
    )


def _recorded(game: Game) -> dict:
    plans = {}
    rows = PlayedPlan.objects.filter(game=game).values_list("round", "side", "plan", "by")
    for round_no, side, plan, by in rows:
        if by == PlanBy.TIMEOUT:
            plan["by"] = "timeout"
        plans[round_no, side] = plan
    return plans


def _forfeit(game: Game):
    if game.forfeit_side is None:
        return None
    return (game.forfeit_round, game.forfeit_side)


def _timeout_plan(game: Game) -> dict:
    return {"by": "timeout", "policy": TIMEOUT_POLICY, "version": game.timeout_policy_version}


class _Replay:
    """The game replayed from its record, with the timed-out plans a read may add."""

    def __init__(self, game: Game, *, now=None):
        self.game = game
        self.plans = _recorded(game)
        self.timeouts: list[tuple[int, int]] = []  # (round, side) planned by a timeout
        self.round_started_at = game.round_started_at
        self.played = self._play()
        if game.time_limit and now is not None:
            self._expire(now)

    def _play(self) -> Played:
        game = self.game
        return play(
            input_for(game.snapshot),
            _ai_policies(game),
            game.seed,
            self.plans,
            forfeit=_forfeit(game),
        )

    def _expire(self, now) -> None:
        limit = timedelta(seconds=self.game.time_limit)
        while self.played.needed is not None and self.round_started_at is not None:
            deadline = self.round_started_at + limit
            if deadline > now:
                break
            needed = self.played.needed
            for side in needed.sides:
                self.plans[needed.round, side] = _timeout_plan(self.game)
                self.timeouts.append((needed.round, side))
            self.played = self._play()
            # The next round's clock starts when this one ran out.
            self.round_started_at = deadline

    @property
    def needed(self):
        return self.played.needed

    def deadline(self):
        if not self.game.time_limit or self.round_started_at is None:
            return None
        return self.round_started_at + timedelta(seconds=self.game.time_limit)


def _replay(game: Game) -> _Replay:
    return _Replay(game, now=timezone.now() if game.time_limit else None)


# -- starting and joining --------------------------------------------------------------------
def _party(value, user=None) -> Party | None:
    if value is None or value == "":
        return None
    if isinstance(value, Party):
        return value
    try:
        code = uuid.UUID(str(value))
    except ValueError:
        return None
    return Party.objects.select_related("owner").filter(code=code).first()


def _check_fightable(party: Party) -> None:
    if not party.slots.exists():
        raise ValidationError(f"{party.name} needs at least one Memeyori to battle.")


def _timeout_version() -> int:
    return POLICIES[TIMEOUT_POLICY].version


def start_game(
    *,
    user,
    party,
    opponent: str,
    party_b=None,
    policy_b: str = "greedy",
    seed=None,
    time_limit=0,
    table=None,
    user_b=None,
) -> Game:
    """A new game; ValidationError says why not (and nothing is stored).

    - "ai": the user's own party against any party they can see, played by `policy_b`;
    - "friend": the user's own party; the friend joins with `join_game` by the invite;
    - "hotseat": the user's own party against any they can see, the user planning both;
    - "table": the table's GM pairs two members' parties (or a member's against the GM's);
      each party's owner plans its own side."""
    if opponent not in OPPONENTS:
        raise ValidationError("Choose an opponent: the AI, a friend, hot-seat or a table.")
    party = _party(party)
    if party is None:
        raise ValidationError("Choose one of your parties.")
    try:
        time_limit = int(time_limit or 0)
    except (TypeError, ValueError):
        time_limit = -1
    if time_limit not in TIME_LIMITS:
        raise ValidationError("The time limit is off, 1, 2 or 5 minutes a round.")
    # Where a person's hand is hidden from another person, nobody may know the deal: the
    # server draws the seed and keeps it until the game ends, showing a commitment to it.
    secret_seed = opponent in SECRET_SEED
    chosen = seed not in (None, "")
    if chosen and secret_seed:
        raise ValidationError(
            "A game against a friend or at a table gets a seed drawn by the server, shown"
            " when the game ends, so that nobody can know the other side's cards: leave"
            " the seed empty."
        )
    if not chosen:
        seed = random_seed()
    else:
        try:
            seed = int(seed)
        except (TypeError, ValueError):
            raise ValidationError(f"The seed is a whole number from 0 to {SEED_MAX}.") from None
        if not 0 <= seed <= SEED_MAX:
            raise ValidationError(f"The seed is a whole number from 0 to {SEED_MAX}.")
    visible = Party.objects.filter(visible_to(user))
    table_obj = None
    users = (user, None)
    policies = (PLAYER, PLAYER)
    other = None
    if opponent == "table":
        table_obj = table if isinstance(table, Table) else Table.objects.filter(code=table).first()
        if table_obj is None:
            raise ValidationError("Choose a table.")
        if table_obj.gm_id != user.pk:
            raise ValidationError("Only the table's GM pairs parties for a table game.")
        other = _party(party_b)
        if other is None:
            raise ValidationError("Choose the second party.")
        members = set(
            TableMembership.objects.filter(table=table_obj).values_list("user", flat=True)
        )
        for p in (party, other):
            if p.owner_id not in members:
                raise ValidationError(f"{p.name} belongs to someone who does not sit at the table.")
        if party.owner_id == other.owner_id and party.owner_id != user.pk:
            raise ValidationError("A table game pairs two members' parties, or one against yours.")
        users = (party.owner, other.owner)
    else:
        if party.owner_id != user.pk:
            raise ValidationError("You can only play with one of your own parties.")
        if opponent in ("ai", "hotseat"):
            other = _party(party_b)
            if other is None or not visible.filter(pk=other.pk).exists():
                raise ValidationError("Choose the other party: any party you can see.")
        if opponent == "ai":
            if policy_b not in POLICIES:
                raise ValidationError(f"The AI plays {', '.join(POLICIES)}.")
            policies = (PLAYER, policy_b)
            users = (user, None)
        elif opponent == "hotseat":
            users = (user, user)
    _check_fightable(party)
    if other is not None:
        _check_fightable(other)
    with transaction.atomic():
        # Under a lock on the starter's row, so two tabs cannot both take the last place.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        in_progress = Game.objects.filter(created_by=user).exclude(status=GameStatus.FINISHED)
        if in_progress.count() >= MAX_GAMES_IN_PROGRESS:
            raise ValidationError(
                f"You have {MAX_GAMES_IN_PROGRESS} games started and not finished: finish or"
                " forfeit one before starting another."
            )
        game = Game(
            created_by=user,
            kind=opponent,
            user_a=users[0],
            user_b=users[1],
            party_a=party,
            party_b=other,
            name_a=party.name,
            name_b=other.name if other else "",
            seed=seed,
            seed_chosen=chosen,
            seed_salt=new_seed_salt(),
            policy_a=policies[0],
            policy_b=policies[1],
            policy_version_a=PLAYER_VERSION,
            policy_version_b=(
                POLICIES[policies[1]].version if policies[1] != PLAYER else PLAYER_VERSION
            ),
            time_limit=time_limit,
            table=table_obj,
            timeout_policy_version=_timeout_version(),
        )
        if opponent == "friend":
            game.status = GameStatus.WAITING
            game.invite_token = new_share_token()
            game.save()
        else:
            game.snapshot = battle_snapshot(party, other)
            game.save()
            _advance(game, _Replay(game))
    game_changed(game)
    return game


def join_game(token: str, user, party) -> Game:
    """The friend joins with one of their own parties; the game starts. A used or revoked
    invite is refused the same way as an unknown one."""
    if not token:
        raise ValidationError("This invite no longer works.")
    party = _party(party)
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(invite_token=token).first()
        if game is None or game.status != GameStatus.WAITING:
            raise ValidationError("This invite no longer works: it was used or revoked.")
        if game.user_a_id == user.pk:
            raise ValidationError("You started this game; send the invite to your friend.")
        if party is None or party.owner_id != user.pk:
            raise ValidationError("Choose one of your own parties.")
        _check_fightable(party)
        game.user_b = user
        game.party_b = party
        game.name_b = party.name
        game.invite_token = None
        game.snapshot = battle_snapshot(game.party_a, party)
        game.status = GameStatus.PLANNING
        game.save()
        _advance(game, _Replay(game))
    game_changed(game)
    return game


def revoke_invite(game: Game) -> None:
    with transaction.atomic():
        Game.objects.filter(pk=game.pk).update(invite_token=None)
    game.invite_token = None
    game_changed(game)


# -- the round -----------------------------------------------------------------------------
# What _advance and its callers (a timeout, a forfeit) change on the game's row: saving
# only these leaves the snapshot (the row's biggest field, never changed after the start)
# unwritten each round.
ADVANCED = ["round", "round_started_at", "status", "forfeit_side", "forfeit_round", "updated"]


def _record_ai_plans(game: Game, replay: _Replay) -> None:
    """Store each plan the AI made in this replay and not yet stored, so that no later read
    runs the AI again: the recorded plan replays with the engine alone. Only for a policy
    whose dice are its own or none (Policy.replays_from_record); an older one, which drew
    from the battle's generator, is run again on each replay, as it always was."""
    ai = _ai_policies(game)
    for rec in replay.played.made:
        key = (rec["round"], rec["side"])
        if rec["by"] != "ai" or key in replay.plans or not ai[rec["side"]].replays_from_record:
            continue
        plan = {"switch": rec["switch"], "summon": rec["summon"], "cards": rec["cards"]}
        PlayedPlan.objects.create(game=game, round=key[0], side=key[1], plan=plan, by=PlanBy.AI)
        replay.plans[key] = plan


def _advance(game: Game, replay: _Replay) -> None:
    """Record the AI's new plans, then bring the row up to what the replay says: the round
    being planned, or the end (an ordinary stored Battle, linked from the game). Inside the
    caller's transaction."""
    _record_ai_plans(game, replay)
    played = replay.played
    now = timezone.now()
    if played.needed is not None:
        if played.needed.round != game.round:
            game.round = played.needed.round
            game.round_started_at = now
        game.status = GameStatus.PLANNING
        game.save(update_fields=ADVANCED)
        return
    log = played.log
    game.status = GameStatus.FINISHED
    game.winner = log["result"]["winner"]
    game.round = log["result"]["rounds"]
    # By key: the owner and the parties are not loaded for this.
    game.battle = Battle.objects.create(
        owner_id=game.created_by_id,
        party_a_id=game.party_a_id,
        party_b_id=game.party_b_id,
        name_a=game.name_a,
        name_b=game.name_b,
        snapshot=game.snapshot,
        seed=game.seed,
        policy_a=game.policy_a,
        policy_b=game.policy_b,
        log=log,
        engine_version=ENGINE_VERSION,
        frames=round_frames(log),
        winner=log["result"]["winner"],
        rounds=log["result"]["rounds"],
        visibility=BattleVisibility.PRIVATE,
        table_id=game.table_id,
    )
    game.save(update_fields=[*ADVANCED, "winner", "battle"])


def _write_timeouts(game: Game, replay: _Replay) -> None:
    for round_no, side in replay.timeouts:
        PlayedPlan.objects.create(
            game=game, round=round_no, side=side, plan=_timeout_plan(game), by=PlanBy.TIMEOUT
        )
    if replay.timeouts:
        game.round_started_at = replay.round_started_at
        needed = replay.needed
        if needed is not None:
            game.round = needed.round
        _advance(game, replay)


def _locked(game: Game) -> Game:
    return Game.objects.select_for_update().get(pk=game.pk)


def expire_time_limit(game: Game) -> bool:
    """Record the plans the AI made for sides whose time ran out (by "timeout") and resolve
    their rounds. A write: call it from POSTs (every write here does). True if it did."""
    if not game.time_limit or game.status != GameStatus.PLANNING:
        return False
    with transaction.atomic():
        locked = _locked(game)
        replay = _Replay(locked, now=timezone.now())
        if not replay.timeouts:
            return False
        _write_timeouts(locked, replay)
    _refresh(game, locked)
    game_changed(game)
    return True


def _refresh(game: Game, locked: Game) -> None:
    for f in (
        "round",
        "status",
        "winner",
        "battle_id",
        "round_started_at",
        "forfeit_side",
        "forfeit_round",
        "updated",
    ):
        setattr(game, f, getattr(locked, f))
    if locked.battle_id is not None and Game.battle.is_cached(locked):
        game.battle = locked.battle


def _check_side(game: Game, side) -> int:
    if side not in (0, 1):
        raise ValidationError("The side is 0 (A) or 1 (B).")
    return side


def checked_plan(game: Game, side: int, plan):
    """The engine's check of a plan being made (battles.engine.played.Checked: its totals,
    refusals and each card's cost this round), or None when that side is not planning.
    Stores nothing."""
    needed = _replay(game).needed
    if needed is None or side not in needed.sides:
        return None
    return check_plan(needed.views[side], plan)


def preview_plan(game: Game, side: int, plan) -> dict:
    """The running totals of a plan being made, and what the rules refuse; stores nothing."""
    return plan_totals(checked_plan(game, side, plan))


def plan_totals(checked) -> dict:
    """A plan check's running totals and refusals, as the preview answers them."""
    if checked is None:
        return {"mp_left": 0, "resonance_left": 0, "errors": [], "by_card": {}}
    errors, by_card = checked.refusals()
    return {
        "mp_left": checked.mp_left,
        "resonance_left": checked.resonance_left,
        "errors": errors,
        "by_card": by_card,
    }


def submit_plan(game: Game, side: int, round_no, plan) -> dict:
    """Record a side's plan for the round being planned; when both plans are in, the round
    resolves. Exactly once: the game's row is locked, and the database holds one plan per
    (game, round, side). PlanRefused (nothing stored) or WrongRound (HTTP 409)."""
    _check_side(game, side)
    with transaction.atomic():
        locked = _locked(game)
        if locked.status == GameStatus.WAITING:
            raise WrongRound("The game has not started: the friend has not joined yet.")
        if locked.status == GameStatus.FINISHED:
            raise WrongRound("The game is over.")
        if not locked.is_player_side(side):
            raise PlanRefused(["The AI plans that side."])
        replay = _Replay(locked, now=timezone.now() if locked.time_limit else None)
        _write_timeouts(locked, replay)
        needed = replay.needed
        if needed is None:
            raise WrongRound("The game is over.")
        if round_no != needed.round:
            raise WrongRound(f"Round {needed.round} is being planned, not round {round_no}.")
        if side not in needed.sides:
            raise WrongRound(f"Side {'AB'[side]} has already planned round {needed.round}.")
        checked = check_plan(needed.views[side], plan)
        if not checked.ok:
            raise PlanRefused(
                capped(checked.errors), dict(list(checked.by_card.items())[:ERRORS_SHOWN])
            )
        try:
            with transaction.atomic():
                PlayedPlan.objects.create(
                    game=locked, round=needed.round, side=side, plan=checked.plan
                )
        except IntegrityError:
            raise WrongRound(
                f"Side {'AB'[side]} has already planned round {needed.round}."
            ) from None
        replay.plans[needed.round, side] = checked.plan
        if len(needed.sides) == 1:
            replay.played.resume()  # the round resolves, from where the replay stopped
            _advance(locked, replay)
        else:
            locked.save(update_fields=["updated"])
    _refresh(game, locked)
    game_changed(game)
    # The state from the replay at hand: a submission replays once, or twice when the
    # round resolves (the bench's figure at round 30).
    return _state(game, side, replay)


def forfeit(game: Game, side: int) -> None:
    """The side gives up as the round being planned began: the other side wins."""
    _check_side(game, side)
    with transaction.atomic():
        locked = _locked(game)
        if locked.status != GameStatus.PLANNING:
            raise ValidationError("Only a game in progress can be forfeited.")
        replay = _Replay(locked, now=timezone.now() if locked.time_limit else None)
        _write_timeouts(locked, replay)
        if replay.needed is None:
            raise ValidationError("The game is over.")
        locked.forfeit_side = side
        locked.forfeit_round = replay.needed.round
        _advance(locked, _Replay(locked))
    _refresh(game, locked)
    game_changed(game)


# -- who is who ----------------------------------------------------------------------------
def side_of(game: Game, user) -> int | None:
    """The side `user` plans: 0 or 1; None for anyone else. The hot-seat owner holds both
    sides (this answers 0; the page passes ?side=)."""
    if user is None or not user.is_authenticated:
        return None
    if game.user_a_id == user.pk and game.is_player_side(0):
        return 0
    if game.user_b_id == user.pk and game.is_player_side(1):
        return 1
    return None


def sides_of(game: Game, user) -> tuple[int, ...]:
    """Every side `user` plans: both for the hot-seat owner."""
    if user is None or not user.is_authenticated:
        return ()
    return tuple(
        s
        for s in (0, 1)
        if game.user_of(s) is not None and game.user_of(s).pk == user.pk and game.is_player_side(s)
    )


def can_watch(game: Game, user, share_token=None) -> bool:
    """Its players; the members of a table game's table; whoever holds its live share link."""
    if share_token and game.share_token and share_token == game.share_token:
        return True
    if user is None or not user.is_authenticated:
        return False
    if user.pk in (game.user_a_id, game.user_b_id, game.created_by_id):
        return True
    if game.table_id is not None:
        return TableMembership.objects.filter(table_id=game.table_id, user=user).exists()
    return False


def share_game(game: Game) -> str:
    with transaction.atomic():
        token = new_share_token()
        Game.objects.filter(pk=game.pk).update(share_token=token)
    game.share_token = token
    game_changed(game)
    return token


def unshare_game(game: Game) -> None:
    with transaction.atomic():
        Game.objects.filter(pk=game.pk).update(share_token=None)
    game.share_token = None
    game_changed(game)


def my_games(user) -> dict:
    """The user's games: waiting for them, waiting for the other side, and finished."""
    games = Game.objects.filter(Q(user_a=user) | Q(user_b=user) | Q(created_by=user)).order_by(
        "-updated", "-id"
    )
    out = {"your_turn": [], "waiting": [], "finished": []}
    for game in games:
        if game.status == GameStatus.FINISHED:
            out["finished"].append(game)
            continue
        if game.status == GameStatus.WAITING:
            out["waiting"].append(game)
            continue
        mine = sides_of(game, user)
        planned = set(
            PlayedPlan.objects.filter(game=game, round=game.round).values_list("side", flat=True)
        )
        if any(s not in planned for s in mine):
            out["your_turn"].append(game)
        else:
            out["waiting"].append(game)
    return out


def game_changed(game: Game) -> None:
    """Called after every change to a game (once its transaction commits, for listeners).
    The live pages listen on `game:<code>`: the event says only that it changed, and each
    page then asks for its own side's view (battles/play/views.py, memeyori_site/live.py)."""
    live.publish(game_channel(game.code))


def game_channel(code: str) -> str:
    return f"game:{code}"


# -- what a side sees ----------------------------------------------------------------------
def _fighter_row(f) -> dict:
    spec = f.spec
    return {
        "id": f.id,
        "name": spec.name,
        "kind": spec.kind,
        "type": spec.type,
        "rank": spec.rank,
        "hp": f.hp,
        "max_hp": spec.max_hp,
        "status": f.status,
    }


def _battle_url(game: Game) -> str:
    if Game.battle.is_cached(game):
        return reverse("battle", kwargs={"code": game.battle.code})
    # Only the code: a finished game's battle row carries the whole log.
    code = Battle.objects.filter(pk=game.battle_id).values_list("code", flat=True).first()
    return reverse("battle", kwargs={"code": code})


def _empty_state(game: Game, side: int) -> dict:
    return {
        "format": FORMAT,
        "code": game.code,
        "kind": game.kind,
        "round": game.round,
        "side": side,
        "names": [game.name_a, game.name_b],
        "policies": list(game.policies),
        "status": "waiting",
        "hand": [],
        "mp": 0,
        "resonance": 0,
        "switches": [],
        "can_summon": False,
        "summon": None,
        "field": [],
        "stored": [],
        "enemy_field": [],
        "enemy_hand_size": 0,
        "enemy_resonance": 0,
        "plan": None,
        "waiting_for": [],
        "deadline": None,
        "winner": None,
        "forfeit": None,
        "battle": None,
        **seed_fields(game),
    }


def seed_fields(game: Game) -> dict:
    """What may be said of the seed: whether a player chose it, the commitment to a drawn
    one from the first round, and the seed with its salt once it may be shown."""
    revealed = game.seed_revealed
    return {
        "seed_chosen": game.seed_chosen,
        "seed_commitment": game.seed_commitment,
        "seed": game.seed if revealed else None,
        "seed_salt": game.seed_salt if revealed and game.seed_salt else None,
    }


def game_state(game: Game, side: int) -> dict:
    """The `memeyori-play/1` state for one side: its own hand and plan, never the other
    side's (only how many cards it holds)."""
    _check_side(game, side)
    state = _empty_state(game, side)
    if game.status == GameStatus.WAITING:
        state["waiting_for"] = [1]
        return state
    return _state(game, side, _replay(game), state)


def _state(game: Game, side: int, replay: _Replay, state: dict | None = None) -> dict:
    if state is None:
        state = _empty_state(game, side)
    played = replay.played
    if played.needed is None:
        log = played.log
        state["status"] = "finished"
        state["round"] = log["result"]["rounds"]
        state["winner"] = log["result"]["winner"]
        state["forfeit"] = log.get("forfeit")
        if game.battle_id is not None:
            state["battle"] = _battle_url(game)
        engine = played.engine
        me, enemy = engine.sides[side], engine.sides[1 - side]
        state["field"] = [_fighter_row(f) for f in me.field()]
        state["enemy_field"] = [_fighter_row(f) for f in enemy.field()]
        return state
    needed = played.needed
    view = needed.views[side]
    engine = needed.engine
    me, enemy = engine.sides[side], engine.sides[1 - side]
    state["round"] = needed.round
    # The sides still to plan: the replay stopped for these, less a plan just recorded.
    missing = [s for s in needed.sides if (needed.round, s) not in replay.plans]
    state["status"] = "planning" if side in missing else "waiting"
    state["waiting_for"] = missing
    state["hand"] = card_choices(view)
    state["mp"] = me.mp
    state["resonance"] = me.resonance
    state["switches"] = switch_options(view)
    state["can_summon"] = view.can_summon()
    if me.archon is not None:
        state["summon"] = {
            "id": me.archon.id,
            "name": me.archon.spec.name,
            "status": me.archon.status,
            "cost": ARCHON_SUMMON_COST,
            "upkeep": 1,  # R9.1: 1 Resonance at each round start while on the field
        }
    state["field"] = [_fighter_row(f) for f in me.field()]
    state["stored"] = [_fighter_row(f) for f in me.roster if f.status not in (FIELD,)]
    state["enemy_field"] = [_fighter_row(f) for f in enemy.field()]
    state["enemy_hand_size"] = engine.shown[1 - side].hand
    state["enemy_resonance"] = engine.shown[1 - side].resonance
    own = replay.plans.get((needed.round, side))
    state["plan"] = own
    deadline = replay.deadline()
    state["deadline"] = deadline.isoformat() if deadline else None
    for f in state["stored"]:
        f["knocked_out"] = f["status"] == KO or f["hp"] <= 0
    return state


def watch_state(game: Game) -> dict:
    """The state as a watcher sees it (a table member, a share link): both fields and how
    many cards each side holds, never a hand or a plan of this round."""
    state = {
        "format": FORMAT,
        "code": game.code,
        "kind": game.kind,
        "round": game.round,
        "side": None,
        "names": [game.name_a, game.name_b],
        "policies": list(game.policies),
        "status": "waiting" if game.status == GameStatus.WAITING else game.status,
        "fields": [[], []],
        "hand_sizes": [0, 0],
        "resonance": [0, 0],
        "waiting_for": [],
        "winner": None,
        "forfeit": None,
        "battle": None,
        **seed_fields(game),
    }
    if game.status == GameStatus.WAITING:
        return state
    played = _replay(game).played
    engine = played.engine
    state["fields"] = [[_fighter_row(f) for f in side.field()] for side in engine.sides]
    if played.needed is None:
        log = played.log
        state.update(
            status="finished",
            round=log["result"]["rounds"],
            winner=log["result"]["winner"],
            forfeit=log.get("forfeit"),
        )
        if game.battle_id is not None:
            state["battle"] = _battle_url(game)
        return state
    state["round"] = played.needed.round
    state["status"] = "planning"
    state["waiting_for"] = list(played.needed.sides)
    state["hand_sizes"] = [shown.hand for shown in engine.shown]
    state["resonance"] = [shown.resonance for shown in engine.shown]
    return state


def game_log(game: Game) -> tuple[dict, int]:
    """The game's log so far and how many rounds of it have resolved, for the viewer: the
    finished log, or the events up to the round being planned (its start already drawn:
    the pages show only resolved rounds, and only counts of the other side's draws)."""
    if game.status == GameStatus.WAITING or not game.snapshot:
        return {"sides": [], "events": [], "result": None}, 0
    played = _replay(game).played
    if played.needed is None:
        return played.log, played.log["result"]["rounds"]
    log = {
        "sides": side_records(input_for(game.snapshot)),
        "events": played.engine.events,
        "result": None,
    }
    return log, played.needed.round - 1


def visible_log(game: Game, side: int | None) -> dict | None:
    """The rounds played so far as a log the viewer can step through (state.round_frames
    reads it), as `side` may see them (None: a watcher): the other side's draws show how
    many cards, never which (`cards` empty, `count`), and there is no seed (with it and
    the plans the rest could be worked out). None before the game has started."""
    if game.status == GameStatus.WAITING:
        return None
    log, rounds = game_log(game)
    events = [
        {**e, "cards": [], "count": len(e["cards"])}
        if e["kind"] == "draw" and e["side"] != side
        else e
        for e in log["events"]
    ]
    return {
        "format": LOG_FORMAT,
        "seed": None,
        "policies": list(game.policies),
        "sides": log["sides"],
        "events": events,
        "result": log["result"] or {"winner": None, "rounds": rounds, "growth": []},
    }
