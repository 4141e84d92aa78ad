"""Parties (R8): pick an Archon and up to six Memeyori, spend DP, see the totals live."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.vary import vary_on_headers

from memeyori_site.confirm import confirm_page
from memeyori_site.http import allow, require_post, require_safe

from ..forms import PartyForm, error_messages
from ..models import Party
from ..services import (
    party_copy,
    party_delete,
    party_save,
    party_share_with_tables,
    party_sharing,
)
from .access import get_party_for_owner, get_party_for_viewer

TEMPLATE = "cards/party_form.html"


@require_safe
def party_page(request, code):
    party = get_party_for_viewer(request, code)
    return render(
        request,
        "cards/party.html",
        {
            "party": party,
            "memeyori": party.memeyori_in_order(),
            "is_owner": party.owner_id == request.user.id,
            "to_share": party_sharing(party) if party.owner_id == request.user.id else [],
        },
    )


def _kind(thing) -> str:
    return "the party" if isinstance(thing, Party) else thing.kind.capitalize()


@allow("GET", "POST")
@login_required
def party_share(request, code):
    """Share a party, its Archon and its Memeyori with the owner's tables in one step
    (issue 41.9): GET says what changes, POST does it all in one transaction."""
    party = get_party_for_owner(request, code)
    to_share = party_sharing(party)
    if not to_share:
        messages.info(request, f"{party.name} and its characters are already shared.")
        return redirect(party)
    if request.method != "POST":
        return confirm_page(
            request,
            question=f"Share {party.name} with your tables?",
            consequences=[
                f"These {len(to_share)} go from private to My tables: the members of every "
                "table you sit at can see them, and a table's GM can pair the party in a "
                "game.",
            ],
            items=[f"{thing.name} ({_kind(thing)})" for thing in to_share],
            closing="Each stays yours to edit, and can go back to private on its own page "
            "(the party first).",
            action_url=request.path,
            button=f"Share these {len(to_share)}",
            cancel_url=party.get_absolute_url(),
            cancel_label="Keep them private",
            danger=False,
        )
    changed = party_share_with_tables(party=party)
    messages.success(
        request,
        f"Shared with your tables: {', '.join(thing.name for thing in changed)}.",
    )
    return redirect(party)


@require_safe
@login_required
def party_list(request):
    parties = Party.objects.filter(owner=request.user).select_related("archon")
    return render(request, "cards/party_list.html", {"parties": parties})


def _form_page(request, form, party=None):
    if form.is_bound:
        form.is_valid()
    return render(
        request,
        TEMPLATE,
        {
            "form": form,
            "party": party,
            "totals": form.totals() if form.is_bound else None,
            "errors": error_messages(form) if form.is_bound else [],
        },
    )


def _save(request, form):
    if "preview" in request.POST or not form.is_valid():
        return _form_page(request, form, form.instance if form.instance.pk else None)
    try:
        party = party_save(
            party=form.save(commit=False),
            memeyori=form.chosen_memeyori(),
            back_image=form.cleaned_data.get("back_image"),
            remove_back_image=form.cleaned_data.get("remove_back_image", False),
        )
    except ValidationError as error:  # the person's bounds (issue 18.4), or a race
        form.add_error(None, error)
        return _form_page(request, form, form.instance if form.instance.pk else None)
    messages.success(request, f"Saved {party.name}.")
    return redirect("party_edit", code=party.code)


@allow("GET", "POST")
@login_required
def party_new(request):
    if request.method == "POST":
        return _save(request, PartyForm(request.POST, request.FILES, owner=request.user))
    return _form_page(request, PartyForm(owner=request.user))


@allow("GET", "POST")
@login_required
def party_edit(request, code):
    party = get_party_for_owner(request, code)
    if request.method == "POST":
        form = PartyForm(request.POST, request.FILES, instance=party, owner=request.user)
        return _save(request, form)
    form = PartyForm(instance=party, owner=request.user)
    return render(request, TEMPLATE, {"form": form, "party": party, "totals": party.totals})


@require_safe
@vary_on_headers("HX-Request")
@login_required
def party_totals(request):
    """SP, MP, Draw and the R8 refusals for what is chosen so far; saves nothing."""
    form = PartyForm(request.GET, owner=request.user)
    form.is_valid()
    context = {"form": form, "totals": form.totals(), "errors": error_messages(form)}
    template = TEMPLATE + "#totals" if request.htmx else TEMPLATE
    return render(request, template, context)


@require_post
@login_required
def party_borrow(request, code):
    """Copy a party one may see, with its characters, into one's own collection (21.8)."""
    party = get_party_for_viewer(request, code)
    try:
        copy = party_copy(party=party, owner=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect(party)
    messages.success(request, f"Copied {party.name} and its characters as {copy.name}.")
    return redirect("party_edit", code=copy.code)


@allow("GET", "POST")
@login_required
def party_remove(request, code):
    party = get_party_for_owner(request, code)
    if request.method != "POST":
        return render(request, "cards/party_confirm_delete.html", {"party": party})
    name = party.name
    party_delete(party=party)
    messages.success(request, f"Deleted {name}.")
    return redirect("party_list")
