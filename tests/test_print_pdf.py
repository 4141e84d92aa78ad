"""Real PDFs, read back with pypdf: sizes, text, nine cards a page, marks outside cards,
shrink-to-fit and the preflight."""

import io

import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from cards.printing import fit, layout
from cards.printing.deck import character_faces
from cards.printing.render import render_faces
from tests.conftest import make_archon, make_card, make_memeyori

MM = 72 / 25.4


def read(data: bytes) -> PdfReader:
    assert data.startswith(b"%PDF-")
    return PdfReader(io.BytesIO(data), strict=True)


def text_of(page) -> str:
    """pypdf's text, without the NULs it inserts: it reads WeasyPrint 70's embedded
    2-byte encoding CMap one byte at a time (pdfium reads the same file cleanly; see
    test_pdfium_reads_the_same_text)."""
    return page.extract_text().replace("\x00", "")


def size_pt(box) -> tuple[float, float]:
    return float(box.width), float(box.height)


@pytest.fixture
def emberpup(alice, types):
    m = make_memeyori(alice, types["Blaze"], name="Emberpup", flavour="Warm and loyal.")
    for i in range(1, 11):
        make_card(m, types["Blaze"], name=f"Move {i:02}", power=i, text=f"Deals {i} damage.")
    return m


def sheet_pdf(faces, paper="a4", **options):
    return render_faces(faces, sheet=layout.sheet_layout(paper), **options)


@pytest.mark.parametrize("paper, expected", [("a4", (595.28, 841.89)), ("letter", (612.0, 792.0))])
def test_sheet_pages_are_exactly_the_paper_size(emberpup, paper, expected):
    reader = read(sheet_pdf(character_faces(emberpup), paper, backs=True).pdf)
    assert len(reader.pages) == 4  # two sheets, each followed by its backs
    for page in reader.pages:
        assert size_pt(page.mediabox) == pytest.approx(expected, abs=0.01)


def test_the_text_of_every_card_can_be_extracted(emberpup):
    text = text_of(read(sheet_pdf(character_faces(emberpup)).pdf).pages[0])
    hp = emberpup.derived.hp
    assert "Emberpup" in text
    assert f"HP {hp}" in text and hp == 41  # RULES.md R3's worked example
    assert "Move 01" in text and "Deals 1 damage." in text
    assert "Peak human" in text  # R1 scale label for STR 5


def test_nine_cards_fill_a_sheet_and_the_rest_go_on_the_next(emberpup):
    reader = read(sheet_pdf(character_faces(emberpup)).pdf)
    counts = []
    for page in reader.pages:
        text = text_of(page)
        counts.append(text.count("Resistance") + text.count("unlocks at Rank"))
    assert counts == [9, 2]


def _text_positions(data: bytes, index: int) -> list[tuple[float, float, str]]:
    """Where each letter of page `index` is (the centre of its box, in points from the
    lower left), read by pdfium, which places the text of a form (a card drawn once and
    placed on the sheet, pdf.impose) where the form is drawn; pypdf's text visitor does
    not."""
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    try:
        text = document[index].get_textpage()
        found = []
        for i in range(text.count_chars()):
            char = text.get_text_range(i, 1)
            if char.strip():
                left, bottom, right, top = text.get_charbox(i)
                found.append(((left + right) / 2, (bottom + top) / 2, char))
        return found
    finally:
        document.close()


def _stroked_segments(page, reader) -> list[tuple[float, float, float, float]]:
    """Every straight stroked segment on the page, in PDF points (origin bottom left),
    those inside form XObjects (a picture drawn once and named on each use) included."""
    segments: list[tuple[float, float, float, float]] = []

    def apply(m, x, y):
        return x * m[0] + y * m[2] + m[4], x * m[1] + y * m[3] + m[5]

    def times(a, b, c, d, e, f, m):
        return [
            a * m[0] + b * m[2],
            a * m[1] + b * m[3],
            c * m[0] + d * m[2],
            c * m[1] + d * m[3],
            e * m[0] + f * m[2] + m[4],
            e * m[1] + f * m[3] + m[5],
        ]

    def walk(contents, resources, ctm):
        stack, path, current = [], [], None
        for operands, op in ContentStream(contents, reader).operations:
            if op == b"q":
                stack.append(list(ctm))
            elif op == b"Q":
                ctm = stack.pop()
            elif op == b"cm":
                ctm = times(*(float(v) for v in operands), ctm)
            elif op == b"Do":
                form = resources["/XObject"][operands[0]].get_object()
                if form["/Subtype"] == "/Form":
                    matrix = [float(v) for v in form.get("/Matrix", [1, 0, 0, 1, 0, 0])]
                    walk(form, form.get("/Resources", resources), times(*matrix, ctm))
            elif op == b"m":
                current = apply(ctm, *(float(v) for v in operands))
            elif op == b"l" and current is not None:
                end = apply(ctm, *(float(v) for v in operands))
                path.append((*current, *end))
                current = end
            elif op in (b"S", b"s"):
                segments.extend(path)
                path = []
            elif op in (b"n", b"f", b"f*", b"B", b"b", b"re"):
                path = [] if op != b"re" else path

    walk(page.get_contents(), page["/Resources"], [1, 0, 0, 1, 0, 0])
    return segments


def test_cut_marks_are_drawn_outside_the_cards_where_the_layout_says(emberpup):
    sheet = layout.sheet_layout("a4")
    data = sheet_pdf(character_faces(emberpup)).pdf
    reader = read(data)
    page = reader.pages[0]
    height = float(page.mediabox.height)
    cards_pt = [
        (r.x * MM, height - r.bottom * MM, r.right * MM, height - r.y * MM) for r in sheet.slots
    ]

    def inside(x, y, slack=0.01):
        return any(
            x0 + slack < x < x1 - slack and y0 + slack < y < y1 - slack
            for x0, y0, x1, y1 in cards_pt
        )

    outside = [
        s
        for s in _stroked_segments(page, reader)
        if not inside(s[0], s[1])
        and not inside(s[2], s[3])
        and not inside((s[0] + s[2]) / 2, (s[1] + s[3]) / 2)
    ]
    assert len(outside) == len(sheet.marks) == 72
    drawn = sorted((round(x0, 1), round(y0, 1)) for x0, y0, _, _ in outside)
    expected = sorted((round(m.x1 * MM, 1), round(height - m.y1 * MM, 1)) for m in sheet.marks)
    assert drawn == expected
    # And every word of the cards is inside a card.
    letters = _text_positions(data, 0)
    assert len(letters) > 500 and all(inside(x, y) for x, y, _ in letters)


def test_backs_follow_each_sheet_mirrored(alice, types):
    m = make_memeyori(alice, types["Blaze"], name="Solo")
    make_card(m, types["Blaze"], name="Only Move")
    data = sheet_pdf(character_faces(m), backs=True).pdf
    reader = read(data)
    assert len(reader.pages) == 2
    back = reader.pages[1]
    assert text_of(back).count("MEMEYORI") == 2
    sheet = layout.sheet_layout("a4")
    columns = {
        column
        for x, y, _ in _text_positions(data, 1)
        for column, slot in enumerate(sheet.slots[:3])
        if slot.x < x / MM < slot.right
    }
    # Fronts sit in columns 0 and 1; their backs in columns 2 and 1.
    assert columns == {1, 2}


def test_print_shop_mode_puts_one_card_on_a_page_with_bleed(emberpup):
    result = sheet_pdf(character_faces(emberpup)[:2], bleed=True, backs=True)
    reader = read(result.pdf)
    assert len(reader.pages) == 4
    for page in reader.pages:
        assert size_pt(page.trimbox) == pytest.approx((63 * MM, 88 * MM), abs=0.01)
        assert size_pt(page.mediabox) == pytest.approx((69 * MM, 94 * MM), abs=0.01)


@pytest.mark.parametrize(
    "paper, expected",
    [("a4", (595.28, 841.89)), ("letter", (612.0, 792.0)), ("card", (63 * MM, 88 * MM))],
)
def test_one_mastercard_prints_centred_or_at_card_size(alice, types, paper, expected):
    archon = make_archon(alice, types["Shade"], name="Vela")
    make_card(archon, types["Shade"], name="Night Call", category="magic", tier2_power=7)
    result = render_faces(character_faces(archon)[:1], sheet=layout.single_card_layout(paper))
    reader = read(result.pdf)
    assert len(reader.pages) == 1
    assert size_pt(reader.pages[0].mediabox) == pytest.approx(expected, abs=0.01)
    text = text_of(reader.pages[0])
    assert "Vela" in text and "Archon" in text and "Night Call" in text


def test_long_rules_text_is_shrunk_to_fit_and_not_reported_as_cut(alice, types):
    m = make_memeyori(alice, types["Tide"], name="Wordy")
    make_card(
        m,
        types["Tide"],
        name="Long Story",
        text="A very long rule. " * 33,
        tier2_power=6,
        tier2_text="More words here. " * 23,
    )
    result = sheet_pdf(character_faces(m))
    assert result.preflight == []
    assert any("Long Story" in line for line in result.shrunk)
    assert "A very long rule." in text_of(read(result.pdf).pages[0])


def test_text_that_cannot_fit_is_listed_in_the_preflight_and_marked_on_the_card(alice, types):
    m = make_memeyori(alice, types["Tide"], name="Rambler")
    rule = "An endless rule. " * 35  # 595 characters, each Tier: the rules' whole room
    make_card(m, types["Tide"], name="Tall Tale", power=3, text=rule, tier2_power=5,
              tier2_text=rule, tier3_power=7, tier3_text=rule)  # fmt: skip
    result = sheet_pdf([f for f in character_faces(m) if f.kind == "move"])
    assert len(result.preflight) == 1
    assert "Tall Tale" in result.preflight[0]
    assert "Text cut" in text_of(read(result.pdf).pages[0])


def test_flavour_text_is_left_out_before_any_rules_text_is_cut_and_the_preflight_says_so(
    alice, types
):
    m = make_memeyori(alice, types["Tide"], name="Rambler", flavour="Endless tale. " * 40)
    for i in range(6):
        make_card(m, types["Tide"], name=f"Card number {i}")
    result = sheet_pdf(character_faces(m)[:1])
    assert result.preflight == []  # nothing cut
    assert result.shrunk == [
        "Rambler (Mastercard) with its flavour text: flavour text left out to fit, and the"
        " rest set at 6 pt."
    ]
    page = text_of(read(result.pdf).pages[0])
    assert "Card number 5" in page and "Endless tale" not in page and "Text cut" not in page


def test_card_css_has_one_font_size_per_fit_step():
    from django.conf import settings

    css = (settings.BASE_DIR / "static" / "css" / "card.css").read_text()
    selectors = {"master": ".mastercard .fit", "move": ".move .fit"}
    for kind, sizes in fit.STEPS.items():
        if kind == "line":
            continue
        for step, size in enumerate(sizes):
            rule = f'{selectors[kind]}[data-step="{step}"] {{ font-size: {size:g}pt; }}'
            assert rule in css


def test_pdfium_reads_the_same_text(emberpup):
    import pypdfium2

    document = pypdfium2.PdfDocument(sheet_pdf(character_faces(emberpup)).pdf)
    text = document[0].get_textpage().get_text_range()
    document.close()
    assert "Emberpup" in text and "HP 41" in text and "Move 08" in text


def test_a_type_line_too_long_for_its_band_is_reported_not_hidden(alice, types):
    from cards.models import Type

    wide = Type.objects.create(name="W" * 40, slug="wide", colour="#123456")
    m = make_memeyori(alice, wide, name="Widow")
    result = sheet_pdf(character_faces(m))
    assert result.preflight == [
        "Widow (Mastercard): its Type line is too long for the card and is cut; shorten it."
    ]
    assert "Text cut" in text_of(read(result.pdf).pages[0])


def _mastercard_text(character) -> str:
    result = render_faces(character_faces(character)[:1], sheet=layout.single_card_layout("card"))
    assert not result.preflight
    return " ".join(text_of(read(result.pdf).pages[0]).split())  # a wrapped line reads as one


def test_a_rank_6_mastercard_says_its_attributes_include_the_plus_one(alice, types):
    # R2: Emberpup (STR 5, END 5) at Rank 6 prints STR 6 and HP 48, and says why.
    pup = make_memeyori(alice, types["Blaze"], name="Emberpup", rank=6)
    text = _mastercard_text(pup)
    assert "STR END IQ WIT SPD AUR 6 6 4 3 5 3" in text and "HP 48" in text
    assert "Rank 6: +1 to every attribute (included)" in text


def test_the_rank_6_line_says_an_attribute_at_20_stays_at_20(alice, types):
    pup = make_memeyori(alice, types["Blaze"], name="Titan", rank=6, strength=20)
    text = _mastercard_text(pup)
    assert "20 6 4 3 5 3" in text  # STR 20 stays 20; the others gain 1
    assert "Rank 6: +1 to every attribute below 20 (included)" in text


@pytest.mark.parametrize("rank", [1, 5])
def test_below_rank_6_and_on_an_archon_there_is_no_rank_line(alice, types, rank):
    pup = make_memeyori(alice, types["Blaze"], name="Emberpup", rank=rank)
    archon = make_archon(alice, types["Shade"], name="Vela")
    for character in (pup, archon):
        assert "+1 to every attribute" not in _mastercard_text(character)


def test_a_picture_on_many_cards_is_drawn_once_and_named_on_each(emberpup, settings):
    # Emberpup's art is on its Mastercard and on the thumbnail of each move card; page
    # one holds the Mastercard, eight move cards and the cut marks, each card a form of
    # its own placed on the sheet (pdf.impose) and the marks another. Rendered in one
    # process: each process draws its pictures once.
    settings.PRINT_RENDER_WORKERS = 1
    reader = read(sheet_pdf(character_faces(emberpup)).pdf)
    page = reader.pages[0]
    placed, pictures = [], []

    def forms(contents, resources):
        """The form XObjects this content draws (not those they draw in turn)."""
        xobjects = resources["/XObject"]
        for operands, op in ContentStream(contents, reader).operations:
            form = xobjects[operands[0]].get_object() if op == b"Do" else None
            if form is not None and form["/Subtype"] == "/Form":
                yield xobjects[operands[0]].indirect_reference.idnum, form

    for number, card in forms(page.get_contents(), page["/Resources"]):
        placed.append(number)
        pictures += [inner for inner, _ in forms(card, card["/Resources"])]
    assert len(placed) == len(set(placed)) == 9 + 1
    # One drawing of the art window, one of the thumbnail, one of the band, one of the
    # Blaze frame, one of the marks, and each card's own QR code; named by the nine cards
    # (art), the eight bands, the nine frames (a border-image names its picture once for
    # each of its 8 edge pieces), the page of marks, and the nine QR codes.
    assert len(set(pictures)) == 5 + 9
    assert len(pictures) == 9 + 8 + 9 * 8 + 1 + 9


def test_the_renderer_reads_card_css_with_its_fixed_tokens_written_in(settings):
    from cards.printing import design, pdf

    css = (settings.BASE_DIR / "static" / "css" / "card.css").read_text()
    read = pdf.inline_fixed_tokens(css)
    assert "var(--card-" not in read
    # Each fixed token is now its colour where it was used; the Types' tokens, set per
    # card, are still looked up.
    muted = design.CARD_TOKENS["card-muted"]
    assert "color: var(--card-muted)" in css and f"color: {muted}" in read
    assert "var(--type-colour, #888888)" in read
    # A token with two values in the sheet is left to the cascade.
    both = ".a { --x: #111111; } .b { --x: #222222; } .c { color: var(--x); }"
    assert pdf.inline_fixed_tokens(both) == both
    one = ".a { --x: #111111; } .c { color: var(--x); }"
    assert pdf.inline_fixed_tokens(one) == ".a { --x: #111111; } .c { color: #111111; }"


@pytest.mark.django_db
def test_every_demo_card_prints_without_cut_text():
    """What a GM prints first: no demo Mastercard or move card has text cut (the demo's
    Rank 6 Glacielk, six cards and a flavour line, did until the last step led tighter)."""
    from cards.demo import seed_demo
    from cards.models import Archon, Memeyori

    seed_demo()
    faces = [
        f for model in (Memeyori, Archon) for c in model.objects.all() for f in character_faces(c)
    ]
    assert sheet_pdf(faces).preflight == []


def _pages_as_pixels(data: bytes) -> list[bytes]:
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    try:
        return [document[i].render(scale=100 / 72).to_pil().tobytes() for i in range(len(document))]
    finally:
        document.close()


@pytest.mark.parametrize("bleed", [False, True])
def test_cards_drawn_with_the_parsed_sheets_match_weasyprint_reading_the_links(alice, types, bleed):
    """The renderer gives WeasyPrint card.css and print.css parsed once per process, as
    user sheets (pdf.linked_stylesheets); the same document with WeasyPrint fetching its
    own links, as author sheets, must draw every page the same, pixel for pixel."""
    from weasyprint import HTML

    from cards.printing import pdf
    from cards.printing.render import _roots, build_document

    archon = make_archon(alice, types["Tide"], name="Archon Mira")
    make_card(archon, types["Tide"], name="Undertow", power=6)
    memeyori = make_memeyori(alice, types["Blaze"], name="Emberpup", flavour="Warm.")
    make_card(memeyori, types["Blaze"], name="Ember Bite", power=5, quick=True)
    make_card(memeyori, types["Verdant"], name="Mend", power=4, category="support")
    faces = character_faces(archon) + character_faces(memeyori)
    html, zones, generated = build_document(
        faces, sheet=layout.sheet_layout("a4"), backs=True, bleed=bleed, title="t"
    )
    job = pdf.RenderJob(html=html, roots=_roots(), zones=zones, generated=generated)
    ours = pdf.render_job(job)
    fetcher = pdf.asset_fetcher(job.roots, job.generated)
    theirs = HTML(
        string=fit.apply_steps(html, ours.steps, set()), base_url=pdf.ASSET_BASE,
        url_fetcher=fetcher,
    ).render().write_pdf()  # fmt: skip
    assert "https://assets.memeyori.invalid/static/css/card.css" in fetcher.requested
    assert _pages_as_pixels(ours.pdf) == _pages_as_pixels(theirs)
    assert len(_pages_as_pixels(ours.pdf)) == (len(faces) * 2 if bleed else 2)


def test_a_stylesheet_edited_since_it_was_parsed_is_parsed_again(tmp_path):
    from cards.printing import pdf

    css = tmp_path / "css" / "cards.css"
    css.parent.mkdir()
    css.write_text(".card { color: #111111; }")
    fetcher = pdf.asset_fetcher({"/static/": [str(tmp_path)]})
    html = '<head><link rel="stylesheet" href="/static/css/cards.css"></head><p>x</p>'
    source, first = pdf.linked_stylesheets(html, fetcher)
    assert "<link" not in source and len(first) == 1
    assert pdf.linked_stylesheets(html, fetcher)[1][0] is first[0]  # kept, not re-parsed
    css.write_text(".card { color: #222222; background: #ffffff; }")
    again = pdf.linked_stylesheets(html, fetcher)[1][0]
    assert again is not first[0]


def test_a_stylesheet_naming_a_file_or_outside_the_roots_stays_a_link(tmp_path):
    from cards.printing import pdf

    (tmp_path / "css").mkdir()
    (tmp_path / "css" / "art.css").write_text('.a { background: url("/static/x.png"); }')
    fetcher = pdf.asset_fetcher({"/static/": [str(tmp_path)]})
    for href in ("/static/css/art.css", "/static/css/missing.css", "/media/x.css"):
        html = f'<link rel="stylesheet" href="{href}">'
        assert pdf.linked_stylesheets(html, fetcher) == (html, [])


def test_the_fork_server_parses_the_sheets_the_renderer_reads(settings):
    # warm.py finds static/css without Django; the renderer's roots come from settings.
    # Both must name the same files, or every render child would parse them again.
    from cards.printing import warm

    assert (settings.STATICFILES_DIRS[0] / "css").resolve() == warm.STATIC_CSS
    assert (warm.STATIC_CSS / "card.css").is_file() and (warm.STATIC_CSS / "print.css").is_file()
