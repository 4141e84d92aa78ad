"""The game page and its round: plan, hand the device over, wait, the end; the plan's
live check and its post, taking a plan back, forfeit, and the time limit's end."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.vary import vary_on_headers

from memeyori_site.confirm import confirm_page
from memeyori_site.errors import error_page
from memeyori_site.http import allow, require_post, require_safe

from .. import cancel, challenge, clock, present, rematch, services, stage
from ..forms import ChallengeForm, PlanForm, StageForm
from ..models import GameStatus
from .common import game_or_404, page_context, player_game, user_sides, watch_url, which_side


@require_safe
@vary_on_headers("HX-Request")
@login_required
def play_game(request, code):
    game = game_or_404(code)
    sides = user_sides(game, request.user)
    if challenge.is_challenged(game, request.user):
        return redirect("play_join", token=game.invite_token)
    if not sides:
        # Someone who may watch (a table's GM or member) gets the watch page, not a 404.
        if services.can_watch(game, request.user):
            return redirect(watch_url(game, None))
        raise Http404
    states = {}

    def state_of(side):
        if side not in states:
            states[side] = services.game_state(game, side)
        return states[side]

    side = which_side(request, game, sides, state_of)
    state = state_of(side)
    # Back from waiting (a page reload or the live script): watch the round that resolved.
    after = request.GET.get("after", "")
    if after.isdigit() and int(after) > 0:
        resolved = state["round"] if state["status"] == "finished" else state["round"] - 1
        if int(after) <= resolved:
            return redirect(watch_url(game, int(after)))
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
    context = page_context(request, game, sides, side, state) | {"page": page}
    if page == "invite":
        context["challenge_form"] = ChallengeForm()
    if page == "waiting":
        context["own_plan"] = present.plan_words(state["plan"], state)
    if page == "finished":
        context["rematch"] = rematch.links(game, request.user)
    return render(request, "battles/play/game.html", context)


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
    rows = present.plan_rows(state["hand"], cards, costs, set(check.get("by_card", {})))
    # The summary counts only what the rules accept, beside the totals that do the same;
    # a refused card is listed apart, never as if its MP were spent (issue 41.9).
    plan_rows = [row for row in rows if not row["refused"]]
    refused_rows = [row for row in rows if row["refused"]]
    cost_now = {card["id"]: costs.get(card["id"], card["mp_cost"]) for card in state["hand"]}
    types = (game.snapshot or {}).get("types", {})
    hand = present.with_types(present.hand_cards(state, cost_now, check.get("by_card", {})), types)
    for card, (_, choice, order) in zip(hand, form.card_fields(), strict=True):
        card["choice"], card["order"] = choice, order
    context = page_context(request, game, sides, side, state) | {
        "page": "plan",
        "form": form,
        "check": check,
        "cards": hand,
        "plan_rows": plan_rows,
        "refused_rows": refused_rows,
        "stage_words": present.stage_words(state),
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
    game, sides = player_game(request, code)
    side = which_side(request, game, sides, lambda s: services.game_state(game, s))
    state = services.game_state(game, side)
    if state["status"] != "planning" or request.POST.get("round") != str(state["round"]):
        url = f"{game.get_absolute_url()}?after={request.POST.get('round', '')}"
        if len(sides) == 2 and state["status"] == "waiting":
            # A hot-seat check that lost the race with its own side's submit: on to the
            # other side's hand-over, where the submit itself goes.
            url = f"{game.get_absolute_url()}?side={1 - side}"
        if request.htmx:
            return HttpResponse(status=204, headers={"HX-Redirect": url})
        return redirect(url)
    return _plan_page(request, game, sides, side, state, data=request.POST, check_only=True)


@require_post
@login_required
def play_plan(request, code):
    """The plan form's post: stored and maybe resolved, or refused with nothing stored."""
    game, sides = player_game(request, code)
    side = which_side(request, game, sides, lambda s: services.game_state(game, s))
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
        return redirect(watch_url(game, round_no))
    if len(sides) == 2:
        return redirect(f"{game.get_absolute_url()}?side={1 - side}")
    return redirect(game)


@require_post
@login_required
def play_stage(request, code):
    """ "Switch/summon now" (ruling 8): the Switch and summon chosen on the plan page are
    made and draw at once (stage.py), then the plan page shows the hand with what they
    drew, to plan the cards. Refused, nothing changes and the page says why."""
    game, sides = player_game(request, code)
    side = which_side(request, game, sides, lambda s: services.game_state(game, s))
    back = game.get_absolute_url()
    if len(sides) == 2:
        back = f"{back}?side={side}&ready=1"
    form = StageForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(e for errs in form.errors.values() for e in errs))
        return redirect(back)
    round_no = form.cleaned_data["round"]
    try:
        state = stage.make_stage(game, side, round_no, *form.stage())
    except ValidationError as e:
        messages.error(request, "Not made: " + " ".join(e.messages))
        return redirect(back)
    except services.WrongRound:
        return error_page(
            request,
            409,
            title=f"Round {round_no} is not being planned",
            message="This Switch or summon is for a round that is already planned or "
            "resolved. Nothing was changed. Open the game for where it stands.",
            action_url=game.get_absolute_url(),
            action_label="Open the game",
        )
    names = {c["id"]: c["name"] for c in state["hand"]}
    drawn = [names.get(c, c) for c in state["stage"]["drawn"]] if state["stage"] else []
    if drawn:
        messages.info(request, f"Made. You drew {', '.join(drawn)}: it may be played this round.")
    else:
        messages.info(request, "Made. It drew no card.")
    return redirect(back)


@require_post
@login_required
def play_cancel(request, code):
    """Take back this side's submitted plan while the other side has not planned (a
    service of its own, cancel.py); then the plan page again."""
    game, sides = player_game(request, code)
    side = which_side(request, game, sides, lambda s: services.game_state(game, s))
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
    game, sides = player_game(request, code)
    if game.status == GameStatus.FINISHED:
        messages.info(request, "This game is over already.")
        return redirect(game)
    side = which_side(request, game, sides, lambda s: services.game_state(game, s))
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
    game = game_or_404(code)
    if not user_sides(game, request.user) and not services.can_watch(game, request.user):
        raise Http404
    if services.expire_time_limit(game):
        clock.schedule(game)
    return redirect(game if user_sides(game, request.user) else watch_url(game, None))
