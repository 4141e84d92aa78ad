from pathlib import Path

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from cards.models import visible_to

from . import og, viewer
from .forms import BattleForm, ShareForm, ViewerForm
from .models import Battle, BattleVisibility
from .services import (
    battle_run,
    battle_set_visibility,
    battle_share_regenerate,
    battle_share_revoke,
)

PROTOCOL_FILE = Path(__file__).parent / "engine" / "PROTOCOL.md"
LIST_FIELDS = ("code", "name_a", "name_b", "winner", "rounds", "created", "visibility", "owner")


def _get_battle_for_user(request, code) -> Battle:
    """The one ownership helper: the owner's battles, and public ones; else a 404."""
    return get_object_or_404(Battle.objects.filter(visible_to(request.user)), code=code)


def _get_owned_battle(request, code) -> Battle:
    return get_object_or_404(Battle, code=code, owner=request.user)


def _get_shared_battle(token: str) -> Battle:
    """A live share link of an unlisted or public battle; revoked and unknown look the same."""
    battle = (
        Battle.objects.filter(share_token=token)
        .exclude(visibility=BattleVisibility.PRIVATE)
        .first()
    )
    if battle is None or not token:
        raise Http404
    return battle


@require_GET
@login_required
def battle_list(request):
    battles = Battle.objects.filter(owner=request.user).only(*LIST_FIELDS)
    return render(request, "battles/list.html", {"battles": battles, "mine": True})


@require_GET
def public_list(request):
    battles = (
        Battle.objects.filter(visibility=BattleVisibility.PUBLIC)
        .select_related("owner")
        .only(*LIST_FIELDS, "owner__username")[:100]
    )
    return render(request, "battles/list.html", {"battles": battles, "mine": False})


@require_http_methods(["GET", "POST"])
@login_required
def battle_new(request):
    # "Battle with this party" and "Rematch" links fill the form from the query string;
    # nothing runs until the form is posted.
    prefill = {k: v for k, v in request.GET.items() if k in BattleForm.PREFILL}
    form = BattleForm(request.POST or None, user=request.user, initial=prefill)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            battle = battle_run(
                owner=request.user,
                party_a=d["party_a"],
                party_b=d["party_b"],
                seed=d["seed"],
                policy_a=d["policy_a"],
                policy_b=d["policy_b"],
                counts_for_growth=d["counts_for_growth"],
                visibility=d["visibility"],
            )
        except ValidationError as e:
            form.add_error(None, e)
        else:
            return redirect(battle)
    return render(request, "battles/new.html", {"form": form}, status=400 if form.errors else 200)


def _render_viewer(request, battle: Battle, base_url: str, *, shared: bool):
    form = ViewerForm(request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("round and step must be whole numbers, 0 or more.")
    log, frames = battle.log, battle.frames
    round_no, step = viewer.clamp_position(
        log, frames, form.cleaned_data["round"], form.cleaned_data["step"]
    )
    view = viewer.build(log, frames, battle.snapshot.get("types", {}), round_no, step)
    links = {
        name: (f"{base_url}?round={pos[0]}&step={pos[1]}" if pos else None)
        for name, pos in viewer.nav(view, frames, log).items()
    }
    template = "battles/viewer.html"
    if request.htmx:
        template += "#viewer"
    context = {
        "battle": battle,
        "view": view,
        "links": links,
        "base_url": base_url,
        "rounds": range(view["last_round"] + 1),
        "shared": shared,
        "is_owner": request.user.is_authenticated and battle.owner_id == request.user.pk,
        "og_url": request.build_absolute_uri(
            reverse("battle_shared_og", kwargs={"token": battle.share_token})
            if shared
            else reverse("battle_og", kwargs={"code": battle.code})
        ),
        "share_url": request.build_absolute_uri(battle.share_url()) if battle.share_url() else "",
        "visibility_choices": BattleVisibility.choices,
    }
    return render(request, template, context)


@require_GET
@vary_on_headers("HX-Request")
def battle_page(request, code):
    battle = _get_battle_for_user(request, code)
    return _render_viewer(request, battle, battle.get_absolute_url(), shared=False)


@require_GET
@vary_on_headers("HX-Request")
def shared_page(request, token):
    battle = _get_shared_battle(token)
    return _render_viewer(request, battle, request.path, shared=True)


def _log_response(battle: Battle):
    response = JsonResponse(battle.log, json_dumps_params={"ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="battle-{battle.code}.json"'
    return response


@require_GET
def battle_log(request, code):
    return _log_response(_get_battle_for_user(request, code))


@require_GET
def shared_log(request, token):
    return _log_response(_get_shared_battle(token))


def _og_response(battle: Battle):
    response = HttpResponse(og.render(battle), content_type="image/png")
    response["Cache-Control"] = "public, max-age=3600"
    return response


@require_GET
def battle_og(request, code):
    return _og_response(_get_battle_for_user(request, code))


@require_GET
def shared_og(request, token):
    return _og_response(_get_shared_battle(token))


@require_POST
@login_required
def battle_share(request, code):
    battle = _get_owned_battle(request, code)
    form = ShareForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest("Unknown share action.")
    action = form.cleaned_data["action"]
    if action == "visibility":
        try:
            battle_set_visibility(battle=battle, visibility=form.cleaned_data["visibility"])
        except ValidationError as e:
            return HttpResponseBadRequest("; ".join(e.messages))
        messages.success(request, f"This battle is now {battle.get_visibility_display()}.")
    elif action == "regenerate":
        battle_share_regenerate(battle=battle)
        messages.success(request, "New share link made; the old one no longer works.")
    else:
        battle_share_revoke(battle=battle)
        messages.success(request, "Share link revoked; it no longer works.")
    return redirect(battle)


@require_GET
def protocol_page(request):
    return render(
        request,
        "battles/protocol.html",
        {"protocol": PROTOCOL_FILE.read_text(encoding="utf-8")},
    )
