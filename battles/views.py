import contextlib
from pathlib import Path

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import connection
from django.http import (
    Http404,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotModified,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.vary import vary_on_headers

from cards.models import visible_to
from cards.printing import store
from memeyori_site.confirm import confirm_page
from memeyori_site.errors import DeadLink, error_page
from memeyori_site.http import allow, noindex, require_post, require_safe
from memeyori_site.ratelimit import requester

from . import og, viewer
from .forms import BattleForm, PresentForm, ShareForm, ViewerForm
from .models import Battle, BattleVisibility, Presentation
from .services import (
    battle_count_for_growth,
    battle_run,
    battle_set_show_result,
    battle_set_visibility,
    battle_share_regenerate,
    battle_share_revoke,
    growth_call_refusal,
    growth_preview,
    may_present,
    presentation_move,
    presentation_start,
    presentation_stop,
)

PROTOCOL_FILE = Path(__file__).parent / "engine" / "PROTOCOL.md"
LIST_FIELDS = (
    "code", "name_a", "name_b", "winner", "rounds", "created", "visibility", "owner", "show_result"
)  # fmt: skip


def _get_battle_for_user(request, code) -> Battle:
    """The one ownership helper: the owner's battles, and public ones; else a 404."""
    return get_object_or_404(
        Battle.objects.filter(visible_to(request.user, at_table=True)), code=code
    )


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
        raise DeadLink(
            "This share link no longer works",
            "Whoever shared this battle has revoked the link, made a new one, or made the "
            "battle private. Ask them for a new link.",
            action_url=reverse("battle_public"),
            action_label="See the public battles",
        )
    return battle


@require_safe
@login_required
def battle_list(request):
    battles = Battle.objects.filter(owner=request.user).only(*LIST_FIELDS)
    return render(request, "battles/list.html", {"battles": battles, "mine": True})


@require_safe
def public_list(request):
    battles = (
        Battle.objects.filter(visibility=BattleVisibility.PUBLIC)
        .select_related("owner")
        .only(*LIST_FIELDS, "owner__username")[:100]
    )
    return render(request, "battles/list.html", {"battles": battles, "mine": False})


@allow("GET", "POST")
@login_required
def battle_new(request):
    # "Battle with this party" and "Rematch" links fill the form from the query string;
    # nothing runs until the form is posted.
    prefill = {k: v for k, v in request.GET.items() if k in BattleForm.PREFILL}
    prefill.setdefault("table", request.GET.get("table"))
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
                table=d["table"],
            )
        except ValidationError as e:
            form.add_error(None, e)
        else:
            # Its preview image is drawn now, by a task worker, before any link is shared.
            with contextlib.suppress(store.Refused):
                _og_job(battle, requester=f"battle:{battle.code}")
            return redirect(battle)
    return render(request, "battles/new.html", {"form": form}, status=400 if form.errors else 200)


def viewer_context(battle: Battle, base_url: str, round_no, step) -> dict:
    """What the #viewer partial needs at a position; the same for every reader."""
    log, frames = battle.log, battle.frames
    round_no, step = viewer.clamp_position(log, frames, round_no, step)
    view = viewer.build(log, frames, battle.snapshot.get("types", {}), round_no, step)
    links = {
        name: (f"{base_url}?round={pos[0]}&step={pos[1]}" if pos else None)
        for name, pos in viewer.nav(view, frames, log).items()
    }
    return {
        "battle": battle,
        "view": view,
        "links": links,
        "base_url": base_url,
        "rounds": range(view["last_round"] + 1),
    }


def _render_viewer(request, battle: Battle, base_url: str, *, shared: bool):
    form = ViewerForm(request.GET)
    if not form.is_valid():
        return error_page(
            request,
            400,
            title="That step is not in this battle",
            message="The link names a round or a step this battle cannot show: both are "
            "whole numbers, 0 or more. Open the battle at its start and step from there.",
            action_url=base_url,
            action_label="Open the battle at its start",
        )
    context = viewer_context(
        battle, base_url, form.cleaned_data["round"], form.cleaned_data["step"]
    )
    template = "battles/viewer.html"
    if request.htmx:
        template += "#viewer"
    presentation = Presentation.objects.filter(battle=battle).select_related("presenter").first()
    context |= {
        "shared": shared,
        "is_owner": request.user.is_authenticated and battle.owner_id == request.user.pk,
        "og_url": request.build_absolute_uri(
            reverse("battle_shared_og", kwargs={"token": battle.share_token})
            if shared
            else reverse("battle_og", kwargs={"code": battle.code})
        ),
        "share_url": request.build_absolute_uri(battle.share_url()) if battle.share_url() else "",
        "visibility_choices": BattleVisibility.choices,
        "follow_url": (
            reverse("battle_shared_follow", kwargs={"token": battle.share_token})
            if shared
            else reverse("battle_follow", kwargs={"code": battle.code})
        ),
        "presentation": presentation,
        "can_present": not shared and may_present(battle, request.user),
        "is_presenter": (
            not shared and presentation is not None and presentation.presenter_id == request.user.pk
        ),
        "can_count_growth": (
            not shared
            and request.user.is_authenticated
            and battle.table_id is not None
            and battle.table.gm_id == request.user.pk
            and not battle.counts_for_growth
        ),
    }
    return render(request, template, context)


@require_safe
@vary_on_headers("HX-Request")
def battle_page(request, code):
    battle = _get_battle_for_user(request, code)
    return _render_viewer(request, battle, battle.get_absolute_url(), shared=False)


@require_safe
@noindex
@vary_on_headers("HX-Request")
def shared_page(request, token):
    battle = _get_shared_battle(token)
    return _render_viewer(request, battle, request.path, shared=True)


def _log_response(battle: Battle):
    response = JsonResponse(battle.log, json_dumps_params={"ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="battle-{battle.code}.json"'
    return response


@require_safe
def battle_log(request, code):
    return _log_response(_get_battle_for_user(request, code))


@require_safe
@noindex
def shared_log(request, token):
    return _log_response(_get_shared_battle(token))


def _og_job(battle: Battle, *, requester: str):
    """The battle's stored preview image, queued for a task worker if there is none."""
    return store.find_or_queue(
        kind=store.Render.Kind.BATTLE_IMAGE,
        spec={"og": og.inputs(battle)},
        requester=requester,
        filename="battle.png",
    )


def _og_response(request, battle: Battle, *, shared: bool):
    try:
        job = _og_job(battle, requester=requester(request))
    except store.Refused as error:
        response = HttpResponse(str(error), status=error.status, content_type="text/plain")
        response["Retry-After"] = str(error.retry_after)
        return response
    if job.status != store.Render.Status.DONE:
        # Drawn in a moment by a worker (battle_new queued it when the battle was run).
        response = HttpResponse(
            "The preview image is being drawn; try again in a moment.",
            status=503,
            content_type="text/plain",
        )
        response["Retry-After"] = "2"
        return response
    response = HttpResponse(store.content(job), content_type="image/png")
    if battle.visibility == BattleVisibility.PUBLIC and not shared:
        response["Cache-Control"] = "public, max-age=3600"
    else:
        # Private, or behind a link that may be revoked: no shared cache may keep a copy.
        response["Cache-Control"] = "private, no-store"
    return response


@require_safe
def battle_og(request, code):
    return _og_response(request, _get_battle_for_user(request, code), shared=False)


@require_safe
@noindex
def shared_og(request, token):
    return _og_response(request, _get_shared_battle(token), shared=True)


def _ask_about_link(request, battle: Battle, action: str):
    """Revoking or replacing a live share link breaks it for everyone who has it: ask."""
    if not battle.share_url():
        return redirect(battle)  # no live link: nothing to lose
    new = action == "regenerate"
    return confirm_page(
        request,
        question="Make a new share link?" if new else "Revoke the share link?",
        consequences=[
            "The link you shared stops working for everyone who has it, and anyone "
            "following a presentation through it stops following.",
            "Send the new link to whoever should still watch."
            if new
            else "You can make a new link later; the old one never works again.",
        ],
        action_url=request.path,
        fields={"action": action},
        button="Make a new link" if new else "Revoke the link",
        cancel_url=battle.get_absolute_url(),
        cancel_label="Keep the link",
    )


@allow("GET", "POST")
@login_required
def battle_share(request, code):
    """The owner's sharing settings. Revoking or replacing the link asks first (GET)."""
    battle = _get_owned_battle(request, code)
    form = ShareForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("Unknown share action.")
    action = form.cleaned_data["action"]
    if request.method != "POST":
        if action not in ("regenerate", "revoke"):
            return redirect(battle)
        return _ask_about_link(request, battle, action)
    if action == "visibility":
        try:
            battle_set_visibility(battle=battle, visibility=form.cleaned_data["visibility"])
        except ValidationError as e:
            return HttpResponseBadRequest("; ".join(e.messages))
        messages.success(request, f"This battle is now {battle.get_visibility_display()}.")
    elif action == "show_result":
        show = form.cleaned_data["show_result"]
        battle_set_show_result(battle=battle, show=show)
        messages.success(
            request,
            "Previews now show the result." if show else "Previews keep the result hidden.",
        )
    elif action == "regenerate":
        battle_share_regenerate(battle=battle)
        messages.success(request, "New share link made; the old one no longer works.")
    else:
        battle_share_revoke(battle=battle)
        messages.success(request, "Share link revoked; it no longer works.")
    return redirect(battle)


@allow("GET", "POST")
@login_required
def battle_growth(request, code):
    """The table's GM makes a battle at the table count for growth (R10). It cannot be
    undone, so GET asks first, naming the Ranks it grants; only POST applies them."""
    battle = get_object_or_404(
        Battle.objects.select_related("table"), code=code, table__gm=request.user
    )
    if request.method != "POST":
        gains, none = growth_preview(battle)
        return confirm_page(
            request,
            question="Count this battle for growth?",
            consequences=[
                "These Memeyori gain a Rank in their owners' collections (R10):"
                if gains
                else "No Memeyori gains a Rank from it (R10); it is only marked as counted.",
            ],
            items=gains + none,
            closing="It cannot be undone.",
            action_url=request.path,
            button="Count it for growth",
            cancel_url=battle.get_absolute_url(),
            cancel_label="Back to the battle",
            refusal=growth_call_refusal(battle, request.user) or "",
        )
    try:
        battle = battle_count_for_growth(battle=battle, by=request.user)
    except ValidationError as e:
        messages.error(request, "; ".join(e.messages))
    else:
        grown = len(battle.growth_applied)
        messages.success(
            request,
            f"This battle counts for growth: {grown} Memeyori gained a Rank."
            if grown
            else "This battle counts for growth; no Memeyori gained a Rank.",
        )
    return redirect(battle)


def _presented_html(battle: Battle, round_no: int, step: int) -> tuple[str, str]:
    """The step as followers see it: for members (links to the battle's page) and for
    visitors of the share link (links to it), rendered once here for every follower."""
    template = "battles/viewer.html#viewer"
    html = render_to_string(
        template, viewer_context(battle, battle.get_absolute_url(), round_no, step)
    )
    shared = battle.share_url()
    html_shared = (
        render_to_string(template, viewer_context(battle, shared, round_no, step)) if shared else ""
    )
    return html, html_shared


@require_post
@login_required
def battle_present(request, code):
    """Start, move or stop a presentation. With htmx (the presenter's own steps) a 204; as
    a plain form, back to the battle at the presented step."""
    battle = _get_battle_for_user(request, code)
    if not may_present(battle, request.user):
        raise Http404
    form = PresentForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest("Unknown presenter action.")
    action = form.cleaned_data["action"]
    round_no, step = viewer.clamp_position(
        battle.log, battle.frames, form.cleaned_data["round"], form.cleaned_data["step"]
    )
    try:
        if action == "stop":
            presentation_stop(battle=battle, by=request.user)
            if not request.htmx:
                messages.success(request, "You stopped presenting.")
        else:
            html, html_shared = _presented_html(battle, round_no, step)
            service = presentation_start if action == "start" else presentation_move
            service(
                battle=battle, by=request.user, round_no=round_no, step=step, html=html,
                html_shared=html_shared,
            )  # fmt: skip
            if action == "start" and not request.htmx:
                messages.success(request, "You are presenting: followers see your step.")
    except ValidationError as e:
        if request.htmx:
            return HttpResponse("; ".join(e.messages), status=409, content_type="text/plain")
        messages.error(request, "; ".join(e.messages))
    if request.htmx:
        return HttpResponse(status=204)
    return redirect(f"{battle.get_absolute_url()}?round={round_no}&step={step}")


def _follow_answer(presentation, token_field: str, shared: bool) -> JsonResponse:
    if presentation is None:
        return JsonResponse({"poll": None})
    url = reverse("battle_presented", kwargs={"token": getattr(presentation, token_field)})
    return JsonResponse({"poll": url, "presenter": presentation.presenter.username})


@require_safe
def battle_follow(request, code):
    """Where a member polls the presented step (a token that dies with the presentation)."""
    battle = _get_battle_for_user(request, code)
    presentation = Presentation.objects.filter(battle=battle).select_related("presenter").first()
    return _follow_answer(presentation, "token", shared=False)


@require_safe
@noindex
def shared_follow(request, token):
    battle = _get_shared_battle(token)
    presentation = Presentation.objects.filter(battle=battle).select_related("presenter").first()
    return _follow_answer(presentation, "token_shared", shared=True)


def _poll_sql() -> tuple[str, str]:
    """The poll's two statements, written out once: followers ask tens of times a second,
    and building the ORM's SQL each time costs more than running it."""
    qn = connection.ops.quote_name
    p, b = qn(Presentation._meta.db_table), qn(Battle._meta.db_table)
    head = (
        f"SELECT p.{qn('id')}, p.{qn('version')}, p.{qn('token')}, b.{qn('share_token')}, "
        f"b.{qn('visibility')} FROM {p} p JOIN {b} b ON b.{qn('id')} = p.{qn('battle_id')} "
        f"WHERE p.{qn('token')} = %s OR p.{qn('token_shared')} = %s"
    )
    body = f"SELECT {qn('html')}, {qn('html_shared')} FROM {p} WHERE {qn('id')} = %s"
    return head, body


@require_safe
@noindex
def battle_presented(request, token):
    """The followers' poll, built to be cheap: one small query and a 304 while the
    presenter has not moved; the step's HTML was rendered once, when the presenter moved.
    No session is read, so a poll costs no more than its queries."""
    head, body = _poll_sql()
    with connection.cursor() as cursor:
        cursor.execute(head, [token, token])
        row = cursor.fetchone()
        if not token or row is None:
            raise Http404
        pk, version, member_token, share_token, visibility = row
        shared = member_token != token
        if shared and (not share_token or visibility == BattleVisibility.PRIVATE):
            raise Http404  # the share link was revoked: its followers stop with it
        etag = f'"{version}{"s" if shared else "m"}"'
        if request.headers.get("If-None-Match") == etag:
            response = HttpResponseNotModified()
        else:
            cursor.execute(body, [pk])
            html, html_shared = cursor.fetchone() or ("", "")
            response = HttpResponse(html_shared if shared else html)
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response


@require_safe
def protocol_page(request):
    return render(
        request,
        "battles/protocol.html",
        {"protocol": PROTOCOL_FILE.read_text(encoding="utf-8")},
    )
