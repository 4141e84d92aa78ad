"""From faces to a PDF: templates, generated geometry CSS, the sandboxed render, preflight."""

import re
from dataclasses import dataclass, field

from django.conf import settings
from django.core.files.storage import default_storage
from django.template.loader import render_to_string

from cards.models import Type

from . import art, design, fit, layout, pdf
from .deck import LINE_NAMES, Face, number_zones, record_printed

# A bound on one document, so one request cannot ask for an endless render (27 sheets).
MAX_FACES = 240
MEDIA_PATH = re.compile(r"^/[-a-zA-Z0-9_/]+\.(jpg|png)$")


class TooManyCards(ValueError):
    """Too many cards, or none at all, for one PDF; the message says which."""


@dataclass
class PrintResult:
    pdf: bytes
    png: bytes | None
    pages: int
    preflight: list[str] = field(default_factory=list)  # what could not fit: cut text
    shrunk: list[str] = field(default_factory=list)  # what was made smaller to fit
    requested: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _mm(value: float) -> str:
    return f"{value:.3f}"


def _type_css(types, foil: bool = False) -> str:
    # The same rules as /types.css (design.type_rules checks every value it writes).
    return design.type_rules(types, foil=foil)


def _roots() -> dict[str, list[str]]:
    """Where the renderer reads files from disk: static files only, which ship with the
    code on every machine. Media comes from storage (`_media`)."""
    static = [str(d) for d in settings.STATICFILES_DIRS] + [str(settings.STATIC_ROOT)]
    return {"/" + settings.STATIC_URL.strip("/") + "/": static}


def _media(html: str) -> dict[str, bytes]:
    """The media files a document names, read through Django's storage (a folder or an
    object store, wherever this worker runs). A missing one is left out: the renderer
    refuses it and the preflight says so."""
    media = {}
    for match in pdf.ASSET_REF.finditer(html):
        for ref in match.groups():
            try:
                name = ref and pdf.media_name(pdf.ASSET_BASE + ref.lstrip("/"))
            except pdf.RefusedURL:
                continue
            if not name or name in media:
                continue
            try:
                with default_storage.open(name, "rb") as handle:
                    data = handle.read(pdf.MAX_ASSET_BYTES + 1)
            except (FileNotFoundError, OSError):
                continue
            if len(data) <= pdf.MAX_ASSET_BYTES:
                media[name] = data
    return media


@dataclass
class Slot:
    index: int
    face: Face


@dataclass
class Page:
    slots: list[Slot]


BACK = Face("back")


def build_document(
    faces: list[Face],
    *,
    sheet: layout.SheetLayout,
    backs: bool,
    bleed: bool,
    title: str,
    first_zone: int = 1,
    back_image: str = "",
    foil: bool = False,
) -> tuple[str, dict[int, tuple[str, int]], dict[str, bytes]]:
    """The whole sheets as one document, every copy laid out where it sits: what
    imposition (`build_cards`, `impose_sheets`) must draw the same, pixel for pixel (a
    test renders both). Returns the HTML for WeasyPrint, the text zones to fit and the
    generated images it uses."""
    zones = number_zones(faces, first_zone)
    types = list(Type.objects.only("slug", "colour", "position", "name"))
    pages: list[Page] = []
    if bleed:
        page_w, page_h = layout.CARD_W, layout.CARD_H
        for face in faces:
            pages.append(Page([Slot(0, face)]))
            if backs:
                pages.append(Page([Slot(0, BACK)]))
        page_css = _bleed_css(sheet, back_image, foil=foil)
        marks = []
    else:
        page_w, page_h = sheet.page_w, sheet.page_h
        per_page = len(sheet.slots)
        for chunk in layout.pages(faces, per_page):
            pages.append(Page([Slot(i, face) for i, face in enumerate(chunk)]))
            if backs:
                pages.append(Page([Slot(sheet.mirrored_slot(i), BACK) for i in range(len(chunk))]))
        page_css = [
            f"@page {{ size: {_mm(page_w)}mm {_mm(page_h)}mm; margin: 0; }}",
            f".sheet {{ width: {_mm(page_w)}mm; height: {_mm(page_h)}mm; }}",
            *(
                f".slot-{i} {{ left: {_mm(r.x)}mm; top: {_mm(r.y)}mm; }}"
                for i, r in enumerate(sheet.slots)
            ),
        ]
        page_css.append(f".marks {{ width: {_mm(page_w)}mm; height: {_mm(page_h)}mm; }}")
        marks = sheet.marks
    foil = foil and bleed
    html = _html(pages, page_css, types, title=title, sheet=sheet, bleed=bleed,
                 back_image=back_image, marks=bool(marks), foil=foil)  # fmt: skip
    generated = pictures(
        faces, types, backs=backs and not back_image, solid=sheet.solid_backs, foil=foil
    )
    if marks:
        generated[pdf.GENERATED + "marks.svg"] = marks_svg(page_w, page_h, marks)
    return html, zones, generated


def build_cards(
    faces: list[Face],
    *,
    sheet: layout.SheetLayout,
    back: bool,
    marks: bool,
    bleed: bool,
    title: str,
    first_zone: int = 1,
    back_image: str = "",
    foil: bool = False,
) -> tuple[str, dict[int, tuple[str, int]], dict[str, bytes]]:
    """A document of single cards to impose (`impose_sheets`): each face on a page of its
    own (the size of the card, with its bleed in print-shop mode), then the back if
    `back`, then a page of the paper's size with the sheet's cut marks alone if `marks`.
    The cards are the same markup and CSS as on a whole sheet, only nearer the corner."""
    marks = marks and not bleed and bool(sheet.marks)
    zones = number_zones(faces, first_zone)
    types = list(Type.objects.only("slug", "colour", "position", "name"))
    pages = [Page([Slot(0, face)]) for face in faces] + ([Page([Slot(0, BACK)])] if back else [])
    if bleed:
        page_css = _bleed_css(sheet, back_image, foil=foil)
    else:
        card_w, card_h = layout.CARD_W, layout.CARD_H
        page_css = [
            f"@page {{ size: {_mm(card_w)}mm {_mm(card_h)}mm; margin: 0; }}",
            f".sheet {{ width: {_mm(card_w)}mm; height: {_mm(card_h)}mm; }}",
            ".slot-0 { left: 0; top: 0; }",
        ]
        if marks:
            # The template puts the marks on every page; only the last, the paper's size
            # (a named page), shows them.
            size = f"width: {_mm(sheet.page_w)}mm; height: {_mm(sheet.page_h)}mm;"
            page_css += [
                f"@page marks {{ size: {_mm(sheet.page_w)}mm {_mm(sheet.page_h)}mm; margin: 0; }}",
                ".marks { display: none; }",
                f".sheet:last-child {{ page: marks; {size} }}",
                f".sheet:last-child .marks {{ display: block; {size} }}",
            ]
            pages.append(Page([]))
    foil = foil and bleed
    html = _html(pages, page_css, types, title=title, sheet=sheet, bleed=bleed,
                 back_image=back_image, marks=marks, foil=foil)  # fmt: skip
    generated = pictures(
        faces, types, backs=back and not back_image, solid=sheet.solid_backs, foil=foil
    )
    if marks:
        generated[pdf.GENERATED + "marks.svg"] = marks_svg(sheet.page_w, sheet.page_h, sheet.marks)
    return html, zones, generated


def _bleed_css(sheet: layout.SheetLayout, back_image: str, *, foil: bool = False) -> list[str]:
    """Print-shop pages: one card a page, its background run 3 mm past the trim; with
    `foil`, the frame's sheen (art.foil_stops) runs on over the bleed too."""
    page_w, page_h = layout.CARD_W, layout.CARD_H
    page_css = [
        f"@page {{ size: {_mm(page_w)}mm {_mm(page_h)}mm; margin: 0; "
        f"bleed: {_mm(layout.BLEED)}mm; marks: crop; }}",
        f".sheet {{ width: {_mm(page_w)}mm; height: {_mm(page_h)}mm; overflow: visible; }}",
        f".slot-0 {{ left: -{_mm(layout.BLEED)}mm; top: -{_mm(layout.BLEED)}mm; "
        f"padding: {_mm(layout.BLEED)}mm; background: var(--type-colour); }}",
        f".slot-0.type-back {{ background: {'#1d1b22' if sheet.solid_backs else '#fff'}; }}",
    ]
    if foil:
        stops = ", ".join(
            f"{_rgba(hue, art.FOIL_OPACITY)} {offset * 100:.1f}%"
            for offset, hue in art.foil_stops()
        )
        page_css.append(
            ".slot-0:not(.type-back) "
            f"{{ background-image: linear-gradient(to bottom right, {stops}); }}"
        )
    if back_image and MEDIA_PATH.match(back_image):
        # The party's picture runs on into the bleed, so a cut a little off shows no
        # white edge. Only a plain media path goes into the <style>.
        page_css.append(
            f'.slot-0.type-back {{ background: #fff url("{back_image}") center / cover; }}'
        )
    return page_css


def _rgba(colour: str, alpha: float) -> str:
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def _html(pages, page_css, types, *, title, sheet, bleed, back_image, marks, foil=False) -> str:
    return render_to_string(
        "print/sheet.html",
        {
            "title": title,
            "pages": pages,
            "marks_url": f"/{pdf.GENERATED}marks.svg" if marks else "",
            "bleed": bleed,
            "foil": foil,
            "solid_backs": sheet.solid_backs,
            "back_image": back_image,
            "page_css": "\n".join([*page_css, _type_css(types, foil)]),
            "static_prefix": settings.STATIC_URL.strip("/") + "/",
        },
    )


def pictures(
    faces: list[Face], types, *, backs: bool, solid: bool, foil: bool = False
) -> dict[str, bytes]:
    """The pictures the cards show that the site also serves (default art, the back, the
    frames: the foil ones with `foil`), made here so the renderer reads them from memory
    under the same paths."""
    found = {}
    for face in faces:
        found.update(face.pictures(foil=foil))
    record_printed(faces)
    if backs:
        name = f"print/back-{'solid' if solid else 'light'}.svg"
        found[name] = art.back_svg([t.colour for t in types], solid=solid).encode()
    return found


def marks_svg(page_w: float, page_h: float, marks) -> bytes:
    """The cut marks as one SVG image with a single path: parsed once per render and
    drawn as one node on every page that uses it."""
    path = " ".join(f"M{_mm(m.x1)} {_mm(m.y1)}L{_mm(m.x2)} {_mm(m.y2)}" for m in marks)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_mm(page_w)}mm" '
        f'height="{_mm(page_h)}mm" viewBox="0 0 {_mm(page_w)} {_mm(page_h)}">'
        f'<path d="{path}" stroke="#000" stroke-width="0.15" fill="none"/></svg>'
    ).encode()


def _zone_info(faces: list[Face]) -> dict[str, dict]:
    """What a preflight message says about each text zone, kept with the spec so that a
    worker can write the messages without the faces."""
    info = {}
    for face in faces:
        if face.kind == "back":
            continue
        info[str(face.zone)] = {
            "title": face.zone_label, "kind": face.kind, "line": None,
            "flavour": bool(face.flavour_lines()),
        }  # fmt: skip
        for number, zone in enumerate(face.lines):
            line = LINE_NAMES[face.kind][number]
            info[str(zone)] = {"title": face.title, "kind": face.kind, "line": line}
    return info


def _shrunk_message(zone: dict, step: int) -> str:
    size = f"{fit.STEPS[zone['kind']][step]:g} pt"
    if zone.get("flavour") and step >= fit.NO_FLAVOUR.get(zone["kind"], step + 1):
        return f"{zone['title']}: flavour text left out to fit, and the rest set at {size}."
    return f"{zone['title']}: text set at {size} to fit."


def _cut_message(zone: dict) -> str:
    if zone["line"] is None:
        return (
            f"{zone['title']}: its text does not fit even at "
            f"{fit.STEPS[zone['kind']][-1]:g} pt; the card says where it is cut."
        )
    return f"{zone['title']}: its {zone['line']} is too long for the card and is cut; shorten it."


def distinct(faces: list[Face]) -> tuple[list[Face], list[int]]:
    """Each face once, in the order first met, and where each of `faces` is among them.
    Copies are the same Face (layout.with_copies), so they are laid out once."""
    found: dict[int, int] = {}
    unique, where = [], []
    for face in faces:
        if id(face) not in found:
            found[id(face)] = len(unique)
            unique.append(face)
        where.append(found[id(face)])
    return unique, where


def prepare(
    faces: list[Face],
    *,
    sheet: layout.SheetLayout,
    backs: bool = False,
    bleed: bool = False,
    title: str = "Memeyori cards",
    png_dpi: int | None = None,
    png_only: bool = False,
    back_image: str = "",
    foil: bool = False,
) -> dict:
    """Everything a render needs, as plain JSON: the documents of single cards, each
    distinct face once (split into a few, to be rendered side by side), the sheets to
    impose from their pages, and what the preflight says about each zone. It is built
    where the request is, so a stored render always matches the data it was asked for;
    its hash is the cache key (see store.py), and it covers the content of every file
    the HTML loads, `back_image` (a media URL) included. `foil` (print-shop mode only: it
    is ignored without `bleed`) gives the frames and the bleed a holographic sheen; it is
    in the documents' HTML and pictures, so a foil render is keyed apart from a plain one."""
    if len(faces) > MAX_FACES:
        raise TooManyCards(f"At most {MAX_FACES} cards in one PDF; you chose {len(faces)}.")
    if not faces:
        raise TooManyCards("Nothing to print: the party has no Archon and no Memeyori yet.")
    unique, where = distinct(faces)
    # Side by side in a few processes, but not fewer than a sheet's worth of cards each:
    # a process costs more than laying out a few cards.
    parts = getattr(settings, "PRINT_RENDER_WORKERS", 2)
    count = max(1, min(parts, -(-len(unique) // layout.PER_SHEET)))
    size = -(-len(unique) // count)
    chunks = [unique[i : i + size] for i in range(0, len(unique), size)]
    marks = not bleed and bool(sheet.marks)
    jobs, pages, first_zone = [], [], 1
    for number, chunk in enumerate(chunks):
        last = number == len(chunks) - 1
        html, zones, generated = build_cards(
            chunk, sheet=sheet, back=backs and last, marks=marks and last, bleed=bleed,
            title=title, first_zone=first_zone, back_image=back_image, foil=foil,
        )  # fmt: skip
        first_zone += len(zones)
        jobs.append(
            {
                "html": html,
                "zones": {str(z): list(v) for z, v in zones.items()},
                "generated": {name: data.decode() for name, data in generated.items()},
                "png_dpi": None,
            }
        )
        pages += [[number, index] for index in range(len(chunk))]
    extra = len(chunks[-1])
    back_page = [len(chunks) - 1, extra] if backs else None
    marks_page = [len(chunks) - 1, extra + int(backs)] if marks else None
    return {
        "jobs": jobs,
        "sheets": impose_sheets(
            [pages[w] for w in where], sheet=sheet, bleed=bleed, back=back_page, marks=marks_page
        ),
        "zones": _zone_info(unique),
        "png_only": png_only,
        "png_dpi": png_dpi,
    }


def impose_sheets(
    cards: list[list[int]], *, sheet: layout.SheetLayout, bleed: bool, back, marks
) -> list[dict]:
    """Where each rendered page goes (see pdf.impose): `cards` names the page of each card
    to print, in order, `back` and `marks` the pages of the back and of the cut marks.
    Print-shop mode keeps each card's page (bleed, crop marks and all), each followed by
    the back; a sheet places its cards in the layout's slots and the marks over them, and
    its backs follow it in the mirrored slots, for a long-edge duplex print."""
    if bleed:
        return [{"page": page} for card in cards for page in ([card, back] if back else [card])]
    pt = layout.PT_PER_MM

    def placed(page: list[int], slot: int) -> list:
        r = sheet.slots[slot]
        return [*page, round(r.x * pt, 6), round((sheet.page_h - r.bottom) * pt, 6)]

    size = [round(sheet.page_w * pt, 6), round(sheet.page_h * pt, 6)]
    over = [[*marks, 0, 0]] if marks else []
    sheets = []
    for chunk in layout.pages(cards, len(sheet.slots)):
        sheets.append({"size": size, "place": [placed(c, i) for i, c in enumerate(chunk)] + over})
        if back:
            place = [placed(back, sheet.mirrored_slot(i)) for i in range(len(chunk))]
            sheets.append({"size": size, "place": place + over})
    return sheets


def render_spec(spec: dict, run=None) -> PrintResult:
    """Render a prepared spec in child processes under PRINT_RENDER_TIMEOUT (or with
    `run`, a function from the jobs to their results: the bench renders in its own
    process) and impose its sheets; raises pdf.RenderFailed (or its RenderTimeout) with a
    reason a person can read."""
    roots = _roots()
    png_only = spec["png_only"]
    # A spec queued before imposition has no sheets: its documents' pages are the sheets.
    sheets = spec.get("sheets")
    jobs = [
        pdf.RenderJob(
            html=job["html"],
            roots=roots,
            zones={int(z): (kind, step) for z, (kind, step) in job["zones"].items()},
            generated={name: text.encode() for name, text in job["generated"].items()},
            media=_media(job["html"]),
            png_dpi=job["png_dpi"],
            png_only=png_only and sheets is None,
        )
        for job in spec["jobs"]
    ]
    if run is None:
        results = pdf.run_many(jobs, timeout=getattr(settings, "PRINT_RENDER_TIMEOUT", 30))
    else:
        results = run(jobs)
    zones = spec["zones"]
    cut = [z for r in results for z in r.cut]
    steps = {z: step for r in results for z, step in r.steps.items()}
    refused = [url for r in results for url in r.refused]
    preflight = [_cut_message(zones[str(z)]) for z in cut]
    shrunk = [
        _shrunk_message(zones[str(z)], step)
        for z, step in sorted(steps.items())
        if step > 0 and z not in cut and zones[str(z)]["line"] is None
    ]
    media = pdf.ASSET_BASE + pdf.MEDIA_PREFIX.lstrip("/")
    preflight += [
        f"A portrait file is missing and was left out: {url.removeprefix(media)}"
        for url in refused
        if url.startswith(media)
    ]
    if sheets is None:
        document = b"" if png_only else pdf.join_pdfs([r.pdf for r in results])
        png, pages = results[0].png, sum(r.pages for r in results)
    else:
        document = pdf.impose([r.pdf for r in results], sheets)
        png = pdf.first_page_png(document, spec["png_dpi"]) if spec.get("png_dpi") else None
        pages = len(sheets)
    return PrintResult(
        pdf=b"" if png_only else document,
        png=png,
        pages=pages,
        preflight=preflight,
        shrunk=shrunk,
        requested=[url for r in results for url in r.requested],
        refused=refused,
    )


def render_faces(faces: list[Face], **options) -> PrintResult:
    """Prepare and render here and now (the command line, tests, benches); the site
    renders through tasks instead (cards/printing/tasks.py)."""
    return render_spec(prepare(faces, **options))
