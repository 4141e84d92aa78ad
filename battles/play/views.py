"""The play pages (issue 17): start a game, plan a round, wait, watch it resolve, forfeit,
join a friend's game, spectate. Thin: a Form, one call into services.py, a template.

Who sees what is decided by services (side_of, can_watch, game_state); the one thing these
views add is which side's eyes a page is for: a player sees their own side's hand and
plan, a spectator neither side's, and every resolved round's draws of a side the reader
does not play read as a count (watch.py).
"""

import hashlib
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core import signing
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import (
    Http404,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotModified,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.vary import vary_on_headers

from battles.forms import PresentForm, ViewerForm
from battles.models import Presentation
from cards.tables.services import get_table_for_member
from memeyori_site import live
from memeyori_site.confirm import confirm_page
from memeyori_site.errors import DeadLink, error_page
from memeyori_site.http import allow, noindex, require_post, require_safe

from . import cancel, challenge, clock, present, presenting, rematch, services, watch
from .forms import ChallengeForm, JoinForm, NewGameForm, PlanForm, ShareGameForm, TableGameForm
from .models import Game, GameKind, GameStatus

SIDES = (0, 1)


# --- Finding the game, and whose eyes a page is for -----------------------------------


def _game(code) -> Game:
    return get_object_or_404(
        Game.objects.select_related("user_a", "user_b", "created_by", "table", "battle"),
        code=code,
    )


def _player_game(request, code) -> tuple[Game, list[int]]:
    """A game and the sides this user plays (both for hot-seat); a 404 for anyone else,
    spectators included (they watch through watch/ and the share link)."""
    game = _game(code)
    sides = _sides_of(game, request.user)
    if not sides:
        raise Http404
    return game, sides


def _sides_of(game: Game, user) -> list[int]:
    if not user.is_authenticated:
        return []
    if game.kind == GameKind.HOTSEAT:
        return list(SIDES) if game.created_by_id == user.pk else []
    side = services.side_of(game, user)
    return [] if side is None else [side]


def _hidden(sides: list[int]) -> set[int]:
    """The sides whose draws a reader who plays `sides` may not read."""
    return set(SIDES) - set(sides)


def _common(request, game: Game, sides: list[int]) -> dict:
    return {
        "game": game,
        "sides": sides,
        "deadline": clock.deadline(game),
        "live": _live_urls(request, game, shared=False),
        "is_creator": request.user.pk == game.created_by_id,
    }


# --- Starting ---------------------------------------------------------------------------


@allow("GET", "POST")
@login_required
def play_new(request):
    """The start form. Party pages and the battle form link here with ?party=…"""
    prefill = {k: v for k, v in request.GET.items() if k in NewGameForm.PREFILL}
    form = NewGameForm(request.POST or None, user=request.user, initial=prefill)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            game = services.start_game(
                user=request.user,
                party=d["party"],
                opponent=d["opponent"],
                party_b=d["party_b"],
                policy_b=d["policy_b"],
                seed=d["seed"],
                time_limit=d["time_limit"] or 0,
            )
        except ValidationError as e:
            form.add_error(None, e)
        else:
            clock.schedule(game)
            return redirect(game)
    return render(
        request, "battles/play/new.html", {"form": form}, status=400 if form.errors else 200
    )


@allow("GET", "POST")
@login_required
def play_table_new(request, table_code):
    """The table's GM pairs two members' parties (or one against the GM's own)."""
    table = get_table_for_member(request.user, table_code)
    if table is None or table.gm_id != request.user.pk:
        raise Http404
    # A rematch's link names the pairing (rematch.py).
    prefill = {k: v for k, v in request.GET.items() if k in ("party_a", "party_b")}
    form = TableGameForm(request.POST or None, table=table, initial=prefill)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            # The GM starts it; each party's owner plans its side.
            game = services.start_game(
                user=request.user,
                party=d["party_a"],
                opponent="table",
                party_b=d["party_b"],
                seed=d["seed"],
                time_limit=d["time_limit"] or 0,
                table=table,
            )
        except ValidationError as e:
            form.add_error(None, e)
        else:
            clock.schedule(game)
            messages.success(
                request,
                f"The game is on: {game.user_a.username} plans {game.name_a}, "
                f"{game.user_b.username} plans {game.name_b}. Members can watch it here.",
            )
            return redirect("play_watch", code=game.code)
    return render(
        request,
        "battles/play/table_new.html",
        {"form": form, "table": table},
        status=400 if form.errors else 200,
    )


@allow("GET", "POST")
@noindex
def play_join(request, token):
    """A friend's invite: a dead link says so before anyone is asked to log in."""
    game = (
        Game.objects.select_related("created_by")
        .filter(invite_token=token, status=GameStatus.WAITING)
        .first()
        if token
        else None
    )
    if game is None:
        raise _dead_invite()
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if request.user.pk == game.created_by_id:
        messages.info(request, "This is your own invite: send it to the friend you play.")
        return redirect(game)
    if challenge.addressed_to_other(game, request.user):
        raise DeadLink(
            "This invite is for someone else",
            "Whoever sent it challenged another player by name. Ask them for an invite of "
            "your own.",
            action_url=reverse("play_list"),
            action_label="Go to your games",
        )
    form = JoinForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            game = services.join_game(token, request.user, form.cleaned_data["party"])
        except ValidationError as e:
            form.add_error(None, e)
        else:
            clock.schedule(game)
            return redirect(game)
    return render(
        request,
        "battles/play/join.html",
        {"form": form, "game": game},
        status=400 if form.errors else 200,
    )


def _dead_invite() -> DeadLink:
    return DeadLink(
        "This invite link no longer works",
        "Whoever sent it has revoked it, or someone has already joined the game. "
        "Ask them for a new one.",
        action_url=reverse("play_list"),
        action_label="Go to your games",
    )


@require_post
@login_required
def play_challenge(request, code):
    """The creator of a friend game addresses its invite to a user by name."""
    game = _game(code)
    if game.created_by_id != request.user.pk or game.kind != GameKind.FRIEND:
        raise Http404
    form = ChallengeForm(request.POST)
    if form.is_valid():
        try:
            user = challenge.challenge(game, request.user, form.cleaned_data["username"])
        except ValidationError as e:
            form.add_error("username", e)
        else:
            messages.success(
                request, f"{user.username} is challenged: the game waits in their games."
            )
            return redirect(game)
    state = services.game_state(game, 0)
    context = _page_context(request, game, [0], 0, state) | {
        "page": "invite",
        "challenge_form": form,
    }
    return render(request, "battles/play/game.html", context, status=400)


@allow("GET", "POST")
@login_required
def play_invite(request, code):
    """The game's creator revokes its invite link: GET asks first, only POST does it."""
    game = _game(code)
    if game.created_by_id != request.user.pk or game.kind != GameKind.FRIEND:
        raise Http404
    if not game.invite_token:
        messages.info(request, "No invite link is open for this game.")
        return redirect(game)
    if request.method != "POST":
        return confirm_page(
            request,
            question="Revoke the invite link?",
            consequences=[
                "The link you sent stops working: your friend can no longer join.",
                "The game stays, waiting; start a new game to invite someone again.",
            ],
            action_url=request.path,
            button="Revoke the invite link",
            cancel_url=game.get_absolute_url(),
            cancel_label="Keep the link",
        )
    services.revoke_invite(game)
    messages.success(request, "Invite link revoked; it no longer works.")
    return redirect(game)


# --- My games ---------------------------------------------------------------------------


@require_safe
@login_required
def play_list(request):
    games = challenge.split_challenges(services.my_games(request.user), request.user)
    return render(request, "battles/play/list.html", {"games": games})


# --- The game page: plan, hand over, wait, or the end ------------------------------------


def _which_side(request, game: Game, sides: list[int], state_of) -> int:
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


@require_safe
@vary_on_headers("HX-Request")
@login_required
def play_game(request, code):
    game = _game(code)
    sides = _sides_of(game, request.user)
    if challenge.is_challenged(game, request.user):
        return redirect("play_join", token=game.invite_token)
    if not sides:
        # Someone who may watch (a table's GM or member) gets the watch page, not a 404.
        if services.can_watch(game, request.user):
            return redirect(_watch_url(game, None))
        raise Http404
    states = {}

    def state_of(side):
        if side not in states:
            states[side] = services.game_state(game, side)
        return states[side]

    side = _which_side(request, game, sides, state_of)
    state = state_of(side)
    # Back from waiting (a page reload or the live script): watch the round that resolved.
    after = request.GET.get("after", "")
    if after.isdigit() and int(after) > 0:
        resolved = state["round"] if state["status"] == "finished" else state["round"] - 1
        if int(after) <= resolved:
            return redirect(_watch_url(game, int(after)))
    if game.status == GameStatus.WAITING:
        page = "invite"
    elif state["status"] == "finished":
        page = "finished"
    elif state["status"] == "waiting":
        page = "waiting"
    elif len(sides) == 2 and request.GET.get("ready") != "1":
        page = "handover"
    else:
        # A plain page: the form unbound, so its hidden round is this round (the hot-seat
        # hand-over's ?side=&ready= are no plan; binding them emptied the round, issue 31).
        return _plan_page(request, game, sides, side, state)
    context = _page_context(request, game, sides, side, state) | {"page": page}
    if page == "invite":
        context["challenge_form"] = ChallengeForm()
    if page == "waiting":
        context["own_plan"] = present.plan_words(state["plan"], state)
    if page == "finished":
        context["rematch"] = rematch.links(game, request.user)
    return render(request, "battles/play/game.html", context)


def _page_context(request, game, sides, side, state) -> dict:
    names = state["names"]
    types = (game.snapshot or {}).get("types", {})
    context = _common(request, game, sides) | {
        "side": side,
        "state": state,
        "my_name": names[side],
        "their_name": names[1 - side] or "your friend",
    }
    if game.snapshot:
        context["mine"], context["enemy"] = present.field_sides(state, types)
    return context


def _plan_page(
    request, game, sides, side, state, *, data=None, refusal=None, status=200, check_only=False
):
    """The plan page; with `data` (the form's fields, from a check or a refused post) its
    running totals and refusals by the card. Nothing is stored."""
    form = PlanForm(data, state=state)
    check = refusal
    cards = []
    costs = {}
    if data is not None and "round" in data and form.is_valid():
        # The engine's check gives the totals and each card's cost this round; a refused
        # post keeps its own refusals (they may be more than the check's).
        checked = services.checked_plan(game, side, form.plan())
        if checked is not None:
            costs = checked.costs
            # The totals are always this plan's (a refusal showed the untouched MP beside
            # its "1 MP left"); a refused post keeps its own refusals.
            check = services.plan_totals(checked) | (refusal or {})
    check = check or {}
    if form.is_bound and form.is_valid():
        cards = form.plan()["cards"]
    plan_rows = present.plan_rows(state["hand"], cards, costs)
    cost_now = {card["id"]: costs.get(card["id"], card["mp_cost"]) for card in state["hand"]}
    types = (game.snapshot or {}).get("types", {})
    hand = present.with_types(present.hand_cards(state, cost_now, check.get("by_card", {})), types)
    for card, (_, choice, order) in zip(hand, form.card_fields(), strict=True):
        card["choice"], card["order"] = choice, order
    context = _page_context(request, game, sides, side, state) | {
        "page": "plan",
        "form": form,
        "check": check,
        "cards": hand,
        "plan_rows": plan_rows,
        "totals": {
            "mp_left": check.get("mp_left", state["mp"]),
            "resonance_left": check.get("resonance_left", state["resonance"]),
        },
    }
    template = "battles/play/game.html"
    if request.htmx and check_only:
        template += "#plan-check"
    return render(request, template, context, status=status)


@require_post
@login_required
def play_plan_check(request, code):
    """The live plan check (and the no-script "Check the plan"): a POST, so neither the
    plan nor the CSRF token lands in a URL or an access log. Nothing is stored. A check
    for a round that is no longer planned (the other side's submit resolved it, the clock
    ran out) sends the page on to the game instead of swapping in another round's hand."""
    game, sides = _player_game(request, code)
    side = _which_side(request, game, sides, lambda s: services.game_state(game, s))
    state = services.game_state(game, side)
    if state["status"] != "planning" or request.POST.get("round") != str(state["round"]):
        url = f"{game.get_absolute_url()}?after={request.POST.get('round', '')}"
        if request.htmx:
            return HttpResponse(status=204, headers={"HX-Redirect": url})
        return redirect(url)
    return _plan_page(request, game, sides, side, state, data=request.POST, check_only=True)


@require_post
@login_required
def play_plan(request, code):
    """The plan form's post: stored and maybe resolved, or refused with nothing stored."""
    game, sides = _player_game(request, code)
    side = _which_side(request, game, sides, lambda s: services.game_state(game, s))
    state = services.game_state(game, side)
    form = PlanForm(request.POST, state=state)
    if not form.is_valid():
        return _plan_page(request, game, sides, side, state, data=request.POST, status=400)
    round_no = form.cleaned_data["round"]
    try:
        after = services.submit_plan(game, side, round_no, form.plan())
    except services.PlanRefused as refused:
        check = {"errors": refused.errors, "by_card": refused.by_card, "refused": True}
        return _plan_page(
            request, game, sides, side, state, data=request.POST, refusal=check, status=400
        )
    except services.WrongRound:
        return error_page(
            request,
            409,
            title=f"Round {round_no} is not being planned",
            message="This plan is for a round that is already planned or resolved (another "
            "tab, or a second click). Nothing was changed. Open the game for where it stands.",
            action_url=game.get_absolute_url(),
            action_label="Open the game",
        )
    # The round's deadline task (again, if one is queued: a second run changes nothing),
    # or the next round's when this plan resolved it.
    game.refresh_from_db()
    clock.schedule(game)
    if after["round"] > round_no or after["status"] == "finished":
        return redirect(_watch_url(game, round_no))
    if len(sides) == 2:
        return redirect(f"{game.get_absolute_url()}?side={1 - side}")
    return redirect(game)


@require_post
@login_required
def play_cancel(request, code):
    """Take back this side's submitted plan while the other side has not planned (a
    service of its own, cancel.py); then the plan page again."""
    game, sides = _player_game(request, code)
    side = _which_side(request, game, sides, lambda s: services.game_state(game, s))
    try:
        round_no = cancel.cancel_plan(game, side)
    except ValidationError as e:
        messages.error(request, " ".join(e.messages))
        return redirect(game)
    messages.info(request, f"Your plan for round {round_no} is taken back: plan it again.")
    if len(sides) == 2:
        return redirect(f"{game.get_absolute_url()}?side={side}&ready=1")
    return redirect(game)


@allow("GET", "POST")
@login_required
def play_forfeit(request, code):
    game, sides = _player_game(request, code)
    if game.status == GameStatus.FINISHED:
        messages.info(request, "This game is over already.")
        return redirect(game)
    side = _which_side(request, game, sides, lambda s: services.game_state(game, s))
    names = (game.name_a, game.name_b)
    if request.method != "POST":
        return confirm_page(
            request,
            question=f"Forfeit with {names[side]}?",
            consequences=[
                f"{names[1 - side] or 'The other side'} wins at once; the log records a "
                "forfeit, and the game becomes an ordinary battle anyone who could watch it "
                "can step through.",
            ],
            closing="It cannot be undone.",
            action_url=request.path,
            fields={"side": side} if len(sides) == 2 else {},
            button="Forfeit the game",
            cancel_url=game.get_absolute_url(),
            cancel_label="Keep playing",
        )
    services.forfeit(game, side)
    messages.success(request, f"{names[side]} forfeited; {names[1 - side]} wins.")
    return redirect(game)


@require_post
def play_timeout(request, code):
    """The time limit ran out: the AI plans for the side that did not (POST, by either
    player's countdown or the waiting page's button). Early is refused, changing nothing."""
    game = _game(code)
    if not _sides_of(game, request.user) and not services.can_watch(game, request.user):
        raise Http404
    if services.expire_time_limit(game):
        clock.schedule(game)
    return redirect(game if _sides_of(game, request.user) else _watch_url(game, None))


# --- Watching: the viewer on the resolved rounds ----------------------------------------


def _watch_url(game: Game, round_no) -> str:
    url = reverse("play_watch", kwargs={"code": game.code})
    return f"{url}?round={round_no}" if round_no is not None else url


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
        resolved=resolved,
        hidden=_hidden(sides),
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
        "live": _live_urls(request, game, shared=shared),
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
    game = _game(code)
    sides = _sides_of(game, request.user)
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
    game = _game(code)
    if game.created_by_id != request.user.pk:
        raise Http404
    form = ShareGameForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        return redirect(_watch_url(game, None))
    action = form.cleaned_data["action"]
    if request.method != "POST":
        if action != "revoke" or not game.share_token:
            return redirect(_watch_url(game, None))
        return confirm_page(
            request,
            question="Stop sharing this game?",
            consequences=["The link you shared stops working for everyone who has it."],
            action_url=request.path,
            fields={"action": "revoke"},
            button="Revoke the link",
            cancel_url=_watch_url(game, None),
            cancel_label="Keep sharing",
        )
    if action == "share":
        services.share_game(game)
        messages.success(request, "Anyone with the link can now watch each round as it resolves.")
    else:
        services.unshare_game(game)
        messages.success(request, "Share link revoked; it no longer works.")
    return redirect(_watch_url(game, None))


# --- Presenter mode: one person steps through the resolved rounds, the group follows ---
# (presenting.py; the poll and the stream answer as a stored battle's do, battles.views)


@require_post
@login_required
def play_present(request, code):
    """Start, move or stop presenting the game. With htmx (the presenter's own steps) a
    204, or a 409 with the reason; as a plain form, back to the watch page at the step."""
    game = _game(code)
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
    url = _watch_url(game, round_no)
    step_query = f"&step={step}" if round_no is not None and step is not None else ""
    return redirect(f"{url}{step_query}#present")


def _follow_answer(request, game: Game, *, shared: bool) -> JsonResponse:
    presentation = presenting.current(game)
    if presentation is None:
        return JsonResponse({"poll": None})
    token = presentation.token_shared if shared else presentation.token
    query = "?as=" + _signer.sign(_holder(request, game, shared=shared))
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
    game = _game(code)
    if not _sides_of(game, request.user) and not services.can_watch(game, request.user):
        raise Http404
    return _follow_answer(request, game, shared=False)


@require_safe
@noindex
def play_shared_follow(request, token):
    game = Game.objects.filter(share_token=token).first()
    if game is None or not token or not services.can_watch(game, None, share_token=token):
        raise Http404
    return _follow_answer(request, game, shared=True)


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
    if presentation is None or not _holder_may_watch(presentation.game, signed_holder):
        return None
    shared = presentation.token_shared == token
    if shared != _signer.unsign(signed_holder).startswith("s"):
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


# --- Live: "it changed", then each client fetches its own view ---------------------------
# A stream or poll URL names its holder, signed (as battles.views does for presentations):
# the user the page was made for, or the share link it came through. Each answer checks
# that this holder may watch the game now, so a URL copied out of a page works only while
# its holder could open the game.

HOLDER_SALT = "battles.play.holder"
_signer = signing.Signer(salt=HOLDER_SALT)


def _share_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()[:24]


def _holder(request, game: Game, *, shared: bool) -> str:
    if shared:
        return "s" + _share_digest(game.share_token or "")
    return f"u{request.user.pk}" if request.user.is_authenticated else "a"


def _live_urls(request, game: Game, *, shared: bool) -> dict:
    if game.status == GameStatus.FINISHED:
        return {}
    query = "?as=" + _signer.sign(_holder(request, game, shared=shared))
    return {
        "stream": reverse("play_stream", kwargs={"code": game.code}) + query,
        "poll": reverse("play_status", kwargs={"code": game.code}) + query,
    }


def _holder_may_watch(game: Game, signed: str) -> bool:
    try:
        holder = _signer.unsign(signed)
    except signing.BadSignature:
        return False
    if holder.startswith("s"):
        token = game.share_token
        return bool(token) and holder == "s" + _share_digest(token)
    if holder.startswith("u") and holder[1:].isdigit():
        user = get_user_model().objects.filter(pk=int(holder[1:])).first()
        return user is not None and (bool(_sides_of(game, user)) or services.can_watch(game, user))
    return False


def _version(game: Game) -> str:
    """Changes whenever the game does (services.game_changed saves it)."""
    return f'"{game.round}-{game.status}-{int(game.updated.timestamp() * 1000)}"'


def _status_row(code):
    return (
        Game.objects.filter(code=code)
        .only("code", "round", "status", "updated", "share_token", "kind", "created_by")
        .select_related(None)
        .first()
    )


@require_safe
@noindex
def play_status(request, code):
    """The polling fallback of the live stream: a 304 until the game changes, then its
    round and status; never a hand or a plan."""
    game = _status_row(code)
    if game is None or not _holder_may_watch(_game(code), request.GET.get("as", "")):
        raise Http404
    etag = _version(game)
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponseNotModified()
    else:
        response = JsonResponse({"round": game.round, "status": game.status})
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response


@dataclass(frozen=True)
class GameFeed:
    code: str
    signed_holder: str

    @property
    def channel(self) -> str:
        return services.game_channel(self.code)

    @property
    def key(self) -> str:
        return f"{self.code}|{self.signed_holder}"

    def read(self) -> live.Event | None:
        # live.py's stream runs this in a thread of its own, with fresh connections.
        game = Game.objects.filter(code=self.code).first()
        if game is None or not _holder_may_watch(game, self.signed_holder):
            return None
        return live.Event(id=_version(game), data="changed", name="changed")


@require_safe
async def play_stream(request, code):
    """Server-Sent Events: a "changed" event whenever the game changes, nothing more; the
    page then fetches its own side's view (static/js/play.js)."""
    feed = GameFeed(code, request.GET.get("as", ""))
    first = await sync_to_async(feed.read)()
    if first is None:
        raise Http404
    return await live.stream(request, feed, first)
