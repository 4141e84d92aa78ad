"""Export a character or a party as versioned JSON; import with a preview, then create."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify

from memeyori_site.http import allow, require_post, require_safe

from .. import exchange
from ..forms import ImportForm
from .access import get_character_for_owner, get_party_for_owner


def _download(data: dict, name: str) -> HttpResponse:
    response = HttpResponse(exchange.dumps(data), content_type="application/json; charset=utf-8")
    filename = f"{slugify(name) or 'memeyori'}.memeyori.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_safe
@login_required
def character_export(request, kind, code):
    character = get_character_for_owner(request, kind, code)
    return _download(exchange.export_character(character), character.name)


@require_safe
@login_required
def party_export(request, code):
    party = get_party_for_owner(request, code)
    return _download(exchange.export_party(party), party.name)


def _read(form) -> str | bytes:
    """The uploaded file's bytes (at most one byte past the cap) or the re-posted text."""
    upload = form.cleaned_data.get("file")
    if upload:
        if upload.size > exchange.MAX_BYTES:
            raise exchange.ImportRefused(
                f"The file is larger than {exchange.MAX_BYTES // 1024} KB; refused."
            )
        return upload.read(exchange.MAX_BYTES + 1)
    return form.cleaned_data["payload"]


@allow("GET", "POST")
@login_required
def import_preview(request):
    """Check the file and show what it would create; nothing is written here."""
    form = ImportForm(request.POST or None, request.FILES or None)
    plan = None
    if request.method == "POST" and form.is_valid():
        try:
            plan = exchange.import_parse(_read(form), owner=request.user)
        except exchange.ImportRefused as error:
            form.add_error(None, str(error))
    # A refused file is a 400, as /import/confirm/ answers one (issue 40.5).
    status = 400 if form.errors else 200
    return render(request, "cards/import.html", {"form": form, "plan": plan}, status=status)


@require_post
@login_required
def import_confirm(request):
    """Check the previewed text again, then create it all in one transaction."""
    form = ImportForm(request.POST)
    if form.is_valid():
        try:
            plan = exchange.import_parse(form.cleaned_data["payload"], owner=request.user)
            counts = exchange.import_create(plan=plan, owner=request.user)
        except exchange.ImportRefused as error:
            form.add_error(None, str(error))
        else:
            messages.success(
                request,
                "Imported {memeyori} Memeyori, {archons} Archons, {cards} cards and "
                "{parties} parties.".format(**counts),
            )
            return redirect("my_characters")
    return render(request, "cards/import.html", {"form": form, "plan": None}, status=400)
