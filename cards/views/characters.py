"""Home, character pages, the owner's list, duplicate and delete."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.views.decorators.vary import vary_on_headers

from memeyori_site.http import allow, require_post, require_safe

from .. import stats
from ..forms import SearchForm
from ..models import Archon, Memeyori, Visibility
from ..services import character_delete, character_duplicate, copied_from
from .access import (
    cards_with_types,
    get_character_for_owner,
    get_character_for_viewer,
    types_by_id,
)


@require_safe
def home(request):
    recent = Memeyori.objects.filter(visibility=Visibility.PUBLIC).select_related("type", "owner")
    return render(request, "cards/home.html", {"recent": recent.order_by("-created")[:12]})


@require_safe
def character_page(request, kind, code):
    types = types_by_id()  # one read for the character's Type and its cards'
    character = get_character_for_viewer(request, kind, code, types)
    cards = cards_with_types(character, types)
    attributes, rank = character.attributes(), character.rank_for_stats
    return render(
        request,
        "cards/character.html",
        {
            "character": character,
            "cards": cards,
            "is_owner": character.owner_id == request.user.id,
            "attributes": [
                {
                    "label": stats.ATTRIBUTE_LABELS[name],
                    # What the rules use (R2: +1 at Rank 6), beside what was typed.
                    "value": stats.effective(value, rank),
                    "base": value,
                    "scale": stats.scale_label(stats.effective(value, rank)),
                }
                for name, value in attributes.items()
            ],
            # The attributes and stats lists show only these numbers, and are kept rendered
            # under them (CACHES["fragments"]), as the builder keeps its own.
            "stats_key": (*attributes.values(), rank),
        },
    )


PORTRAIT_SIZES = {"full": "portrait", "print": "portrait_print", "thumb": "portrait_thumb"}


@require_safe
def character_portrait(request, kind, code, size):
    """A portrait file, only to those who may see its character (issue 11.5): a private
    character's portrait is the same 404 as a code that never existed.

    Media files are never served by path, so visibility cannot be skipped. A public
    character's portrait may sit in shared caches for an hour; the URL carries the file's
    token, so a new portrait is a new URL.
    """
    field = PORTRAIT_SIZES.get(size)
    if field is None:
        raise Http404
    character = get_character_for_viewer(request, kind, code)
    file = getattr(character, field)
    if not file:
        raise Http404
    if settings.MEDIA_SERVE == "signed":
        # Visibility is checked here; the object store serves the bytes from a URL that
        # expires (DJANGO_S3_URL_EXPIRY), so a copied link dies with it.
        response = HttpResponseRedirect(file.storage.url(file.name))
        response["Cache-Control"] = "private, no-store"
        return response
    try:
        handle = file.storage.open(file.name, "rb")
    except FileNotFoundError:
        raise Http404 from None
    response = FileResponse(handle, content_type="image/jpeg")
    if character.visibility == Visibility.PUBLIC:
        response["Cache-Control"] = "public, max-age=3600"
    else:
        response["Cache-Control"] = "private, no-store"
    return response


@require_safe
@vary_on_headers("HX-Request")
@login_required
def my_characters(request):
    """The owner's Memeyori and Archons, searched by name and filtered by Type."""
    form = SearchForm(request.GET)
    lists = {"memeyori": Memeyori.objects.none(), "archons": Archon.objects.none()}
    if form.is_valid():
        for key, model in (("memeyori", Memeyori), ("archons", Archon)):
            rows = model.objects.filter(owner=request.user).select_related("type")
            if q := form.cleaned_data["q"]:
                rows = rows.filter(name__icontains=q)
            if t := form.cleaned_data["type"]:
                rows = rows.filter(type=t)
            lists[key] = rows
    template = "cards/my_characters.html"
    if request.htmx:
        template += "#results"
    context = {"form": form, **lists}
    mine = {"owner": request.user}
    if not request.htmx and not (
        Memeyori.objects.filter(**mine).exists() or Archon.objects.filter(**mine).exists()
    ):
        # An empty account's next step (issue 41.2: sign-up lands here), not "None yet."
        from battles.play.newcomer import first_game_offer

        context["first_game"] = first_game_offer(request.user)
    return render(request, template, context)


@require_post
@login_required
def character_copy(request, kind, code):
    original = get_character_for_owner(request, kind, code)
    try:
        copy = character_duplicate(character=original, owner=request.user)
    except ValidationError as error:  # the person's bounds (issue 18.5)
        messages.error(request, " ".join(error.messages))
        return redirect(original)
    messages.success(request, f"Duplicated {original.name} as {copy.name}.")
    return redirect("character_edit", kind=kind, code=copy.code)


@require_post
@login_required
def character_borrow(request, kind, code):
    """Anyone who may see a character may copy it into their own collection (issue 21.8):
    a private copy noting whose it was, counted against their bounds."""
    original = get_character_for_viewer(request, kind, code)
    origin = copied_from(original) if original.owner_id != request.user.pk else ""
    try:
        copy = character_duplicate(character=original, owner=request.user, origin=origin)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect(original)
    messages.success(request, f"Copied {original.name} into your collection as {copy.name}.")
    return redirect("character_edit", kind=kind, code=copy.code)


@allow("GET", "POST")
@login_required
def character_remove(request, kind, code):
    """GET asks for confirmation; only a POST deletes."""
    character = get_character_for_owner(request, kind, code)
    if request.method != "POST":
        parties = character.parties.all() if kind == "archon" else None
        if kind == "memeyori":
            parties = [slot.party for slot in character.slots.select_related("party")]
        return render(
            request,
            "cards/character_confirm_delete.html",
            {"character": character, "parties": parties},
        )
    name = character.name
    character_delete(character=character)
    messages.success(request, f"Deleted {name}.")
    return redirect("my_characters")
