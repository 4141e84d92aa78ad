"""Foil for print-shop mode (issue 34): a holographic sheen over each card's frame and its
bleed, never under the text; asked for on the print form, a render of its own."""

import io
import re

import pytest
from django.urls import reverse
from pypdf import PdfReader

from cards.printing import art, design, layout, store
from cards.printing.deck import character_faces
from cards.printing.forms import PrintForm
from cards.printing.render import prepare, render_faces
from cards.printing.store import Render

from .conftest import make_archon, make_card, make_memeyori


@pytest.fixture
def pup(alice, types):
    m = make_memeyori(alice, types["Blaze"], name="Emberpup", flavour="Barks in sparks.")
    make_card(m, types["Blaze"], name="Cinder Nip")
    return m


def form_data(character, **extra) -> dict:
    return {"characters": [f"memeyori:{character.code}"], "paper": "a4", "copies": 1, **extra}


def shop(faces, **options) -> dict:
    return prepare(faces, sheet=layout.sheet_layout("a4"), bleed=True, **options)


# --- The form ------------------------------------------------------------------------


def test_the_print_form_accepts_foil_with_print_shop_mode(alice, pup):
    form = PrintForm(form_data(pup, bleed="on", foil="on"), user=alice)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["foil"] is True
    assert form.filename().endswith("print-shop-foil-cards.pdf")


def test_foil_without_print_shop_mode_is_refused_by_its_box(alice, pup):
    form = PrintForm(form_data(pup, foil="on"), user=alice)
    assert not form.is_valid()
    assert form.errors["foil"] == [
        "Foil prints only in print-shop mode: tick Print-shop mode too, or untick Foil."
    ]
    assert "print-shop mode only" in str(form.fields["foil"].help_text).lower()


def test_the_print_page_says_why_foil_needs_print_shop_mode_by_the_box(client, alice, pup):
    client.force_login(alice)
    response = client.get(reverse("print_page"), form_data(pup, foil="on"))
    html = response.content.decode()
    assert response.status_code == 200
    assert not Render.objects.exists()  # nothing rendered for a refused choice
    box = re.search(r'<input type="checkbox" name="foil"[^>]*>', html).group(0)
    assert 'aria-invalid="true"' in box and "id_foil_error" in box
    assert html.count("Foil prints only in print-shop mode") == 2  # the summary and the box
    # htmx swaps only the result: the message is there too, linked to the box.
    partial = client.get(reverse("print_page"), form_data(pup, foil="on"), HTTP_HX_REQUEST="true")
    assert 'href="#id_foil"' in partial.content.decode()


# --- The documents -------------------------------------------------------------------


def test_a_foil_document_carries_the_foil_frames_and_the_sheen_over_the_bleed(pup, types):
    faces = character_faces(pup)
    plain, foil = shop(faces), shop(faces, foil=True)
    html = foil["jobs"][0]["html"]
    assert '<body class="bleed foil">' in html
    assert design.frame_path("blaze", foil=True) in html
    assert "linear-gradient(to bottom right" in html  # the bleed's sheen
    frame = foil["jobs"][0]["generated"][design.frame_path("blaze", foil=True).lstrip("/")]
    assert 'fill="url(#foil)"' in frame and 'fill="url(#glint)"' in frame
    for _, hue in art.foil_stops():
        assert f'stop-color="{hue}"' in frame
    assert "foil" not in plain["jobs"][0]["html"].split("</style>")[1]
    assert "url(#foil)" not in "".join(plain["jobs"][0]["generated"].values())


def test_foil_is_ignored_by_the_renderer_without_print_shop_mode(pup, types):
    """The form refuses it; a caller of `prepare` that passes it anyway gets plain sheets."""
    faces = character_faces(pup)
    sheet = layout.sheet_layout("a4")
    assert prepare(faces, sheet=sheet, foil=True) == prepare(faces, sheet=sheet)


def test_an_archons_foil_frame_keeps_its_gold_rules_over_the_sheen(alice, types):
    vela = make_archon(alice, types["Lumen"], name="Vela")
    frame = shop(character_faces(vela, moves=False), foil=True)["jobs"][0]["generated"][
        design.frame_path("lumen", True, foil=True).lstrip("/")
    ]
    # The sheen is drawn before the gold rules and studs, so they stay on top.
    assert frame.index('fill="url(#glint)"') < frame.index('stroke="#e3b341"')


def test_a_foil_pdf_differs_from_a_plain_one_and_its_preflight_stays_clean(pup, types):
    faces = character_faces(pup, moves=False)
    sheet = layout.single_card_layout("card")
    plain = render_faces(faces, sheet=sheet, bleed=True)
    foil = render_faces(faces, sheet=sheet, bleed=True, foil=True)
    assert foil.preflight == plain.preflight == []
    assert foil.pdf != plain.pdf

    def text(result):
        return " ".join(PdfReader(io.BytesIO(result.pdf)).pages[0].extract_text().split())

    # The same words on the card: the sheen is a picture under the frame, not over text.
    assert text(foil) == text(plain) and "Emberpup" in text(foil)


def test_a_foil_render_is_stored_apart_from_a_plain_one(client, alice, pup):
    client.force_login(alice)
    plain = client.get(reverse("print_sheet"), form_data(pup, bleed="on"))
    foil = client.get(reverse("print_sheet"), form_data(pup, bleed="on", foil="on"))
    again = client.get(reverse("print_sheet"), form_data(pup, bleed="on", foil="on"))
    assert plain.status_code == foil.status_code == again.status_code == 200
    assert foil.content != plain.content and again.content == foil.content
    renders = list(Render.objects.order_by("pk"))
    assert len(renders) == 2 and renders[0].key != renders[1].key
    assert all(r.runs == 1 for r in renders)  # the second foil request was served stored
    assert 'filename="' in foil["Content-Disposition"]
    assert "print-shop-foil-cards" in foil["Content-Disposition"]


def test_the_foil_spec_has_a_key_of_its_own(pup, types):
    faces = character_faces(pup)
    assert store.spec_key("sheet", shop(faces)) != store.spec_key("sheet", shop(faces, foil=True))


def test_the_site_serves_the_foil_frames_at_the_paths_the_pdfs_name(client, types):
    for archon in (False, True):
        response = client.get(design.frame_path("blaze", archon, foil=True))
        assert response.status_code == 200
        assert 'fill="url(#foil)"' in response.content.decode()
    assert "url(#foil)" not in client.get(design.frame_path("blaze")).content.decode()


def test_the_command_line_prints_foil_only_with_bleed(pup, tmp_path):
    from django.core.management import CommandError, call_command

    out = tmp_path / "foil.pdf"
    code = str(pup.code)
    with pytest.raises(CommandError, match="add --bleed"):
        call_command("print_cards", "--character", code, "--foil", "--out", str(out))
    call_command("print_cards", "--character", code, "--bleed", "--foil", "--out", str(out))
    assert out.read_bytes().startswith(b"%PDF")
