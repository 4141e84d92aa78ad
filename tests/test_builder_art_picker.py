"""The builder's art picker (issue 34): every generated look as a thumbnail to pick, the
preview following what is typed, drawn by art.py exactly as the cards print it."""

import re

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cards.forms import sign_draft_code
from cards.models import Memeyori
from cards.printing import art
from cards.printing.deck import default_art_path

from .conftest import make_memeyori, set_portrait
from .test_portraits import image_bytes

HTMX = {"HX-Request": "true"}


def form_data(types, **overrides):
    data = {
        "name": "Emberpup", "type": types["Blaze"].pk, "rank": 1, "strength": 5,
        "endurance": 5, "iq": 3, "wit": 2, "speed": 4, "aura": 2, "flavour": "",
        "visibility": "private", "art_variant": 0,
    }  # fmt: skip
    data.update(overrides)
    return data


def svg_of(html: str, element_id: str) -> str:
    """The <svg> inside the element with this id."""
    start = html.index(f'id="{element_id}"')
    return html[html.index("<svg", start) : html.index("</svg>", start) + len("</svg>")]


def plain(svg: str) -> str:
    """The picture without the builder's id prefix (templatetags/art.py look_art)."""
    return re.sub(r'(id="|href="#)[a-z0-9-]*?-s"', r'\1s"', svg)


def draft_code(html: str) -> str:
    return re.search(r'name="draft_code" value="([^"]+)"', html).group(1)


def test_the_builder_offers_eight_distinct_looks_to_pick_by_name(client, types):
    html = client.get(reverse("builder_new", kwargs={"kind": "memeyori"})).content.decode()
    radios = re.findall(r'<input type="radio" class="look-radio" name="art_variant" [^>]*>', html)
    assert len(radios) == 8
    assert 'value="0" id="id_art_variant_0" checked' in radios[0]
    thumbs = [svg_of(html, f"look-thumb-{v}") for v in range(8)]
    assert len({plain(t) for t in thumbs}) == 8
    for number in range(1, 9):  # each radio's accessible name is its label's text
        assert f'<span class="look-name">Look {number}</span>' in html
    # Nine pictures on one page: each <use> finds its own symbol.
    ids = re.findall(r'<path id="([^"]+)"', html)
    assert len(ids) == len(set(ids)) == 9


def test_the_live_endpoint_draws_the_typed_name_type_and_look(client, types):
    page = client.get(reverse("builder_new", kwargs={"kind": "memeyori"})).content.decode()
    code = draft_code(page)
    typed = form_data(
        types, name="Puddlefin", type=types["Tide"].pk, art_variant=3, draft_code=code,
        art_picker="1",
    )  # fmt: skip
    html = client.get(
        reverse("builder_stats", kwargs={"kind": "memeyori"}), typed, headers=HTMX
    ).content.decode()
    assert '<div id="art-preview" hx-swap-oob="innerHTML">' in html
    assert "Look 4, as the cards print it" in html
    tide = types["Tide"]
    attributes = {"strength": 5, "endurance": 5, "iq": 3, "wit": 2, "speed": 4, "aura": 2}
    inputs = dict(kind="memeyori", name="Puddlefin", colour=tide.colour, attributes=attributes)
    from cards.forms import unsign_draft_code

    expected = art.look(**inputs, code=unsign_draft_code(code), variant=3)
    assert plain(svg_of(html, "art-preview")) == art.look_svg(expected, tide.symbol)
    for v in range(8):
        look = art.look(**inputs, code=unsign_draft_code(code), variant=v)
        assert plain(svg_of(html, f"look-thumb-{v}")) == art.look_svg(look, tide.symbol)
    # Another name is another picture.
    other = client.get(
        reverse("builder_stats", kwargs={"kind": "memeyori"}),
        {**typed, "name": "Puddlefun"},
        headers=HTMX,
    ).content.decode()
    assert svg_of(other, "art-preview") != svg_of(html, "art-preview")


def test_a_page_without_the_picker_gets_no_art_in_its_live_answers(client, types):
    html = client.get(
        reverse("builder_stats", kwargs={"kind": "memeyori"}), form_data(types), headers=HTMX
    ).content.decode()
    assert "art-preview" not in html and "look-thumb" not in html


def test_a_new_character_is_saved_with_the_art_it_was_previewed_with(client, alice, types):
    client.force_login(alice)
    url = reverse("builder_new", kwargs={"kind": "memeyori"})
    code = draft_code(client.get(url).content.decode())
    typed = form_data(types, name="Sparkjaw", art_variant=5, draft_code=code)
    preview = client.get(
        reverse("builder_stats", kwargs={"kind": "memeyori"}),
        {**typed, "art_picker": "1"},
        headers=HTMX,
    ).content.decode()
    response = client.post(url, {**typed, "save": "1"})
    assert response.status_code == 302
    saved = Memeyori.objects.get(name="Sparkjaw")
    assert saved.art_variant == 5
    assert plain(svg_of(preview, "art-preview")) == art.character_art_svg(saved)
    # The character page shows that look.
    page = client.get(saved.get_absolute_url()).content.decode()
    assert art.character_art_svg(saved) in page


def test_a_forged_or_reused_draft_code_is_not_used(client, alice, types):
    client.force_login(alice)
    url = reverse("builder_new", kwargs={"kind": "memeyori"})
    taken = make_memeyori(alice, types["Blaze"], name="First")
    client.post(url, form_data(types, name="Forged", draft_code="abc:def", save="1"))
    client.post(url, form_data(types, name="Reused", draft_code=sign_draft_code(taken.code),
                               save="1"))  # fmt: skip
    forged, reused = Memeyori.objects.get(name="Forged"), Memeyori.objects.get(name="Reused")
    assert len({forged.code, reused.code, taken.code}) == 3


def test_posting_a_look_saves_it_and_the_character_page_shows_it(client, alice, types):
    m = make_memeyori(alice, types["Tide"], name="Puddle")
    client.force_login(alice)
    url = reverse("character_edit", kwargs={"kind": "memeyori", "code": m.code})
    edit = client.get(url).content.decode()
    assert 'value="0" id="id_art_variant_0" checked' in edit
    before = art.character_art_svg(m)
    response = client.post(url, form_data(types, name="Puddle", type=types["Tide"].pk,
                                          art_variant=6, save="1"))  # fmt: skip
    assert response.status_code == 302
    m.refresh_from_db()
    assert m.art_variant == 6
    after = art.character_art_svg(m)
    assert after != before
    edit = client.get(url).content.decode()
    assert 'value="6" id="id_art_variant_6" checked' in edit
    assert plain(svg_of(edit, "art-preview")) == after
    assert "Look 7, as the cards print it" in edit
    # The character's page and its cards show the saved look.
    assert after in client.get(m.get_absolute_url()).content.decode()
    cards = reverse("print_cards", kwargs={"kind": "memeyori", "code": m.code})
    assert default_art_path(m) in client.get(cards).content.decode()


def test_the_live_endpoint_of_a_saved_character_draws_with_its_code(client, alice, types):
    m = make_memeyori(alice, types["Tide"], name="Puddle", art_variant=2)
    client.force_login(alice)
    typed = form_data(types, name="Puddle", type=types["Tide"].pk, art_variant=2, art_picker="1")
    html = client.get(
        reverse("character_stats", kwargs={"kind": "memeyori", "code": m.code}),
        typed,
        headers=HTMX,
    ).content.decode()
    assert plain(svg_of(html, "art-preview")) == art.character_art_svg(m)


def test_with_a_portrait_the_picker_says_why_it_is_not_there(client, alice, types):
    m = make_memeyori(alice, types["Tide"], name="Puddle", art_variant=4)
    set_portrait(m, upload=SimpleUploadedFile("p.png", image_bytes((60, 80), fmt="PNG")))
    client.force_login(alice)
    url = reverse("character_edit", kwargs={"kind": "memeyori", "code": m.code})
    html = client.get(url).content.decode()
    assert "look-radio" not in html and 'name="art_picker"' not in html
    assert "a portrait always wins over the generated art" in html
    assert '<input type="hidden" name="art_variant" value="4">' in html
    client.post(url, form_data(types, name="Puddle", type=types["Tide"].pk, art_variant=4,
                               save="1"))  # fmt: skip
    m.refresh_from_db()
    assert m.art_variant == 4


def test_a_bad_look_is_refused_by_the_picker(client, alice, types):
    m = make_memeyori(alice, types["Tide"], name="Puddle", art_variant=1)
    client.force_login(alice)
    url = reverse("character_edit", kwargs={"kind": "memeyori", "code": m.code})
    html = client.post(url, form_data(types, name="Puddle", art_variant=8, save="1"))
    html = html.content.decode()
    assert 'id="id_art_variant_error"' in html
    assert '<a href="#id_art_variant_0">' in html  # the summary links to the first look
    assert 'id="id_art_variant_0" aria-invalid="true"' in html
    assert "Art variant must be a whole number from 0 to 7." in html
    m.refresh_from_db()
    assert m.art_variant == 1


def test_without_javascript_update_numbers_redraws_the_looks_for_what_was_typed(client, types):
    url = reverse("builder_new", kwargs={"kind": "memeyori"})
    code = draft_code(client.get(url).content.decode())
    first = client.post(url, form_data(types, name="Ashling", draft_code=code, preview="1"))
    second = client.post(
        url, form_data(types, name="Ashlyn", art_variant=2, draft_code=code, preview="1")
    )
    a, b = first.content.decode(), second.content.decode()
    assert draft_code(b) == code  # the same character, a few keystrokes later
    assert 'value="2" id="id_art_variant_2" checked' in b and "Look 3, as the cards print it" in b
    assert svg_of(a, "look-thumb-2") != svg_of(b, "look-thumb-2")
    assert plain(svg_of(b, "art-preview")) == plain(svg_of(b, "look-thumb-2"))


def test_a_keystroke_that_changes_no_picture_gets_no_pictures(client, types):
    url = reverse("builder_stats", kwargs={"kind": "memeyori"})
    code = draft_code(
        client.get(reverse("builder_new", kwargs={"kind": "memeyori"})).content.decode()
    )
    typed = form_data(types, name="Emberpup", art_picker="1", draft_code=code)
    first = client.get(url, typed, headers=HTMX).content.decode()
    drawn = re.search(r'name="art_drawn" value="([^"]+)"', first).group(1)
    # The Rank and the flavour text are not in the picture: nothing to redraw.
    same = client.get(url, {**typed, "rank": 4, "flavour": "Hot.", "art_drawn": drawn},
                      headers=HTMX).content.decode()  # fmt: skip
    assert "HP" in same and "look-thumb" not in same and "art-preview" not in same
    # Strength is: the body grows, every look is drawn again.
    stronger = client.get(url, {**typed, "strength": 15, "art_drawn": drawn}, headers=HTMX)
    assert stronger.content.decode().count('hx-swap-oob="innerHTML"><svg') == 9


def test_an_archon_picks_among_eight_looks_of_a_summoner(client, types):
    html = client.get(reverse("builder_new", kwargs={"kind": "archon"})).content.decode()
    thumbs = [plain(svg_of(html, f"look-thumb-{v}")) for v in range(8)]
    assert len(set(thumbs)) == 8
