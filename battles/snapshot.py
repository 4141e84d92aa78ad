"""The one place that turns parties into the engine's input: a JSON-able snapshot dict.

A Battle stores this snapshot, so a stored battle replays from it alone and later edits to
characters, cards or the chart never change history. R3's stats come from cards.stats.
"""

import json

from cards import stats
from cards.demo import DEMO_FILE

from .engine.model import SNAPSHOT_FORMAT

CARD_FIELDS = (
    "name",
    "type",
    "category",
    "power",
    "mp_cost",
    "quick",
    "unlock_rank",
    "tier2_power",
    "tier3_power",
    "text",
)


def character_row(
    *, name, kind, type, attributes: dict, cards: list[dict], rank=None, code="", portrait=""
) -> dict:
    derived = stats.derive(**attributes, rank=rank or 1)
    row = {
        "name": name,
        "code": str(code),
        "kind": kind,
        "type": type,
        "attributes": dict(attributes),
        "stats": {field: getattr(derived, field) for field in derived.__slots__},
        "portrait": portrait,
        "cards": [{field: card.get(field) for field in CARD_FIELDS} for card in cards],
    }
    if kind == "memeyori":
        row["rank"] = rank
    return row


def party_row(*, name, level, dp_sp, dp_mp, dp_draw, memeyori, archon=None, code="", owner=""):
    totals = stats.party_totals(level=level, dp_sp=dp_sp, dp_mp=dp_mp, dp_draw=dp_draw)
    return {
        "name": name,
        "code": str(code),
        "owner": owner,
        "level": level,
        "sp": totals.sp,
        "mp": totals.mp,
        "draw": totals.draw,
        # R8: a party holds at most min(SP, 6) Memeyori.
        "memeyori": memeyori[: totals.max_memeyori],
        "archon": archon,
    }


def snapshot(sides: list[dict], chart, types: dict | None = None, *, limit=None) -> dict:
    """`limit`: R9.6's rule for the battle ("decide" or "draw", model.LIMITS); None leaves
    it out, as every snapshot before R9.6 did (a draw at the limit)."""
    out = {
        "format": SNAPSHOT_FORMAT,
        "chart": sorted([a, d, e] for (a, d), e in chart.items()),
        "types": types or {},
        "sides": sides,
    }
    if limit is not None:
        out["limit"] = limit
    return out


def _character_from_model(character) -> dict:
    cards = [
        {**{f: getattr(card, f) for f in CARD_FIELDS if f != "type"}, "type": card.type.name}
        for card in character.cards.all()
    ]
    return character_row(
        name=character.name,
        kind=character.kind,
        type=character.type.name,
        attributes=character.attributes(),
        cards=cards,
        rank=getattr(character, "rank", None),
        code=character.code,
        # Through the view that applies the character's visibility (issue 11.5).
        portrait=character.portrait_thumb_url,
    )


def told_apart(rows: list[dict]) -> list[dict]:
    """A side's characters with every name its own (issue 41.8): two Memeyori called
    Puddlewick become "Puddlewick #1" and "Puddlewick #2", in their party's order, so the
    plan page's targets, the viewer and the log's words name each one the same way. Made
    once, in the snapshot, so every page that reads it agrees; a unique name is kept."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["name"]] = counts.get(row["name"], 0) + 1
    seen: dict[str, int] = {}
    out = []
    for row in rows:
        name = row["name"]
        if counts[name] > 1:
            seen[name] = seen.get(name, 0) + 1
            row = {**row, "name": f"{name} #{seen[name]}"}
        out.append(row)
    return out


def battle_snapshot(party_a, party_b, *, limit=None) -> dict:
    """Read both parties (with characters, cards and the chart) from the database; `limit`,
    the battle's R9.6 rule (see `snapshot`)."""
    from django.db.models import Prefetch

    from cards.models import Card, Party, PartySlot, Type, type_chart

    cards = Card.objects.select_related("type").order_by("position", "id")
    parties = Party.objects.select_related("archon__type", "owner").prefetch_related(
        Prefetch("archon__cards", queryset=cards),
        Prefetch(
            "slots",
            queryset=PartySlot.objects.select_related("memeyori__type").prefetch_related(
                Prefetch("memeyori__cards", queryset=cards)
            ),
        ),
    )
    loaded = {p.pk: p for p in parties.filter(pk__in=[party_a.pk, party_b.pk])}
    sides = []
    for party in (loaded[party_a.pk], loaded[party_b.pk]):
        members = [_character_from_model(slot.memeyori) for slot in party.slots.all()]
        archon = [_character_from_model(party.archon)] if party.archon else []
        named = told_apart(members + archon)
        sides.append(
            party_row(
                name=party.name,
                code=party.code,
                owner=party.owner.username,
                level=party.level,
                dp_sp=party.dp_sp,
                dp_mp=party.dp_mp,
                dp_draw=party.dp_draw,
                memeyori=named[: len(members)],
                archon=named[len(members)] if archon else None,
            )
        )
    types = {
        t.name: {"slug": t.slug, "symbol": t.symbol, "colour": t.colour} for t in Type.objects.all()
    }
    return snapshot(sides, type_chart(), types, limit=limit)


def demo_snapshot(name_a: str, name_b: str, *, limit=None) -> dict:
    """Two demo parties from cards/data/demo.json, without a database (tests and bench)."""
    data = json.loads(DEMO_FILE.read_text(encoding="utf-8"))
    chars = {}
    for kind, rows in (("memeyori", data["memeyori"]), ("archon", data["archons"])):
        for row in rows:
            attributes = {a: row[a] for a in stats.ATTRIBUTES}
            chars[row["name"]] = character_row(
                name=row["name"],
                kind=kind,
                type=row["type"],
                attributes=attributes,
                cards=row["cards"],
                rank=row.get("rank"),
            )
    parties = {p["name"]: p for p in data["parties"]}
    sides = []
    for name in (name_a, name_b):
        p = parties[name]
        sides.append(
            party_row(
                name=name,
                level=p["level"],
                dp_sp=p["dp_sp"],
                dp_mp=p["dp_mp"],
                dp_draw=p["dp_draw"],
                memeyori=[chars[m] for m in p["memeyori"]],
                archon=chars[p["archon"]] if p["archon"] else None,
            )
        )
    chart = {(r["attacking"], r["defending"]): r["effect"] for r in data["chart"]}
    types = {
        t["name"]: {"slug": t["name"].lower(), "symbol": t["symbol"], "colour": t["colour"]}
        for t in data["types"]
    }
    return snapshot(sides, chart, types, limit=limit)
