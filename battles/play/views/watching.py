"""Watching: the resolved rounds in the viewer, for the players, a table's members and a
share link's holders; presenter mode (presenting.py), its followers' poll and stream."""

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import (
    Http404,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotModified,
    JsonResponse,
)
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.vary import vary_on_headers

from battles import follow, viewer
from battles.forms import PresentForm, ViewerForm
from battles.models import Presentation
from memeyori_site import live
from memeyori_site.confirm import confirm_page
from memeyori_site.errors import DeadLink, error_page
from memeyori_site.http import allow, noindex, require_post, require_safe

from .. import clock, presenting, services, watch
from ..forms import ShareGameForm
from ..models import Game
from .common import (
    game_or_404,
    hidden_sides,
    holder,
    holder_may_watch,
    live_urls,
    signer,
    user_sides,
    watch_url,
)


def _watch(request, game: Game, sides: list[int], base_url: str, *, shared: bool):
    form = ViewerForm(request.GET)
    if not form.is_valid():
        return error_page(
            request,
            400,
            title="That step is not in this game",
            message="The link names a round or a step that is not a whole number. Open "
            "the game's rounds from their start.",
            action_url=base_url,
            action_label="Watch from the start",
        )
    log, resolved = services.game_log(game)
    context = watch.viewer_context(
        log=log,
        types=(game.snapshot or {}).get("types", {}),
        codes=viewer.character_codes(game.snapshot or {}, log),
        resolved=resolved,
        hidden=hidden_sides(sides),
        base_url=base_url,
        round_no=form.cleaned_data["round"],
        step=form.cleaned_data["step"],
    )
    presentation = presenting.current(game)
    context |= {
        "game": game,
        "sides": sides,
        "resolved": resolved,
        "shared": shared,
        # Presenter mode (the viewer's own controls, as on a stored battle's page).
        "presentation": presentation,
        "can_present": not shared and presenting.may_present(game, request.user),
        "can_take_over": (
            not shared and presenting.may_take_over(game, presentation, request.user)
        ),
        "is_presenter": (
            not shared and presentation is not None and presentation.presenter_id == request.user.pk
        ),
        "present_url": reverse("play_present", kwargs={"code": game.code}),
        "present_noun": "game",
        "follow_url": (
            reverse("play_shared_follow", kwargs={"token": game.share_token})
            if shared
            else reverse("play_follow", kwargs={"code": game.code})
        ),
        "deadline": clock.deadline(game),
        "timeouts": [
            {"round": r, "names": " and ".join((game.name_a, game.name_b)[s] for s in sides_out)}
            for r, sides_out in clock.timed_out(game).items()
        ],
        "live": live_urls(request, game, shared=shared),
        "is_creator": request.user.pk == game.created_by_id,
        "share_url": (
            request.build_absolute_uri(reverse("play_shared", kwargs={"token": game.share_token}))
            if game.share_token
            else ""
        ),
    }
    # A step's htmx request swaps the viewer alone: the battle viewer's own partial.
    template = "battles/viewer.html#viewer" if request.htmx else "battles/play/watch.html"
    return render(request, template, context)


@require_safe
@vary_on_headers("HX-Request")
def play_watch(request, code):
    """The resolved rounds, for the players and whoever may watch (a table's members)."""
    game = game_or_404(code)
    sides = user_sides(game, request.user)
    if not sides and not services.can_watch(game, request.user):
        raise Http404
    return _watch(request, game, sides, request.path, shared=False)


@require_safe
@noindex
@vary_on_headers("HX-Request")
def play_shared(request, token):
    game = Game.objects.select_related("battle").filter(share_token=token).first()
    if game is None or not token or not services.can_watch(game, None, share_token=token):
        raise DeadLink(
            "This game's link no longer works",
            "Whoever shared it has revoked the link. Ask them for a new one.",
            action_url=reverse("battle_public"),
            action_label="See the public battles",
        )
    return _watch(request, game, [], request.path, shared=True)


@allow("GET", "POST")
@login_required
def play_share(request, code):
    """The game's creator shares it (a link to watch its resolved rounds) or revokes it."""
    game = game_or_404(code)
    if game.created_by_id != request.user.pk:
        raise Http404
    form = ShareGameForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        return redirect(watch_url(game, None))
    action = form.cleaned_data["action"]
    if request.method != "POST":
        if action != "revoke" or not game.share_token:
            return redirect(watch_url(game, None))
        return confirm_page(
            request,
            question="Stop sharing this game?",
            consequences=["The link you shared stops working for everyone who has it."],
            action_url=request.path,
            fields={"action": "revoke"},
            button="Revoke the link",
            cancel_url=watch_url(game, None),
            cancel_label="Keep sharing",
        )
    if action == "share":
        services.share_game(game)
        messages.success(request, "Anyone with the link can now watch each round as it resolves.")
    else:
        services.unshare_game(game)
        messages.success(request, "Share link revoked; it no longer works.")
    return redirect(watch_url(game, None))


@require_post
@login_required
def play_present(request, code):
    """Start, move or stop presenting the game. With htmx (the presenter's own steps) a
    204, or a 409 with the reason; as a plain form, back to the watch page at the step."""
    game = game_or_404(code)
    if not presenting.may_present(game, request.user):
        raise Http404
    form = PresentForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest("Unknown presenter action.")
    action, round_no, step = (form.cleaned_data[k] for k in ("action", "round", "step"))
    # Messages go beside the present controls, where the presenter is looking (21.3).
    here = {"extra_tags": "in-place"}
    try:
        if action == "stop":
            presenting.stop(game, by=request.user)
            if not request.htmx:
                messages.success(request, "You stopped presenting.", **here)
        elif action == "start":
            shown = presenting.start(game, by=request.user, round_no=round_no, step=step)
            round_no, step = shown.round, shown.step
            if not request.htmx:
                messages.success(request, "You are presenting: followers see your step.", **here)
        else:
            presenting.move(game, by=request.user, round_no=round_no, step=step)
    except ValidationError as e:
        if request.htmx:
            return HttpResponse("; ".join(e.messages), status=409, content_type="text/plain")
        messages.error(request, "; ".join(e.messages), **here)
    if request.htmx:
        return HttpResponse(status=204)
    url = watch_url(game, round_no)
    step_query = f"&step={step}" if round_no is not None and step is not None else ""
    return redirect(f"{url}{step_query}#present")


def _follow_answer(request, game: Game, *, shared: bool) -> JsonResponse:
    presentation = presenting.current(game)
    if presentation is None:
        return JsonResponse({"poll": None})
    token = presentation.token_shared if shared else presentation.token
    query = "?" + urlencode({"as": presented_as(game, holder(request, game, shared=shared))})
    return JsonResponse(
        {
            "poll": reverse("play_presented", kwargs={"token": token}) + query,
            "stream": reverse("play_presented_stream", kwargs={"token": token}) + query,
            "presenter": presentation.presenter.username,
        }
    )


@require_safe
def play_follow(request, code):
    """Where a player or table member finds the presentation to follow."""
    game = game_or_404(code)
    if not user_sides(game, request.user) and not services.can_watch(game, request.user):
        raise Http404
    return _follow_answer(request, game, shared=False)


@require_safe
@noindex
def play_shared_follow(request, token):
    game = Game.objects.filter(share_token=token).first()
    if game is None or not token or not services.can_watch(game, None, share_token=token):
        raise Http404
    return _follow_answer(request, game, shared=True)


# A follower's poll and stream URLs name who follows (their holder, as the page's own live
# URLs do), the game, and when they were given, signed (battles/follow.py, issue 40.5).
PRESENTED_MAX_AGE = follow.MAX_AGE
_follow = follow.FollowSigner("battles.play.presented")


def presented_as(game: Game, who: str) -> str:
    return _follow.sign(game.code, who)


@dataclass(frozen=True)
class Presented:
    html: str
    etag: str
    channel: str


def _presented(token: str, signed_holder: str) -> Presented | None:
    """The presented step behind a poll token, if its holder may watch the game now: a
    member token for a signed-in watcher, a visitor token for the share link's holder."""
    if not token:
        return None
    presentation = (
        Presentation.objects.filter(Q(token=token) | Q(token_shared=token), game__isnull=False)
        .select_related("game")
        .first()
    )
    if presentation is None:
        return None
    who = _follow.holder(presentation.game.code, signed_holder)
    if who is None or not holder_may_watch(presentation.game, signer.sign(who)):
        return None
    shared = presentation.token_shared == token
    if shared != who.startswith("s"):
        return None
    return Presented(
        html=presentation.html_shared if shared else presentation.html,
        etag=f'"{presentation.version}{"s" if shared else "m"}"',
        channel=presenting.channel(presentation.game),
    )


@require_safe
@noindex
def play_presented(request, token):
    """The followers' poll: a 304 while the presenter has not moved, else the step's
    viewer (rendered once, when the presenter moved); a 204 while it has nothing for this
    follower yet (a share link made after the presenter's last step)."""
    presented = _presented(token, request.GET.get("as", ""))
    if presented is None:
        raise Http404
    if request.headers.get("If-None-Match") == presented.etag:
        response = HttpResponseNotModified()
    elif not presented.html:
        response = HttpResponse(status=204)
    else:
        response = HttpResponse(presented.html)
    response["ETag"] = presented.etag
    response["Cache-Control"] = "private, no-cache"
    return response


def _presented_step(token: str, signed_holder: str) -> tuple[str, str, str] | None:
    """What the stream pushes (live.stream_presented): the step's ETag, HTML and channel."""
    presented = _presented(token, signed_holder)
    return None if presented is None else (presented.etag, presented.html, presented.channel)


@require_safe
async def play_presented_stream(request, token):
    """The followers' stream: each step pushed as it is presented, for as long as the
    holder may watch the game."""
    return await live.stream_presented(request, token, _presented_step)
