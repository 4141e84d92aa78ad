"""The redesigned cards (issue 22): every element on the card of a demo Memeyori and an
Archon, in the PDF and on screen; Weak to / Strong against from the live chart; the
longest names, a 40-card Memeyori and the longest texts fit; the render key follows the
design; the odds printed are the builder's."""

import ast
import io
import re
from pathlib import Path

import pytest
from django.urls import reverse
from pypdf import PdfReader

from cards import odds
from cards.demo import seed_demo
from cards.models import Archon, Effect, Matchup, Memeyori, Visibility
from cards.printing import deck, design, layout, store
from cards.printing.deck import character_faces
from cards.printing.render import prepare, render_faces

from .conftest import make_card, make_memeyori, make_party

ROOT = Path(__file__).resolve().parent.parent


def pdf_text(faces, sheet=None) -> tuple[str, object]:
    result = render_faces(faces, sheet=sheet or layout.single_card_layout("card"))
    reader = PdfReader(io.BytesIO(result.pdf))
    text = " ".join(p.extract_text().replace("\x00", "") for p in reader.pages)
    return " ".join(text.split()), result


@pytest.fixture
def demo(db):
    seed_demo()
    return {
        "pup": Memeyori.objects.get(name="Emberpup"),
        "vela": Archon.objects.get(name="Archon Vela"),
    }


def test_a_demo_mastercard_carries_every_element(demo):
    pup = demo["pup"]  # Blaze, Rank 2, STR 5 END 5 IQ 3 WIT 2 SPD 4 AUR 2, five cards
    face = character_faces(pup)[0]
    text, result = pdf_text([face])
    assert result.preflight == []
    d = pup.derived
    # Name and HP at the top; the Type with its symbol; the Rank as stars and in words.
    assert "Emberpup" in text and f"HP {d.hp}" in text
    assert "♨ Blaze · Memeyori" in text
    assert "★★☆☆☆☆ Rank 2" in text
    # The six attributes, their values and R1's scale labels, with a bar each.
    assert "STR END IQ WIT SPD AUR" in text
    assert " ".join(str(a["value"]) for a in face.attributes) in text
    assert "Peak human" in text and "Human" in text
    html = result.requested  # the art window loads the character's generated art
    assert any(deck.default_art_path(pup) in url for url in html)
    # Derived stats by use (R3).
    for word in ("Attack", "Defence", "Tempo", "Physical", "Magic", "Defense", "Resistance",
                 "Evasion", "Initiative", "Crit Rate", "Support"):  # fmt: skip
        assert word in text, word
    assert f"{d.physical_accuracy} · +{d.physical_damage}" in text
    # Weak to / Strong against from the chart; the cards as attack lines; flavour; foot.
    assert "▲ Weak to ≈ Tide, ⬟ Stone" in text
    assert "▼ Strong against ☘ Verdant, ❄ Frost" in text
    assert "● ⚔ Cinder Nip 4 · Quick · R1" in text
    assert "●● ⚔ Flare Tackle 7/10 · R1" in text
    assert "●●● ✦ Bonfire Howl 8/11/15 · R4" in text
    assert "Barks in sparks." in text
    assert f"demo · Memeyori · 5 cards · {deck.set_code(pup)}" in text


def test_an_archon_mastercard_has_no_rank_and_says_what_it_costs(demo):
    vela = demo["vela"]
    text, result = pdf_text(character_faces(vela)[:1])
    assert result.preflight == []
    assert "Archon Vela" in text and "☀ Lumen ARCHON" in text
    assert "Rank" not in text.replace("ARCHON", "")  # no Rank: R2
    assert "Summon: 8 Resonance. Upkeep: 1 Resonance a round" in text  # R9
    assert f"demo · Archon · 3 cards · {deck.set_code(vela)}" in text


def test_a_move_card_carries_every_element_and_the_builders_numbers(demo):
    pup = demo["pup"]
    faces = {f.card.name: f for f in character_faces(pup)[1:]}
    howl = faces["Bonfire Howl"]  # magic, 3 MP, Power 8 / 11 / 15, Blaze like its user
    text, result = pdf_text([howl])
    assert result.preflight == []
    assert "●●● 3 MP" in text and "Bonfire Howl" in text and "8 Power" in text
    assert "♨ Blaze · ✦ Magic" in text
    # What a player looks for, from cards/odds.py (the module the builder's panel uses):
    # the chance to land and to crit against a typical Evasion, the damage of each Tier.
    row = odds.attack_rows(pup.derived, 2)[1]
    assert f"Lands {row.land.text} · crit {row.critical.text} vs Evasion 2" in text
    assert f"{row.accuracy} dice · damage vs RES 2 · same Type x6/5" in text
    tier1 = howl.table.tiers[0]
    assert f"{tier1.hit} damage on a hit · {tier1.critical} on a critical" in text
    # The whole grid is not on the face: it is on the cards page (full_table).
    lands = [p for _, p in odds.land_by_evasion(row.accuracy, pup.derived.crit_rate)]
    assert " ".join(lands) not in text and howl.full_table["lands"] == lands
    assert any(f"avg {tier1.expected.text}" in line for line in howl.full_table["averages"])
    # Each Tier with its Resonance cost (R9), its rules text; Quick said; its Memeyori.
    assert "Tier 1 · Power 8 · base" in text
    assert "Tier 2 · Power 11 · 4 Resonance" in text and "Louder." in text
    assert "Tier 3 · Power 15 · 8 Resonance" in text
    assert "Not Quick: its user's later cards cost +1 MP this round" in text
    assert f"Emberpup HP 43 · unlocks at Rank 4 · {deck.set_code(pup)} · 4/5" in text
    assert "x3/2 vs ☘ Verdant, ❄ Frost · x1/2 vs ≈ Tide, ⬟ Stone" in text
    nip, _ = pdf_text([faces["Cinder Nip"]])
    assert "QUICK" in nip and "Quick: adds no MP to its user's later cards" in nip


def test_a_support_card_says_what_it_heals(demo):
    pup = demo["pup"]
    nuzzle = next(f for f in character_faces(pup)[1:] if f.card.name == "Warm Nuzzle")
    text, result = pdf_text([nuzzle])
    assert result.preflight == []
    heal = nuzzle.card.power + pup.derived.support_power  # R5
    assert f"No roll: heals Power + Support Power ({pup.derived.support_power})" in text
    assert f"heals {heal} HP" in text and "Heal" in text


def test_weaknesses_and_strengths_follow_the_live_chart(demo, types):
    pup = demo["pup"]
    before, _ = pdf_text(character_faces(pup)[:1])
    assert "▲ Weak to ≈ Tide, ⬟ Stone" in before
    # A GM makes Blaze weak to Gale too, and no longer strong against Frost.
    Matchup.objects.update_or_create(
        attacking=types["Gale"], defending=types["Blaze"], defaults={"effect": Effect.WEAK}
    )
    Matchup.objects.filter(attacking=types["Frost"], defending=types["Blaze"]).delete()
    after, _ = pdf_text(character_faces(pup)[:1])
    assert "▲ Weak to ≈ Tide, ⬟ Stone, ∿ Gale" in after
    assert "▼ Strong against ☘ Verdant ●" in after  # the card lines follow
    # The cards' own Type, attacking, follows it too.
    Matchup.objects.filter(attacking=types["Blaze"], defending=types["Frost"]).delete()
    tackle = next(f for f in character_faces(pup)[1:] if f.card.name == "Flare Tackle")
    assert tackle.hits_line == "x3/2 vs ☘ Verdant · x1/2 vs ≈ Tide, ⬟ Stone"


def test_the_longest_names_fit(alice, types):
    name = "Sir Reginald Emberpup the Magnificent Third of Cinder Hollow"[:60]
    assert len(name) == 60
    m = make_memeyori(alice, types["Blaze"], name=name, flavour="Long-named.")
    for i in range(3):
        make_card(
            m, types["Blaze"], name=f"An Extraordinarily Long Attack Name Number {i} Indeed"[:60]
        )
    _, result = pdf_text(character_faces(m), sheet=layout.sheet_layout("a4"))
    assert result.preflight == []


def test_a_40_card_memeyori_fits_and_its_mastercard_counts_the_rest(alice, types):
    m = make_memeyori(alice, types["Tide"], name="Hoarder", flavour="Keeps everything.")
    for i in range(40):
        make_card(m, types["Tide"], name=f"Card number {i}", tier2_power=9)
    faces = character_faces(m)
    text, result = pdf_text(faces, sheet=layout.sheet_layout("a4"))
    assert result.preflight == []
    assert result.pages == 5  # 41 cards, nine a sheet
    assert "+ 35 more cards: see their move cards" in text


def test_the_longest_rules_texts_fit_at_6_pt(alice, types):
    m = make_memeyori(alice, types["Tide"], name="Wordy")
    make_card(
        m, types["Tide"], name="Long Story", text=("A very long rule. " * 34)[:600],
        tier2_power=6, tier2_text=("More words here. " * 24)[:400],
    )  # fmt: skip
    _, result = pdf_text(character_faces(m)[1:])
    assert result.preflight == []
    assert result.shrunk == ["Long Story (Wordy's card): text set at 6 pt to fit."]


def test_the_render_key_changes_when_the_design_changes(alice, types, monkeypatch):
    m = make_memeyori(alice, types["Blaze"], name="Keyed")
    make_card(m, types["Blaze"], name="Nip")

    def key():
        spec = prepare(character_faces(m), sheet=layout.sheet_layout("a4"), backs=True)
        return store.spec_key("sheet", spec)

    first = key()
    assert key() == first
    # A Type token (the tint of every Type line) is part of the render.
    real = design.type_tokens
    monkeypatch.setattr(
        design, "type_tokens", lambda colour: {**real(colour), "type-tint": "#ffffff"}
    )
    assert key() != first
    monkeypatch.setattr(design, "type_tokens", real)
    assert key() == first
    # So is the art drawn for the card and the back.
    from cards.printing import art

    real_art = art.look_svg
    monkeypatch.setattr(art, "look_svg", lambda look, symbol: real_art(look, "x"))
    assert key() != first
    monkeypatch.setattr(art, "look_svg", real_art)
    real_back = art.back_svg
    monkeypatch.setattr(art, "back_svg", lambda colours, solid: real_back(colours[:1], solid=solid))
    assert key() != first


def test_the_same_back_is_on_every_card_of_a_sheet(alice, types):
    m = make_memeyori(alice, types["Blaze"], name="Backed")
    for i in range(3):
        make_card(m, types["Blaze"], name=f"Move {i}", category=("physical", "magic", "support")[i])
    spec = prepare(character_faces(m), sheet=layout.sheet_layout("a4"), backs=True)
    (job,) = spec["jobs"]
    backs = re.findall(r'<img class="back-art" src="([^"]+)"', job["html"])
    # Laid out once, and placed behind each of the four cards (then the cut marks).
    assert backs == ["/print/back-light.svg"]
    fronts, behind = spec["sheets"]
    assert len(fronts["place"]) == len(behind["place"]) == 4 + 1
    assert len({(part, page) for part, page, _, _ in behind["place"][:-1]}) == 1
    svg = job["generated"]["print/back-light.svg"]
    for t in types.values():  # a pattern from every Type's colour
        assert t.colour in svg
    solid = prepare(
        character_faces(m), sheet=layout.sheet_layout("a4", solid_backs=True), backs=True
    )["jobs"][0]
    assert "print/back-solid.svg" in solid["generated"]


def test_printing_reads_no_view_module():
    for path in (ROOT / "cards" / "printing").glob("*.py"):
        if path.name == "views.py":
            continue  # the print pages themselves
        tree = ast.parse(path.read_text())
        imported = [
            node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
        ] + [a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names]
        assert not any("views" in name for name in imported), path.name
    odds_source = (ROOT / "cards" / "odds.py").read_text()
    assert "django" not in odds_source  # pure Python, beside the rules


def test_the_cards_page_shows_the_whole_set_without_inline_styles(client, demo):
    pup = demo["pup"]
    page = client.get(reverse("print_cards", kwargs={"kind": "memeyori", "code": pup.code}))
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count('class="card mastercard') == 1
    assert html.count('class="card move') == 5
    assert 'class="card card-back' in html
    assert "style=" not in html
    art = deck.default_art_path(pup)
    assert f'src="{art}"' in html
    # Every Evasion and Defense of each attack card, under it (the face keeps the odds a
    # player uses during a game).
    assert html.count('class="full-table"') == sum(c.category != "support" for c in pup.cards.all())
    picture = client.get(art)
    assert picture["Content-Type"] == "image/svg+xml" and b"<svg" in picture.content
    assert client.get("/print/back-light.svg").status_code == 200
    assert client.get("/print/back-glitter.svg").status_code == 404


def test_downloads_are_named_after_what_they_hold(client, alice, types):
    pup = make_memeyori(alice, types["Blaze"], name="Emberpup")
    frog = make_memeyori(alice, types["Tide"], name="Puddle Frog")
    party = make_party(alice, name="Sunrise Squad", visibility=Visibility.PRIVATE)
    from cards.services import party_set_memeyori

    party_set_memeyori(party=party, memeyori=[pup])
    client.force_login(alice)

    def name(query):
        response = client.get(reverse("print_sheet"), query)
        return re.search(r'filename="([^"]+)"', response["Content-Disposition"])[1]

    assert name({"party": party.code, "paper": "a4"}) == "sunrise-squad-cards.pdf"
    assert name({"characters": f"memeyori:{pup.code}", "paper": "a4"}) == "emberpup-cards.pdf"
    both = {"characters": [f"memeyori:{pup.code}", f"memeyori:{frog.code}"], "paper": "a4"}
    assert name(both) == "emberpup-and-puddle-frog-cards.pdf"
    assert name({**both, "bleed": "on"}) == "emberpup-and-puddle-frog-print-shop-cards.pdf"
    url = reverse("print_mastercard", kwargs={"kind": "memeyori", "code": pup.code})
    assert 'filename="emberpup-mastercard.pdf"' in client.get(url)["Content-Disposition"]


def test_the_rules_page_shows_the_mastercard_it_speaks_of(client, types):
    html = client.get(reverse("rules")).content.decode()
    card = html.index('class="card mastercard')
    assert card < html.index("Above is an example of a Memeyori Mastercard")
    assert "Emberpup" in html[card : card + 3000]
    assert "style=" not in html


def test_in_print_shop_mode_every_word_sits_3_mm_inside_the_trim(demo):
    import pypdfium2

    faces = character_faces(demo["pup"]) + character_faces(demo["vela"])[:1]
    result = render_faces(faces, sheet=layout.sheet_layout("a4"), bleed=True)
    document = pypdfium2.PdfDocument(result.pdf)
    mm = 72 / 25.4
    try:
        assert len(document) == len(faces)
        for page in document:
            # The trim box: 63 x 88 mm inside the 3 mm bleed (in the page's own coordinates).
            left, bottom, right, top = page.get_trimbox()
            assert (right - left, top - bottom) == pytest.approx((63 * mm, 88 * mm), abs=0.1)
            text = page.get_textpage()
            boxes = [
                text.get_charbox(i)
                for i in range(text.count_chars())
                if text.get_text_range(i, 1).strip()
            ]
            assert boxes
            for x0, y0, x1, y1 in boxes:
                assert x0 >= left + 3 * mm - 0.5 and x1 <= right - 3 * mm + 0.5, (x0, x1)
                assert y0 >= bottom + 3 * mm - 0.5 and y1 <= top - 3 * mm + 0.5, (y0, y1)
    finally:
        document.close()


def test_it_prints_the_same_mastercard_alone_as_first_of_all_its_faces(
    alice, types, django_assert_max_num_queries
):
    """A Mastercard PDF builds only its own face: its render key (and so the stored PDF it
    finds) is the one of the first of all the character's faces, and the charts of its
    cards' other Types are not read."""
    m = make_memeyori(alice, types["Blaze"], name="Alone")
    for n, type_name in enumerate(["Blaze", "Tide", "Stone", "Verdant"]):
        make_card(m, types[type_name], name=f"Card {n}")
    sheet = layout.single_card_layout("a4")
    everything = prepare(character_faces(m)[:1], sheet=sheet, title=m.name)
    with django_assert_max_num_queries(2):  # the cards, and the chart of its own Type
        faces = character_faces(m, moves=False)
    assert [face.kind for face in faces] == ["master"]
    alone = prepare(faces, sheet=sheet, title=m.name)
    assert store.spec_key("mastercard", alone) == store.spec_key("mastercard", everything)
