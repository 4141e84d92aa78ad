"""What every play page shares: finding the game, the sides the reader plays (whose eyes
the page is for), and the signed holder that a live URL (poll, stream) names."""

import hashlib

from django.contrib.auth import get_user_model
from django.core import signing
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse

from ...choices import level_name
from .. import clock, present, services, thinking
from ..models import Game, GameKind, GameStatus

SIDES = (0, 1)


def game_or_404(code) -> Game:
    return get_object_or_404(
        Game.objects.select_related("user_a", "user_b", "created_by", "table", "battle"),
        code=code,
    )


def player_game(request, code) -> tuple[Game, list[int]]:
    """A game and the sides this user plays (both for hot-seat); a 404 for anyone else,
    spectators included (they watch through watch/ and the share link)."""
    game = game_or_404(code)
    sides = user_sides(game, request.user)
    if not sides:
        raise Http404
    return game, sides


def user_sides(game: Game, user) -> list[int]:
    if not user.is_authenticated:
        return []
    if game.kind == GameKind.HOTSEAT:
        return list(SIDES) if game.created_by_id == user.pk else []
    side = services.side_of(game, user)
    return [] if side is None else [side]


def hidden_sides(sides: list[int]) -> set[int]:
    """The sides whose draws a reader who plays `sides` may not read."""
    return set(SIDES) - set(sides)


def common_context(request, game: Game, sides: list[int]) -> dict:
    return {
        "game": game,
        "sides": sides,
        "deadline": clock.deadline(game),
        "live": live_urls(request, game, shared=False),
        "is_creator": request.user.pk == game.created_by_id,
    }


def page_context(request, game, sides, side, state) -> dict:
    names = state["names"]
    types = (game.snapshot or {}).get("types", {})
    context = common_context(request, game, sides) | {
        "side": side,
        "state": state,
        "my_name": names[side],
        "their_name": names[1 - side] or "your friend",
    }
    # The AI has yet to make its plan for this round (a task makes it: thinking.py).
    context["ai_thinking"] = (1 - side) in state.get("thinking", [])
    if context["ai_thinking"]:
        context["no_worker"] = thinking.worker_missing()
        context["ai_level"] = level_name(game.policies[1 - side])
    if game.snapshot:
        context["mine"], context["enemy"] = present.field_sides(state, types)
    return context


def which_side(request, game: Game, sides: list[int], state_of) -> int:
    """The side this page is for. Hot-seat: ?side=, else the side that plans next."""
    if len(sides) == 1:
        return sides[0]
    asked = request.GET.get("side") or request.POST.get("side")
    if asked in ("0", "1"):
        return int(asked)
    for side in sides:
        if state_of(side)["status"] == "planning":
            return side
    return sides[0]


def watch_url(game: Game, round_no) -> str:
    url = reverse("play_watch", kwargs={"code": game.code})
    return f"{url}?round={round_no}" if round_no is not None else url


HOLDER_SALT = "battles.play.holder"


signer = signing.Signer(salt=HOLDER_SALT)


def share_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()[:24]


def holder(request, game: Game, *, shared: bool) -> str:
    if shared:
        return "s" + share_digest(game.share_token or "")
    return f"u{request.user.pk}" if request.user.is_authenticated else "a"


def live_urls(request, game: Game, *, shared: bool) -> dict:
    if game.status == GameStatus.FINISHED:
        return {}
    query = "?as=" + signer.sign(holder(request, game, shared=shared))
    return {
        "stream": reverse("play_stream", kwargs={"code": game.code}) + query,
        "poll": reverse("play_status", kwargs={"code": game.code}) + query,
    }


def holder_may_watch(game: Game, signed: str) -> bool:
    try:
        holder = signer.unsign(signed)
    except signing.BadSignature:
        return False
    if holder.startswith("s"):
        token = game.share_token
        return bool(token) and holder == "s" + share_digest(token)
    if holder.startswith("u") and holder[1:].isdigit():
        user = get_user_model().objects.filter(pk=int(holder[1:])).first()
        return user is not None and (bool(user_sides(game, user)) or services.can_watch(game, user))
    return False


def version(game: Game) -> str:
    """Changes whenever the game does (services.game_changed saves it)."""
    return f'"{game.round}-{game.status}-{int(game.updated.timestamp() * 1000)}"'
