"""What each side of a played game may see (a side's own hand and plan, never the other's;
a watcher no hand and no plan of the round being planned), and who is who."""

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.urls import reverse

from cards.models import TableMembership

from ..engine.battle import LOG_FORMAT, side_records
from ..engine.field import FIELD, KO
from ..engine.model import ARCHON_SUMMON_COST
from ..engine.plan_choices import card_choices, switch_options
from ..engine.run import input_for
from ..models import Battle
from ..viewer import limit_words
from .models import Game, GameStatus, PlayedPlan
from .record import Replay, replay_game

FORMAT = "memeyori-play/1"


def check_side(game: Game, side) -> int:
    if side not in (0, 1):
        raise ValidationError("The side is 0 (A) or 1 (B).")
    return side


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
        "stage": None,
        "can_stage": False,
        "waiting_for": [],
        "thinking": [],
        "deadline": None,
        "winner": None,
        "forfeit": None,
        "battle": None,
        **seed_fields(game),
        "fork": fork_fields(game),
    }


def fork_fields(game: Game) -> dict | None:
    """Where a fork came from ("Play from here"): the round and the battle's page. Its
    record names only the battle (a played game's own page is its players' alone)."""
    if not game.fork:
        return None
    battle = game.fork.get("battle")
    return {
        "round": game.fork_round,
        "battle": reverse("battle", kwargs={"code": battle}) if battle else None,
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
    check_side(game, side)
    state = _empty_state(game, side)
    if game.status == GameStatus.WAITING:
        state["waiting_for"] = [1]
        return state
    return side_state(game, side, replay_game(game), state)


def side_state(game: Game, side: int, replay: Replay, state: dict | None = None) -> dict:
    if state is None:
        state = _empty_state(game, side)
    played = replay.played
    if played.needed is None:
        log = played.log
        state["status"] = "finished"
        state["round"] = log["result"]["rounds"]
        state["winner"] = log["result"]["winner"]
        state["forfeit"] = log.get("forfeit")
        # Why it was won (or drawn) at the round limit (R9.6), or "".
        state["limit_words"] = limit_words(log, [s["name"] for s in log["sides"]])
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
    # The AI sides still thinking about this round (a task makes their plan: thinking.py):
    # only that the plan is not made yet, never anything of it.
    state["thinking"] = list(needed.thinking)
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
    # Ruling 8: a game with own draws offers the Switch and summon as a step of their own.
    state["can_stage"] = game.own_draws and side in missing
    if state["can_stage"]:
        _staged_state(state, replay, side)
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


def _staged_state(state: dict, replay: Replay, side: int) -> None:
    """After its stage (ruling 8), the side plans from where its Switch and summon left
    it: the hand with what they drew (`stage.drawn`), its Resonance after the summon, its
    field with the newcomers. Only this side's own: the probe never held the other side's
    plan (Replay.staged), and the enemy's part of the state stays as planning began."""
    staged = replay.staged(side)
    if staged is None:
        return
    view = staged.view
    me = view.side
    stage = replay.stages[view.round, side]
    state["can_stage"] = False
    state["stage"] = {"switch": stage["switch"], "summon": stage["summon"], "drawn": staged.drawn}
    state["hand"] = card_choices(view)
    state["mp"] = me.mp
    state["resonance"] = me.resonance
    state["switches"] = []
    state["can_summon"] = not stage["summon"] and view.can_summon()
    if me.archon is not None:
        state["summon"]["status"] = me.archon.status
    state["field"] = [_fighter_row(f) for f in me.field()]
    state["stored"] = [_fighter_row(f) for f in me.roster if f.status not in (FIELD,)]


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
        "thinking": [],
        "winner": None,
        "forfeit": None,
        "battle": None,
        **seed_fields(game),
        "fork": fork_fields(game),
    }
    if game.status == GameStatus.WAITING:
        return state
    played = replay_game(game).played
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
    state["thinking"] = list(played.needed.thinking)
    state["hand_sizes"] = [shown.hand for shown in engine.shown]
    state["resonance"] = [shown.resonance for shown in engine.shown]
    return state


def game_log(game: Game) -> tuple[dict, int]:
    """The game's log so far and how many rounds of it have resolved, for the viewer: the
    finished log, or the events up to the round being planned (its start already drawn:
    the pages show only resolved rounds, and only counts of the other side's draws)."""
    if game.status == GameStatus.WAITING or not game.snapshot:
        return {"sides": [], "events": [], "result": None}, 0
    played = replay_game(game).played
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
