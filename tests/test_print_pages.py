"""The print pages, the Mastercard PDF and PNG, the portrait page and the command."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from PIL import Image
from pypdf import PdfReader

from cards.models import Visibility
from cards.services import party_set_memeyori
from tests.conftest import make_archon, make_card, make_memeyori, make_party, stored_files

HOSTILE = '<img src="file:///etc/passwd"><style>*{display:none}</style>'


@pytest.fixture
def squad(alice, types):
    pup = make_memeyori(alice, types["Blaze"], name="Emberpup")
    make_card(pup, types["Blaze"], name="Cinder Nip")
    vela = make_archon(alice, types["Shade"], name="Vela")
    make_card(vela, types["Shade"], name="Night Call", category="magic")
    party = make_party(alice, archon=vela, name="Sunrise Squad")
    party_set_memeyori(party=party, memeyori=[pup])
    return party


def pdf_text(data: bytes) -> str:
    reader = PdfReader(io.BytesIO(data))
    return "".join(p.extract_text() for p in reader.pages).replace("\x00", "")


def test_the_print_page_lists_only_your_own_characters(client, alice, bob, types, squad):
    make_memeyori(bob, types["Tide"], name="Bob's Secret")
    client.force_login(alice)
    page = client.get(reverse("print_page")).content.decode()
    assert "Emberpup" in page and "Vela" in page and "Bob&#x27;s Secret" not in page


def test_a_party_gets_a_preflight_a_preview_and_a_download_link(client, alice, squad):
    client.force_login(alice)
    response = client.get(reverse("print_page"), {"party": squad.code, "paper": "a4"})
    page = response.content.decode()
    assert "4 cards on 1 page" in page
    assert "Everything fits" in page
    assert 'src="data:image/png;base64,' in page
    assert f"/print/sheet.pdf?party={squad.code}" in page


def test_htmx_gets_only_the_result_partial(client, alice, squad):
    client.force_login(alice)
    response = client.get(
        reverse("print_page"),
        {"party": squad.code, "paper": "letter"},
        headers={"HX-Request": "true"},
    )
    page = response.content.decode()
    assert page.lstrip().startswith('<section id="print-result"')
    assert "<html" not in page
    assert "HX-Request" in response["Vary"]


def test_choosing_nothing_says_so(client, alice):
    client.force_login(alice)
    page = client.get(reverse("print_page"), {"paper": "a4"}).content.decode()
    assert "Choose at least one character or a party." in page


def test_the_sheet_download_is_a_pdf_of_the_chosen_cards(client, alice, squad):
    client.force_login(alice)
    response = client.get(
        reverse("print_sheet"), {"party": squad.code, "paper": "letter", "backs": "on"}
    )
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("attachment;")
    text = pdf_text(response.content)
    assert "Emberpup" in text and "Night Call" in text and "MEMEYORI" in text


def test_others_cannot_print_a_private_party_or_your_characters(client, bob, squad):
    pup = squad.slots.get().memeyori
    client.force_login(bob)
    response = client.get(reverse("print_sheet"), {"party": squad.code, "paper": "a4"})
    assert response.status_code == 400
    response = client.get(
        reverse("print_sheet"), {"characters": f"memeyori:{pup.code}", "paper": "a4"}
    )
    assert response.status_code == 400
    for name in ("print_mastercard", "print_share_png"):
        url = reverse(name, kwargs={"kind": "memeyori", "code": pup.code})
        assert client.get(url).status_code == 404


def test_anyone_can_print_a_public_party(client, squad):
    squad.visibility = Visibility.PUBLIC
    squad.save()
    response = client.get(reverse("print_sheet"), {"party": squad.code, "paper": "a4"})
    assert response.status_code == 200 and "Emberpup" in pdf_text(response.content)


def test_the_mastercard_pdf_and_the_share_png(client, alice, squad):
    pup = squad.slots.get().memeyori
    client.force_login(alice)
    url = reverse("print_mastercard", kwargs={"kind": "memeyori", "code": pup.code})
    response = client.get(url, {"paper": "letter"})
    reader = PdfReader(io.BytesIO(response.content))
    assert len(reader.pages) == 1 and float(reader.pages[0].mediabox.width) == pytest.approx(612)
    assert client.get(url, {"paper": "a3"}).status_code == 400
    png = client.get(reverse("print_share_png", kwargs={"kind": "memeyori", "code": pup.code}))
    assert png["Content-Type"] == "image/png"
    with Image.open(io.BytesIO(png.content)) as image:
        assert image.format == "PNG" and image.height > image.width > 400


def test_a_hostile_name_is_escaped_on_the_print_and_portrait_pages(client, alice, types):
    m = make_memeyori(alice, types["Shade"], name=HOSTILE)
    client.force_login(alice)
    for url in (
        reverse("print_page"),
        reverse("print_portrait", kwargs={"kind": "memeyori", "code": m.code}),
    ):
        page = client.get(url).content.decode()
        assert '<img src="file:///etc/passwd">' not in page
        assert "&lt;img src=&quot;file:///etc/passwd&quot;&gt;" in page


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (300, 300), (10, 120, 200)).save(out, format="PNG")
    return out.getvalue()


def test_the_owner_uploads_a_portrait(
    client, alice, types, settings, django_capture_on_commit_callbacks
):
    m = make_memeyori(alice, types["Blaze"])
    client.force_login(alice)
    url = reverse("print_portrait", kwargs={"kind": "memeyori", "code": m.code})
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url,
            {"portrait": SimpleUploadedFile("p.png", _png()), "focus_x": "0.5", "focus_y": "0.3"},
        )
    assert response.status_code == 302
    m.refresh_from_db()
    assert m.portrait_print and m.portrait_focus_y == 0.3
    page = client.get(url).content.decode()
    # The click-to-focus picker, from a static script: no inline code or style for the CSP.
    assert 'id="focus-image"' in page and "js/portrait-focus.js" in page
    assert "style=" not in page and "<script>" not in page
    # The Mastercard now carries it, fetched from media by the renderer.
    pdf_url = reverse("print_mastercard", kwargs={"kind": "memeyori", "code": m.code})
    assert b"/Subtype /Image" in client.get(pdf_url, {"paper": "card"}).content


def test_a_bad_portrait_upload_shows_why_and_stores_nothing(client, alice, types, settings):
    m = make_memeyori(alice, types["Blaze"])
    client.force_login(alice)
    url = reverse("print_portrait", kwargs={"kind": "memeyori", "code": m.code})
    response = client.post(
        url,
        {"portrait": SimpleUploadedFile("p.png", b"GIF89a..."), "focus_x": "0.5", "focus_y": "0.5"},
    )
    assert response.status_code == 200
    assert "GIF images are not accepted" in response.content.decode()
    assert stored_files() == []


def test_only_the_owner_sees_the_portrait_page(client, alice, bob, types, settings):
    # A plain path, so this test does not depend on where the log-in page lives.
    settings.LOGIN_URL = "/accounts/login/"
    m = make_memeyori(alice, types["Blaze"], visibility=Visibility.PUBLIC)
    url = reverse("print_portrait", kwargs={"kind": "memeyori", "code": m.code})
    assert client.get(url).status_code == 302  # to log in
    client.force_login(bob)
    assert client.get(url).status_code == 404
    response = client.post(url, {"focus_x": "0", "focus_y": "0"})
    assert response.status_code == 404


def test_the_command_prints_a_party_by_name(alice, squad, tmp_path):
    out = tmp_path / "cards.pdf"
    call_command(
        "print_cards", "--party", "Sunrise Squad", "--paper", "letter", "--backs", "--out", str(out)
    )
    reader = PdfReader(out)
    assert len(reader.pages) == 2
    assert float(reader.pages[0].mediabox.height) == pytest.approx(792)


def test_the_command_prints_characters_in_print_shop_mode(alice, squad, tmp_path):
    pup = squad.slots.get().memeyori
    out = tmp_path / "cards.pdf"
    call_command(
        "print_cards",
        "--character",
        str(pup.code),
        "--character",
        str(squad.archon.code),
        "--bleed",
        "--out",
        str(out),
    )
    assert len(PdfReader(out).pages) == 4


def test_the_command_says_what_it_could_not_find(db, tmp_path):
    with pytest.raises(CommandError, match="No party"):
        call_command("print_cards", "--party", "Nobody", "--out", str(tmp_path / "x.pdf"))
    with pytest.raises(CommandError, match="No Memeyori or Archon"):
        call_command("print_cards", "--character", "not-a-code", "--out", str(tmp_path / "x.pdf"))


def test_the_command_takes_a_party_id_or_code_and_refuses_an_ambiguous_name(
    alice, bob, squad, tmp_path
):
    out = tmp_path / "cards.pdf"
    for value in (str(squad.pk), str(squad.code)):
        call_command("print_cards", "--party", value, "--out", str(out))
        assert len(PdfReader(out).pages) == 1
    make_party(bob, name="Sunrise Squad")
    with pytest.raises(CommandError, match="2 parties are named"):
        call_command("print_cards", "--party", "Sunrise Squad", "--out", str(out))


def test_an_empty_party_says_there_is_nothing_to_print(client, alice):
    party = make_party(alice, name="Nobody Yet")
    client.force_login(alice)
    page = client.get(reverse("print_page"), {"party": party.code, "paper": "a4"})
    assert "Nothing to print" in page.content.decode()
    response = client.get(reverse("print_sheet"), {"party": party.code, "paper": "a4"})
    assert response.status_code == 400
