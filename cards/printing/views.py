"""The print pages. Thin: parse with a form, prepare the render, then serve it from the
store or queue it and answer at once with a waiting page (cards/printing/store.py)."""

import base64

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.vary import vary_on_headers

from cards.models import Type
from cards.views import get_character_for_owner, get_character_for_viewer
from memeyori_site.errors import error_page
from memeyori_site.http import allow, require_safe
from memeyori_site.ratelimit import requester

from . import art, layout, store
from .deck import Face, character_faces, pdf_filename
from .forms import PortraitForm, PrintForm
from .portrait_uploads import character_set_portrait
from .render import TooManyCards, prepare
from .store import Render

PREVIEW_DPI = 60
SHARE_DPI = 200
PAPERS = ("a4", "letter", "card")
WAITING_TEMPLATE = "print/render.html"


def _faces(characters) -> list[Face]:
    return [face for c in characters for face in character_faces(c)]


def _sheet_options(form: PrintForm) -> dict:
    return {
        "sheet": layout.sheet_layout(
            form.cleaned_data["paper"], solid_backs=form.cleaned_data["back"] == "solid"
        ),
        "backs": form.cleaned_data["backs"],
        "bleed": form.cleaned_data["bleed"],
        "foil": form.cleaned_data["foil"],
        "back_image": form.back_image() if form.cleaned_data["backs"] else "",
    }


def _safe_back(request, back: str) -> str:
    """Where a waiting page returns to: a print URL on this site (or a table's), or nowhere."""
    if back.startswith(("/print/", "/tables/")) and url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}
    ):
        return back
    return ""


def _job_context(request, job: Render, back: str) -> dict:
    """What the waiting partial (print/render.html#status) shows."""
    status_url = reverse("print_render", kwargs={"code": job.code})
    if back:
        status_url += "?" + urlencode({"back": back})
    again = ""
    if back:
        again = back + ("&" if "?" in back else "?") + "again=1"
    return {
        "job": job,
        "ahead": job.ahead(),
        "status_url": status_url,
        "file_url": reverse("print_render_file", kwargs={"code": job.code}),
        "again_url": again,
        "back": back,
        "to_preview": back.startswith(reverse("print_page") + "?"),
    }


def _refused(request, error: store.Refused, template=WAITING_TEMPLATE):
    response = render(request, template, {"refused": str(error)}, status=error.status)
    response["Retry-After"] = str(error.retry_after)
    return response


def _file_response(job: Render, filename: str = "") -> HttpResponse:
    """The stored file, named as this request asked (the same cards may be stored under
    another name: a party holding only Emberpup prints what Emberpup alone does). Only a
    render of public characters may be kept by a shared cache (issue 33.5)."""
    response = HttpResponse(store.content(job), content_type=job.content_type)
    disposition = "inline" if job.kind == Render.Kind.SHARE else "attachment"
    response["Content-Disposition"] = f'{disposition}; filename="{filename or job.filename}"'
    if not store.all_public(job):
        patch_cache_control(response, private=True)
    return response


def _render_for_reader(request, code) -> Render:
    """A render by its code, while what it drew still exists and this reader may see it:
    else the same 404 as a code that never existed (issue 33.5)."""
    job = get_object_or_404(Render.objects.defer(*store.LIGHT), code=code)
    if not store.readable_by(job, request.user):
        raise Http404
    return job


def _cannot_print(request, message: str):
    """A print link that cannot be printed: the site's error page, with the way back."""
    return error_page(
        request, 400, title="Nothing to print from this link", message=message,
        action_url=reverse("print_page"), action_label="Choose what to print",
    )  # fmt: skip


def serve_or_wait(request, *, kind: str, spec: dict, filename: str, characters=()):
    """The file if it is stored; else queue it and answer at once with a waiting page.
    `characters`: those it draws, whose visibility its links follow."""
    try:
        job = store.find_or_queue(
            kind=kind,
            spec=spec,
            requester=requester(request),
            filename=filename,
            again="again" in request.GET,
            drew=store.drawn(characters),
        )
    except store.Refused as error:
        return _refused(request, error)
    if job.status == Render.Status.DONE:
        return _file_response(job, filename)
    context = _job_context(request, job, back=request.get_full_path())
    # A failed render says so with its reason, never as one more 202 that a client
    # polling this URL would wait on (issue 33.8).
    failed = job.status == Render.Status.FAILED
    return render(request, WAITING_TEMPLATE, context, status=500 if failed else 202)


@require_safe
@vary_on_headers("HX-Request")
def print_page(request):
    """Choose what to print; with a valid choice, show the preflight and page one."""
    template_name = "print/print_page.html"
    submitted = "paper" in request.GET
    form = PrintForm(request.GET if submitted else None, user=request.user)
    context = {"form": form, "submitted": submitted}
    if submitted and form.is_valid():
        chosen = form.chosen()
        faces = layout.with_copies(_faces(chosen), form.cleaned_data["copies"] or 1)
        query = request.GET.copy()
        query.pop("again", None)
        try:
            spec = prepare(faces, png_dpi=PREVIEW_DPI, **_sheet_options(form))
            job = store.find_or_queue(
                kind=Render.Kind.SHEET,
                spec=spec,
                requester=requester(request),
                filename=form.filename(),
                again="again" in request.GET,
                drew=store.drawn(chosen),
            )
        except TooManyCards as error:
            context["error"] = str(error)
        except store.Refused as error:
            if not request.htmx:
                return _refused(request, error)
            context["error"] = str(error)
        else:
            if job.status == Render.Status.DONE:
                context.update(
                    result=job.meta,
                    cards=len(faces),
                    preview=base64.b64encode(store.content(job, "preview")).decode("ascii"),
                    query=query.urlencode(),
                )
            else:
                back = reverse("print_page") + "?" + query.urlencode()
                context.update(_job_context(request, job, back=back))
    if request.htmx:
        template_name += "#result"
    return render(request, template_name, context)


@require_safe
def print_sheet(request):
    form = PrintForm(request.GET, user=request.user)
    if not form.is_valid():
        return _cannot_print(request, "Choose at least one character or a party to print.")
    chosen = form.chosen()
    try:
        faces = layout.with_copies(_faces(chosen), form.cleaned_data["copies"] or 1)
        spec = prepare(faces, png_dpi=PREVIEW_DPI, **_sheet_options(form))
    except TooManyCards as error:
        return _cannot_print(request, str(error))
    return serve_or_wait(
        request, kind=Render.Kind.SHEET, spec=spec, filename=form.filename(), characters=chosen
    )


@require_safe
def mastercard_pdf(request, kind, code):
    """One Mastercard: centred on A4 or Letter with cut marks, or on a card-sized page."""
    character = get_character_for_viewer(request, kind, code)
    paper = request.GET.get("paper", "a4")
    if paper not in PAPERS:
        return _cannot_print(request, "The paper must be a4, letter or card.")
    spec = prepare(
        character_faces(character, moves=False),
        sheet=layout.single_card_layout(paper),
        title=character.name,
    )
    return serve_or_wait(
        request,
        kind=Render.Kind.MASTERCARD,
        spec=spec,
        filename=pdf_filename([character], what="mastercard"),
        characters=[character],
    )


@require_safe
def mastercard_png(request, kind, code):
    """The Mastercard as a PNG for chat, rasterised from its card-sized PDF."""
    character = get_character_for_viewer(request, kind, code)
    spec = prepare(
        character_faces(character, moves=False),
        sheet=layout.single_card_layout("card"),
        png_dpi=SHARE_DPI,
        png_only=True,
    )
    return serve_or_wait(
        request,
        kind=Render.Kind.SHARE,
        spec=spec,
        filename=pdf_filename([character], what="mastercard", extension="png"),
        characters=[character],
    )


@require_safe
@vary_on_headers("HX-Request")
def render_status(request, code):
    """A queued render's page: queued (how many ahead), rendering, failed with the reason,
    or ready. htmx polls its #status partial every second; without JavaScript the page
    refreshes itself. Anyone holding the code may look: it is as unguessable as a share
    link, and only someone allowed to see the cards could have been given it; and only while
    they still may (issue 33.5)."""
    job = store.as_shown(_render_for_reader(request, code))
    context = _job_context(request, job, back=_safe_back(request, request.GET.get("back", "")))
    if job.status == Render.Status.DONE and context["to_preview"] and not request.htmx:
        return redirect(request.GET["back"])
    template_name = WAITING_TEMPLATE + ("#status" if request.htmx else "")
    return render(request, template_name, context)


@require_safe
def render_file(request, code):
    job = _render_for_reader(request, code)
    if job.status != Render.Status.DONE:
        return redirect("print_render", code=code)
    return _file_response(job)


@require_safe
def cards_page(request, kind, code):
    """A character's whole set on screen, as it prints: the Mastercard, every move card and
    the back, with the PDF links. Anyone who may see the character may see its cards."""
    character = get_character_for_viewer(request, kind, code)
    faces = character_faces(character, screen=True)
    return render(
        request,
        "print/cards.html",
        {"character": character, "master": faces[0], "moves": faces[1:],
         "is_owner": request.user.is_authenticated and character.owner_id == request.user.pk},
    )  # fmt: skip


@require_safe
def card_back(request, style):
    """The designed card back (art.back_svg): every Type's colour, ink-light or solid."""
    if style not in ("light", "solid"):
        raise Http404
    colours = list(Type.objects.values_list("colour", flat=True))
    svg = art.back_svg(colours, solid=style == "solid")
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=300"
    return response


@allow("GET", "POST")
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
                character.refresh_from_db()
                if character.portrait_error:
                    messages.error(request, f"Portrait refused: {character.portrait_error}")
                elif character.portrait_pending:
                    messages.success(request, "Portrait received; it is processing.")
                else:
                    messages.success(request, "Portrait saved.")
                return redirect("print_portrait", kind=kind, code=code)
    else:
        form = PortraitForm(initial=initial)
    faces = character_faces(character, screen=True, moves=False)
    return render(
        request,
        "print/portrait.html",
        {"character": character, "form": form, "face": faces[0]},
    )
