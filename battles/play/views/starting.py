"""Starting and joining: a game against the AI, a friend or in hot-seat; a table's game
paired by its GM; a friend's join by the invite, a challenge by name; My games."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from cards.tables.services import get_table_for_member
from memeyori_site.confirm import confirm_page
from memeyori_site.errors import DeadLink
from memeyori_site.http import allow, noindex, require_post, require_safe

from .. import challenge, clock, newcomer, services
from ..forms import ChallengeForm, JoinForm, NewGameForm, TableGameForm
from ..models import Game, GameKind, GameStatus
from .common import game_or_404, page_context


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
                draw_at_limit=d["draw_at_limit"],
            )
        except ValidationError as e:
            form.add_error(None, e)
        else:
            clock.schedule(game)
            if d["challenge"]:
                try:
                    challenge.challenge(game, request.user, d["challenge"])
                except ValidationError as e:
                    messages.error(request, f"The game is open, unaddressed: {e.messages[0]}")
            return redirect(game)
    return render(
        request,
        "battles/play/new.html",
        {"form": form, "first_game": newcomer.first_game_offer(request.user)},
        status=400 if form.errors else 200,
    )


@require_post
@login_required
def play_starter(request):
    """One click from nothing to a game: the person's copy of the starter party, then the
    start form filled for it (or back to the invite they came from, `next`)."""
    try:
        party = newcomer.starter_party_create(owner=request.user)
    except ValidationError as e:
        messages.error(request, " ".join(e.messages))
        return redirect("builder_new", kind="memeyori")
    messages.success(
        request,
        f"{party.name} is yours: {party.slots.count()} Memeyori with their cards, a copy of "
        "the demo's. Change them whenever you like; here is a game to play them in.",
    )
    target = request.POST.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect(newcomer.first_game_url(party, request.user))


@allow("GET", "POST")
@login_required
def play_table_new(request, table_code):
    """The table's GM pairs two members' parties (or one against the GM's own)."""
    table = get_table_for_member(request.user, table_code)
    if table is None or table.gm_id != request.user.pk:
        raise Http404
    # A rematch's link names the pairing (rematch.py).
    prefill = {k: v for k, v in request.GET.items() if k in ("party_a", "party_b", "time_limit")}
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
        {"form": form, "game": game, "first_game": newcomer.first_game_offer(request.user)},
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
    game = game_or_404(code)
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
    context = page_context(request, game, [0], 0, state) | {
        "page": "invite",
        "challenge_form": form,
    }
    return render(request, "battles/play/game.html", context, status=400)


@allow("GET", "POST")
@login_required
def play_invite(request, code):
    """The game's creator revokes its invite link: GET asks first, only POST does it."""
    game = game_or_404(code)
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


@require_safe
@login_required
def play_list(request):
    games = challenge.split_challenges(services.my_games(request.user), request.user)
    return render(request, "battles/play/list.html", {"games": games})
