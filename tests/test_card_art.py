"""Issue 34: art on every card and flavour text. A character without a portrait gets a
picture drawn for it (cards/printing/art.py): the same bytes on screen and in the PDF,
never another party member's, of its Type's colours and symbol; the owner picks another
look. Flavour text is short, plain, escaped, printed in italics, exported and imported."""

import io
import json

import pytest
from django.urls import reverse
from pypdf import PdfReader

from cards import exchange
from cards.demo import seed_demo
from cards.models import FLAVOUR_MAX, Memeyori, Party
from cards.printing import art, design, layout
from cards.printing.deck import character_faces, default_art_path, party_characters
from cards.printing.render import prepare, render_faces

from .conftest import make_card, make_memeyori, make_party


def test_two_characters_of_a_party_never_share_their_art(db):
    seed_demo()
    for party in Party.objects.all():
        members = party_characters(party)
        looks = [art.character_look(c) for c in members]
        pictures = [art.character_art_svg(c) for c in members]
        assert len(set(looks)) == len(members), party.name
        assert len(set(pictures)) == len(members), party.name


def test_twins_of_one_party_still_get_different_art(alice, types):
    # Same name, Type and attributes: the code tells them apart, and what the hash picks
    # (ears, markings, mouth, rays, where the symbols fall) differs in at least one way.
    a = make_memeyori(alice, types["Blaze"], name="Twin")
    b = make_memeyori(alice, types["Blaze"], name="Twin")
    party = make_party(alice, name="Twins")
    from cards.services import party_set_memeyori

    party_set_memeyori(party=party, memeyori=[a, b])
    look_a, look_b = art.character_look(a), art.character_look(b)
    assert look_a != look_b
    assert art.character_art_svg(a) != art.character_art_svg(b)


def test_art_is_byte_identical_for_the_same_character_on_screen_and_in_the_pdf(
    client, alice, types
):
    m = make_memeyori(alice, types["Frost"], name="Glacielk", visibility="public")
    first = art.character_art_svg(m)
    again = Memeyori.objects.get(pk=m.pk)
    assert art.character_art_svg(again) == first
    # The screen's picture (its own URL) and the one handed to the renderer are one.
    path = default_art_path(m)
    served = client.get(path)
    assert served.status_code == 200 and served["Content-Type"] == "image/svg+xml"
    spec = prepare(character_faces(m), sheet=layout.sheet_layout("a4"))
    assert spec["jobs"][0]["generated"][path.lstrip("/")] == served.content.decode() == first


def test_the_art_is_of_its_type_colours_and_symbol(alice, types):
    frost, blaze = types["Frost"], types["Blaze"]
    m = make_memeyori(alice, frost, name="Glacielk")
    svg = art.character_art_svg(m)
    assert design.type_tokens(frost.colour)["type-deep"] in svg
    # The symbol is drawn as its outline from the cards' font, not as text.
    commands, _, _ = art.glyph(frost.symbol)
    assert commands in svg and "<text" not in svg
    assert art.glyph(blaze.symbol)[0] not in svg


def test_attributes_shape_the_art_and_the_variant_changes_it(alice, types):
    m = make_memeyori(alice, types["Tide"], name="Puddle", strength=2)
    weak = art.character_look(m)
    m.strength = 18
    strong = art.character_look(m)
    assert strong.body[0] > weak.body[0]
    m.art_variant = 3
    assert art.character_art_svg(m) != art.look_svg(strong, m.type.symbol)
    # A new look is a new URL, so a cached picture is never the old one.
    m.art_variant = 0
    before = default_art_path(m)
    m.art_variant = 3
    assert default_art_path(m) != before


def test_the_owner_picks_another_variant_in_the_builder(client, alice, types):
    m = make_memeyori(alice, types["Tide"], name="Puddle")
    client.force_login(alice)
    url = reverse("character_edit", kwargs={"kind": "memeyori", "code": m.code})
    page = client.get(url).content.decode()
    assert 'name="art_variant"' in page and 'class="default-art"' in page
    data = {
        "name": "Puddle", "type": types["Tide"].pk, "rank": 1, "strength": 5, "endurance": 5,
        "iq": 3, "wit": 2, "speed": 4, "aura": 2, "flavour": "", "visibility": "private",
        "save": "1",
    }  # fmt: skip
    client.post(url, {**data, "art_variant": 5})
    m.refresh_from_db()
    assert m.art_variant == 5
    refused = client.post(url, {**data, "art_variant": 8})
    assert "Art variant must be a whole number from 0 to 7." in refused.content.decode()
    m.refresh_from_db()
    assert m.art_variant == 5


def test_a_private_characters_art_is_not_shown_to_others(client, alice, bob, types):
    m = make_memeyori(alice, types["Shade"], name="Secret")
    path = default_art_path(m)
    assert client.get(path).status_code == 404
    client.force_login(bob)
    assert client.get(path).status_code == 404
    client.force_login(alice)
    assert client.get(path).status_code == 200


def test_a_portrait_wins_over_the_art(alice, types):
    m = make_memeyori(alice, types["Blaze"])
    m.portrait_print.name = "portraits/print/x.jpg"
    face = character_faces(m, moves=False)[0]
    assert "/media/" in face.art_url and "art/memeyori" not in face.art_url
    assert not any(name.startswith("print/art/memeyori") for name in face.pictures())


def test_move_cards_get_art_from_their_type_and_category(client, alice, types):
    m = make_memeyori(alice, types["Blaze"])
    for category in ("physical", "magic", "support"):
        make_card(m, types["Tide"], name=category, category=category)
    faces = character_faces(m)[1:]
    urls = [f.move_art_url for f in faces]
    assert len(set(urls)) == 3 and all("/tide/" in u for u in urls)
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200 and b"<svg" in response.content
    assert client.get("/print/art/move/tide/psychic.svg").status_code == 404


# --- Flavour text ------------------------------------------------------------------------


def test_flavour_text_has_a_short_limit(client, alice, types):
    m = make_memeyori(alice, types["Blaze"])
    card = make_card(m, types["Blaze"])
    client.force_login(alice)
    url = reverse("card_edit", kwargs={"kind": "memeyori", "code": m.code, "card": card.code})
    data = {
        "name": "Nip", "type": types["Blaze"].pk, "category": "physical", "power": 4,
        "mp_cost": 1, "unlock_rank": 1, "text": "", "flavour": "x" * (FLAVOUR_MAX + 1),
    }  # fmt: skip
    data = {f"edit-{k}": v for k, v in data.items()}
    response = client.post(url, data)
    assert f"at most {FLAVOUR_MAX} characters" in response.content.decode()
    card.refresh_from_db()
    assert card.flavour == ""
    client.post(url, {**data, "edit-flavour": "Bites first, apologises never."})
    card.refresh_from_db()
    assert card.flavour == "Bites first, apologises never."


HOSTILE = '<i>"Fire & <script>alert(1)</script>'


def test_card_flavour_is_printed_in_italics_and_escaped(client, alice, types):
    m = make_memeyori(alice, types["Blaze"], visibility="public", flavour=HOSTILE)
    make_card(m, types["Blaze"], name="Nip", flavour=HOSTILE)
    page = client.get(reverse("print_cards", kwargs={"kind": "memeyori", "code": m.code}))
    html = page.content.decode()
    assert "<script>alert(1)" not in html
    escaped = "&lt;i&gt;&quot;Fire &amp; &lt;script&gt;alert(1)&lt;/script&gt;"
    assert html.count(f'<p class="flavour">{escaped}</p>') == 2  # Mastercard and move card
    result = render_faces(character_faces(m), sheet=layout.sheet_layout("a4"))
    text = PdfReader(io.BytesIO(result.pdf)).pages[0].extract_text().replace("\x00", "")
    assert text.count(HOSTILE) == 2
    assert result.preflight == []


def test_the_preflight_names_flavour_text_when_it_is_set_smaller(alice, types):
    m = make_memeyori(alice, types["Blaze"], name="Talker")
    make_card(m, types["Blaze"], name="Long Story", text="A rule. " * 40, flavour="Said " * 39)
    result = render_faces(character_faces(m)[1:], sheet=layout.sheet_layout("a4"))
    assert any("Long Story" in line and "flavour text" in line for line in result.shrunk)


def test_flavour_and_variant_survive_export_and_import(alice, bob, types):
    m = make_memeyori(alice, types["Blaze"], flavour="Warm.\nVery warm.", art_variant=6)
    make_card(m, types["Blaze"], name="Nip", flavour="It <nips>.")
    data = json.loads(exchange.dumps(exchange.export_character(m)))
    row = data["memeyori"][0]
    assert row["flavour"] == "Warm.\nVery warm." and row["art_variant"] == 6
    assert row["cards"][0]["flavour"] == "It <nips>."
    plan = exchange.import_parse(json.dumps(data), owner=bob)
    exchange.import_create(plan=plan, owner=bob)
    copy = Memeyori.objects.get(owner=bob)
    assert (copy.flavour, copy.art_variant) == ("Warm.\nVery warm.", 6)
    assert copy.cards.get().flavour == "It <nips>."
    # An export from before issue 34 (no variant, no card flavour) still imports.
    del row["art_variant"], row["cards"][0]["flavour"]
    plan = exchange.import_parse(json.dumps(data), owner=alice)
    assert plan.memeyori[0]["object"].art_variant == 0


@pytest.mark.parametrize("value", ["x" * (FLAVOUR_MAX + 1), 7])
def test_an_import_refuses_a_bad_card_flavour(alice, types, value):
    m = make_memeyori(alice, types["Blaze"])
    make_card(m, types["Blaze"], name="Nip")
    data = exchange.export_character(m)
    data["memeyori"][0]["cards"][0]["flavour"] = value
    with pytest.raises(exchange.ImportRefused, match="flavour"):
        exchange.import_parse(json.dumps(data), owner=alice)


# --- Frames --------------------------------------------------------------------------


def test_each_type_has_a_textured_frame_and_archons_have_their_own(client, alice, types):
    from cards.models import Type
    from cards.printing.design import frame_path

    blaze = types["Blaze"]
    memeyori = art.frame_svg(blaze.colour, blaze.symbol, blaze.slug)
    archon = art.frame_svg(blaze.colour, blaze.symbol, blaze.slug, archon=True)
    assert memeyori != archon and blaze.colour in memeyori and "#e3b341" in archon
    assert len({art.frame_pattern(t.slug) for t in Type.objects.all()}) >= 3
    # The screen's stylesheet and the PDF name the same frame, which the renderer is given.
    css = client.get(reverse("types_css")).content.decode()
    assert f'url("{frame_path("blaze")}")' in css and f'url("{frame_path("blaze", True)}")' in css
    assert client.get(frame_path("blaze", True)).content.decode() == archon
    m = make_memeyori(alice, blaze)
    spec = prepare(character_faces(m), sheet=layout.sheet_layout("a4"))
    assert spec["jobs"][0]["generated"][frame_path("blaze").lstrip("/")] == memeyori


# --- The QR code and stale prints ------------------------------------------------------


def _decoded(png: bytes) -> list[str]:
    import zxingcpp
    from PIL import Image

    return [r.text for r in zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))]


def test_the_qr_code_on_each_card_decodes_to_its_page(client, alice, types, settings):
    m = make_memeyori(alice, types["Blaze"], name="Scanned")
    make_card(m, types["Blaze"], name="Nip")
    for face in character_faces(m):
        result = render_faces(
            [face], sheet=layout.single_card_layout("card"), png_dpi=300, png_only=True
        )
        url = settings.SITE_URL + face.short_path
        assert _decoded(result.png) == [url], face.title
        # It leads to the card's page, by the character's public code.
        response = client.get(url.removeprefix(settings.SITE_URL))
        assert response.status_code == 302 and response.url == face.printed_path
        assert face.printed_path.startswith(f"/print/c/memeyori/{m.code}/printed/")


def _printed(m):
    """Print the character's cards (which records what they say) and give the faces."""
    faces = character_faces(m)
    render_faces(faces, sheet=layout.sheet_layout("a4"))
    return faces


def test_a_card_printed_then_edited_shows_changed_since_printed(client, alice, types):
    m = make_memeyori(alice, types["Blaze"], name="Edited", visibility="public")
    card = make_card(m, types["Blaze"], name="Nip", power=4)
    move = _printed(m)[1]
    page = client.get(move.printed_path).content.decode()
    assert "Printed today; nothing on it has changed since." in page
    card.power = 6
    card.save()
    page = client.get(move.printed_path).content.decode()
    assert "Power" in page and "changed since" in page and "nothing on it" not in page
    from cards.models import PrintedNumbers

    PrintedNumbers.objects.update(first_printed=timezone_days_ago(3))
    page = client.get(move.printed_path).content.decode()
    assert "Printed 3 days ago; Power" in page


def timezone_days_ago(days: int):
    from datetime import timedelta

    from django.utils import timezone

    return timezone.now() - timedelta(days=days, minutes=5)


def test_a_mastercard_printed_before_a_rank_up_says_so(client, alice, types):
    m = make_memeyori(alice, types["Blaze"], name="Grower", visibility="public", rank=2)
    path = _printed(m)[0].printed_path  # what the paper carries
    m.rank = 3
    m.save()
    page = client.get(path).content.decode()
    status = page[page.find('class="printed-status') :][:300]
    assert "Printed today; Rank has changed since." in status, status


def test_a_private_characters_printed_page_asks_to_sign_in(client, alice, bob, types):
    m = make_memeyori(alice, types["Shade"], name="Hidden")
    master = _printed(m)[0]
    response = client.get(master.printed_path)
    assert response.status_code == 404 and "Sign in to see this card" in response.content.decode()
    assert "/accounts/login/?next=" in response.content.decode()
    client.force_login(bob)
    assert client.get(master.printed_path).status_code == 404
    client.force_login(alice)
    assert "nothing on it has changed since" in client.get(master.printed_path).content.decode()
