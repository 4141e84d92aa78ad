"""Who may see and change what: one ownership helper per model, used by every view.

A private object is a 404 for anyone but its owner, exactly like one that does not exist,
so a code cannot be probed. Codes are UUIDs; integer keys never reach a URL.
"""

import uuid

from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django_htmx.middleware import HtmxDetails

from memeyori_site.compiled import Compiled

from ..models import Archon, Card, Character, Memeyori, Party, get_readable_or_404

CHARACTER_MODELS = {"memeyori": Memeyori, "archon": Archon}


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def character_model(kind: str):
    model = CHARACTER_MODELS.get(kind)
    if model is None:
        raise Http404
    return model


def get_character_for_viewer(request, kind: str, code):
    """Reading a character: its owner, or anyone when it is public."""
    model = character_model(kind)
    rows = model.objects.select_related("type", "owner")
    return get_readable_or_404(rows, request.user, code=code)


def get_character_for_owner(request, kind: str, code):
    """Changing a character: its owner only; everyone else gets the same 404."""
    model = character_model(kind)
    if not request.user.is_authenticated:
        raise Http404
    return get_object_or_404(model.objects.select_related("type"), code=code, owner=request.user)


def get_card_for_owner(request, character: Character, code) -> Card:
    """A card of a character the caller already owns (checked by get_character_for_owner)."""
    return get_object_or_404(
        Card.objects.select_related("type"), code=code, **{character.kind: character}
    )


def _cards_of_owned(kind: str) -> Compiled:
    def build(code, owner):
        return (
            Card.objects.filter(**{f"{kind}__code": code, f"{kind}__owner": owner})
            .only("name", "category", "power", "unlock_rank", "type_id", "position")
            .order_by("position", "id")
        )

    return Compiled(build, uuid.UUID(int=7_301_968), -7_301_968)


# Each keystroke in the builder reads them (memeyori_site/compiled.py).
CARDS_OF_OWNED = {kind: _cards_of_owned(kind) for kind in CHARACTER_MODELS}


def get_cards_for_owner(request, kind: str, code: uuid.UUID) -> list[Card]:
    """The cards of a character the caller owns, or 404.

    One query when the character has cards (the owner check rides along in the join);
    a character with none falls back to get_character_for_owner for the 404.
    """
    character_model(kind)
    if not request.user.is_authenticated:
        raise Http404
    cards = CARDS_OF_OWNED[kind].objects(code, request.user.pk)
    if not cards:
        get_character_for_owner(request, kind, code)
    return cards


def get_party_for_viewer(request, code):
    rows = Party.objects.select_related("archon__type", "owner")
    return get_readable_or_404(rows, request.user, code=code)


def get_party_for_owner(request, code):
    if not request.user.is_authenticated:
        raise Http404
    return get_object_or_404(
        Party.objects.select_related("archon__type"), code=code, owner=request.user
    )
