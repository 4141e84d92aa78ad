"""The print pages. Thin: parse with a form, call render / portraits, answer."""

import base64

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from cards.views import get_character_for_owner, get_character_for_viewer

from . import layout, pdf
from .deck import Face, character_faces
from .forms import PortraitForm, PrintForm
from .portraits import character_set_portrait
from .render import TooManyCards, render_faces

PREVIEW_DPI = 60
SHARE_DPI = 200
PAPERS = ("a4", "letter", "card")


def _faces(characters) -> list[Face]:
    return [face for c in characters for face in character_faces(c)]


def _sheet_options(form: PrintForm) -> dict:
    return {
        "sheet": layout.sheet_layout(
            form.cleaned_data["paper"], solid_backs=form.cleaned_data["back"] == "solid"
        ),
        "backs": form.cleaned_data["backs"],
        "bleed": form.cleaned_data["bleed"],
    }


@vary_on_headers("HX-Request")
def print_page(request):
    """Choose what to print; with a valid choice, show the preflight and page one."""
    template_name = "print/print_page.html"
    submitted = "paper" in request.GET
    form = PrintForm(request.GET if submitted else None, user=request.user)
    context = {"form": form, "submitted": submitted}
    if submitted and form.is_valid():
        faces = layout.with_copies(_faces(form.chosen()), form.cleaned_data["copies"] or 1)
        try:
            result = render_faces(faces, png_dpi=PREVIEW_DPI, png_only=True, **_sheet_options(form))
        except (TooManyCards, pdf.RenderTimeout) as error:
            context["error"] = str(error)
        else:
            context.update(
                result=result,
                cards=len(faces),
                preview=base64.b64encode(result.png).decode("ascii"),
                query=request.GET.urlencode(),
            )
    if request.htmx:
        template_name += "#result"
    return render(request, template_name, context)


def _pdf_response(data: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(data, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def print_sheet(request):
    form = PrintForm(request.GET, user=request.user)
    if not form.is_valid():
        return HttpResponse(
            "Choose at least one character or a party on the print page.",
            status=400,
            content_type="text/plain",
        )
    try:
        faces = layout.with_copies(_faces(form.chosen()), form.cleaned_data["copies"] or 1)
        result = render_faces(faces, **_sheet_options(form))
    except TooManyCards as error:
        return HttpResponse(str(error), status=400, content_type="text/plain")
    except pdf.RenderTimeout as error:
        return HttpResponse(str(error), status=503, content_type="text/plain")
    return _pdf_response(result.pdf, "memeyori-cards.pdf")


def mastercard_pdf(request, kind, code):
    """One Mastercard: centred on A4 or Letter with cut marks, or on a card-sized page."""
    character = get_character_for_viewer(request, kind, code)
    paper = request.GET.get("paper", "a4")
    if paper not in PAPERS:
        return HttpResponse("paper must be a4, letter or card", status=400)
    faces = character_faces(character)[:1]
    try:
        result = render_faces(faces, sheet=layout.single_card_layout(paper), title=character.name)
    except pdf.RenderTimeout as error:
        return HttpResponse(str(error), status=503, content_type="text/plain")
    return _pdf_response(result.pdf, f"{slugify(character.name) or 'mastercard'}.pdf")


def mastercard_png(request, kind, code):
    """The Mastercard as a PNG for chat, rasterised from its card-sized PDF."""
    character = get_character_for_viewer(request, kind, code)
    try:
        result = render_faces(
            character_faces(character)[:1],
            sheet=layout.single_card_layout("card"),
            png_dpi=SHARE_DPI,
            png_only=True,
        )
    except pdf.RenderTimeout as error:
        return HttpResponse(str(error), status=503, content_type="text/plain")
    response = HttpResponse(result.png, content_type="image/png")
    response["Content-Disposition"] = f'inline; filename="{slugify(character.name) or "card"}.png"'
    return response


@require_http_methods(["GET", "POST"])
@login_required
def portrait_page(request, kind, code):
    character = get_character_for_owner(request, kind, code)
    initial = {"focus_x": character.portrait_focus_x, "focus_y": character.portrait_focus_y}
    if request.method == "POST":
        form = PortraitForm(request.POST, request.FILES, initial=initial)
        if form.is_valid():
            upload = form.cleaned_data["portrait"] or None
            try:
                character_set_portrait(
                    character=character,
                    upload=upload,
                    focus_x=form.cleaned_data["focus_x"],
                    focus_y=form.cleaned_data["focus_y"],
                )
            except ValidationError as error:
                character.refresh_from_db()
                form.add_error("portrait" if upload else None, error)
            else:
                messages.success(request, "Portrait saved.")
                return redirect("print_portrait", kind=kind, code=code)
    else:
        form = PortraitForm(initial=initial)
    faces = character_faces(character)[:1]
    return render(
        request,
        "print/portrait.html",
        {"character": character, "form": form, "face": faces[0]},
    )
