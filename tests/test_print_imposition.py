"""Imposition (issue 33.9): each distinct card is laid out once and placed on the sheets as
often as they need it. What it draws must be what laying out the whole sheets drew: the
same pages, pixel for pixel, the same cut marks, bleed, duplex backs and preflight."""

import copy
import io

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image
from pypdf import PdfReader

from cards.media import print_asset_url
from cards.printing import layout, pdf
from cards.printing.deck import character_faces
from cards.printing.render import _zone_info, build_document, prepare, render_faces, render_spec
from tests.conftest import make_archon, make_card, make_memeyori

DPI = 100
# How far (of 255) an edge pixel's shade may stray from its neighbours' range.
SHADE = 16
LONG = "A rule that goes on and on about what happens next and then some more. " * 12


def pixels(data: bytes) -> list[Image.Image]:
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    try:
        return [document[i].render(scale=DPI / 72).to_pil() for i in range(len(document))]
    finally:
        document.close()


def whole_sheets(faces, *, png_dpi=None, **options):
    """The render as it was before imposition: one document of whole sheets, every copy
    laid out where it sits (a spec without sheets, whose pages render_spec joins). Each
    copy is a Face of its own here, numbered on its own (issue 33.8)."""
    faces = [copy.copy(face) for face in faces]
    html, zones, generated = build_document(faces, title="Memeyori cards", **options)
    job = {
        "html": html,
        "zones": {str(z): list(v) for z, v in zones.items()},
        "generated": {name: data.decode() for name, data in generated.items()},
        "png_dpi": png_dpi,
    }
    return render_spec({"jobs": [job], "zones": _zone_info(faces), "png_only": False})


def compare(a: Image.Image, b: Image.Image) -> tuple[int, int]:
    """How many pixels two renders of a page differ on, and how many of those are not
    explained by an edge drawn a little differently.

    A card placed on the sheet is the same drawing moved, but WeasyPrint writes each
    coordinate rounded to 6 decimals wherever it sits, so an edge that falls exactly on a
    pixel boundary may be shaded a little differently or one pixel over (and pdfium snaps
    a clip to whole pixels, so a sliver of a clipped picture may show on its other side).
    A pixel is explained when it lies within the range of the other render's pixels
    around it (3 x 3, give or take SHADE), both ways: a mark, a card or a letter missing,
    or moved by more than a pixel, is not (see
    test_the_comparison_sees_missing_marks_or_a_moved_card)."""
    from PIL import ImageChops, ImageFilter

    assert a.size == b.size

    def unexplained(x: Image.Image, y: Image.Image) -> Image.Image:
        shade = Image.new(y.mode, y.size, (SHADE,) * len(y.getbands()))
        low = ImageChops.subtract(y.filter(ImageFilter.MinFilter(3)), shade)
        high = ImageChops.add(y.filter(ImageFilter.MaxFilter(3)), shade)
        return ImageChops.add(ImageChops.subtract(low, x), ImageChops.subtract(x, high))

    pixels_in = a.size[0] * a.size[1]
    odd = ImageChops.add(unexplained(a, b), unexplained(b, a)).convert("L")
    differ = ImageChops.difference(a, b).convert("L")
    return pixels_in - differ.histogram()[0], pixels_in - odd.histogram()[0]


def assert_same_drawing(a, b, what: str, exact: bool = False, odd: int = 10_000) -> None:
    """Edge pixels only: none, or a few hundred of a page's million, and of those at most
    one in `odd` of the page's pixels that is not simply an edge shaded one pixel over."""
    differ, unexplained = compare(a, b)
    area = a.size[0] * a.size[1]
    assert differ <= (0 if exact else area // 1000), f"{what}: {differ} pixels differ"
    assert unexplained <= area // odd, f"{what}: {unexplained} pixels draw something else"


def assert_same_pages(ours: bytes, theirs: bytes, exact: bool = False) -> None:
    mine, before = pixels(ours), pixels(theirs)
    assert len(mine) == len(before)
    for number, (a, b) in enumerate(zip(mine, before, strict=True), start=1):
        assert_same_drawing(a, b, f"page {number}", exact)


def assert_same_png(ours: bytes, theirs: bytes) -> None:
    # At the preview's 60 dpi a sliver of a clipped thumbnail is two dozen pixels.
    a, b = Image.open(io.BytesIO(ours)), Image.open(io.BytesIO(theirs))
    assert_same_drawing(a, b, "preview", odd=2_000)


def assert_same_boxes(ours: bytes, theirs: bytes) -> None:
    for a, b in zip(
        PdfReader(io.BytesIO(ours)).pages, PdfReader(io.BytesIO(theirs)).pages, strict=True
    ):
        for box in ("mediabox", "trimbox", "bleedbox"):
            assert [float(v) for v in getattr(a, box)] == pytest.approx(
                [float(v) for v in getattr(b, box)], abs=1e-5
            )


@pytest.fixture
def party_faces(alice, types):
    """An Archon and a Memeyori with a portrait-less default art, a support card, a Quick
    card, a card whose text is shrunk and one whose text is cut."""
    archon = make_archon(alice, types["Tide"], name="Archon Mira", flavour="Calm.")
    make_card(archon, types["Tide"], name="Undertow", power=6, tier2_power=8)
    memeyori = make_memeyori(alice, types["Blaze"], name="Emberpup", flavour="Warm.")
    make_card(memeyori, types["Blaze"], name="Ember Bite", power=5, quick=True)
    make_card(memeyori, types["Verdant"], name="Mend", power=4, category="support")
    make_card(memeyori, types["Blaze"], name="Long Story", power=3, text=LONG[:420])
    make_card(memeyori, types["Blaze"], name="Endless", power=2, text=LONG * 3)
    return character_faces(archon) + character_faces(memeyori)


@pytest.mark.parametrize(
    "paper, backs, solid",
    [("a4", True, False), ("letter", True, True), ("a4", False, False)],
)
def test_imposed_sheets_draw_what_the_whole_sheets_drew(party_faces, paper, backs, solid):
    sheet = layout.sheet_layout(paper, solid_backs=solid)
    options = {"sheet": sheet, "backs": backs, "bleed": False}
    before = whole_sheets(party_faces, png_dpi=60, **options)
    after = render_faces(party_faces, png_dpi=60, **options)
    assert after.pages == before.pages == (2 if backs else 1)
    assert_same_pages(after.pdf, before.pdf)
    assert_same_boxes(after.pdf, before.pdf)
    assert_same_png(after.png, before.png)
    assert after.preflight == before.preflight and len(after.preflight) == 1
    assert after.shrunk == before.shrunk and after.shrunk


def test_print_shop_pages_keep_their_bleed_crop_marks_and_backs(party_faces):
    options = {"sheet": layout.sheet_layout("a4"), "backs": True, "bleed": True}
    before = whole_sheets(party_faces, **options)
    after = render_faces(party_faces, **options)
    assert after.pages == before.pages == 2 * len(party_faces)
    assert_same_pages(after.pdf, before.pdf, exact=True)
    assert_same_boxes(after.pdf, before.pdf)
    assert after.preflight == before.preflight


@pytest.mark.parametrize("paper", ["a4", "card"])
def test_one_mastercard_is_imposed_as_it_was_laid_out(party_faces, paper):
    options = {"sheet": layout.single_card_layout(paper), "backs": False, "bleed": False}
    before = whole_sheets(party_faces[:1], png_dpi=200, **options)
    after = render_faces(party_faces[:1], png_dpi=200, **options)
    assert_same_pages(after.pdf, before.pdf, exact=paper == "card")
    assert_same_boxes(after.pdf, before.pdf)
    assert_same_png(after.png, before.png)


@pytest.mark.parametrize("bleed", [False, True])
def test_a_party_back_image_is_placed_as_it_was_laid_out(party_faces, bleed):
    out = io.BytesIO()
    Image.new("RGB", (378, 528), "#2a7bd0").save(out, format="JPEG")
    name = default_storage.save("backs/test-back.jpg", ContentFile(out.getvalue()))
    options = {"sheet": layout.sheet_layout("a4"), "backs": True, "bleed": bleed,
               "back_image": print_asset_url(name)}  # fmt: skip
    before = whole_sheets(party_faces[:2], **options)
    after = render_faces(party_faces[:2], **options)
    assert_same_pages(after.pdf, before.pdf)


def test_copies_are_laid_out_once_and_drawn_where_each_copy_sits(party_faces):
    faces = layout.with_copies(party_faces, 3)
    sheet = layout.sheet_layout("a4")
    spec = prepare(faces, sheet=sheet, backs=True)
    # Each distinct card is in one document once; the sheets name it three times.
    html = "".join(job["html"] for job in spec["jobs"])
    assert html.count('class="card mastercard') == 2
    assert html.count('class="card move') == len(party_faces) - 2
    assert len(spec["sheets"]) == 2 * -(-len(faces) // 9)
    before = whole_sheets(faces, sheet=sheet, backs=True, bleed=False)
    after = render_spec(spec)
    assert_same_pages(after.pdf, before.pdf)
    # The whole sheets said it of each copy; imposition says it once.
    assert after.preflight == list(dict.fromkeys(before.preflight)) != before.preflight


def test_a_copy_is_written_once_in_the_pdf(party_faces):
    sheet = layout.sheet_layout("a4")
    one = render_faces(layout.with_copies(party_faces, 1), sheet=sheet).pdf
    nine = render_faces(layout.with_copies(party_faces, 9), sheet=sheet).pdf
    # Nine copies add a few bytes a card (a form's name on the sheet), not nine cards.
    assert len(nine) < 1.2 * len(one)
    reader = PdfReader(io.BytesIO(nine))
    forms = {ref.idnum for page in reader.pages for ref in page["/Resources"]["/XObject"].values()}
    assert len(forms) == len(party_faces) + 1  # each card once, and the cut marks


def test_a_spec_queued_before_imposition_still_renders(party_faces):
    """A render queued by the code before this one, taken by a worker running this one."""
    html, zones, generated = build_document(
        party_faces[:2], sheet=layout.sheet_layout("a4"), backs=False, bleed=False, title="t"
    )
    job = {"html": html, "zones": {str(z): list(v) for z, v in zones.items()},
           "generated": {n: d.decode() for n, d in generated.items()}, "png_dpi": 60}  # fmt: skip
    result = render_spec({"jobs": [job], "zones": _zone_info(party_faces[:2]), "png_only": False})
    assert result.pages == 1 and result.png.startswith(b"\x89PNG")
    assert len(PdfReader(io.BytesIO(result.pdf)).pages) == 1


def _two_stream_page() -> bytes:
    """A 20 x 20 pt page drawing a black square in its lower left quarter, its content in
    two streams (WeasyPrint writes one; other producers split theirs)."""
    from pypdf import PdfWriter
    from pypdf.generic import ArrayObject, DecodedStreamObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(20, 20)
    streams = []
    for data in (b"0 0 0 rg", b"0 0 10 10 re f"):
        stream = DecodedStreamObject()
        stream.set_data(data)
        streams.append(writer._add_object(stream))
    page[NameObject("/Contents")] = ArrayObject(streams)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_impose_places_a_page_drawn_in_several_streams():
    import pypdfium2

    twice = {"size": [40, 20], "place": [[0, 0, 0, 0], [0, 0, 20, 0]]}
    data = pdf.impose([_two_stream_page()], [twice])
    document = pypdfium2.PdfDocument(data)
    try:
        image = document[0].render(scale=1).to_pil().convert("L")
    finally:
        document.close()
    # Black in the lower left quarter of each place, white elsewhere.
    assert [image.getpixel((x, 15)) for x in (5, 15, 25, 35)] == [0, 255, 0, 255]
    assert [image.getpixel((x, 5)) for x in (5, 25)] == [255, 255]


def test_the_comparison_sees_missing_marks_or_a_moved_card(party_faces):
    """The pixel comparison above is loose on edges only: without the page of cut marks,
    or with the cards 0.5 mm over, the same sheet is another drawing."""
    sheet = layout.sheet_layout("a4")
    spec = prepare(party_faces[:2], sheet=sheet)
    good = pixels(render_spec(spec).pdf)[0]
    place = spec["sheets"][0]["place"]
    moved = [[*p[:2], p[2] + 0.5 * layout.PT_PER_MM, p[3]] for p in place[:-1]]
    for variant in (place[:-1], moved + place[-1:]):  # no cut marks; the cards 0.5 mm over
        other = {**spec, "sheets": [{**spec["sheets"][0], "place": variant}]}
        _, unexplained = compare(good, pixels(render_spec(other).pdf)[0])
        assert unexplained > good.size[0] * good.size[1] // 10_000
