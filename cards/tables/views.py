"""Table pages. A table is a 404 for anyone who does not sit at it, like a code that never
existed; the GM's controls are a 404 for the other members too."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import slugify

from memeyori_site.http import allow, require_post, require_safe

from ..models import Table
from ..printing.deck import character_faces
from ..printing.layout import PER_SHEET, sheet_layout
from ..printing.render import TooManyCards, prepare
from ..printing.store import Render
from ..printing.views import serve_or_wait
from . import services
from .forms import InviteForm, MemberForm, TableForm, TablePrintForm


def _table_for_member(request, code) -> Table:
    table = services.get_table_for_member(request.user, code)
    if table is None:
        raise Http404
    return table


def _table_for_gm(request, code) -> Table:
    table = _table_for_member(request, code)
    if table.gm_id != request.user.pk:
        raise Http404
    return table


@require_safe
@login_required
def table_list(request):
    from battles.models import Growth

    growth = Growth.objects.filter(owner=request.user).select_related("memeyori", "battle")[:50]
    return render(
        request,
        "tables/list.html",
        {"tables": services.tables_of(request.user), "growth": growth},
    )


@allow("GET", "POST")
@login_required
def table_new(request):
    form = TableForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        table = services.table_create(gm=request.user, **form.cleaned_data)
        messages.success(request, f"{table.name} is open; you are its GM. Invite your players.")
        return redirect(table)
    return render(request, "tables/new.html", {"form": form}, status=400 if form.errors else 200)


@require_safe
@login_required
def table_page(request, code):
    from battles.models import Battle

    table = _table_for_member(request, code)
    is_gm = table.gm_id == request.user.pk
    members = table.memberships.select_related("user")
    shared = services.shared_with(table)
    battles = Battle.objects.filter(table=table).only(
        "code", "name_a", "name_b", "rounds", "created", "show_result", "winner", "table"
    )[:50]
    invite_url = ""
    if is_gm and table.invite_token:
        invite_url = request.build_absolute_uri(
            reverse("table_join", kwargs={"token": table.invite_token})
        )
    sheet = None
    if is_gm:
        cards = services.shared_card_count(table)
        sheets = -(-cards // PER_SHEET)
        sheet = {"cards": cards, "sheets": sheets, "last": cards - PER_SHEET * (sheets - 1)}
    return render(
        request,
        "tables/table.html",
        {
            "sheet": sheet,
            "table": table,
            "is_gm": is_gm,
            "members": members,
            "shared": shared,
            "battles": battles,
            "feed": services.table_feed(table),
            "invite_url": invite_url,
            "invite_form": InviteForm(),
        },
    )


@require_post
@login_required
def table_invite(request, code):
    table = _table_for_gm(request, code)
    form = InviteForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect(table)
    if form.cleaned_data["action"] == "open":
        services.table_invite_open(table=table, days=form.cleaned_data["days"])
        messages.success(request, "New invite link made; any older one no longer works.")
    else:
        services.table_invite_revoke(table=table)
        messages.success(request, "Invite link revoked; it no longer works.")
    return redirect(table)


@require_post
@login_required
def table_member(request, code):
    table = _table_for_gm(request, code)
    form = MemberForm(request.POST, table=table)
    if not form.is_valid():
        messages.error(request, "; ".join(e for errs in form.errors.values() for e in errs))
        return redirect(table)
    member = form.cleaned_data["member"]
    try:
        if form.cleaned_data["action"] == "remove":
            services.table_remove_member(table=table, member=member)
            messages.success(request, f"{member.username} no longer sits at {table.name}.")
        else:
            services.table_hand_gm(table=table, member=member)
            messages.success(request, f"{member.username} is now the GM of {table.name}.")
    except ValidationError as e:
        messages.error(request, "; ".join(e.messages))
    return redirect(table)


@require_post
@login_required
def table_leave(request, code):
    table = _table_for_member(request, code)
    try:
        closed = services.table_leave(table=table, user=request.user)
    except ValidationError as e:
        messages.error(request, "; ".join(e.messages))
        return redirect(table)
    messages.success(request, f"{table.name} is closed." if closed else f"You left {table.name}.")
    return redirect("table_list")


@require_safe
@login_required
def table_print(request, code):
    """The GM prints the table's shared cards, or one member's, in one PDF."""
    table = _table_for_gm(request, code)
    form = TablePrintForm(request.GET)
    form.is_valid()
    member = None
    if form.cleaned_data.get("member"):
        seat = table.memberships.select_related("user").filter(
            user__username=form.cleaned_data["member"]
        )
        if not seat:
            return HttpResponse("They do not sit at this table.", status=400)
        member = seat[0].user
    shared = services.shared_with(table, member)
    characters = [*shared["archons"].order_by("owner__username", "name")]
    characters += [*shared["memeyori"].order_by("owner__username", "name")]
    faces = [face for c in characters for face in character_faces(c)]
    title = f"{table.name}: {member.username}" if member else table.name
    try:
        spec = prepare(faces, sheet=sheet_layout("a4"), title=title)
    except TooManyCards as error:
        return HttpResponse(str(error), status=400, content_type="text/plain")
    # Rendered by a task worker like every PDF (issue 10): stored, or a waiting page.
    name = slugify(title) or "table"
    return serve_or_wait(request, kind=Render.Kind.SHEET, spec=spec, filename=f"{name}-cards.pdf")


@allow("GET", "POST")
@login_required
def table_join(request, token):
    table = services.table_for_invite(token)
    if table is None:
        raise Http404
    if services.is_member(table, request.user):
        return redirect(table)
    if request.method == "POST":
        try:
            services.table_join(token=token, user=request.user)
        except ValidationError:
            raise Http404 from None
        messages.success(request, f"Welcome to {table.name}.")
        return redirect(table)
    return render(request, "tables/join.html", {"table": table})
