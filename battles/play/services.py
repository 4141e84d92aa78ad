"""Played games: every write, each one transaction (starting and joining, a plan, a
forfeit, sharing); each ends by bringing the game's row up to its record (rounds.py, which
also writes the plans of a time limit that ran out). The record they write is replayed by
record.py; what each side may see is state.py's, whose reads the pages also find here.
"""

import uuid

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from cards.models import Party, Table, TableMembership, visible_to

from ..engine.keyed import KEY_HEX, is_key, new_key
from ..engine.model import LIMIT_DECIDE, LIMIT_DRAW
from ..engine.plan_check import check_plan, check_staged
from ..engine.played_record import PLAYER, PLAYER_VERSION
from ..engine.policies import POLICIES
from ..models import new_share_token
from ..services import SEED_MAX, limit_rule
from ..snapshot import battle_snapshot
from .models import TIME_LIMITS, Game, GameStatus, PlayedPlan, new_seed_salt
from .record import TIMEOUT_POLICY, Replay, replay_game
from .rounds import (  # noqa: F401 (callers find the game's events here with the writes)
    advance,
    expire_time_limit,
    game_changed,
    game_channel,
    locked_row,
    queue_thinking,
    refresh,
    write_timeouts,
)
from .state import (  # noqa: F401 (the reads: the pages find them here with the writes)
    FORMAT,
    can_watch,
    check_side,
    game_log,
    game_state,
    my_games,
    seed_fields,
    side_of,
    side_state,
    sides_of,
    visible_log,
    watch_state,
)

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


SEED_REFUSED = (
    f"The seed is a whole number from 0 to {SEED_MAX}, or a finished game's key"
    f" ({KEY_HEX} hex digits)."
)


def chosen_seed(seed) -> int | str:
    """A seed a player typed, to replay a deal: a whole number (Mersenne Twister), or the key
    a finished game revealed (battles/engine/keyed.py)."""
    text = str(seed).strip().lower()
    if is_key(text):
        return text
    try:
        value = int(text)
    except ValueError:
        raise ValidationError(SEED_REFUSED) from None
    if not 0 <= value <= SEED_MAX:
        raise ValidationError(SEED_REFUSED)
    return value


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
    draw_at_limit: bool = False,
) -> Game:
    """A new game; ValidationError says why not (and nothing is stored). At round 30 the
    round limit decides (R9.6), unless `draw_at_limit` or, at a table, its GM's rule.

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
    # A drawn seed is a 256-bit key (issue 40.1): 32 bits could be searched from one
    # opening hand and one round's dice. A chosen one stays what the player typed.
    seed = chosen_seed(seed) if chosen else new_key()
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
            own_draws=True,  # ruling 8 for everyone (issue 31): a player may stage first
            draw_at_limit=limit_rule(table=table_obj, draw_at_limit=draw_at_limit) == LIMIT_DRAW,
        )
        if opponent == "friend":
            game.status = GameStatus.WAITING
            game.invite_token = new_share_token()
            game.save()
        else:
            game.snapshot = battle_snapshot(party, other, limit=_limit(game))
            game.save()
            advance(game, Replay(game))
    game_changed(game)
    return game


def _limit(game: Game) -> str:
    """The R9.6 rule a new game's snapshot carries (engine/model.py LIMITS)."""
    return LIMIT_DRAW if game.draw_at_limit else LIMIT_DECIDE


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
        game.snapshot = battle_snapshot(game.party_a, party, limit=_limit(game))
        game.status = GameStatus.PLANNING
        game.save()
        advance(game, Replay(game))
    game_changed(game)
    return game


def revoke_invite(game: Game) -> None:
    with transaction.atomic():
        Game.objects.filter(pk=game.pk).update(invite_token=None)
    game.invite_token = None
    game_changed(game)


def checked_plan(game: Game, side: int, plan):
    """The engine's check of a plan being made (battles.engine.plan_check.Checked: its totals,
    refusals and each card's cost this round), or None when that side is not planning.
    Stores nothing."""
    return _check(replay_game(game), side, plan)


def _check(replay: Replay, side: int, plan):
    """The engine's check of `side`'s plan for the round being planned: against its hand
    after its stage when it made one (ruling 8), else as planning began; None when that
    side is not planning."""
    needed = replay.needed
    if needed is None or side not in needed.sides:
        return None
    staged = replay.staged(side)
    if staged is not None:
        return check_staged(staged.view, replay.stages[needed.round, side], plan)
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
    check_side(game, side)
    with transaction.atomic():
        locked = locked_row(game)
        if locked.status == GameStatus.WAITING:
            raise WrongRound("The game has not started: the friend has not joined yet.")
        if locked.status == GameStatus.FINISHED:
            raise WrongRound("The game is over.")
        if not locked.is_player_side(side):
            raise PlanRefused(["The AI plans that side."])
        replay = Replay(locked, now=timezone.now() if locked.time_limit else None)
        write_timeouts(locked, replay)
        needed = replay.needed
        if needed is None:
            raise WrongRound("The game is over.")
        if round_no != needed.round:
            raise WrongRound(f"Round {needed.round} is being planned, not round {round_no}.")
        if side not in needed.sides:
            raise WrongRound(f"Side {'AB'[side]} has already planned round {needed.round}.")
        checked = _check(replay, side, plan)
        if not checked.ok:
            raise PlanRefused(*checked.refusals())
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
        if len(needed.sides) == 1 and not needed.thinking:
            replay.played.resume()  # the round resolves, from where the replay stopped
            advance(locked, replay)
        else:
            # The other side still plans: another player, or the AI thinking (a task makes
            # its plan and resolves the round: thinking.py; queued again here if the last
            # one failed, or if, without own draws, it waited for this plan).
            locked.save(update_fields=["updated"])
            queue_thinking(locked, replay)
    refresh(game, locked)
    game_changed(game)
    # The state from the replay at hand: a submission replays once, or twice when the
    # round resolves (the bench's figure at round 30).
    return side_state(game, side, replay)


def forfeit(game: Game, side: int) -> None:
    """The side gives up as the round being planned began: the other side wins."""
    check_side(game, side)
    with transaction.atomic():
        locked = locked_row(game)
        if locked.status != GameStatus.PLANNING:
            raise ValidationError("Only a game in progress can be forfeited.")
        replay = Replay(locked, now=timezone.now() if locked.time_limit else None)
        write_timeouts(locked, replay)
        if replay.needed is None:
            raise ValidationError("The game is over.")
        locked.forfeit_side = side
        locked.forfeit_round = replay.needed.round
        advance(locked, Replay(locked))
    refresh(game, locked)
    game_changed(game)


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
