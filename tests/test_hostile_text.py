"""Hostile text in every field a player can edit, checked everywhere it is shown:
every page and HTMX partial, the PDFs, the PNG images, the battle log and the exports.
It must come out as the same literal text, and nothing it names may be fetched."""

import io
import json

import pytest
from django.urls import reverse
from PIL import Image
from pypdf import PdfReader

from battles import services as battle_services
from cards.printing import layout
from cards.printing.deck import character_faces
from cards.printing.render import render_faces
from cards.services import party_set_memeyori

from .conftest import make_archon, make_card, make_memeyori, make_party

HOSTILE = (
    '<img src="file:///etc/passwd" onerror="alert(1)"><script>alert(1)</script>'
    "<style>*{display:none}</style>\"'&amp;"
)
ESCAPED_MARKERS = ("&lt;img src=", "&lt;script&gt;alert(1)&lt;/script&gt;")
RAW_MARKERS = ('<img src="file:///etc/passwd"', "<script>alert(1)</script>", "<style>*{display")


def label(field: str) -> str:
    # Names have a length limit; keep the dangerous part and say which field it is.
    return f"{field} {HOSTILE}"[:60] if field.endswith("name") else f"{field} {HOSTILE}"


@pytest.fixture
def hostile(alice, bob, types):
    """Alice's public things, every editable text field full of markup."""
    m = make_memeyori(alice, types["Shade"], name=label("memeyori name"),
                      flavour=label("flavour"), visibility="public")  # fmt: skip
    second = make_memeyori(alice, types["Blaze"], name=label("second name"), visibility="public")
    archon = make_archon(alice, types["Lumen"], name=label("archon name"),
                         flavour=label("archon flavour"), visibility="public")  # fmt: skip
    for holder in (m, second, archon):
        make_card(holder, types["Shade"], name=label("card name"), text=label("rules text"),
                  tier2_power=6, tier2_text=label("tier 2 text"), tier3_power=8,
                  tier3_text=label("tier 3 text"), flavour=label("card flavour"))  # fmt: skip
    party = make_party(alice, name=label("party name"), archon=archon, visibility="public")
    party_set_memeyori(party=party, memeyori=[m, second])
    battle = battle_services.battle_run(owner=alice, party_a=party, party_b=party, seed=5)
    battle = battle_services.battle_set_visibility(battle=battle, visibility="public")
    return {"memeyori": m, "archon": archon, "party": party, "battle": battle}


def assert_escaped(html: str, where: str):
    for raw in RAW_MARKERS:
        assert raw not in html, f"unescaped {raw!r} in {where}"
    assert any(marker in html for marker in ESCAPED_MARKERS), f"no hostile text shown in {where}"


def pages(h) -> list[tuple[str, dict]]:
    m, archon, party, battle = h["memeyori"], h["archon"], h["party"], h["battle"]
    mk = {"kind": "memeyori", "code": m.code}
    ak = {"kind": "archon", "code": archon.code}
    rounds = battle.log["result"]["rounds"]
    return [
        (reverse("home"), {}),
        (reverse("character", kwargs=mk), {}),
        (reverse("character", kwargs=ak), {}),
        (reverse("character_edit", kwargs=mk), {}),
        (reverse("character_edit", kwargs=mk), {"HTTP_HX_REQUEST": "true"}),
        (reverse("character_stats", kwargs=mk), {"HTTP_HX_REQUEST": "true"}),
        (reverse("card_editor", kwargs=mk), {}),
        (reverse("card_editor", kwargs=mk), {"HTTP_HX_REQUEST": "true"}),
        (reverse("my_characters"), {}),
        (reverse("my_characters") + "?q=memeyori", {"HTTP_HX_REQUEST": "true"}),
        (reverse("party", kwargs={"code": party.code}), {}),
        (reverse("party_edit", kwargs={"code": party.code}), {}),
        (reverse("party_list"), {}),
        (reverse("print_page"), {}),
        (reverse("print_portrait", kwargs=mk), {}),
        (reverse("battle_new"), {}),
        (reverse("battle_list"), {}),
        (reverse("battle_public"), {}),
        *[
            (reverse("battle", kwargs={"code": battle.code}) + f"?round={r}", {})
            for r in range(0, rounds + 1)
        ],  # fmt: skip
        (
            reverse("battle", kwargs={"code": battle.code}) + "?round=1&step=3",
            {"HTTP_HX_REQUEST": "true"},
        ),  # fmt: skip
        (reverse("battle_shared", kwargs={"token": battle.share_token}), {}),
    ]


# Pages that may show only some of the names, or none (the stats partial shows numbers).
SOME_NAMES_ONLY = {"/battles/new/", "/print/", "/battles/"}


def test_every_page_and_partial_shows_hostile_text_escaped(client, alice, hostile):
    client.force_login(alice)
    for url, headers in pages(hostile):
        response = client.get(url, **headers)
        assert response.status_code == 200, url
        html = response.content.decode()
        if url in SOME_NAMES_ONLY or "round=0" in url or "/stats/" in url:
            # These may show only some names; none may show them raw.
            for raw in RAW_MARKERS:
                assert raw not in html, url
            continue
        assert_escaped(html, url + (" (htmx)" if headers else ""))


def test_the_pdf_prints_hostile_text_literally_and_fetches_nothing_it_names(hostile):
    faces = [face for c in (hostile["memeyori"], hostile["archon"]) for face in character_faces(c)]
    result = render_faces(faces, sheet=layout.sheet_layout("a4"), backs=True)
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(result.pdf)).pages)
    # Compare without white space: the layout breaks long text into lines.
    text = "".join(text.replace("\x00", "").split())
    assert "".join(HOSTILE.split()) in text
    assert not any("passwd" in url or "alert" in url for url in result.requested)
    assert result.refused == []


def test_images_render_with_hostile_names(client, hostile):
    m, battle = hostile["memeyori"], hostile["battle"]
    for url in (
        reverse("print_share_png", kwargs={"kind": "memeyori", "code": m.code}),
        reverse("battle_og", kwargs={"code": battle.code}),
        reverse("battle_shared_og", kwargs={"token": battle.share_token}),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert Image.open(io.BytesIO(response.content)).format == "PNG"


def test_the_battle_log_keeps_hostile_names_as_data_not_markup(client, hostile):
    response = client.get(reverse("battle_log", kwargs={"code": hostile["battle"].code}))
    assert response["Content-Type"].startswith("application/json")
    assert response["X-Content-Type-Options"] == "nosniff" or response.get("Content-Disposition")
    log = json.loads(response.content)
    names = [c["name"] for side in log["sides"] for c in side["combatants"]]
    assert label("memeyori name") in names


def test_exports_keep_hostile_text_unchanged(client, alice, hostile):
    client.force_login(alice)
    response = client.get(reverse("party_export", kwargs={"code": hostile["party"].code}))
    exported = json.loads(response.content)
    assert [p["name"] for p in exported["parties"]] == [label("party name")]
    assert label("flavour") in [m["flavour"] for m in exported["memeyori"]]
