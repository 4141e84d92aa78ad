"""The engine's input: frozen records of both parties, their characters, cards and the chart.

Built once per battle from a snapshot dict (see battles/snapshot.py, which reads the
database); the engine never sees a model instance, so a stored snapshot replays forever.
"""

from dataclasses import dataclass

SNAPSHOT_FORMAT = "memeyori-battle-snapshot/1"
SIDE_LETTERS = ("A", "B")
# R9: a card is played at Tier 2 for 4 Resonance or at Tier 3 for 8.
TIER_COST = {1: 0, 2: 4, 3: 8}
ARCHON_SUMMON_COST = 8
RESONANCE_MAX = 16
FIELD_SIZE = 3
MAX_ROUNDS = 30
# R9.6: what happens when round 30 ends with both sides standing. "decide": the round limit
# decides (more conscious combatants, else the larger HP share, else a draw); "draw": a
# draw at the limit, chosen by a table's GM or whoever starts the battle. None: a battle
# whose input was recorded before R9.6, a draw at the limit too (and its log says nothing).
LIMIT_DECIDE, LIMIT_DRAW = "decide", "draw"
LIMITS = (LIMIT_DECIDE, LIMIT_DRAW)


@dataclass(frozen=True, slots=True)
class CardSpec:
    id: str  # unique within a battle: the holder's id, a dot, the card's number
    name: str
    type: str
    category: str  # physical, magic or support (R7)
    power: int
    mp_cost: int
    quick: bool
    unlock_rank: int
    tier2_power: int | None = None
    tier3_power: int | None = None
    text: str = ""

    def power_at(self, tier: int) -> int:
        if tier == 1:
            return self.power
        value = self.tier2_power if tier == 2 else self.tier3_power
        if value is None:
            raise ValueError(f"{self.name} has no Tier {tier} version")
        return value

    def tiers(self) -> tuple[int, ...]:
        out = [1]
        if self.tier2_power is not None:
            out.append(2)
            if self.tier3_power is not None:
                out.append(3)
        return tuple(out)


@dataclass(frozen=True, slots=True)
class FighterSpec:
    """A Memeyori or Archon as it was when the battle began, with R3's derived stats."""

    id: str
    name: str
    kind: str  # memeyori or archon
    type: str
    rank: int | None
    attributes: tuple[tuple[str, int], ...]
    max_hp: int
    defense: int
    resistance: int
    support_power: int
    evasion: int
    speed: int  # base Initiative; R9 adds the team Aura bonus in battle
    aura: int
    crit_rate: int
    physical_damage: int
    magic_damage: int
    physical_accuracy: int
    magic_accuracy: int
    cards: tuple[CardSpec, ...]
    portrait: str = ""

    def playable_cards(self) -> tuple[CardSpec, ...]:
        """R7: a Memeyori plays only the cards its Rank has unlocked; an Archon all of its own."""
        if self.rank is None:
            return self.cards
        return tuple(c for c in self.cards if c.unlock_rank <= self.rank)


@dataclass(frozen=True, slots=True)
class PartySpec:
    name: str
    mp: int
    draw: int
    memeyori: tuple[FighterSpec, ...]
    archon: FighterSpec | None


@dataclass(frozen=True, slots=True)
class BattleInput:
    sides: tuple[PartySpec, PartySpec]
    chart: dict  # {(attacking type, defending type): "weak" | "strong"}; absent is neutral
    limit: str | None = LIMIT_DECIDE  # R9.6's rule (LIMITS), None before R9.6 (a draw)


def _card(holder_id: str, number: int, row: dict) -> CardSpec:
    return CardSpec(
        id=f"{holder_id}.{number}",
        name=row["name"],
        type=row["type"],
        category=row["category"],
        power=row["power"],
        mp_cost=row["mp_cost"],
        quick=bool(row["quick"]),
        unlock_rank=row.get("unlock_rank", 1),
        tier2_power=row.get("tier2_power"),
        tier3_power=row.get("tier3_power") if row.get("tier2_power") is not None else None,
        text=row.get("text", ""),
    )


def _fighter(fighter_id: str, row: dict) -> FighterSpec:
    s = row["stats"]
    return FighterSpec(
        id=fighter_id,
        name=row["name"],
        kind=row["kind"],
        type=row["type"],
        rank=row.get("rank") if row["kind"] == "memeyori" else None,
        attributes=tuple(sorted(row["attributes"].items())),
        max_hp=s["hp"],
        defense=s["defense"],
        resistance=s["resistance"],
        support_power=s["support_power"],
        evasion=s["evasion"],
        speed=s["initiative"],
        aura=s["crit_rate"],
        crit_rate=s["crit_rate"],
        physical_damage=s["physical_damage"],
        magic_damage=s["magic_damage"],
        physical_accuracy=s["physical_accuracy"],
        magic_accuracy=s["magic_accuracy"],
        cards=tuple(_card(fighter_id, n, c) for n, c in enumerate(row["cards"], start=1)),
        portrait=row.get("portrait", ""),
    )


def battle_input(snapshot: dict) -> BattleInput:
    """Frozen engine input from a snapshot dict; ids are A1..A6 / AX (Archon) and B1../BX."""
    if snapshot.get("format") != SNAPSHOT_FORMAT:
        raise ValueError(f"unknown snapshot format {snapshot.get('format')!r}")
    sides = []
    for letter, side in zip(SIDE_LETTERS, snapshot["sides"], strict=True):
        memeyori = tuple(
            _fighter(f"{letter}{n}", row) for n, row in enumerate(side["memeyori"], start=1)
        )
        if not memeyori:
            raise ValueError(f"{side['name']} has no Memeyori; a party needs one to battle (R9)")
        archon = _fighter(f"{letter}X", side["archon"]) if side.get("archon") else None
        sides.append(
            PartySpec(
                name=side["name"],
                mp=side["mp"],
                draw=side["draw"],
                memeyori=memeyori,
                archon=archon,
            )
        )
    chart = {(a, d): effect for a, d, effect in snapshot["chart"] if effect != "neutral"}
    # The snapshot is the battle's input and carries its R9.6 rule; one without was taken
    # before R9.6, and its battle stays a draw at the limit.
    limit = snapshot.get("limit")
    if limit is not None and limit not in LIMITS:
        raise ValueError(f"unknown round limit rule {limit!r}")
    return BattleInput(sides=(sides[0], sides[1]), chart=chart, limit=limit)
