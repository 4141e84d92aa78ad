"""Challenging a user by name (issue 31.4): a friend game's invite, addressed. The game's
creator names a user; the game then shows in that user's "My games" with a way to join,
and its invite link works for that user alone. Nobody else learns of it.

The invited user is the waiting game's `user_b` (join_game sets the same field to whoever
joins, so the record of a played game is unchanged).
"""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from . import services
from .models import Game, GameKind, GameStatus


def challenge(game: Game, by, username: str):
    """Address the friend game's invite to `username`; the user. ValidationError, nothing
    changed, for a game that is not `by`'s open invite or a name nobody has."""
    username = (username or "").strip()
    with transaction.atomic():
        locked = Game.objects.select_for_update().get(pk=game.pk)
        if (
            locked.kind != GameKind.FRIEND
            or locked.created_by_id != by.pk
            or locked.status != GameStatus.WAITING
            or not locked.invite_token
        ):
            raise ValidationError("Only the open invite of your own friend game can be sent.")
        user = get_user_model().objects.filter(username__iexact=username).first()
        if user is None or not user.is_active:
            raise ValidationError(f"Nobody here is called {username!r}: check the spelling.")
        if user.pk == by.pk:
            raise ValidationError("That is you: challenge someone else.")
        locked.user_b = user
        locked.save(update_fields=["user_b", "updated"])
    game.user_b, game.updated = user, locked.updated
    services.game_changed(game)
    return user


def addressed_to_other(game: Game, user) -> bool:
    """Whether the game's invite is addressed to someone other than `user`."""
    return game.user_b_id is not None and game.user_b_id != user.pk


def is_challenged(game: Game, user) -> bool:
    """Whether `user` is challenged to join this game (and has not yet)."""
    return (
        game.status == GameStatus.WAITING
        and bool(game.invite_token)
        and game.user_b_id == user.pk
        and game.created_by_id != user.pk
    )


def split_challenges(games: dict, user) -> dict:
    """My games with the games `user` is challenged to in a list of their own."""
    waiting = games["waiting"]
    return games | {
        "challenges": [g for g in waiting if is_challenged(g, user)],
        "waiting": [g for g in waiting if g.user_b_id != user.pk or g.status != GameStatus.WAITING],
    }
