"""Presenter mode on a played game (issue 17): someone steps through the resolved rounds
of a game, in progress or finished, and the group follows, as with a stored battle
(battles.services' presentations; the same model, poll and stream).

Who may present: whoever may watch the game and is signed in (its players, its creator, the
members of its table). Who leads (may take over or stop another's presentation): the
table's GM, or away from a table the game's creator; as for a battle.

What followers see is the game as a spectator sees it, whoever presents: only resolved
rounds, and both sides' draws as counts. A player presenting their own game shows the
group nothing of their hand that the other side could not see (R9.2).
"""

from django.core.exceptions import ValidationError
from django.template.loader import render_to_string
from django.urls import reverse

from battles.models import Presentation
from battles.services import move_presenting, start_presenting, stop_presenting

from . import services, watch
from .models import Game, GameStatus

EVERY_SIDE = {0, 1}


def channel(game: Game) -> str:
    """The live channel of a game's presentation: apart from the game's own (which says
    a round resolved), so a presenter's steps do not wake every waiting player."""
    return f"game-presented:{game.code}"


def lead(game: Game) -> int:
    return game.table.gm_id if game.table_id else game.created_by_id


def may_present(game: Game, user) -> bool:
    return (
        user.is_authenticated
        and game.status != GameStatus.WAITING
        and services.can_watch(game, user)
    )


def may_take_over(game: Game, presentation: Presentation | None, user) -> bool:
    """Whether `user` may start presenting now (the control shows only then, issue 21.3)."""
    if not may_present(game, user):
        return False
    return presentation is None or user.pk in (presentation.presenter_id, lead(game))


def current(game: Game) -> Presentation | None:
    return Presentation.objects.filter(game=game).select_related("presenter").first()


def watch_url(game: Game) -> str:
    return reverse("play_watch", kwargs={"code": game.code})


def shared_url(game: Game) -> str:
    if not game.share_token:
        return ""
    return reverse("play_shared", kwargs={"token": game.share_token})


def presented_step(game: Game, round_no, step) -> tuple[int, int, str, str]:
    """The step clamped to the resolved rounds, and its viewer as followers see it: for
    members (its links go to the watch page) and for the share link's visitors."""
    log, resolved = services.game_log(game)
    types = (game.snapshot or {}).get("types", {})

    def html(base_url: str) -> tuple[dict, str]:
        context = watch.viewer_context(
            log=log, types=types, resolved=resolved, hidden=EVERY_SIDE, base_url=base_url,
            round_no=round_no, step=step,
        )  # fmt: skip
        return context["view"], render_to_string("battles/viewer.html#viewer", context)

    view, members = html(watch_url(game))
    shared = shared_url(game)
    visitors = html(shared)[1] if shared else ""
    return view["round"], view["step"], members, visitors


def start(game: Game, *, by, round_no, step) -> Presentation:
    if not may_present(game, by):
        raise ValidationError("Only the game's players and its table's members can present it.")
    round_no, step, html, html_shared = presented_step(game, round_no, step)
    return start_presenting(
        {"game": game}, lead=lead(game), channel=channel(game), by=by, round_no=round_no,
        step=step, html=html, html_shared=html_shared,
    )  # fmt: skip


def move(game: Game, *, by, round_no, step) -> None:
    round_no, step, html, html_shared = presented_step(game, round_no, step)
    move_presenting(
        {"game": game}, channel=channel(game), by=by, round_no=round_no, step=step, html=html,
        html_shared=html_shared,
    )  # fmt: skip


def stop(game: Game, *, by) -> None:
    stop_presenting({"game": game}, lead=lead(game), channel=channel(game), by=by)
