from django.db.models import Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render

from .models import Archon, Effect, Matchup, Memeyori, Party, Type, Visibility

CHARACTER_MODELS = {"memeyori": Memeyori, "archon": Archon}


def _visible_to(user):
    """Objects a user may view: their own, and anyone's public ones."""
    if user.is_authenticated:
        return Q(visibility=Visibility.PUBLIC) | Q(owner=user)
    return Q(visibility=Visibility.PUBLIC)


def get_character_for_viewer(request, kind: str, code):
    """The one ownership helper for reading characters: a private one is a 404 for others."""
    model = CHARACTER_MODELS.get(kind)
    if model is None:
        raise Http404
    return get_object_or_404(
        model.objects.select_related("type", "owner").filter(_visible_to(request.user)), code=code
    )


def get_party_for_viewer(request, code):
    return get_object_or_404(
        Party.objects.select_related("archon__type", "owner").filter(_visible_to(request.user)),
        code=code,
    )


def home(request):
    recent = Memeyori.objects.filter(visibility=Visibility.PUBLIC).select_related("type")
    return render(request, "cards/home.html", {"recent": recent.order_by("-created")[:12]})


def character_page(request, kind, code):
    character = get_character_for_viewer(request, kind, code)
    cards = character.cards.select_related("type")
    return render(request, "cards/character.html", {"character": character, "cards": cards})


def party_page(request, code):
    party = get_party_for_viewer(request, code)
    return render(
        request, "cards/party.html", {"party": party, "memeyori": party.memeyori_in_order()}
    )


def type_chart_page(request):
    types = list(Type.objects.all())
    effects = {
        (m.attacking_id, m.defending_id): m.effect
        for m in Matchup.objects.exclude(effect=Effect.NEUTRAL)
    }
    rows = [
        (
            attacker,
            [(defender, effects.get((attacker.id, defender.id), "neutral")) for defender in types],
        )
        for attacker in types
    ]
    return render(request, "cards/type_chart.html", {"types": types, "rows": rows})


def types_css(request):
    """Each Type's colour as a class, so markup needs no style attribute (the CSP refuses them)."""
    rules = [
        f".type-{t.slug} {{ --type-colour: {t.colour}; }}"
        for t in Type.objects.only("slug", "colour")
        if _is_hex_colour(t.colour)
    ]
    return HttpResponse("\n".join(rules) + "\n", content_type="text/css; charset=utf-8")


def _is_hex_colour(value: str) -> bool:
    return (
        len(value) == 7
        and value[0] == "#"
        and all(c in "0123456789abcdefABCDEF" for c in value[1:])
    )
