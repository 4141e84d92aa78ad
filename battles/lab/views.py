"""The lab's pages: the form, progress (an htmx partial, or a meta refresh without JS),
results, "what if", sharing, and battle i opened in the viewer."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRefresh

from cards.models import get_readable_or_404
from memeyori_site.errors import DeadLink, error_page
from memeyori_site.http import allow, noindex, require_post, require_safe

from .. import making
from .. import views as battle_views
from ..forms import ShareForm
from ..models import BattleVisibility, JobStatus
from . import report, services
from .forms import LabForm, WhatIfForm
from .models import Lab, LabStatus


def _get_lab_for_user(request, code) -> Lab:
    """The owner's labs and public ones; else the same 404 as a code that never existed."""
    return get_readable_or_404(Lab.objects.all(), request.user, code=code)


def _get_owned_lab(request, code) -> Lab:
    return get_object_or_404(Lab, code=code, owner=request.user)


DEAD_SHARE_LINK = (
    "This lab's share link no longer works: its owner made a new one, revoked it, or made "
    "the lab private. Ask whoever sent it for a new link."
)


def _get_shared_lab(token: str) -> Lab:
    lab = Lab.objects.filter(share_token=token).exclude(visibility="private").first()
    if lab is None or not token:
        raise DeadLink(
            "This lab link no longer works",
            DEAD_SHARE_LINK,
            action_url=reverse("lab_public"),
            action_label="See the public labs",
        )
    return lab


def _no_such_battle(request, lab: Lab, *, shared: bool, status: int = 400):
    """A battle link with numbers that are not one of the lab's battles (?m=x&i=-4)."""
    back = (
        reverse("lab_shared", kwargs={"token": lab.share_token})
        if shared
        else lab.get_absolute_url()
    )
    return error_page(
        request,
        status,
        title="No such battle in this lab",
        message=(
            f"A battle link names the opponent (m, from 0 to {lab.matchups.count() - 1}) and "
            f"the battle (i, from 0 to {lab.battles - 1}) as whole numbers. Open the battle "
            "from the lab's page instead."
        ),
        action_url=back,
        action_label="Back to the lab",
    )


@require_safe
@login_required
def lab_list(request):
    labs = Lab.objects.filter(owner=request.user).prefetch_related("matchups")[:200]
    return render(request, "battles/lab/list.html", {"labs": labs, "mine": True})


@require_safe
def lab_public(request):
    labs = (
        Lab.objects.filter(visibility=BattleVisibility.PUBLIC, status=LabStatus.DONE)
        .select_related("owner")
        .prefetch_related("matchups")[:100]
    )
    return render(request, "battles/lab/list.html", {"labs": labs, "mine": False})


@allow("GET", "POST")
@login_required
def lab_new(request):
    initial = {}
    if request.method != "POST":  # HEAD shows what GET shows
        # From a party's page: ?a=<party code> picks side A.
        for key, field in (("a", "party_a"), ("b", "party_b")):
            if request.GET.get(key):
                initial[field] = request.GET[key]
    form = LabForm(request.POST or None, user=request.user, initial=initial)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            lab = services.lab_create(
                owner=request.user,
                party_a=d["party_a"],
                party_b=d["party_b"] if d["against"] == "one" else None,
                battles=d["battles"],
                seed=d["seed"],
                policy_a=d["policy_a"],
                policy_b=d["policy_b"],
                visibility=d["visibility"],
                draw_at_limit=d["draw_at_limit"],
            )
        except ValidationError as e:
            form.add_error(None, e)
        else:
            return redirect(lab)
    return render(
        request, "battles/lab/new.html", {"form": form}, status=400 if form.errors else 200
    )


class SelectForm(forms.Form):
    vs = forms.IntegerField(min_value=0, required=False)


def _render_lab(request, lab: Lab, *, shared: bool):
    base_url = request.path
    if request.htmx and request.GET.get("progress"):
        if not lab.running:
            return HttpResponseClientRefresh()
        return render(
            request,
            "battles/lab/lab.html#progress",
            {
                "lab": lab,
                "base_url": base_url,
                "is_owner": lab.owner_id == request.user.pk,
                "progress": report.progress(lab, timezone.now()),
            },
        )
    select = SelectForm(request.GET)
    selected = select.cleaned_data["vs"] if select.is_valid() else None
    context = {
        "lab": lab,
        "progress": report.progress(lab, timezone.now()) if lab.running else None,
        "shared": shared,
        "base_url": base_url,
        "is_owner": request.user.is_authenticated and lab.owner_id == request.user.pk,
        "visibility_choices": BattleVisibility.choices,
        "share_url": request.build_absolute_uri(lab.share_url()) if lab.share_url() else "",
        "open_url": (
            reverse("lab_shared_open", kwargs={"token": lab.share_token})
            if shared
            else reverse("lab_open", kwargs={"code": lab.code})
        ),
    }
    if lab.finished_ok:
        context["r"] = report.build(lab, selected)
        base = lab.base
        if base is not None and base.finished_ok and base.owner_id == lab.owner_id:
            context["comparison"] = report.compare(base, lab)
            context["base"] = base
        context["variants"] = [v for v in lab.variants.all() if v.finished_ok]
    return render(request, "battles/lab/lab.html", context)


@require_safe
@vary_on_headers("HX-Request")
def lab_page(request, code):
    return _render_lab(request, _get_lab_for_user(request, code), shared=False)


@require_safe
@noindex
@vary_on_headers("HX-Request")
def lab_shared(request, token):
    return _render_lab(request, _get_shared_lab(token), shared=True)


class OpenForm(forms.Form):
    m = forms.IntegerField(min_value=0, initial=0)
    i = forms.IntegerField(min_value=0)


def _open(request, lab: Lab, *, shared: bool):
    """Battle i in the viewer. A battle its owner kept opens at its own address; any other
    of cheap policies is played from the lab's snapshot and seed and shown here, stored
    nowhere (issue 18.9). The lab's owner may POST to keep it (to share it alone, or present
    it). A battle with a thinking policy is never played in a request (issue 39.2): until
    its owner has a task worker make it (a POST), the page says it is not made yet."""
    form = OpenForm(request.GET)
    if not form.is_valid():
        return _no_such_battle(request, lab, shared=shared)
    m, i = form.cleaned_data["m"], form.cleaned_data["i"]
    matchup = lab.matchups.filter(index=m).first()
    if matchup is None or i >= lab.battles:
        return _no_such_battle(request, lab, shared=shared, status=404)
    back = reverse("lab_shared", kwargs={"token": lab.share_token}) if shared else lab
    is_owner = not shared and lab.owner_id == request.user.pk
    thinks = making.thinks(lab.policy_a, lab.policy_b)
    try:
        if request.method == "POST":
            if not is_owner:
                raise Http404
            if thinks and (kept := services.stored_battle(matchup=matchup, i=i)):
                return redirect(kept)
            if thinks:
                # Seconds of thinking: a task worker makes it once, and it is kept.
                job = making.lab_battle_job_start(lab=lab, matchup=matchup, i=i, by=request.user)
                return redirect(job.battle if job.status == JobStatus.DONE else job)
            return redirect(services.lab_open_battle(lab=lab, matchup=matchup, i=i))
        battle = services.stored_battle(matchup=matchup, i=i)
        if battle is not None:
            if shared and lab.visibility != BattleVisibility.PUBLIC:
                return redirect(battle.share_url())
            return redirect(battle)
        if thinks:
            # Never played for a reader (issue 39.2): the owner may ask a worker to make it.
            job = making.lab_battle_job(matchup=matchup, i=i) if is_owner else None
            return render(request, "battles/lab/not_made.html", {
                "lab": lab, "matchup": matchup, "i": i, "m": m, "is_owner": is_owner,
                "job": job, "back": back if shared else lab.get_absolute_url(),
            })  # fmt: skip
        # Cheap policies (a few milliseconds a battle): played from the seed, kept nowhere.
        battle = services.lab_battle(lab=lab, matchup=matchup, i=i)
    except ValidationError as e:
        messages.error(request, " ".join(e.messages))
        return redirect(back)
    query = {"m": m, "i": i}
    return battle_views.render_unsaved(
        request, battle, f"{request.path}?m={m}&i={i}", shared=shared,
        query=query, keep_url=f"{request.path}?m={m}&i={i}" if is_owner else "",
    )  # fmt: skip


@allow("GET", "POST")
@vary_on_headers("HX-Request")
def lab_open(request, code):
    """Battle i in the viewer, played from the lab's snapshot: a GET stores nothing."""
    return _open(request, _get_lab_for_user(request, code), shared=False)


@require_safe
@noindex
@vary_on_headers("HX-Request")
def lab_shared_open(request, token):
    return _open(request, _get_shared_lab(token), shared=True)


@require_post
@login_required
def lab_share(request, code):
    lab = _get_owned_lab(request, code)
    form = ShareForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest("Unknown share action.")
    action = form.cleaned_data["action"]
    if action == "visibility":
        try:
            services.lab_set_visibility(lab=lab, visibility=form.cleaned_data["visibility"])
        except ValidationError as e:
            messages.error(request, " ".join(e.messages))
            return redirect(lab)
        messages.success(request, f"This lab is now {lab.get_visibility_display()}.")
    elif action == "regenerate":
        services.lab_share_regenerate(lab=lab)
        messages.success(request, "New share link made; the old one no longer works.")
    else:
        services.lab_share_revoke(lab=lab)
        messages.success(request, "Share link revoked; it no longer works.")
    return redirect(lab)


@require_post
@login_required
def lab_resume(request, code):
    lab = services.lab_resume(lab=_get_owned_lab(request, code))
    if not lab.finished_ok:
        messages.success(request, "The unfinished battles are queued again.")
    return redirect(lab)


@allow("GET", "POST")
@login_required
def lab_what_if(request, code):
    lab = _get_owned_lab(request, code)
    side = lab.matchups.order_by("index").first().snapshot["sides"][0]
    form = WhatIfForm(request.POST or None, user=request.user, side=side)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        character = d["archon"] if d["kind"] == "archon" else d["memeyori"]
        try:
            variant = services.lab_what_if(
                owner=request.user, base=lab, kind=d["kind"], slot=d["slot"], character=character
            )
        except ValidationError as e:
            form.add_error(None, e)
        else:
            return redirect(variant)
    return render(
        request,
        "battles/lab/what_if.html",
        {"lab": lab, "form": form, "side": side},
        status=400 if form.errors else 200,
    )


@require_safe
def lab_about(request):
    return render(request, "battles/lab/about.html")
