import contextlib
import hashlib
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Q
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
from django.utils.functional import SimpleLazyObject
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect, HttpResponseClientRefresh

from cards.models import Party, TableMembership, readable_or_404
from cards.printing import store
from memeyori_site import live
from memeyori_site.auth import USER_BY_KEY
from memeyori_site.compiled import Compiled
from memeyori_site.confirm import confirm_page
from memeyori_site.errors import DeadLink, error_page
from memeyori_site.http import allow, noindex, require_post, require_safe
from memeyori_site.ratelimit import requester

from . import making, og, viewer
from .engine.played_record import PLAYER
from .follow import FollowSigner
from .forms import BattleForm, PresentForm, ShareForm, ViewerForm
from .models import Battle, BattleJob, BattleVisibility, Game, JobStatus, Presentation
from .services import (
    battle_count_for_growth,
    battle_run,
    battle_set_show_result,
    battle_set_visibility,
    battle_share_regenerate,
    battle_share_revoke,
    channel_for_code,
    growth_call_refusal,
    growth_preview,
    may_present,
    may_take_over,
    presentation_move,
    presentation_start,
    presentation_stop,
)

PROTOCOL_FILE = Path(__file__).parent / "engine" / "PROTOCOL.md"
LIST_FIELDS = (
    "code", "name_a", "name_b", "winner", "rounds", "created", "visibility", "owner", "show_result"
)  # fmt: skip


# A battle's log, frames and snapshot are written once, when it is run, and never change,
# so each web process keeps the parsed JSON of the battles it served lately. Who may see a
# battle is still decided on every request, from its small row, before any of it is used.
CONTENT = ("log", "frames", "snapshot")


@lru_cache(maxsize=64)
def _content(code) -> tuple:
    return Battle.objects.values_list(*CONTENT).get(code=code)


def _with_content(battle: Battle) -> Battle:
    battle.log, battle.frames, battle.snapshot = _content(battle.code)
    return battle


# Every viewer step reads its battle (by code, or by share link) and whether it is being
# presented, compiled once (memeyori_site/compiled.py). The presenter is read on use.
BATTLE_BY_CODE = Compiled(
    lambda code: Battle.objects.defer(*CONTENT).filter(code=code), uuid.UUID(int=7_301_969)
)
BATTLE_BY_SHARE_TOKEN = Compiled(
    lambda token: (
        Battle.objects.filter(share_token=token)
        .exclude(visibility=BattleVisibility.PRIVATE)
        .defer(*CONTENT)
        .order_by("pk")[:1]
    ),
    "\x00no-share-token-is-this",
)
PRESENTATION_OF = Compiled(
    lambda battle: Presentation.objects.filter(battle_id=battle).order_by("pk")[:1], -7_301_969
)


PARTY_BY_ID = Compiled(lambda pk: Party.objects.filter(pk=pk), -7_301_972)


def _presentation(battle: Battle) -> Presentation | None:
    return PRESENTATION_OF.first(battle.pk)


def _with_names(request, battle: Battle) -> Battle:
    """The owner the viewer page names and, for a reader who is logged in (who gets the
    rematch links), the parties it links, read compiled like the battle: each relation
    read on use would build and compile a query of its own."""
    user = request.user
    owner = user if battle.owner_id == user.pk else USER_BY_KEY.first(battle.owner_id)
    if owner is not None:
        battle.owner = owner
    if user.is_authenticated:
        for side in ("party_a", "party_b"):
            pk = getattr(battle, f"{side}_id")
            party = PARTY_BY_ID.first(pk) if pk is not None else None
            if party is not None:
                setattr(battle, side, party)
    return battle


def _play_rematch(request, battle: Battle):
    if PLAYER not in (battle.policy_a, battle.policy_b) or not request.user.is_authenticated:
        return None
    from .play import rematch  # the play rooms import this module's neighbours

    game = Game.objects.select_related("party_a", "party_b", "table").filter(battle=battle).first()
    return None if game is None else rematch.links(game, request.user)


def _may_fork(battle: Battle) -> bool:
    from .play import fork  # the play rooms import this module's neighbours

    return fork.refusal(battle) is None


def _get_battle_for_user(request, code: uuid.UUID) -> Battle:
    """The one ownership helper: the owner's battles, and public ones; else a 404."""
    players = None
    if request.user.is_authenticated:
        # A played game's battle is also its players' (the friend who joined, issue 17).
        players = Q(game__user_a=request.user) | Q(game__user_b=request.user)
    return _with_content(
        readable_or_404(
            BATTLE_BY_CODE.first(code),
            Battle.objects.all(),
            request.user,
            at_table=True,
            also=players,
        )  # fmt: skip
    )


def _get_owned_battle(request, code) -> Battle:
    return get_object_or_404(Battle, code=code, owner=request.user)


def _get_shared_battle(token: str) -> Battle:
    """A live share link of an unlisted or public battle; revoked and unknown look the same."""
    battle = BATTLE_BY_SHARE_TOKEN.first(token) if token else None
    if battle is None:
        raise DeadLink(
            "This share link no longer works",
            "Whoever shared this battle has revoked the link, made a new one, or made the "
            "battle private. Ask them for a new link.",
            action_url=reverse("battle_public"),
            action_label="See the public battles",
        )
    return _with_content(battle)


@require_safe
@login_required
def battle_list(request):
    battles = Battle.objects.filter(owner=request.user).only(*LIST_FIELDS)
    return render(request, "battles/list.html", {**_paged(request, battles), "mine": True})


@require_safe
def public_list(request):
    battles = (
        Battle.objects.filter(visibility=BattleVisibility.PUBLIC)
        .select_related("owner")
        .only(*LIST_FIELDS, "owner__username")
    )
    return render(request, "battles/list.html", {**_paged(request, battles), "mine": False})


PAGE_SIZE = 50


def _paged(request, battles) -> dict:
    """One page of a list, newest first (issue 18.9: a list never grows without bound);
    a page past the end or not a number is the last or the first."""
    page = Paginator(battles, PAGE_SIZE).get_page(request.GET.get("page"))
    return {"battles": page.object_list, "page": page}


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
        args = {
            k: d[k]
            for k in ("party_a", "party_b", "seed", "policy_a", "policy_b", "counts_for_growth",
                      "visibility", "table", "draw_at_limit")
        }  # fmt: skip
        try:
            if making.thinks(d["policy_a"], d["policy_b"]):
                # Seconds of thinking: a task worker plays it; the job's page shows when.
                job = making.battle_job_start(owner=request.user, **args)
                return redirect(job.battle if job.status == JobStatus.DONE else job)
            battle = battle_run(owner=request.user, **args)
        except ValidationError as e:
            form.add_error(None, e)
        else:
            # Its preview image is drawn now, by a task worker, before any link is shared.
            with contextlib.suppress(store.Refused):
                _og_job(battle, requester=f"battle:{battle.code}")
            return redirect(battle)
    return render(request, "battles/new.html", {"form": form}, status=400 if form.errors else 200)


@require_safe
@login_required
@vary_on_headers("HX-Request")
def battle_job(request, code):
    """A battle being played by a task worker: its progress until the battle exists, then
    the battle itself. Only the person who asked sees it."""
    job = get_object_or_404(BattleJob.objects.select_related("matchup__lab"), code=code,
                            owner=request.user)  # fmt: skip
    if job.status == JobStatus.DONE and job.battle_id is not None:
        url = job.battle.get_absolute_url()
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    if request.htmx and request.GET.get("progress") and job.active:
        return render(request, "battles/job.html#job-progress", {"job": job})
    if request.htmx and not job.active:
        return HttpResponseClientRefresh()
    waiting = BattleJob.objects.filter(
        status=JobStatus.QUEUED, created__lt=job.created
    ).count() if job.status == JobStatus.QUEUED else 0  # fmt: skip
    return render(request, "battles/job.html", {"job": job, "ahead": waiting})


def viewer_context(battle: Battle, base_url: str, round_no, step, *, kept: bool = True) -> dict:
    """What the #viewer partial needs at a position; the same for every reader.

    A stored battle's log never changes, so its viewer at a step is kept rendered
    (CACHES["fragments"]) under `fragment_key`: everything the kept parts show besides the
    log. The view and its links are built only when the template renders a part that is
    not kept yet. `kept=False` (a lab's battle shown without a row) keeps
    nothing."""
    log, frames = battle.log, battle.frames
    round_no, step = viewer.clamp_position(log, frames, round_no, step)

    def build():
        snap = battle.snapshot or {}
        codes = viewer.character_codes(snap, log)
        return viewer.build(log, frames, snap.get("types", {}), round_no, step, codes)

    view = SimpleLazyObject(build)
    # A lab's battle i, shown without being stored, carries ?m=&i= in its base URL.
    join = "&" if "?" in base_url else "?"

    def links():
        return {
            name: (f"{base_url}{join}round={pos[0]}&step={pos[1]}" if pos else None)
            for name, pos in viewer.nav(view, frames, log).items()
        }

    return {
        "battle": battle,
        "view": view,
        "links": SimpleLazyObject(links),
        "base_url": base_url,
        "rounds": range(len(frames)),
        "at_round": round_no,
        "at_step": step,
        # The growth heading says whether the battle counted, which its GM may change.
        "fragment_key": (
            viewer.KEPT_PARTS,
            battle.code,
            base_url,
            round_no,
            step,
            battle.counts_for_growth,
        )
        if kept
        else None,
    }


def _render_viewer(request, battle: Battle, base_url: str, *, shared: bool, unsaved=None):
    """The viewer page. `unsaved`: a lab's battle i played from its snapshot and shown
    without a row of its own (issue 18.9: a GET stores nothing), as {"query": the ?m=&i=
    the jump form keeps, "keep_url": where its owner may POST to store it, or ""}; it has
    no log download, preview image, presenting or sharing until it is stored."""
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
        battle,
        base_url,
        form.cleaned_data["round"],
        form.cleaned_data["step"],
        kept=unsaved is None,
    )
    template = "battles/viewer.html"
    if request.htmx:
        template += "#viewer"
    if unsaved is not None:
        return render(request, template, context | {
            "shared": shared, "unsaved": True, "base_query": unsaved["query"],
            "keep_url": unsaved["keep_url"], "og_url": "",
        })  # fmt: skip
    presentation = _presentation(battle)
    context |= {
        # Play from here (battles/play/fork.py): whoever reads the battle by its page.
        "can_fork": not shared and _may_fork(battle),
        # A played game's rematch is another played game (battles/play/rematch.py); only
        # a battle with a player's side can be one, so others cost no query for it.
        "play_rematch": _play_rematch(request, battle),
        "shared": shared,
        "is_owner": request.user.is_authenticated and battle.owner_id == request.user.pk,
        "presentation": presentation,
        "present_url": reverse("battle_present", kwargs={"code": battle.code}),
        "can_present": not shared and may_present(battle, request.user),
        # Only someone the service would let start now sees the start control (21.3).
        "can_take_over": not shared and may_take_over(battle, presentation, request.user),
        "is_presenter": (
            not shared and presentation is not None and presentation.presenter_id == request.user.pk
        ),
    }
    if request.htmx:
        return render(request, template, context)
    # What only the page around the #viewer partial shows: the owner's and the parties'
    # names, the preview image, the player's follow control, sharing and the table's part.
    _with_names(request, battle)
    context |= {
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
        "can_count_growth": (
            not shared
            and request.user.is_authenticated
            and battle.table_id is not None
            and battle.table.gm_id == request.user.pk
            and not battle.counts_for_growth
        ),
    }
    return render(request, template, context)


def render_unsaved(request, battle: Battle, base_url: str, *, shared, query, keep_url):
    """A battle that has no row (a lab's battle i): the viewer, without what needs one."""
    unsaved = {"query": query, "keep_url": keep_url}
    return _render_viewer(request, battle, base_url, shared=shared, unsaved=unsaved)


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
            messages.error(request, " ".join(e.messages))
            return redirect(battle)
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
    # Messages go beside the present controls (the page opens there), not at the top of
    # the page, out of view (issue 21.3); base.html leaves "in-place" ones to the page.
    here = {"extra_tags": "in-place"}
    try:
        if action == "stop":
            presentation_stop(battle=battle, by=request.user)
            if not request.htmx:
                messages.success(request, "You stopped presenting.", **here)
        else:
            html, html_shared = _presented_html(battle, round_no, step)
            service = presentation_start if action == "start" else presentation_move
            service(
                battle=battle, by=request.user, round_no=round_no, step=step, html=html,
                html_shared=html_shared,
            )  # fmt: skip
            if action == "start" and not request.htmx:
                messages.success(request, "You are presenting: followers see your step.", **here)
    except ValidationError as e:
        if request.htmx:
            return HttpResponse("; ".join(e.messages), status=409, content_type="text/plain")
        messages.error(request, "; ".join(e.messages), **here)
    if request.htmx:
        return HttpResponse(status=204)
    return redirect(f"{battle.get_absolute_url()}?round={round_no}&step={step}#present")


# A poll or stream URL names its holder, signed: the signed-in user who asked (or a
# visitor), or the share link they came through. Each answer checks that this holder could
# open the battle now (issue 18.7), with no session read: a token copied out of a page
# works only while the person it was given to could still watch. The signature also names
# the presentation's token and when it was given (follow.py).
HOLDER_SALT = "battles.presented.holder"
_follow = FollowSigner(HOLDER_SALT)


def presented_as(token: str, holder: str) -> str:
    return _follow.sign(token, holder)


def _share_digest(share_token: str) -> str:
    return hashlib.sha256(share_token.encode()).hexdigest()[:24]


def _holder(request, battle: Battle, shared: bool) -> str:
    if shared:
        return "s" + _share_digest(battle.share_token)
    return f"u{request.user.pk}" if request.user.is_authenticated else "a"


def _follow_answer(request, battle: Battle, shared: bool) -> JsonResponse:
    presentation = _presentation(battle)
    if presentation is None:
        return JsonResponse({"poll": None})
    token = presentation.token_shared if shared else presentation.token
    query = "?" + urlencode({"as": presented_as(token, _holder(request, battle, shared))})
    return JsonResponse(
        {
            "poll": reverse("battle_presented", kwargs={"token": token}) + query,
            "stream": reverse("battle_presented_stream", kwargs={"token": token}) + query,
            "presenter": presentation.presenter.username,
        }
    )


@require_safe
def battle_follow(request, code):
    """Where a member polls the presented step (a token that dies with the presentation)."""
    return _follow_answer(request, _get_battle_for_user(request, code), shared=False)


@require_safe
@noindex
def shared_follow(request, token):
    return _follow_answer(request, _get_shared_battle(token), shared=True)


def _presented_sql() -> tuple[str, str]:
    """The poll's two statements, written out once: followers ask tens of times a second,
    and building the ORM's SQL each time costs more than running it. The first also says
    whether the holder sits at the battle's table."""
    qn = connection.ops.quote_name
    p, b = qn(Presentation._meta.db_table), qn(Battle._meta.db_table)
    m = qn(TableMembership._meta.db_table)
    head = (
        f"SELECT p.{qn('id')}, p.{qn('version')}, p.{qn('token')}, b.{qn('share_token')}, "
        f"b.{qn('visibility')}, b.{qn('owner_id')}, b.{qn('code')}, "
        f"EXISTS(SELECT 1 FROM {m} m WHERE m.{qn('table_id')} = b.{qn('table_id')} "
        f"AND m.{qn('user_id')} = %s) "
        f"FROM {p} p JOIN {b} b ON b.{qn('id')} = p.{qn('battle_id')} "
        f"WHERE p.{qn('token')} = %s OR p.{qn('token_shared')} = %s"
    )
    body = f"SELECT {qn('html')}, {qn('html_shared')} FROM {p} WHERE {qn('id')} = %s"
    return head, body


@dataclass(frozen=True)
class Presented:
    pk: int
    etag: str
    shared: bool
    channel: str


def _presented(cursor, token: str, signed_holder: str) -> Presented | None:
    """The presentation behind a poll token, if its holder could open the battle now."""
    holder = _follow.holder(token, signed_holder)
    if holder is None:
        return None
    user_id = int(holder[1:]) if holder.startswith("u") and holder[1:].isdigit() else None
    head, _ = _presented_sql()
    cursor.execute(head, [user_id, token, token])
    row = cursor.fetchone()
    if not token or row is None:
        return None
    pk, version, member_token, share_token, visibility, owner_id, code, at_table = row
    shared = member_token != token
    if shared:
        # Through the share link it was given by, while that link still works.
        allowed = (
            bool(share_token)
            and visibility != BattleVisibility.PRIVATE
            and holder == "s" + _share_digest(share_token)
        )
    else:
        # As the battle's own page decides: public, or its owner, or one of its table.
        allowed = visibility == BattleVisibility.PUBLIC or (
            user_id is not None and (owner_id == user_id or bool(at_table))
        )
    if not allowed:
        return None
    etag = f'"{version}{"s" if shared else "m"}"'
    return Presented(pk=pk, etag=etag, shared=shared, channel=channel_for_code(code))


def _presented_step_html(cursor, presented: Presented) -> str:
    cursor.execute(_presented_sql()[1], [presented.pk])
    html, html_shared = cursor.fetchone() or ("", "")
    return html_shared if presented.shared else html


@require_safe
@noindex
def battle_presented(request, token):
    """The followers' poll (when no stream can be held), built to be cheap: one small
    query and a 304 while the presenter has not moved; the step's HTML was rendered once,
    when the presenter moved. No session is read."""
    with connection.cursor() as cursor:
        presented = _presented(cursor, token, request.GET.get("as", ""))
        if presented is None:
            raise Http404
        if request.headers.get("If-None-Match") == presented.etag:
            response = HttpResponseNotModified()
        else:
            response = HttpResponse(_presented_step_html(cursor, presented))
    response["ETag"] = presented.etag
    response["Cache-Control"] = "private, no-cache"
    return response


def _presented_step(token: str, signed_holder: str) -> tuple[str, str, str] | None:
    """What the stream pushes (live.stream_presented): the step's ETag, HTML and channel."""
    with connection.cursor() as cursor:
        presented = _presented(cursor, token, signed_holder)
        if presented is None:
            return None
        return presented.etag, _presented_step_html(cursor, presented), presented.channel


@require_safe
async def battle_presented_stream(request, token):
    """The followers' stream: each step pushed as it is presented (Server-Sent Events),
    for as long as the holder could open the battle."""
    return await live.stream_presented(request, token, _presented_step)


@require_safe
def protocol_page(request):
    return render(
        request,
        "battles/protocol.html",
        {"protocol": PROTOCOL_FILE.read_text(encoding="utf-8")},
    )
