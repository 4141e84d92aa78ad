"""Table pages. A table is a 404 for anyone who does not sit at it, like a code that never
existed; the GM's controls are a 404 for the other members too."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import slugify

from memeyori_site.confirm import confirm_page
from memeyori_site.errors import DeadLink, error_page
from memeyori_site.http import allow, noindex, require_safe

from ..models import Table
from ..printing.deck import character_faces
from ..printing.layout import PER_SHEET, sheet_layout
from ..printing.render import TooManyCards, prepare
from ..printing.store import Render
from ..printing.views import serve_or_wait
from . import services
from .forms import InviteForm, MemberForm, TableForm, TablePrintForm, TableRulesForm


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
            # Games in progress, for its members to watch (battles.play, issue 17).
            "games": table.games.exclude(status="finished").select_related("user_a", "user_b")[:20],
            "invite_url": invite_url,
            "invite_form": InviteForm(),
            "rules_form": TableRulesForm(initial={"draw_at_limit": table.draw_at_limit}),
        },
    )


@allow("POST")
@login_required
def table_rules(request, code):
    """The GM sets the table's rule at the round limit (R9.6)."""
    table = _table_for_gm(request, code)
    form = TableRulesForm(request.POST)
    if form.is_valid():
        services.table_set_rules(table=table, **form.cleaned_data)
        rule = "a draw" if table.draw_at_limit else "decided by R9.6"
        messages.success(request, f"From now on, battles and games here at round 30 are {rule}.")
    return redirect(table)


@allow("GET", "POST")
@login_required
def table_invite(request, code):
    """Open or revoke the invite link. Whatever kills a live link asks first (GET)."""
    table = _table_for_gm(request, code)
    form = InviteForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect(table)
    action = form.cleaned_data["action"]
    if request.method != "POST":
        if not table.invite_token:
            # No live link (revoked in another tab, say): nothing to lose, nothing to ask.
            messages.info(request, "No invite link is open now; make one below.")
            return redirect(table)
        days = form.cleaned_data["days"]
        return confirm_page(
            request,
            question="Revoke the invite link?" if action == "revoke" else "Make a new invite link?",
            consequences=[
                "The link you sent stops working: anyone who has not joined yet needs a "
                + ("new one." if action == "revoke" else "the new one."),
                "Members who already sit at the table stay.",
            ],
            action_url=request.path,
            fields={"action": action, **({"days": days} if days else {})},
            button="Revoke the invite link" if action == "revoke" else "Make a new invite link",
            cancel_url=table.get_absolute_url(),
            cancel_label="Keep the current link",
        )
    if action == "open":
        services.table_invite_open(table=table, days=form.cleaned_data["days"])
        messages.success(request, "New invite link made; any older one no longer works.")
    else:
        services.table_invite_revoke(table=table)
        messages.success(request, "Invite link revoked; it no longer works.")
    return redirect(table)


def _ask_about_member(request, table, member, action):
    """The page that asks before a GM removes a member or hands them the GM role."""
    name = member.username
    common = {
        "action_url": request.path,
        "fields": {"member": name, "action": action},
        "cancel_url": table.get_absolute_url(),
    }
    if member.pk == table.gm_id:
        return confirm_page(
            request,
            question=f"{name} is the GM",
            refusal="The GM cannot be removed; hand the GM role to someone first.",
            button="",
            cancel_label=f"Back to {table.name}",
            **common,
        )
    if action == "remove":
        return confirm_page(
            request,
            question=f"Remove {name} from {table.name}?",
            consequences=[
                f"{name} stops seeing the table, its battles and what its members share "
                "with it, and what they shared stops showing here.",
                f"Their characters and parties stay theirs. To sit here again {name} "
                "needs a new invite link.",
            ],
            button=f"Remove {name}",
            cancel_label=f"Keep {name} at the table",
            **common,
        )
    return confirm_page(
        request,
        question=f"Make {name} the GM of {table.name}?",
        consequences=[
            f"You stay a member, but from now on only {name} invites and removes members, "
            "prints the table's cards and decides which battles count for growth.",
            f"Only {name} can hand the GM role back.",
        ],
        button=f"Make {name} the GM",
        cancel_label="Stay the GM",
        danger=False,
        **common,
    )


@allow("GET", "POST")
@login_required
def table_member(request, code):
    """Remove a member or hand them the GM role: GET asks first, only POST acts."""
    table = _table_for_gm(request, code)
    form = MemberForm(request.POST if request.method == "POST" else request.GET, table=table)
    if not form.is_valid():
        messages.error(request, "; ".join(e for errs in form.errors.values() for e in errs))
        return redirect(table)
    member = form.cleaned_data["member"]
    if request.method != "POST":
        return _ask_about_member(request, table, member, form.cleaned_data["action"])
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


def _ask_about_leaving(request, table):
    is_gm = table.gm_id == request.user.pk
    alone = not table.memberships.exclude(user=request.user).exists()
    common = {"action_url": request.path, "cancel_url": table.get_absolute_url()}
    if is_gm and not alone:
        return confirm_page(
            request,
            question=f"Leave {table.name}?",
            refusal="You are its GM: hand the GM role to another member first (Make GM, "
            "beside their name), then leave.",
            button="",
            cancel_label=f"Back to {table.name}",
            **common,
        )
    if is_gm:
        return confirm_page(
            request,
            question=f"Close {table.name}?",
            consequences=[
                "You are its only member, so leaving closes it for good: its invite link "
                "stops working and nobody can open it again.",
                "Your characters, parties and battles stay yours.",
            ],
            button="Close the table",
            cancel_label="Keep the table",
            **common,
        )
    return confirm_page(
        request,
        question=f"Leave {table.name}?",
        consequences=[
            "You stop seeing the table, its battles and what its members share with it, "
            "and what you shared stops showing there.",
            "Your characters and parties stay yours. To come back you need a new invite link.",
        ],
        button="Leave the table",
        cancel_label="Stay at the table",
        **common,
    )


@allow("GET", "POST")
@login_required
def table_leave(request, code):
    """Leave the table (a GM alone closes it): GET asks first, only POST acts."""
    table = _table_for_member(request, code)
    if request.method != "POST":
        return _ask_about_leaving(request, table)
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
            return error_page(
                request, 400, title="Not at this table", message="They do not sit at this table.",
                action_url=table.get_absolute_url(), action_label=f"Back to {table.name}",
            )  # fmt: skip
        member = seat[0].user
    shared = services.shared_with(table, member)
    characters = [*shared["archons"].order_by("owner__username", "name")]
    characters += [*shared["memeyori"].order_by("owner__username", "name")]
    faces = [face for c in characters for face in character_faces(c)]
    title = f"{table.name}: {member.username}" if member else table.name
    try:
        spec = prepare(faces, sheet=sheet_layout("a4"), title=title)
    except TooManyCards as error:
        return error_page(
            request, 400, title="Nothing to print", message=str(error),
            action_url=table.get_absolute_url(), action_label=f"Back to {table.name}",
        )  # fmt: skip
    # Rendered by a task worker like every PDF (issue 10): stored, or a waiting page.
    name = slugify(title) or "table"
    return serve_or_wait(
        request, kind=Render.Kind.SHEET, spec=spec, filename=f"{name}-cards.pdf",
        characters=characters,
    )  # fmt: skip


def _dead_invite() -> DeadLink:
    # Revoked, replaced, expired or never issued: the same words, and nothing about the table.
    return DeadLink(
        "This invite link no longer works",
        "The GM has revoked it or made a new one, or it has expired. Ask your GM for a new one.",
        action_url=reverse("table_list"),
        action_label="Go to your tables",
    )


@allow("GET", "POST")
@noindex
def table_join(request, token):
    """A dead link says so before anyone is asked to log in; a live one asks first."""
    table = services.table_for_invite(token)
    if table is None:
        raise _dead_invite()
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if services.is_member(table, request.user):
        return redirect(table)
    if request.method == "POST":
        try:
            services.table_join(token=token, user=request.user)
        except ValidationError:
            raise _dead_invite() from None
        messages.success(request, f"Welcome to {table.name}.")
        return redirect(table)
    return render(request, "tables/join.html", {"table": table})
