"""The page a printed card's QR code opens (issue 34): the character's cards as they are
now, every Evasion and Defense of each move, and whether the print in the player's hand
is still current ("Printed 3 days ago; Power has changed since")."""

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode

from cards.models import PrintedNumbers
from cards.printing import art
from cards.printing.deck import character_faces
from memeyori_site.errors import error_page
from memeyori_site.http import require_safe

from .access import get_character_for_viewer


def printed_changes(said: dict, now: dict) -> list[str]:
    """The names of what a print said that is no longer so, in the card's own words."""
    return [name for name, value in said.items() if now.get(name) != value]


def _days(when) -> str:
    days = (timezone.now() - when).days
    return "today" if days == 0 else "yesterday" if days == 1 else f"{days} days ago"


@require_safe
def printed_card(request, kind, code, digest):
    """Anyone who may see the character sees its cards here. To a visitor a card they may
    not see is a 404 that asks them to sign in (the same for a code that never existed, so
    it says nothing); to everyone else, the site's plain 404."""
    try:
        character = get_character_for_viewer(request, kind, code)
    except Http404:
        if request.user.is_authenticated:
            raise
        login = reverse("login") + "?" + urlencode({"next": request.get_full_path()})
        return error_page(
            request, 404, title="Sign in to see this card",
            message="These cards are not public. If they are yours, or shared with your "
            "tables, sign in to see whether your printed card is still current.",
            action_url=login, action_label="Sign in",
        )  # fmt: skip
    faces = character_faces(character, screen=True)
    row = PrintedNumbers.objects.filter(digest=digest).first()
    status = None
    if row is not None and row.numbers.get("code") == str(character.code):
        printed_card = row.numbers.get("card")
        face = next(
            (
                f
                for f in faces
                if (str(f.card.code) if f.card is not None else None) == printed_card
            ),
            None,
        )
        said = row.numbers.get("said", {})
        if face is None:
            status = {"when": _days(row.first_printed), "gone": True, "changes": []}
        else:
            status = {
                "when": _days(row.first_printed),
                "gone": False,
                "changes": printed_changes(said, face.printed),
                "title": face.title,
            }
    return render(
        request,
        "print/printed.html",
        {"character": character, "master": faces[0], "moves": faces[1:], "status": status,
         "is_owner": request.user.is_authenticated and character.owner_id == request.user.pk},
    )  # fmt: skip


@require_safe
def printed_short(request, digest):
    """Where a QR code leads: the printed card's page, found by what it printed (the page
    applies the character's access rule)."""
    row = get_object_or_404(PrintedNumbers, digest=digest)
    kind, code = row.numbers.get("kind"), row.numbers.get("code")
    if kind not in ("memeyori", "archon") or not code:
        raise Http404
    return redirect("print_printed", kind=kind, code=code, digest=digest)


@require_safe
def printed_qr(request, kind, code, digest):
    """The QR code a card carries, for the screen, beside the card it is on: made from
    the digest alone, shown to whoever may see the card (the matrix's one rule)."""
    from django.conf import settings

    get_character_for_viewer(request, kind, code)
    url = f"{settings.SITE_URL}/print/p/{digest}"
    response = HttpResponse(art.qr_svg(url), content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response
