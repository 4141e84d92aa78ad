"""Invisible and direction-changing characters are refused in every name and text field
(issue 11.8); newlines stay allowed where a field has several lines."""

import json

import pytest

from cards import exchange
from cards.forms import CardForm, MemeyoriForm, PartyForm
from cards.models import Memeyori

CONTROLS = {
    "right-to-left override U+202E": "\u202e",
    "left-to-right isolate U+2066": "\u2066",
    "pop directional isolate U+2069": "\u2069",
    "right-to-left mark U+200F": "\u200f",
    "Arabic letter mark U+061C": "\u061c",
    "NUL": "\x00",
    "escape": "\x1b",
    "delete": "\x7f",
    "C1 next line U+0085": "\x85",
    "zero-width space U+200B": "\u200b",
    "zero-width joiner U+200D": "\u200d",
    "word joiner U+2060": "\u2060",
    "byte order mark U+FEFF": "\ufeff",
    "lone surrogate": "\ud800",
}


def memeyori_data(types, **overrides):
    data = {"name": "Emberpup", "type": types["Blaze"].pk, "rank": 1, "strength": 5,
            "endurance": 5, "iq": 3, "wit": 2, "speed": 4, "aura": 2, "flavour": "",
            "visibility": "private"}  # fmt: skip
    data.update(overrides)
    return data


def card_data(types, **overrides):
    data = {"name": "Cinder Nip", "type": types["Blaze"].pk, "category": "physical",
            "power": 4, "mp_cost": 1, "unlock_rank": 1, "text": "", "tier2_text": "",
            "tier3_text": ""}  # fmt: skip
    data.update(overrides)
    return data


@pytest.mark.parametrize("control", CONTROLS)
def test_it_refuses_controls_in_a_characters_name_and_flavour(types, control):
    char = CONTROLS[control]
    form = MemeyoriForm(memeyori_data(types, name=f"Ember{char}pup", flavour=f"a{char}b"))
    assert not form.is_valid()
    assert {"name", "flavour"} <= set(form.errors)
    # Django's own form check words NUL its own way; either way it is refused.
    assert "invisible or control character" in form.errors["name"][0] or char == "\x00"


@pytest.mark.parametrize("control", CONTROLS)
def test_it_refuses_controls_in_every_card_text(types, control):
    char = CONTROLS[control]
    # In the middle: a form strips whitespace (U+0085 among it) from the ends.
    fields = {"name": f"Nip{char}Nip", "text": f"x{char}x", "tier2_text": f"y{char}y",
              "tier3_text": f"z{char}z"}  # fmt: skip
    form = CardForm(card_data(types, tier2_power=5, tier3_power=6, **fields))
    assert not form.is_valid()
    assert set(fields) <= set(form.errors)


@pytest.mark.parametrize("control", CONTROLS)
def test_it_refuses_controls_in_a_party_name(alice, control):
    data = {"name": f"Squad{CONTROLS[control]}Squad", "level": 1, "dp_sp": 0, "dp_mp": 0,
            "dp_draw": 0, "visibility": "private"}  # fmt: skip
    form = PartyForm(data, owner=alice)
    assert not form.is_valid()
    assert "name" in form.errors


def test_newlines_are_fine_in_flavour_but_not_in_a_name(types):
    assert MemeyoriForm(memeyori_data(types, flavour="Line one.\r\nLine two.\tTabbed")).is_valid()
    form = MemeyoriForm(memeyori_data(types, name="Ember\npup"))
    assert not form.is_valid() and "name" in form.errors


def test_ordinary_text_from_any_script_is_fine(types):
    for name in ("Ембер", "火の子", "مِيمِي", "Emberpup 🔥", "Ñandú-ü"):
        assert MemeyoriForm(memeyori_data(types, name=name)).is_valid(), name


@pytest.mark.parametrize("control", ["right-to-left override U+202E", "NUL", "lone surrogate"])
def test_an_import_refuses_controls_and_writes_nothing(alice, types, control):
    row = {"ref": "m1", "name": f"Pup{CONTROLS[control]}", "type": "Blaze", "rank": 1,
           "strength": 2, "endurance": 2, "iq": 2, "wit": 2, "speed": 2, "aura": 2,
           "flavour": "", "visibility": "private", "portrait_focus_x": 0.5,
           "portrait_focus_y": 0.5, "cards": []}  # fmt: skip
    text = json.dumps({"format": exchange.FORMAT, "memeyori": [row]})
    with pytest.raises(exchange.ImportRefused, match=r"memeyori\[0\]\.name: ") as error:
        exchange.import_parse(text, owner=alice)
    # The builder's form words NUL its own way (Django's check); the rest are ours.
    assert "invisible or control character" in str(error.value) or control == "NUL"
    assert not Memeyori.objects.exists()
