"""A newcomer's first hour: a draft that survives signing up, password reset by email."""

import re

from django.contrib.auth import get_user_model
from django.core import mail

from cards.models import Memeyori

from .conftest import make_user

DRAFT = {
    "name": "Draftling", "strength": "7", "endurance": "6", "iq": "3", "wit": "2",
    "speed": "4", "aura": "2", "rank": "1", "visibility": "private",
    "vs_evasion": "3", "vs_defense": "2", "vs_resistance": "2",
}  # fmt: skip
PASSWORD = "a-long-pass-123!"


def draft(types):
    return {**DRAFT, "type": types["Blaze"].pk}


def test_a_visitors_draft_survives_signing_up_and_comes_back_to_the_builder(client, types):
    response = client.post("/build/memeyori/", {**draft(types), "save": "signup"})
    assert response.status_code == 302
    assert response.url.startswith("/accounts/signup/?next=/build/memeyori/")
    assert not Memeyori.objects.exists()

    signup = client.post(
        response.url,
        {"username": "newbie", "password1": PASSWORD, "password2": PASSWORD,
         "next": "/build/memeyori/"},
    )  # fmt: skip
    assert signup.url == "/build/memeyori/"
    html = client.get("/build/memeyori/").content.decode()
    assert 'value="Draftling"' in html
    assert re.search(r'id="id_strength"[^>]*value="7"|value="7"[^>]*id="id_strength"', html)

    client.post("/build/memeyori/", {**draft(types), "save": "1"})
    assert Memeyori.objects.get(name="Draftling").strength == 7
    # Saved: the builder starts blank again.
    assert 'value="Draftling"' not in client.get("/build/memeyori/").content.decode()


def test_log_in_to_save_keeps_the_draft_too(client, types):
    make_user("alice")
    response = client.post("/build/memeyori/", {**draft(types), "save": "login"})
    assert response.url.startswith("/accounts/login/?next=/build/memeyori/")
    client.post(response.url, {"username": "alice", "password": "alice-pass-123!"})
    assert 'value="Draftling"' in client.get("/build/memeyori/").content.decode()
    # The draft is for Memeyori; the Archon builder starts blank.
    assert 'value="Draftling"' not in client.get("/build/archon/").content.decode()


def test_signup_refuses_to_send_people_to_another_site(client, db):
    data = {"username": "newbie", "password1": PASSWORD, "password2": PASSWORD}
    response = client.post("/accounts/signup/", {**data, "next": "https://evil.example/"})
    assert response.url == "/my/"


def test_a_forgotten_password_is_reset_through_an_emailed_link(client, db):
    user = get_user_model().objects.create_user("ann", "ann@example.org", "old-pass-123!")
    response = client.post("/accounts/reset/", {"email": "ann@example.org"})
    assert response.url == "/accounts/reset/sent/"
    assert len(mail.outbox) == 1
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.outbox[0].body)[1]
    form_page = client.get(link, follow=True)
    assert "Choose a new password" in form_page.content.decode()
    done = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": "new-pass-456!x", "new_password2": "new-pass-456!x"},
    )
    assert done.url == "/accounts/reset/done/"
    user.refresh_from_db()
    assert user.check_password("new-pass-456!x")
    # The link works once.
    assert "This link does not work" in client.get(link, follow=True).content.decode()


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client, db):
    response = client.post("/accounts/reset/", {"email": "nobody@example.org"})
    assert response.url == "/accounts/reset/sent/"
    assert mail.outbox == []


def test_a_bad_field_is_marked_for_screen_readers_and_summarised(client, db):
    html = client.post("/accounts/signup/", {"username": "", "password1": "x"}).content.decode()
    assert 'class="error-summary"' in html
    assert '<a href="#id_username">' in html
    field = re.search(r"<input[^>]*id=\"id_username\"[^>]*>", html)[0]
    assert 'aria-invalid="true"' in field
    assert "id_username_error" in field
    assert 'id="id_username_error"' in html


def test_an_attribute_out_of_range_is_marked_and_described_by_its_hint(client, types):
    html = client.post(
        "/build/memeyori/", {**draft(types), "strength": "21", "preview": "1"}
    ).content.decode()
    field = re.search(r"<input[^>]*id=\"id_strength\"[^>]*>", html)[0]
    assert 'aria-invalid="true"' in field
    assert 'aria-describedby="hint-strength"' in field
    assert '<a href="#id_strength">' in html


def test_the_live_summary_says_the_main_numbers_in_one_line(client, types):
    query = "&".join(f"{k}={v}" for k, v in draft(types).items())
    html = client.get(f"/build/memeyori/stats/?{query}", headers={"HX-Request": "true"})
    summary = re.search(r'<p id="live-summary"[^>]*>(.*?)</p>', html.content.decode())[1]
    # HP 6 + 5 x END 6 + 2 x STR 7 = 50 (R3); Accuracy 7 + 1 and 3 + 1.
    assert re.sub(r"<[^>]+>", "", summary).startswith(
        "HP 50 Accuracy 8 physical, 4 magic Defense 6 Resistance 2 Physical lands"
    )


def test_the_rules_page_has_the_game_text_and_every_ruling(client, db):
    html = client.get("/rules/").content.decode()
    assert "HP is calculated as 6 + (END * 5) + (STR * 2)." in html
    for n in range(1, 11):
        assert f"id='r{n}'" in html
    # One damage formula: R5's, not the game text's two-way reading of it.
    assert html.count("Mitigation = the defender") == 1
    assert "1.5 (Advantage" not in html.split("id='r5'")[0]
    assert '<a href="/rules/">Rules</a>' in html


def test_the_rules_page_copies_are_the_shared_texts():
    from pathlib import Path

    import pytest

    from cards.rules_page import GAME_TEXT, RULINGS

    # ../shared beside the repository (CI), or beside the worktrees' folder.
    found = [p / "shared" for p in Path(__file__).resolve().parents[2:4]]
    found = [p for p in found if (p / "RULES.md").exists()]
    if not found:
        pytest.skip("no shared/ beside the repository")
    shared = found[0]
    assert RULINGS.read_text() == (shared / "RULES.md").read_text()
    assert GAME_TEXT.read_text() == (shared / "seed" / "000_e4ec3dbd0d6f75f4.txt").read_text()


def test_rank_6_shows_the_effective_attribute_and_why(client, alice, types):
    from .conftest import make_memeyori

    m = make_memeyori(alice, types["Blaze"], rank=6, strength=5, visibility="public")
    html = client.get(f"/c/memeyori/{m.code}/").content.decode()
    assert re.search(r"<dt>Strength</dt><dd>6 ", html)
    assert "5 + 1 at Rank 6" in html
    assert 'href="/rules/#r2"' in html


def test_a_character_page_links_to_its_prints(client, alice, types):
    from .conftest import make_memeyori

    m = make_memeyori(alice, types["Blaze"])
    client.force_login(alice)
    html = client.get(f"/c/memeyori/{m.code}/").content.decode()
    assert f"/print/c/memeyori/{m.code}/mastercard.pdf?paper=a4" in html
    assert f"/print/c/memeyori/{m.code}/share.png" in html
    assert f"/print/?characters=memeyori:{m.code}" in html


def test_battle_with_this_party_and_rematch_prefill_the_form(client, alice, types):
    from battles import services as battle_services
    from cards.services import party_set_memeyori

    from .conftest import make_memeyori, make_party

    party = make_party(alice)
    party_set_memeyori(party=party, memeyori=[make_memeyori(alice, types["Blaze"])])
    client.force_login(alice)
    page = client.get(f"/parties/{party.code}/").content.decode()
    assert f"/battles/new/?party_a={party.code}" in page
    assert f"/print/sheet.pdf?party={party.code}" in page

    battle = battle_services.battle_run(owner=alice, party_a=party, party_b=party, seed=42)
    viewer = client.get(f"/battles/{battle.code}/").content.decode()
    rematch = re.search(r'href="([^"]+)">Rematch \(same seed\)', viewer)[1].replace("&amp;", "&")
    form = client.get(rematch).content.decode()
    assert re.search(r'name="seed"[^>]*value="42"|value="42"[^>]*name="seed"', form)
    assert re.search(rf'<option value="{party.code}" selected>', form)
    new_seed = re.search(r'href="([^"]+)">New seed', viewer)[1]
    assert "seed=" not in new_seed.replace("&amp;", "&").split("policy_b")[1]


def test_seed_demo_makes_two_public_battles_one_of_them_close(db):
    from django.core.management import call_command

    from battles.demo import _closeness
    from battles.models import Battle

    call_command("seed_demo", stdout=None)
    call_command("seed_demo", stdout=None)  # idempotent
    battles = list(Battle.objects.filter(visibility="public"))
    assert len(battles) == 2
    assert all(b.log["result"]["winner"] is not None for b in battles)
    scores = sorted(_closeness(b.log) for b in battles)
    # The close one: the winner lost someone, or it went long.
    assert scores[-1][0] >= 1 or scores[-1][1] >= 10


def test_the_reference_defender_can_be_picked_by_name_if_visible(client, alice, bob, types):
    from .conftest import make_memeyori

    seen = make_memeyori(bob, types["Tide"], name="Puddle", speed=9, endurance=7, wit=4,
                         visibility="public")  # fmt: skip
    hidden = make_memeyori(bob, types["Tide"], name="Secret", speed=1, visibility="private")
    client.force_login(alice)
    page = client.get("/build/memeyori/").content.decode()
    assert f"memeyori:{seen.code}" in page and f"memeyori:{hidden.code}" not in page

    query = "&".join(f"{k}={v}" for k, v in draft(types).items())
    html = client.get(f"/build/memeyori/stats/?{query}&vs_pick=memeyori:{seen.code}").content
    assert "Against <strong>Puddle</strong> (bob): Evasion 9, Defense 7, Resistance 4" in (
        html.decode()
    )
    html = client.get(f"/build/memeyori/stats/?{query}&vs_pick=memeyori:{hidden.code}").content
    # Not Alice's to see: the typed numbers stand (Evasion 3 in the draft).
    assert "Secret" not in html.decode() and "Against Evasion 3," in html.decode()


def test_default_art_is_the_same_for_a_code_and_differs_between_codes(types):
    from uuid import UUID

    from cards.printing.art import look, look_svg

    a = UUID("00000000-0000-4000-8000-000000000001")
    b = UUID("00000000-0000-4000-8000-000000000002")
    blaze = types["Blaze"]

    def drawn(code, colour=blaze.colour):
        found = look(kind="memeyori", code=code, name="Pup", colour=colour, attributes={})
        return look_svg(found, blaze.symbol)

    assert drawn(a) == drawn(a)
    assert drawn(a) != drawn(b)
    # Only a checked colour reaches the markup.
    art = drawn(a, '"><script>')
    assert "<script>" not in art and art == drawn(a, "#888888")


def test_a_portrait_less_character_shows_its_art_on_screen_and_on_its_mastercard(
    client, alice, types
):
    from cards.printing.deck import character_faces, default_art_path
    from cards.printing.render import build_document

    from .conftest import make_memeyori

    m = make_memeyori(alice, types["Blaze"], visibility="public")
    page = client.get(f"/c/memeyori/{m.code}/").content.decode()
    art = re.search(r"<svg class=\"default-art\".*?</svg>", page)[0]
    from cards.printing import layout

    html, _, generated = build_document(
        character_faces(m), sheet=layout.sheet_layout("a4"), backs=False, bleed=False, title="t"
    )
    # The Mastercard's art window loads the same picture, which the renderer is handed.
    path = default_art_path(m).lstrip("/")
    assert f'src="/{path}"' in html and generated[path].decode() == art
    assert "no portrait" not in html


def test_a_move_card_says_its_dice_odds_and_expected_damage(alice, types):
    from cards.printing.deck import character_faces

    from .conftest import make_card, make_memeyori

    # STR 5, IQ 3: Physical Accuracy 6 (R3).
    m = make_memeyori(alice, types["Blaze"])
    make_card(m, types["Blaze"], name="Nip", power=4, tier2_power=6)
    make_card(m, types["Blaze"], name="Mend", category="support", power=3)
    faces = {f.card.name: f for f in character_faces(m) if f.kind == "move"}
    assert faces["Nip"].dice_line.startswith("Rolls 6 dice · crit ")
    assert faces["Nip"].table_text.startswith("Lands ")
    tiers = faces["Nip"].tier_rows
    assert [t["tier"] for t in tiers] == [1, 2] and all(" on a hit" in t["result"] for t in tiers)
    # The expected damage (avg) is on the cards page, beside every Evasion.
    assert all(" avg " in line for line in faces["Nip"].full_table["averages"])
    # Heal: Power 3 + Support Power (WIT 2) = 5 (R5).
    assert faces["Mend"].tier_rows[0]["result"] == "heals 5 HP"


def test_the_calibration_page_is_drawn_in_real_millimetres(client, db):
    import xml.etree.ElementTree as ET

    from django.contrib.staticfiles import finders

    assert "print/calibration.svg" in client.get("/print/").content.decode()
    svg = ET.parse(finders.find("print/calibration.svg")).getroot()
    # 1 user unit = 1 mm: the page size in mm equals the viewBox.
    assert (svg.get("width"), svg.get("height")) == ("190mm", "150mm")
    assert svg.get("viewBox") == "0 0 190 150"
    ns = "{http://www.w3.org/2000/svg}"
    ruler = svg.find(f"{ns}g/{ns}line")
    assert float(ruler.get("x2")) - float(ruler.get("x1")) == 100
    card = svg.find(f"{ns}rect")
    assert (card.get("width"), card.get("height")) == ("63", "88")


def test_copies_repeat_each_move_card_and_the_backs_can_be_solid(client, alice, types):
    import io

    from pypdf import PdfReader

    from cards.printing import layout, render
    from cards.printing.deck import character_faces

    from .conftest import make_card, make_memeyori

    m = make_memeyori(alice, types["Blaze"], name="Copycat")
    make_card(m, types["Blaze"], name="Echo Bite")
    client.force_login(alice)
    query = {"characters": f"memeyori:{m.code}", "paper": "a4", "copies": "3", "backs": "on"}
    response = client.get("/print/sheet.pdf", query)
    reader = PdfReader(io.BytesIO(response.content))
    # The Mastercard lists the card once; three move cards each name it once more.
    assert reader.pages[0].extract_text().count("Echo Bite") == 4
    assert client.get("/print/sheet.pdf", {**query, "copies": "10"}).status_code != 200

    faces = character_faces(m)
    light, _, _ = render.build_document(
        faces, sheet=layout.sheet_layout("a4"), backs=True, bleed=False, title="t"
    )
    solid, _, _ = render.build_document(
        faces, sheet=layout.sheet_layout("a4", solid_backs=True), backs=True, bleed=False, title="t"
    )
    assert 'class="card card-back"' in light and "card-back solid" not in light
    assert 'class="card card-back solid"' in solid


def test_print_shop_crop_marks_are_drawn_over_the_bleed_at_the_trim_lines(alice, types):
    from cards.printing import layout, render
    from cards.printing.deck import character_faces

    from .conftest import make_memeyori

    faces = character_faces(make_memeyori(alice, types["Blaze"]))
    sheet = layout.sheet_layout("a4")
    shop, _, _ = render.build_document(faces, sheet=sheet, backs=True, bleed=True, title="t")
    home, _, _ = render.build_document(faces, sheet=sheet, backs=True, bleed=False, title="t")
    assert "shop-marks" not in home
    marks = re.search(r'<svg class="shop-marks"[^>]*viewBox="0 0 69 94".*?</svg>', shop)[0]
    # At the trim lines: 3 mm in from each edge of the 69 x 94 mm bleed box (63 x 88 + 2 x 3).
    for line in ("M3 0V2.4", "M66 0V2.4", "M0 3H2.4", "M0 91H2.4"):
        assert line in marks
    assert shop.count('class="shop-marks"') == len(faces) * 2  # every face and every back
