"""JSON export and import: versioned, previewed, all-or-nothing, lossless, hostile-proof."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cards import exchange
from cards.models import Archon, Card, Memeyori, Party

from .conftest import make_archon, make_card, make_memeyori, make_party


@pytest.fixture
def ember(alice, types):
    m = make_memeyori(
        alice, types["Blaze"], name="Ember", rank=4, flavour="Warm <3", visibility="public"
    )
    make_card(m, types["Blaze"], name="Nip", quick=True, text="Bite.")
    make_card(
        m,
        types["Tide"],
        name="Steam",
        category="magic",
        power=7,
        unlock_rank=3,
        tier2_power=9,
        tier2_text="Hotter.",
        tier3_power=12,
        position=1,
    )
    return m


@pytest.fixture
def party(alice, types, ember):
    archon = make_archon(alice, types["Tide"], name="Vela")
    make_card(archon, types["Tide"], name="Command", category="support")
    second = make_memeyori(alice, types["Verdant"], name="Sprout")
    p = make_party(alice, name="Dawn", level=3, dp_sp=1, dp_draw=1, archon=archon)
    p.slots.create(memeyori=second, position=0)
    p.slots.create(memeyori=ember, position=1)
    return p


def upload(data, name="export.json"):
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return SimpleUploadedFile(name, raw, content_type="application/json")


def import_via_site(client, data):
    preview = client.post(reverse("import"), {"file": upload(data)})
    assert preview.status_code == 200
    html = preview.content.decode()
    assert "Create all of this" in html, html
    payload = preview.context["plan"].text
    return client.post(reverse("import_confirm"), {"payload": payload})


def test_a_character_exports_with_its_cards(client, alice, ember):
    client.force_login(alice)
    response = client.get(
        reverse("character_export", kwargs={"kind": "memeyori", "code": ember.code})
    )
    assert response["Content-Disposition"] == 'attachment; filename="ember.memeyori.json"'
    data = json.loads(response.content)
    assert data["format"] == "memeyori-export/1"
    row = data["memeyori"][0]
    assert (row["name"], row["type"], row["rank"], row["flavour"]) == (
        "Ember",
        "Blaze",
        4,
        "Warm <3",
    )
    assert [c["name"] for c in row["cards"]] == ["Nip", "Steam"]
    assert row["cards"][1]["tier3_power"] == 12


def test_character_export_then_import_is_lossless(client, alice, bob, ember):
    data = exchange.export_character(ember)
    client.force_login(bob)
    response = import_via_site(client, data)
    assert response.status_code == 302
    copy = Memeyori.objects.get(owner=bob)
    assert copy.code != ember.code
    assert exchange.export_character(copy) == data


def test_party_export_then_import_is_lossless(client, alice, bob, party):
    data = exchange.export_party(party)
    assert data["parties"][0]["memeyori"] == ["m1", "m2"]
    client.force_login(bob)
    import_via_site(client, data)
    copy = Party.objects.get(owner=bob)
    assert [m.name for m in copy.memeyori_in_order()] == ["Sprout", "Ember"]
    assert copy.archon.owner == bob
    assert exchange.export_party(copy) == data


def test_the_preview_creates_nothing(client, bob, ember):
    client.force_login(bob)
    html = client.post(
        reverse("import"), {"file": upload(exchange.export_character(ember))}
    ).content.decode()
    assert "Memeyori <strong>Ember</strong> (Blaze, Rank 4) with 2 cards" in html
    assert not Memeyori.objects.filter(owner__username="bob").exists()


def refused(client, data) -> str:
    before = (
        Memeyori.objects.count(),
        Archon.objects.count(),
        Card.objects.count(),
        Party.objects.count(),
    )
    response = client.post(reverse("import"), {"file": upload(data)})
    after = (
        Memeyori.objects.count(),
        Archon.objects.count(),
        Card.objects.count(),
        Party.objects.count(),
    )
    assert after == before
    html = response.content.decode()
    assert "Create all of this" not in html
    return html


def with_character(data, **changes):
    data = json.loads(json.dumps(data))
    data["memeyori"][0].update(changes)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "memeyori-export/2"}, "This is not a memeyori-export/1 file"),
        ({"format": None}, "This is not a memeyori-export/1 file"),
        ({"extra": 1}, "unknown sections: extra"),
        ({"memeyori": {}}, "memeyori must be a list"),
        ({"memeyori": [], "archons": [], "parties": []}, "holds nothing to import"),
    ],
)
def test_it_refuses_a_wrong_envelope(client, bob, ember, change, message):
    client.force_login(bob)
    data = {**exchange.export_character(ember), **change}
    assert message in refused(client, data)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"strength": 21}, "memeyori[0].strength: Strength must be a whole number from 1 to 20."),
        ({"strength": 0}, "memeyori[0].strength: Strength must be a whole number from 1 to 20."),
        ({"strength": 2.5}, "memeyori[0].strength has the wrong kind of value"),
        ({"strength": "5"}, "memeyori[0].strength has the wrong kind of value"),
        ({"strength": True}, "memeyori[0].strength has the wrong kind of value"),
        ({"rank": 7}, "memeyori[0].rank: Rank must be a whole number from 1 to 6."),
        ({"type": "Plasma"}, "unknown Type &#x27;Plasma&#x27;"),
        ({"visibility": "everyone"}, "memeyori[0].visibility"),
        ({"name": ""}, "memeyori[0].name"),
        ({"hp": 99}, "unknown fields: hp"),
    ],
)
def test_it_refuses_bad_character_values(client, bob, ember, changes, message):
    client.force_login(bob)
    assert message in refused(client, with_character(exchange.export_character(ember), **changes))


def test_it_refuses_a_missing_field(client, bob, ember):
    client.force_login(bob)
    data = exchange.export_character(ember)
    del data["memeyori"][0]["aura"]
    assert "memeyori[0] is missing aura" in refused(client, data)


def test_it_refuses_a_bad_card_and_creates_none_of_the_file(client, bob, ember):
    client.force_login(bob)
    data = exchange.export_character(ember)
    data["memeyori"][0]["cards"][1]["unlock_rank"] = 9
    assert "memeyori[0].cards[1].unlock_rank" in refused(client, data)


def test_it_refuses_a_party_that_breaks_r8(client, bob, party):
    client.force_login(bob)
    data = exchange.export_party(party)
    data["parties"][0]["dp_mp"] = 5
    assert "parties[0]: Party Level 3 gives 2 DP; you spent 7." in refused(client, data)
    data = exchange.export_party(party)
    data["parties"][0].update(level=1, dp_sp=0, dp_draw=0)
    data["memeyori"] += [dict(data["memeyori"][0], ref=f"x{i}") for i in range(2)]
    data["parties"][0]["memeyori"] = ["m1", "m2", "x0", "x1"]
    assert "SP 3 allows 3 Memeyori; the file chose 4." in refused(client, data)


def test_it_refuses_a_party_pointing_at_a_missing_character(client, bob, party):
    client.force_login(bob)
    data = exchange.export_party(party)
    data["parties"][0]["memeyori"] = ["m1", "nobody"]
    assert "which the file lacks" in refused(client, data)


def test_it_refuses_a_huge_file(client, bob, ember):
    client.force_login(bob)
    data = exchange.export_character(ember)
    data["memeyori"][0]["flavour"] = "x" * (exchange.MAX_BYTES + 10)
    assert "larger than 1024 KB" in refused(client, data)


def test_it_refuses_deep_nesting_before_parsing(client, bob, db):
    client.force_login(bob)
    bomb = b'{"format": "memeyori-export/1", "memeyori": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    assert "nests deeper than 6 levels" in refused(client, bomb)


def test_brackets_inside_strings_do_not_count_as_nesting(alice, ember):
    data = exchange.export_character(ember)
    data["memeyori"][0]["flavour"] = '[[[[[[[[{{{{{{{{ \\" ]]'
    plan = exchange.import_parse(json.dumps(data), owner=alice)
    assert plan.memeyori[0]["object"].flavour == data["memeyori"][0]["flavour"]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{not json", "not valid JSON (line 1, column 2)"),
        (b"\xff\xfe", "not UTF-8"),
        (b"[1, 2]", "must hold one JSON object"),
    ],
)
def test_it_refuses_what_is_not_an_export(client, bob, db, raw, message):
    client.force_login(bob)
    assert message in refused(client, raw)


def test_html_in_an_imported_file_is_escaped_in_the_preview(client, bob, ember):
    client.force_login(bob)
    data = with_character(exchange.export_character(ember), name="<img src=x onerror=alert(1)>")
    html = client.post(reverse("import"), {"file": upload(data)}).content.decode()
    assert "<img src=x" not in html
    assert "&lt;img src=x" in html


def test_a_tampered_confirmation_is_checked_again(client, bob, ember):
    client.force_login(bob)
    data = with_character(exchange.export_character(ember), strength=99)
    response = client.post(reverse("import_confirm"), {"payload": json.dumps(data)})
    assert response.status_code == 400
    assert not Memeyori.objects.filter(owner=bob).exists()


def test_import_needs_an_account(client, ember):
    response = client.post(reverse("import"), {"file": upload(exchange.export_character(ember))})
    assert response.status_code == 302
    assert reverse("login") in response.url
