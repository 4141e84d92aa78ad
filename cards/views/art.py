"""The cards' generated pictures (cards/printing/art.py), served for the screen; the PDF
renderer gets the same bytes from memory under the same paths (deck.Face.pictures)."""

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404

from cards.models import Category, Type
from cards.printing import art
from memeyori_site.http import require_safe

from .access import get_character_for_viewer


def _svg(svg: str, *, public: bool, fresh: bool) -> HttpResponse:
    response = HttpResponse(svg, content_type="image/svg+xml")
    # The URL names the look (art.look_digest): a new look is a new URL, so an old one
    # may be kept long; a stale URL answers with today's look and is not kept.
    age = 86400 if fresh else 60
    response["Cache-Control"] = f"{'public' if public else 'private'}, max-age={age}"
    return response


@require_safe
def character_art(request, kind, code, look):
    """A character's generated art. Drawn from its name and attributes, so it is shown
    only to those who may see the character (the same 404 as for any other code)."""
    character = get_character_for_viewer(request, kind, code)
    found = art.character_look(character)
    svg = art.look_svg(found, character.type.symbol)
    return _svg(svg, public=character.is_public, fresh=art.look_digest(found) == look)


@require_safe
def frame(request, slug, archon=False, foil=False):
    """A Type's card frame (art.frame_svg): its colour, texture and symbol; with `foil`,
    the print-shop foil's sheen over them."""
    type_ = get_object_or_404(Type.objects.only("colour", "symbol", "slug"), slug=slug)
    svg = art.frame_svg(type_.colour, type_.symbol, type_.slug, archon=archon, foil=foil)
    return _svg(svg, public=True, fresh=False)


@require_safe
def move_art(request, slug, category):
    """A move card's art: its Type's colour and symbol and its category, nothing else."""
    if category not in Category.values:
        raise Http404
    type_ = get_object_or_404(Type.objects.only("colour", "symbol"), slug=slug)
    return _svg(art.move_art_svg(type_.colour, type_.symbol, category), public=True, fresh=True)
