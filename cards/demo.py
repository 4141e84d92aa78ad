"""Load the default Types, type chart and demo characters (cards/data/demo.json).

Idempotent: rows are matched by name and updated in place, so running it again changes
nothing and keeps every public code (and so every shared link) stable.
"""

import json
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.text import slugify

from .models import Archon, Card, Matchup, Memeyori, Party, Type, Visibility
from .services import party_set_memeyori

DEMO_FILE = Path(__file__).parent / "data" / "demo.json"
DEMO_USERNAME = "demo"
# Local-only credentials, printed in the README; with debug off the demo user cannot log in.
DEMO_PASSWORD = "memeyori-demo"
CARD_FIELDS = ("category", "power", "mp_cost", "quick", "unlock_rank", "text")
TIER_FIELDS = ("tier2_power", "tier2_text", "tier3_power", "tier3_text")


def load_types(data) -> dict[str, Type]:
    types = {}
    for position, row in enumerate(data["types"]):
        types[row["name"]], _ = Type.objects.update_or_create(
            name=row["name"],
            defaults={
                "slug": slugify(row["name"]),
                "colour": row["colour"],
                "symbol": row["symbol"],
                "description": row["description"],
                "position": position,
            },
        )
    for row in data["chart"]:
        Matchup.objects.update_or_create(
            attacking=types[row["attacking"]],
            defending=types[row["defending"]],
            defaults={"effect": row["effect"]},
        )
    return types


def _load_character(model, owner, types, row):
    attrs = {k: v for k, v in row.items() if k not in ("name", "type", "cards")}
    character, _ = model.objects.update_or_create(
        owner=owner,
        name=row["name"],
        defaults={**attrs, "type": types[row["type"]], "visibility": Visibility.PUBLIC},
    )
    holder = {model.kind: character}
    for position, card in enumerate(row["cards"]):
        defaults = {field: card[field] for field in CARD_FIELDS}
        defaults.update(
            {field: card.get(field, "" if "text" in field else None) for field in TIER_FIELDS}
        )
        Card.objects.update_or_create(
            **holder,
            name=card["name"],
            defaults={**defaults, "type": types[card["type"]], "position": position},
        )
    return character


@transaction.atomic
def seed_demo() -> dict[str, int]:
    data = json.loads(DEMO_FILE.read_text(encoding="utf-8"))
    types = load_types(data)
    user, _ = get_user_model().objects.get_or_create(username=DEMO_USERNAME)
    # A password printed in the README is anyone's: with debug off nobody may log in as
    # demo (the content stays public); in debug every re-seed puts the documented one back.
    if settings.DEBUG:
        user.set_password(DEMO_PASSWORD)
    else:
        user.set_unusable_password()
    user.save(update_fields=["password"])
    memeyori = {
        row["name"]: _load_character(Memeyori, user, types, row) for row in data["memeyori"]
    }
    archons = {row["name"]: _load_character(Archon, user, types, row) for row in data["archons"]}
    for row in data["parties"]:
        party, _ = Party.objects.update_or_create(
            owner=user,
            name=row["name"],
            defaults={
                "archon": archons.get(row["archon"]),
                "level": row["level"],
                "dp_sp": row["dp_sp"],
                "dp_mp": row["dp_mp"],
                "dp_draw": row["dp_draw"],
                "visibility": Visibility.PUBLIC,
            },
        )
        party_set_memeyori(party=party, memeyori=[memeyori[name] for name in row["memeyori"]])
    return {
        "types": len(types),
        "memeyori": len(memeyori),
        "archons": len(archons),
        "parties": len(data["parties"]),
    }
