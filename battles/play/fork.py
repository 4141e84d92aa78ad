"""Fork from any round (issue 32 §6), the site's part: "Play from here" on a battle.

Any battle the reader can see (the battle page's own access rule: a stored battle, or the
battle a finished played game stored) can be forked at any round it planned: a new played
game against the AI (either side, at a chosen level) or in hot-seat, starting from that
round's state with the draw piles shuffled anew by a seed the server draws. The engine part
is battles/engine/fork.py; this module checks who may, and writes the game in one
transaction. A played game in progress has no battle yet, so it cannot be forked (its
hands are hidden); a battle whose game is somehow not finished is refused too.

The fork's record is the game's `fork` (its round and its origin's replay record), its own
seed and its recorded plans: it replays without the origin's row.
"""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from ..engine.battle import ENGINE_VERSION
from ..engine.fork import ForkRefused, fork_record, origin_record, record_inputs, rounds_forkable
from ..engine.keyed import new_key
from ..engine.played_record import PLAYER, PLAYER_VERSION
from ..engine.policies import POLICIES
from ..engine.run import input_for
from ..models import Battle
from . import services
from .models import Game, GameKind, GameStatus, new_seed_salt
from .record import Replay

OPPONENTS = ("ai", "hotseat")


def refusal(battle: Battle) -> str | None:
    """Why this battle cannot be forked at all, in words; None when it can."""
    if battle.engine_version != ENGINE_VERSION:
        return (
            "This battle was fought under an older version of the rules, so it cannot be"
            " played on from a round."
        )
    # Only a played game's battle has a game (a side of it is "player"): ask only then.
    game = None
    if PLAYER in (battle.policy_a, battle.policy_b):
        game = Game.objects.filter(battle=battle).only("status").first()
    if game is not None and game.status != GameStatus.FINISHED:
        return "This game is still being played: it can be forked once it is over."
    return None


ROUND_1_ONLY = (
    "This battle's AI plans were not kept when it was played, so it can be played on from"
    " round 1 only: from a later round the server would have to think through every round"
    " before it again."
)


def round_1_only(battle: Battle) -> bool:
    """A stored battle whose AI thinks (lookahead) and whose plans were not kept when it was
    made (Battle.plans, kept since issue 39): replaying it to any round after the first
    would think again, for seconds, inside the fork's request."""
    if battle.plans or battle.log.get("plans"):  # a played game's log has its own
        return False
    ai, _, _ = record_inputs(origin_record(battle.log))
    return any(p is not None and p.thinks for p in ai)


def forkable_rounds(battle: Battle) -> list[int]:
    if refusal(battle):
        return []
    rounds = rounds_forkable(battle.log)
    # Round 1's planning comes before any AI plans: nothing to think again.
    return rounds[:1] if round_1_only(battle) else rounds


def fork_game(
    *,
    user,
    battle: Battle,
    round_no: int,
    opponent: str = "ai",
    side: int = 0,
    policy: str = "greedy",
) -> Game:
    """A played game from the start of `round_no` of `battle` (which the caller has checked
    `user` can see); ValidationError says why not, and nothing is stored.

    "ai": the user plans `side`, the AI (`policy`) the other; "hotseat": the user plans
    both. The seed is the server's, kept until the game ends (with it and the record, the
    rest of the game could be worked out)."""
    reason = refusal(battle)
    if reason:
        raise ValidationError(reason)
    if opponent not in OPPONENTS:
        raise ValidationError("Choose an opponent: the AI or hot-seat.")
    if side not in (0, 1):
        raise ValidationError("Choose the side you play: A or B.")
    if opponent == "ai" and policy not in POLICIES:
        raise ValidationError(f"The AI plays {', '.join(POLICIES)}.")
    if round_no not in rounds_forkable(battle.log):
        raise ValidationError(f"This battle has no round {round_no} to play from.")
    if round_no not in forkable_rounds(battle):
        raise ValidationError(ROUND_1_ONLY)
    # A thinking AI's plans, as they were made: the replay to the round reads them.
    origin = {**battle.log, "plans": battle.plans} if battle.plans else battle.log
    try:
        # The origin replayed once, to that round (or why not), its plans kept.
        fork = fork_record(
            origin, round_no, data=input_for(battle.snapshot), battle=str(battle.code)
        )
    except ForkRefused as e:
        raise ValidationError(str(e)) from None
    if opponent == "ai":
        policies = [PLAYER, PLAYER]
        policies[1 - side] = policy
        users = [None, None]
        users[side] = user
    else:
        policies, users = [PLAYER, PLAYER], [user, user]
    versions = [PLAYER_VERSION if p == PLAYER else POLICIES[p].version for p in policies]
    with transaction.atomic():
        # The cap on games in progress, as start_game counts it (under the same lock).
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        in_progress = Game.objects.filter(created_by=user).exclude(status=GameStatus.FINISHED)
        if in_progress.count() >= services.MAX_GAMES_IN_PROGRESS:
            raise ValidationError(
                f"You have {services.MAX_GAMES_IN_PROGRESS} games started and not finished:"
                " finish or forfeit one before starting another."
            )
        game = Game.objects.create(
            created_by=user,
            kind=GameKind.AI if opponent == "ai" else GameKind.HOTSEAT,
            user_a=users[0],
            user_b=users[1],
            party_a_id=battle.party_a_id,
            party_b_id=battle.party_b_id,
            name_a=battle.name_a,
            name_b=battle.name_b,
            snapshot=battle.snapshot,
            # Drawn by the server and kept until the end: the reader knows both hands at the
            # fork, never the new draw order or dice.
            seed=new_key(),  # 256 bits (issue 40.1), kept until the game ends
            seed_chosen=False,
            seed_salt=new_seed_salt(),
            policy_a=policies[0],
            policy_b=policies[1],
            policy_version_a=versions[0],
            policy_version_b=versions[1],
            timeout_policy_version=services._timeout_version(),
            fork_battle=battle,
            fork_round=round_no,
            fork=fork,
            own_draws=True,  # as every new game: a player may make the stage first (stage.py)
        )
        services.advance(game, Replay(game))
    services.game_changed(game)
    return game
