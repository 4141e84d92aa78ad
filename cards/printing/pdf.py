"""The sandboxed WeasyPrint render: our own URL fetcher, a worker process, a time limit.

Pure Python (no Django import), because it runs in a separate worker process.

Choices (the issue left them open):
- URLs. Templates refer to assets as `/static/...` and `/media/...`, resolved against
  ASSET_BASE, an https origin under the reserved `.invalid` TLD (RFC 2606) that can never
  resolve. `AssetFetcher` serves exactly that origin's /static/ and /media/ paths from
  files on disk, after refusing `..`, backslashes, NUL and anything that resolves outside
  its root, and only for a short list of file types. Every other URL is refused: other
  https/http hosts, `file:`, `data:` (our templates never need it, and it would let user
  text smuggle content in if escaping ever failed), `ftp:` and every other scheme. It
  never touches the network, so no redirect can be followed.
- Time. Each render runs in a child process (`multiprocessing`, forkserver) started for
  it; the caller (a task worker, see cards/printing/tasks.py) waits at most `timeout`
  seconds, then the child is killed (a process can be, unlike a thread), `RenderTimeout`
  is raised and the caller carries on. The fork server loads WeasyPrint, the fonts and
  the cards' stylesheets once (cards/printing/warm.py), so no render pays for that;
  render.py splits the distinct cards of a deck over a few children.
- Imposition. Each distinct card is laid out once, on a page of its own, and `impose`
  places those pages on the sheets (a copy is one more `Do` of the same form), as a
  print shop imposes; a spec queued before imposition is joined by `join_pdfs`.
"""

import io
import logging
import multiprocessing
import multiprocessing.connection
import re
import ssl
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from . import fit

ASSET_HOST = "assets.memeyori.invalid"
ASSET_BASE = f"https://{ASSET_HOST}/"
# Images made for one render (the cut marks) are served from memory under this path;
# pictures the site also serves (a character's default art, the card back) under their own
# site path, so that the cards' markup is the same on screen and on paper.
GENERATED = "generated/"
CONTENT_TYPES = {
    ".css": "text/css",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".ttf": "font/ttf",
    ".woff2": "font/woff2",
    ".svg": "image/svg+xml",
}
MAX_ASSET_BYTES = 20 * 1024 * 1024
# Where a document names a file: src="...", href="..." and CSS url(...).
ASSET_REF = re.compile(r'(?:src|href)="(/[^"]+)"|url\(\s*[\'"]?([^\'")\s]+)')
MEDIA_PREFIX = "/media/"
# A custom property's declaration, and a use of one with no fallback.
TOKEN_DECLARATION = re.compile(r"(--[a-z][a-z0-9-]*)\s*:\s*([^;}]*)")
TOKEN_USE = re.compile(r"var\(\s*(--[a-z][a-z0-9-]*)\s*\)")
MAX_FIT_PASSES = 4


class RenderFailed(Exception):
    """The render could not finish; the message says why, for the person who asked."""


class RenderTimeout(RenderFailed):
    """The render took longer than its time limit and was stopped."""


class RefusedURL(ValueError):
    pass


def resolve_asset(url: str, roots: dict[str, list[Path]]) -> Path:
    """The file on disk an asset URL names, or RefusedURL; the fetcher's one rule, also
    used to hash a render's inputs (store.py) without building a fetcher."""
    parts = urlsplit(url)
    if parts.scheme != "https" or parts.netloc != ASSET_HOST:
        raise RefusedURL(f"only the site's own static and media files load: {url[:80]!r}")
    if parts.query or parts.fragment:
        raise RefusedURL("asset URLs carry no query or fragment")
    raw = unquote(parts.path)
    if "\\" in raw or "\x00" in raw:
        raise RefusedURL("bad characters in asset path")
    for prefix, dirs in roots.items():
        if not raw.startswith(prefix):
            continue
        relative = PurePosixPath(raw[len(prefix) :])
        if relative.is_absolute() or any(p in ("..", ".") for p in relative.parts):
            raise RefusedURL("no path traversal in asset URLs")
        # SVG only ever comes from `generated`: a stored SVG could point elsewhere.
        if relative.suffix.lower() not in CONTENT_TYPES or relative.suffix.lower() == ".svg":
            raise RefusedURL(f"file type not served to the renderer: {relative.suffix}")
        for root in dirs:
            candidate = (root / relative).resolve()
            if (
                candidate.is_relative_to(root)
                and candidate.is_file()
                and candidate.stat().st_size <= MAX_ASSET_BYTES
            ):
                return candidate
        raise RefusedURL(f"no such asset: {raw[:80]!r}")
    raise RefusedURL(f"not a static or media path: {raw[:80]!r}")


def inline_fixed_tokens(css: str) -> str:
    """The stylesheet with each fixed colour token written in where it is used.

    card.css names its fixed colours as custom properties (`--card-ink: #16141c` on
    `.card`), which keeps one list of tokens for the screen and the contrast test. The
    renderer pays for every `var()`: it re-parses the value for each element that uses
    it. A token declared with the same plain colour everywhere it is declared in the
    sheet means that colour wherever it is used, so writing it in draws the same thing.
    Tokens with another value anywhere (a Type's colour, set per card) are left to the
    cascade. Only card.css declares the --card-* tokens (the Types' sheet and a PDF's own
    <style> declare --type-* ones), so one sheet's declarations are all there are.
    """
    values: dict[str, set[str]] = {}
    for match in TOKEN_DECLARATION.finditer(css):
        values.setdefault(match[1], set()).add(match[2].strip().lower())
    fixed = {
        name: found.pop()
        for name, found in values.items()
        if len(found) == 1 and re.fullmatch(r"#[0-9a-f]{6}", next(iter(found)))
    }
    return TOKEN_USE.sub(lambda m: fixed.get(m[1], m[0]), css)


def media_name(url: str) -> str | None:
    """The storage name an asset URL under /media/ names (a portrait, a back image), or
    None for other URLs; RefusedURL for a media URL that could never be served."""
    parts = urlsplit(url)
    if parts.scheme != "https" or parts.netloc != ASSET_HOST:
        return None
    raw = unquote(parts.path)
    if not raw.startswith(MEDIA_PREFIX):
        return None
    if parts.query or parts.fragment or "\\" in raw or "\x00" in raw:
        raise RefusedURL("bad characters in asset path")
    relative = PurePosixPath(raw[len(MEDIA_PREFIX) :])
    if relative.is_absolute() or any(p in ("..", ".") for p in relative.parts):
        raise RefusedURL("no path traversal in asset URLs")
    if relative.suffix.lower() not in CONTENT_TYPES or relative.suffix.lower() == ".svg":
        raise RefusedURL(f"file type not served to the renderer: {relative.suffix}")
    return str(relative)


def _make_fetcher_class():
    # WeasyPrint is imported lazily so that importing this module stays cheap.
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    # WeasyPrint's fetcher makes a default SSL context for its HTTPS handler, loading the
    # system's CA certificates: 50 ms of every render, for a handler this fetcher never
    # calls (fetch below answers every URL itself). One context for all renders instead,
    # with no certificate loaded, so that even a handler reached by mistake could verify
    # no server.
    no_network = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)

    class AssetFetcher(URLFetcher):
        """Serves only our own static and media files; refuses everything else."""

        def __init__(
            self,
            roots: dict[str, list[str]],
            generated: dict[str, bytes] | None = None,
            media: dict[str, bytes] | None = None,
        ):
            super().__init__(allow_redirects=False, fail_on_errors=False, ssl_context=no_network)
            self.generated = dict(generated or {})
            self.media = dict(media or {})
            self.roots = {
                prefix: [Path(r).resolve() for r in dirs] for prefix, dirs in roots.items()
            }
            self.requested: list[str] = []
            self.refused: list[str] = []

        def fetch(self, url, headers=None):
            self.requested.append(url)
            name = url.removeprefix(ASSET_BASE)
            if name != url and name in self.generated:
                return URLFetcherResponse(
                    url, body=self.generated[name], headers={"Content-Type": "image/svg+xml"}
                )
            try:
                name = media_name(url)
                if name is not None:
                    if name not in self.media:
                        raise RefusedURL(f"no such media file: {name[:80]!r}")
                    return URLFetcherResponse(
                        url,
                        body=self.media[name],
                        headers={"Content-Type": CONTENT_TYPES[PurePosixPath(name).suffix.lower()]},
                    )
                path = self.resolve(url)
            except RefusedURL:
                self.refused.append(url)
                raise
            body = path.read_bytes()
            if path.suffix.lower() == ".css":
                body = inline_fixed_tokens(body.decode()).encode()
            return URLFetcherResponse(
                url, body=body, headers={"Content-Type": CONTENT_TYPES[path.suffix.lower()]}
            )

        def resolve(self, url: str) -> Path:
            return resolve_asset(url, self.roots)

    return AssetFetcher


_fetcher_class = None


def asset_fetcher(
    roots: dict[str, list[str]],
    generated: dict[str, bytes] | None = None,
    media: dict[str, bytes] | None = None,
):
    global _fetcher_class
    if _fetcher_class is None:
        _fetcher_class = _make_fetcher_class()
    return _fetcher_class(roots, generated, media)


@dataclass
class RenderJob:
    html: str
    # {"/static/": [dirs]}: where AssetFetcher may read files.
    roots: dict[str, list[str]]
    # zone id -> (kind, first step); see fit.py.
    zones: dict[int, tuple[str, int]] = field(default_factory=dict)
    # Pictures made for this render, by their path under ASSET_BASE ("generated/marks.svg").
    generated: dict[str, bytes] = field(default_factory=dict)
    # The media files the document names, by storage name, read from storage beforehand.
    media: dict[str, bytes] = field(default_factory=dict)
    # Also return the first page as a PNG at this many dots per inch.
    png_dpi: int | None = None
    png_only: bool = False


@dataclass
class RenderResult:
    pdf: bytes
    pages: int
    steps: dict[int, int]
    cut: list[int]
    png: bytes | None
    requested: list[str]
    refused: list[str]
    passes: int


_svg_forms_installed = False


def _share_svg_drawings() -> None:
    """Draw each SVG picture once per PDF, as a form that every use of it names.

    WeasyPrint parses an image once per URL within a render, but draws an SVG node by
    node wherever it appears: a character's art is drawn again on its Mastercard and on
    every move card's thumbnail, the back on every back. Profiled on the bench's 60-card
    deck, that was about an eighth of the work. Here the first use of a picture at a
    size writes its drawing into a form XObject in the document's shared resources, and
    every use (on any page) is a one-word `Do`: the same vector drawing, the same pixels.
    The form has no transparency group (which would cost a printer a blend on every
    card) and its box is the drawing's own, so it clips nothing the image box does not.

    It wraps WeasyPrint's SVGImage.draw (pinned in requirements); if that ever changes
    shape, pictures are drawn the old way, never left out.
    """
    global _svg_forms_installed
    if _svg_forms_installed:
        return
    _svg_forms_installed = True
    import pydyf
    from weasyprint.images import SVGImage

    draw = SVGImage.draw

    def draw_once(self, stream, concrete_width, concrete_height, style):
        resources = getattr(stream, "_resources", None)
        if resources is None or "XObject" not in resources:
            return draw(self, stream, concrete_width, concrete_height, style)
        forms = self.__dict__.setdefault("_memeyori_forms", {})
        # Resources belong to one PDF: a second write_pdf of the same layout (page one
        # as a PNG) makes its own forms. The entry holds its resources, so that their id
        # is never another PDF's.
        key = (id(resources), round(concrete_width, 4), round(concrete_height, 4))
        held, name = forms.get(key, (None, None))
        if held is not resources:
            form_resources = pydyf.Dictionary(
                {
                    "ExtGState": pydyf.Dictionary(),
                    "XObject": pydyf.Dictionary(),
                    "Pattern": pydyf.Dictionary(),
                    "Shading": pydyf.Dictionary(),
                    "ColorSpace": resources["ColorSpace"],
                    "Font": None,  # set by WeasyPrint when it writes the PDF
                }
            )
            extra = pydyf.Dictionary(
                {
                    "Type": "/XObject",
                    "Subtype": "/Form",
                    "BBox": pydyf.Array((0, 0, concrete_width, concrete_height)),
                    "Resources": form_resources,
                }
            )
            form = stream.clone(resources=form_resources, extra=extra)
            name = form.id = f"x{len(resources['XObject'])}"
            resources["XObject"][name] = form
            forms[key] = (resources, name)
            draw(self, form, concrete_width, concrete_height, style)
        stream.draw_x_object(name)

    SVGImage.draw = draw_once


# A stylesheet the document links, as the sheet templates write it.
STYLESHEET_LINK = re.compile(r'<link rel="stylesheet" href="(/[^"]+\.css)">')
# Parsed stylesheets, by (file, modification time, size): see `linked_stylesheets`.
_parsed_sheets: dict[tuple[str, int, int], object] = {}


def _parsed_sheet(path: Path):
    """The stylesheet at `path` parsed (fixed tokens written in), once per process; None
    for a sheet with a url() in it, which is left to WeasyPrint to fetch what it names."""
    from weasyprint import CSS

    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _parsed_sheets:
        text = path.read_text(encoding="utf-8")
        _parsed_sheets[key] = (
            None if "url(" in text else CSS(string=inline_fixed_tokens(text), base_url=ASSET_BASE)
        )
    return _parsed_sheets[key]


def linked_stylesheets(html: str, fetcher) -> tuple[str, list]:
    """The document without its links to our own stylesheets, and those sheets parsed.

    WeasyPrint parses a linked sheet on every render: card.css took about 55 ms of a
    one-card render's 230 (a quarter) and is the same every time. The fork server parses
    the site's sheets once (warm_up) and every render child starts with them; a sheet
    edited since is parsed again. They are given to WeasyPrint in the document's order as
    user sheets, which the document's own <style> (the page geometry, written to win)
    still overrides. A sheet with a url() in it, or one the fetcher refuses, stays linked.
    """
    sheets = []

    def take(match: re.Match) -> str:
        url = ASSET_BASE + match[1].lstrip("/")
        try:
            path = fetcher.resolve(url)
        except RefusedURL:
            return match[0]
        sheet = _parsed_sheet(path) if path.suffix.lower() == ".css" else None
        if sheet is None:
            return match[0]
        fetcher.requested.append(url)
        sheets.append(sheet)
        return ""

    return STYLESHEET_LINK.sub(take, html), sheets


def render_job(job: RenderJob) -> RenderResult:
    """Lay out, re-fit overflowing zones, write the PDF (and a PNG of page one)."""
    from weasyprint import HTML

    _share_svg_drawings()
    fetcher = asset_fetcher(job.roots, job.generated, job.media)
    steps = {zone: step for zone, (_kind, step) in job.zones.items()}
    cut: set[int] = set()
    source, sheets = linked_stylesheets(job.html, fetcher)
    html = fit.apply_steps(source, steps, cut)
    passes = 0
    while True:
        passes += 1
        document = HTML(string=html, base_url=ASSET_BASE, url_fetcher=fetcher).render(
            stylesheets=sheets
        )
        over = fit.overflowing_zones(document)
        changed = False
        for zone, ratio in over.items():
            kind = job.zones[zone][0] if zone in job.zones else None
            if kind is None:
                continue
            last = len(fit.STEPS[kind]) - 1
            if steps[zone] < last:
                steps[zone] = fit.next_step(kind, steps[zone], ratio)
                changed = True
            elif zone not in cut:
                cut.add(zone)
                changed = True
        if not changed or passes >= MAX_FIT_PASSES:
            # A zone still too big after the last pass is reported as cut, never hidden.
            cut.update(z for z in over if z in job.zones)
            break
        html = fit.apply_steps(source, steps, cut)
    pdf = b"" if job.png_only else document.write_pdf()
    png = None
    if job.png_dpi:
        # Only page one is drawn for the picture when no PDF is wanted.
        png = first_page_png(pdf or document.copy(document.pages[:1]).write_pdf(), job.png_dpi)
    return RenderResult(
        pdf=pdf,
        pages=len(document.pages),
        steps=steps,
        cut=sorted(cut),
        png=png,
        requested=list(fetcher.requested),
        refused=list(fetcher.refused),
        passes=passes,
    )


def first_page_png(pdf: bytes, dpi: int) -> bytes:
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        image = document[0].render(scale=dpi / 72).to_pil()
    finally:
        document.close()
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def _quiet_missing_glyphs(record: logging.LogRecord) -> bool:
    # One line per missing glyph per card (emoji Type symbols without an emoji font) would
    # bury the warnings that matter, such as refused URLs. The README says which font.
    return ".notdef glyph" not in record.getMessage()


def warm_up(stylesheets: tuple[Path, ...] = ()) -> None:
    """Load WeasyPrint and the fonts once, in the fork server, not in a user's render, and
    parse the stylesheets every card links (see `linked_stylesheets`)."""
    from weasyprint import HTML

    logging.getLogger("weasyprint").addFilter(_quiet_missing_glyphs)
    HTML(string="<p>warm</p>").render()
    for path in stylesheets:
        _parsed_sheet(path.resolve())


_context = None
_context_lock = threading.Lock()


def _get_context():
    """Children come from a fork server that imported WeasyPrint and loaded the fonts once
    (cards.printing.warm), so each render starts in milliseconds in a fresh process that
    holds no database connection, no lock and no thread of its caller."""
    global _context
    with _context_lock:
        if _context is None:
            _context = multiprocessing.get_context("forkserver")
            _context.set_forkserver_preload(["cards.printing.warm"])
        return _context


def _child(job: RenderJob, conn) -> None:
    try:
        result = render_job(job)
    except Exception as error:  # the reason goes back to the caller, who reports it
        conn.send(("error", f"{type(error).__name__}: {error}"[:500]))
    else:
        conn.send(("ok", result))
    conn.close()


def run(job: RenderJob, *, timeout: float) -> RenderResult:
    """Render in a child process; kill it and raise RenderTimeout after `timeout` seconds."""
    return run_many([job], timeout=timeout)[0]


def run_many(jobs: list[RenderJob], *, timeout: float) -> list[RenderResult]:
    """Render the jobs side by side, one child process each, under one time limit.

    A child past the deadline is killed (a thread could not be) and RenderTimeout raised;
    a child that fails or dies raises RenderFailed. Either way the caller carries on.
    """
    context = _get_context()
    deadline = time.monotonic() + timeout
    children = []
    try:
        for job in jobs:
            receive, send = context.Pipe(duplex=False)
            child = context.Process(target=_child, args=(job, send), daemon=True)
            child.start()
            send.close()
            children.append((child, receive))
        results: list[RenderResult | None] = [None] * len(jobs)
        waiting = {receive: index for index, (_, receive) in enumerate(children)}
        while waiting:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RenderTimeout(f"rendering took longer than {timeout:g} s and was stopped")
            for conn in multiprocessing.connection.wait(list(waiting), timeout=left):
                index = waiting.pop(conn)
                try:
                    status, value = conn.recv()
                except EOFError:
                    raise RenderFailed("the renderer stopped unexpectedly") from None
                if status != "ok":
                    raise RenderFailed(f"the renderer failed: {value}")
                results[index] = value
        return results  # type: ignore[return-value]
    finally:
        for child, receive in children:
            if child.is_alive():
                child.kill()
            child.join(timeout=10)
            receive.close()


def join_pdfs(parts: list[bytes]) -> bytes:
    """One PDF from several, page boxes (trim, bleed) and all, using pdfium."""
    if len(parts) == 1:
        return parts[0]
    import pypdfium2

    joined = pypdfium2.PdfDocument.new()
    sources = [pypdfium2.PdfDocument(part) for part in parts]
    try:
        for source in sources:
            joined.import_pages(source)
        out = io.BytesIO()
        joined.save(out)
        return out.getvalue()
    finally:
        for document in (*sources, joined):
            document.close()


def impose(parts: list[bytes], sheets: list[dict]) -> bytes:
    """The sheets, made of pages already rendered: imposition, as a print shop does it.

    `parts` are PDFs of single cards (and a page of cut marks); each sheet is either
    {"page": [part, index]}, that page as it is (page boxes and all), or
    {"size": [width, height], "place": [[part, index, x, y], ...]} in points, a new page
    with each named page drawn at (x, y) from its lower left corner. A page placed many
    times is written once, as a form XObject that each place names with one `Do`, and a
    page kept as it is many times shares its content and resources: a copy costs a few
    bytes, never a second layout.
    """
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import (
        ArrayObject,
        DecodedStreamObject,
        DictionaryObject,
        FloatObject,
        NameObject,
    )

    readers = [PdfReader(io.BytesIO(part)) for part in parts]
    writer = PdfWriter()
    if readers and readers[0].metadata:
        writer.add_metadata(dict(readers[0].metadata))
    forms: dict[tuple[int, int], tuple[NameObject, object]] = {}

    def form(part: int, index: int) -> tuple[NameObject, object]:
        if (part, index) not in forms:
            page = readers[part].pages[index]
            # raw_get: the references themselves (a stream must stay an indirect object).
            contents = page.raw_get("/Contents")
            if isinstance(contents.get_object(), ArrayObject):  # WeasyPrint writes one
                joined = DecodedStreamObject()
                joined.set_data(b"".join(s.get_object().get_data() for s in contents.get_object()))
                reference = writer._add_object(joined.flate_encode())
            else:
                reference = contents.clone(writer)
            reference.get_object().update(
                {
                    NameObject("/Type"): NameObject("/XObject"),
                    NameObject("/Subtype"): NameObject("/Form"),
                    NameObject("/BBox"): ArrayObject(FloatObject(v) for v in page.mediabox),
                    NameObject("/Resources"): page.raw_get("/Resources").clone(writer),
                }
            )
            forms[part, index] = (NameObject(f"/C{len(forms)}"), reference)
        return forms[part, index]

    for sheet in sheets:
        if "page" in sheet:
            part, index = sheet["page"]
            writer.add_page(readers[part].pages[index])
            continue
        width, height = sheet["size"]
        page = writer.add_blank_page(width, height)
        used, drawing = DictionaryObject(), []
        for part, index, x, y in sheet["place"]:
            name, reference = form(part, index)
            used[name] = reference
            drawing.append(f"q 1 0 0 1 {x:.6f} {y:.6f} cm {name} Do Q")
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/XObject"): used})
        content = DecodedStreamObject()
        content.set_data("\n".join(drawing).encode())
        page.replace_contents(content.flate_encode())
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
