"""The card editor (R7): add, edit, reorder and delete a character's cards inline.

Every action answers htmx with the `card-editor` partial and a plain request with a
redirect (or the full page when the form has errors), so it all works without JavaScript.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import trigger_client_event

from memeyori_site.http import allow, require_post, require_safe

from ..forms import CardForm
from ..models import Card
from ..services import card_delete, card_move, card_save
from .access import get_card_for_owner, get_character_for_owner

TEMPLATE = "cards/card_editor.html"


def editor_context(character, *, new_form=None, editing=None, added=None) -> dict:
    cards = list(character.cards.select_related("type"))
    if new_form is None:
        new_form = CardForm(prefix="new", initial={"type": character.type_id})
        if added is not None:
            # After adding a card the person stays in the add form, ready for the next
            # (htmx focuses an autofocus element it swaps in).
            new_form.fields["name"].widget.attrs["autofocus"] = True
    rank = getattr(character, "rank", None)
    return {
        "character": character,
        "kind": character.kind,
        "cards": cards,
        "rank": rank,
        "unlocked_count": sum(1 for c in cards if rank is None or c.unlock_rank <= rank),
        "new_form": new_form,
        "editing": editing,
        "added": added,
    }


def _respond(request, character, *, status=200, added=None, **forms):
    """After a change: the partial for htmx, else back to the editor page."""
    if request.htmx:
        response = render(
            request,
            TEMPLATE + "#card-editor",
            editor_context(character, added=added, **forms),
            status=status,
        )
        if status == 200 and not forms:
            # The builder's odds panel lists the cards; tell it to refresh.
            trigger_client_event(response, "cardsChanged")
        return response
    if forms:
        return render(request, TEMPLATE, editor_context(character, **forms), status=status)
    return redirect("card_editor", kind=character.kind, code=character.code)


@require_safe
@vary_on_headers("HX-Request")
@login_required
def card_editor(request, kind, code):
    character = get_character_for_owner(request, kind, code)
    template = TEMPLATE + "#card-editor" if request.htmx else TEMPLATE
    return render(request, template, editor_context(character))


@require_post
@login_required
def card_add(request, kind, code):
    character = get_character_for_owner(request, kind, code)
    form = CardForm(request.POST, prefix="new", instance=Card(**{kind: character}))
    if not form.is_valid():
        return _respond(request, character, new_form=form)
    try:
        card = card_save(card=form.save(commit=False))
    except ValidationError as error:  # the person's bounds (issue 18.4)
        form.add_error(None, error)
        return _respond(request, character, new_form=form)
    if not request.htmx:  # a swapped partial shows the change; a message would linger
        messages.success(request, f"Added {card.name}.")
    return _respond(request, character, added=card)


@allow("GET", "POST")
@vary_on_headers("HX-Request")
@login_required
def card_edit(request, kind, code, card):
    character = get_character_for_owner(request, kind, code)
    card = get_card_for_owner(request, character, card)
    if request.method != "POST":
        form = CardForm(prefix="edit", instance=card)
        return _respond(request, character, editing=form)
    form = CardForm(request.POST, prefix="edit", instance=card)
    if not form.is_valid():
        return _respond(request, character, editing=form)
    card_save(card=form.save(commit=False))
    if not request.htmx:  # a swapped partial shows the change; a message would linger
        messages.success(request, f"Saved {card.name}.")
    return _respond(request, character)


@require_post
@login_required
def card_reorder(request, kind, code, card):
    character = get_character_for_owner(request, kind, code)
    card = get_card_for_owner(request, character, card)
    offset = {"up": -1, "down": 1}.get(request.POST.get("direction", ""))
    if offset is not None:
        card_move(card=card, offset=offset)
    return _respond(request, character)


@allow("GET", "POST")
@login_required
def card_remove(request, kind, code, card):
    """GET asks for confirmation; only a POST deletes."""
    character = get_character_for_owner(request, kind, code)
    card = get_card_for_owner(request, character, card)
    if request.method != "POST":
        return render(
            request, "cards/card_confirm_delete.html", {"card": card, "character": character}
        )
    name = card.name
    card_delete(card=card)
    if not request.htmx:  # a swapped partial shows the change; a message would linger
        messages.success(request, f"Deleted {name}.")
    return _respond(request, character)
