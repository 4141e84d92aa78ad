"""Rematch of a played game (issue 31.2): another played game with the same opponent kind,
never a battle of two AIs. Links that fill a start form; nothing starts until it is posted.

- Against the AI or hot-seat (the game's creator): the same two parties and AI level,
  with the same seed or a new one.
- A friend game (either player): a new invite with the reader's own party of this game,
  addressed to the same friend by name (challenge.py); the friend joins with a party of
  theirs.
- A table game (its GM): the same pairing at the same table.

Nobody chooses the seed of a game where a hand is hidden from another person (issue 31.1),
so friend and table rematches are a new seed.

Every other setting the start form takes goes into the link (issue 41.6: the time limit was
left out), so a rematch posted as it is filled is the same game again.
"""

from urllib.parse import urlencode

from django.urls import reverse

from . import services
from .models import Game, GameKind


def _new(query: dict) -> str:
    return f"{reverse('play_new')}?{urlencode(query)}"


def _settings(game: Game) -> dict:
    """What every kind of game was started with besides its parties, seed and AI."""
    out = {"time_limit": game.time_limit} if game.time_limit else {}
    if game.draw_at_limit and not game.table_id:
        out["draw_at_limit"] = "on"  # R9.6's choice; at a table the GM's rule decides
    return out


def links(game: Game, user) -> list[tuple[str, str]]:
    """(label, url) of each rematch this user may start; none for anyone else."""
    if not user.is_authenticated or game.party_a_id is None:
        return []
    if game.fork:
        return []  # a fork's parties may be anyone's: its battle offers "Play from here"
    if game.kind in (GameKind.AI, GameKind.HOTSEAT):
        if game.created_by_id != user.pk or game.party_b_id is None:
            return []
        query = {"party": game.party_a.code, "opponent": game.kind, "party_b": game.party_b.code}
        query |= _settings(game)
        if game.kind == GameKind.AI:
            query["policy_b"] = game.policy_b
        return [
            ("Rematch (same seed)", _new(query | {"seed": game.seed})),
            ("Rematch (new seed)", _new(query)),
        ]
    if game.kind == GameKind.FRIEND:
        side = services.side_of(game, user)
        party = (game.party_a, game.party_b)[side] if side is not None else None
        if party is None or party.owner_id != user.pk:
            return []
        query = {"party": party.code, "opponent": "friend"} | _settings(game)
        friend = game.user_of(1 - side)
        if friend is not None:
            query["challenge"] = friend.username  # the same friend, addressed
        return [("Rematch: invite your friend again", _new(query))]
    if game.kind == GameKind.TABLE and game.table is not None and game.table.gm_id == user.pk:
        if game.party_b_id is None:
            return []
        url = reverse("play_table_new", kwargs={"table_code": game.table.code})
        query = {"party_a": game.party_a.code, "party_b": game.party_b.code} | _settings(game)
        return [("Rematch: the same pairing", f"{url}?{urlencode(query)}")]
    return []
