"""Who may see and change what: one ownership helper per model, used by every view.

A private object is a 404 for anyone but its owner, exactly like one that does not exist,
so a code cannot be probed. Codes are UUIDs; integer keys never reach a URL.
"""

import uuid

from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django_htmx.middleware import HtmxDetails

from memeyori_site.auth import USER_BY_KEY
from memeyori_site.compiled import Compiled

from ..models import (
    Archon,
    Card,
    Character,
    Memeyori,
    Party,
    Type,
    get_readable_or_404,
    readable_or_404,
)
from . import live

CHARACTER_MODELS = {"memeyori": Memeyori, "archon": Archon}


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def character_model(kind: str):
    model = CHARACTER_MODELS.get(kind)
    if model is None:
        raise Http404
    return model


def _character_by_code(model) -> Compiled:
    return Compiled(lambda code: model.objects.filter(code=code), uuid.UUID(int=7_301_970))


# Read on every character page and printout (memeyori_site/compiled.py).
CHARACTER_BY_CODE = {kind: _character_by_code(model) for kind, model in CHARACTER_MODELS.items()}


def types_by_id() -> dict[int, Type]:
    """Every Type by its id: a small table, read in one compiled query (live.ALL_TYPES)."""
    return {t.pk: t for t in live.ALL_TYPES.objects()}


def get_character_for_viewer(request, kind: str, code, types: dict[int, Type] | None = None):
    """Reading a character: its owner, or anyone when it is public. It comes with its Type
    and owner, as select_related("type", "owner") gave them, from compiled lookups: three
    small queries (the owner's only when the reader is someone else) cost less than the
    one the ORM builds with the joins (a character page spent a tenth of its time on it).
    `types`: types_by_id(), when the caller has read them already."""
    model = character_model(kind)
    found = CHARACTER_BY_CODE[kind].first(code)
    character = readable_or_404(found, model.objects.all(), request.user)
    character.type = (types_by_id() if types is None else types)[character.type_id]
    if request.user.is_authenticated and character.owner_id == request.user.pk:
        character.owner = request.user
    else:
        (character.owner,) = USER_BY_KEY.objects(character.owner_id)
    return character


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


def _cards_of(kind: str) -> Compiled:
    return Compiled(lambda pk: Card.objects.filter(**{f"{kind}_id": pk}), -7_301_971)


CARDS_OF = {kind: _cards_of(kind) for kind in CHARACTER_MODELS}


def cards_with_types(character, types: dict[int, Type] | None = None) -> list[Card]:
    """A character's cards in their order, each with its Type, as
    `character.cards.select_related("type")` gives them, from compiled lookups.
    `types`: types_by_id(), when the caller has read them already."""
    if types is None:
        types = types_by_id()
    cards = CARDS_OF[character.kind].objects(character.pk)
    for card in cards:
        card.type = types[card.type_id]
    return cards


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
