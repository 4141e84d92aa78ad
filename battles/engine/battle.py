"""One whole battle under RULES.md R9-R10: a pure function of (input, policies, rng).

`run_battle` returns the `memeyori-battle-log/1` dict (see PROTOCOL.md beside this file).
Every die and shuffle comes from the one `random.Random` passed in, in a fixed order, so
the same input, policies and seed give a byte-identical log.
"""

import random
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from . import damage as dmg
from .dice import roll_faces
from .model import (
    ARCHON_SUMMON_COST,
    FIELD_SIZE,
    MAX_ROUNDS,
    RESONANCE_MAX,
    TIER_COST,
    BattleInput,
    CardSpec,
    FighterSpec,
)

LOG_FORMAT = "memeyori-battle-log/1"

STORED, FIELD, KO, DISMISSED = "stored", "field", "ko", "dismissed"


class Fighter:
    """A combatant's changing state; its frozen spec says what it is."""

    __slots__ = ("spec", "id", "side", "hp", "status", "played_nonquick", "fielded")

    def __init__(self, spec: FighterSpec, side: int):
        self.spec = spec
        self.id = spec.id
        self.side = side
        self.hp = spec.max_hp
        self.status = STORED
        self.played_nonquick = 0
        self.fielded = False  # R10: was it ever on the field

    @property
    def alive(self) -> bool:
        return self.status == FIELD and self.hp > 0


class Side:
    __slots__ = (
        "index",
        "spec",
        "roster",
        "archon",
        "slots",
        "resonance",
        "mp",
        "pile",
        "hand",
        "discard",
        "in_play",
    )

    def __init__(self, index, spec):
        self.index = index
        self.spec = spec
        self.roster = [Fighter(m, index) for m in spec.memeyori]
        self.archon = Fighter(spec.archon, index) if spec.archon else None
        self.slots: list[Fighter | None] = [None] * FIELD_SIZE
        self.resonance = 0
        self.mp = 0
        self.pile: list[CardSpec] = []  # the draw pile; its top is the end of the list
        self.hand: list[CardSpec] = []
        self.discard: list[CardSpec] = []
        self.in_play: list[CardSpec] = []  # played this round, discarded at the end (R9.5)

    def field(self) -> list[Fighter]:
        """Combatants on the field in field order: the three places, then the Archon."""
        out = [f for f in self.slots if f is not None and f.status == FIELD]
        if self.archon is not None and self.archon.status == FIELD:
            out.append(self.archon)
        return out

    def archon_active(self) -> bool:
        return self.archon is not None and self.archon.status == FIELD

    def stored(self) -> list[Fighter]:
        return [f for f in self.roster if f.status == STORED and f.hp > 0]

    def lost(self) -> bool:
        """R9: no conscious Memeyori and no Archon on the field."""
        archon = self.archon
        if archon is not None and archon.status == FIELD:
            return False
        for f in self.roster:
            if f.hp > 0 and (f.status == STORED or f.status == FIELD):
                return False
        return True


_new_tuple = tuple.__new__


class Play(NamedTuple):
    """A planned card: who plays it, at which Tier, on whom, for how much MP."""

    card: CardSpec
    user: str
    tier: int
    target: str
    mp_cost: int


class EnemyView(NamedTuple):
    """What a side may know of an enemy combatant: everything printed on its card, and HP."""

    id: str
    spec: FighterSpec
    hp: int


class View:
    """What one side sees while planning: its own state, and the enemy field as it stood
    when planning began (never the enemy's hand, draw pile or plan)."""

    __slots__ = ("side", "enemies", "enemy_ids", "chart", "round", "owners", "memo", "_engine")

    def __init__(self, engine, side, enemies, round_no, enemy_ids=None):
        self._engine = engine
        self.side = side
        self.enemies = enemies
        self.enemy_ids = tuple([e.id for e in enemies]) if enemy_ids is None else enemy_ids
        self.chart = engine.chart
        self.round = round_no
        self.owners = engine.owners
        # A policy's scratch table for the whole battle: specs are frozen, so what it
        # derives from them (expected damage per card and target) never goes stale.
        self.memo = engine.memos[side.index]

    def effect(self, card_type: str, defender_type: str) -> str:
        return self.chart.get((card_type, defender_type), "neutral")

    def user_of(self, card: CardSpec) -> Fighter:
        return self.owners[card.id]

    def cost(self, card: CardSpec, extra_nonquick: int = 0) -> int:
        """R9: MP cost plus 1 per non-Quick card its user already played this round."""
        return card.mp_cost + self.owners[card.id].played_nonquick + extra_nonquick

    def switch_options(self) -> list[tuple[str, str]]:
        stored = self.side.stored()
        return [
            (out.id, inn.id)
            for out in self.side.slots
            if out is not None and out.alive
            for inn in stored
        ]

    def can_summon(self) -> bool:
        a = self.side.archon
        return (
            a is not None
            and a.status in (STORED, DISMISSED)
            and (self.side.resonance >= ARCHON_SUMMON_COST)
        )


@dataclass(frozen=True, slots=True)
class Policy:
    """Three plain functions of a side's View (and the battle's rng, for the random one)."""

    name: str
    switch: object  # (view, rng) -> (out_id, in_id) | None
    summon: object  # (view, rng) -> bool
    plays: object  # (view, rng) -> list[(card_id, tier, target_id)]


@lru_cache(maxsize=8192)
def _damage(power, stat, same_type, effect, critical, complication, mitigation):
    """R5 via battles.engine.damage: (amount, STAB, type multiplier, raw) with exact strings.

    Memoised: a battle deals the same few dozen blows over and over, and Fractions are slow.
    """
    stab = dmg.STAB if same_type else dmg.NEUTRAL
    multiplier = dmg.type_multiplier(effect)
    raw = dmg.raw_damage(
        power,
        stat,
        stab=stab,
        type_multiplier=multiplier,
        critical=critical,
        complication=complication,
    )
    return dmg.mitigated(raw, mitigation), frac(stab), frac(multiplier), frac(raw)


def frac(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value)


def combatant_record(spec: FighterSpec) -> dict:
    return {
        "id": spec.id,
        "name": spec.name,
        "kind": spec.kind,
        "type": spec.type,
        "rank": spec.rank,
        "attributes": dict(spec.attributes),
        "max_hp": spec.max_hp,
        "defense": spec.defense,
        "resistance": spec.resistance,
        "support_power": spec.support_power,
        "evasion": spec.evasion,
        "initiative": spec.speed,
        "crit_rate": spec.crit_rate,
        "physical_damage": spec.physical_damage,
        "magic_damage": spec.magic_damage,
        "physical_accuracy": spec.physical_accuracy,
        "magic_accuracy": spec.magic_accuracy,
        "portrait": spec.portrait,
        "cards": [
            {
                "id": c.id,
                "name": c.name,
                "type": c.type,
                "category": c.category,
                "power": c.power,
                "mp_cost": c.mp_cost,
                "quick": c.quick,
                "unlock_rank": c.unlock_rank,
                "tier2_power": c.tier2_power,
                "tier3_power": c.tier3_power,
            }
            for c in spec.cards
        ],
    }


def _position(cards: list[CardSpec], card_id: str) -> int:
    for index, card in enumerate(cards):
        if card.id == card_id:
            return index
    return -1


_WAVE_KEY = itemgetter(0, 1)


class Engine:
    def __init__(self, data: BattleInput, policies, rng: random.Random):
        self.chart = data.chart
        self.policies = policies
        self.rng = rng
        self.sides = [Side(i, spec) for i, spec in enumerate(data.sides)]
        self.owners: dict[str, Fighter] = {}
        self.by_id: dict[str, Fighter] = {}
        for side in self.sides:
            for f in [*side.roster, *([side.archon] if side.archon else [])]:
                self.by_id[f.id] = f
                for c in f.spec.cards:
                    self.owners[c.id] = f
        self.events: list[dict] = []
        self.memos: tuple[dict, dict] = ({}, {})
        self.blows: dict[tuple, tuple] = {}
        self.round = 0
        # Knock-outs and dismissals so far: only they can make a side lose (R9).
        self.upheavals = 0

    # -- small helpers -----------------------------------------------------------------
    def emit(self, kind: str, **fields) -> None:
        self.events.append({"round": self.round, "kind": kind, **fields})

    def draw(self, side: Side, count: int) -> None:
        """Draw from the top of the pile; an empty pile is refilled from the discard (R9.1)."""
        drawn = []
        pile = side.pile
        hand = side.hand
        for _ in range(count):
            if not pile:
                if not side.discard:
                    break
                pile = side.pile = side.discard
                side.discard = []
                self.rng.shuffle(pile)
                self.events.append({"round": self.round, "kind": "reshuffle", "side": side.index,
                                    "cards": len(pile)})  # fmt: skip
            card = pile.pop()
            hand.append(card)
            drawn.append(card.id)
        self.events.append({"round": self.round, "kind": "draw", "side": side.index,
                            "cards": drawn})  # fmt: skip

    def bring_in(self, side: Side, fighter: Fighter) -> None:
        """A newcomer's cards are shuffled into the pile and one of them is drawn (R9.2, R9.5)."""
        fighter.status = FIELD
        fighter.fielded = True
        fighter.played_nonquick = 0
        cards = fighter.spec.playable_cards()
        if not cards:
            self.emit("draw", side=side.index, cards=[])
            return
        pile = side.pile
        pile.extend(cards)
        self.rng.shuffle(pile)
        # The topmost of its own cards: a uniformly random one of them, as the shuffle is.
        mine = fighter.id + "."
        for i in range(len(pile) - 1, -1, -1):
            if pile[i].id.startswith(mine):
                card = pile.pop(i)
                break
        side.hand.append(card)
        self.events.append({"round": self.round, "kind": "draw", "side": side.index,
                            "cards": [card.id]})  # fmt: skip

    def leave_play(self, side: Side, fighter: Fighter) -> None:
        """R9.2/R9.5: a combatant leaving the field takes its cards out of play everywhere."""
        mine = fighter.id + "."
        side.pile = [c for c in side.pile if not c.id.startswith(mine)]
        side.hand = [c for c in side.hand if not c.id.startswith(mine)]
        side.discard = [c for c in side.discard if not c.id.startswith(mine)]
        side.in_play = [c for c in side.in_play if not c.id.startswith(mine)]

    def gain(self, side: Side, delta: int, reason: str) -> None:
        total = min(RESONANCE_MAX, side.resonance + delta)
        if total != side.resonance or delta:
            self.events.append({"round": self.round, "kind": "resonance", "side": side.index,
                                "delta": total - side.resonance, "total": total,
                                "reason": reason})  # fmt: skip
        side.resonance = total

    def spend(self, side: Side, amount: int, reason: str) -> None:
        if amount > side.resonance:
            raise ValueError(f"side {side.index} cannot pay {amount} Resonance for {reason}")
        side.resonance -= amount
        self.events.append({"round": self.round, "kind": "resonance", "side": side.index,
                            "delta": -amount, "total": side.resonance,
                            "reason": reason})  # fmt: skip

    # -- the battle ----------------------------------------------------------------------
    def setup(self) -> None:
        """R9 setup: the first three Memeyori (slot order) are summoned; draw 2 + Draw."""
        for side in self.sides:
            for place, fighter in enumerate(side.roster[:FIELD_SIZE]):
                side.slots[place] = fighter
                fighter.status = FIELD
                fighter.fielded = True
                side.pile.extend(fighter.spec.playable_cards())
                self.emit(
                    "summon", side=side.index, combatant=fighter.id, reason="setup", place=place
                )
            self.rng.shuffle(side.pile)
            self.draw(side, 2 + side.spec.draw)

    def round_start(self) -> None:
        """R9.1: Resonance or Archon upkeep, the draw from round 2, the MP refill."""
        rnd = self.round
        append = self.events.append
        append({"round": rnd, "kind": "round_start"})
        for side in self.sides:
            archon = side.archon
            if archon is not None and archon.status == FIELD:
                if side.resonance >= 1:
                    self.spend(side, 1, "archon upkeep")
                else:
                    # Ruling: dismissal replaces this round's passive gain.
                    archon.status = DISMISSED
                    self.leave_play(side, archon)
                    self.upheavals += 1
                    append({"round": rnd, "kind": "dismiss", "side": side.index,
                            "combatant": archon.id, "reason": "upkeep"})  # fmt: skip
            else:
                summoned = 0
                for f in side.slots:
                    if f is not None and f.status == FIELD:
                        summoned += 1
                self.gain(side, summoned, "summoned memeyori")
        for side in self.sides:
            if rnd >= 2:
                self.draw(side, side.spec.draw)
            side.mp = side.spec.mp
            append({"round": rnd, "kind": "mp", "side": side.index, "total": side.mp})
            for f in side.slots:
                if f is not None:
                    f.played_nonquick = 0
            if side.archon is not None:
                side.archon.played_nonquick = 0

    def plan(self) -> list[list[Play]]:
        """R9.2: each side plans against the enemy field as it stood before either planned."""
        # tuple.__new__ builds the NamedTuples without their Python-level __new__.
        seen = []
        for side in self.sides:
            field = side.field()
            seen.append(
                (
                    tuple([_new_tuple(EnemyView, (f.id, f.spec, f.hp)) for f in field]),
                    tuple([f.id for f in field]),
                )
            )
        plans = []
        for side in self.sides:
            policy = self.policies[side.index]
            enemies, enemy_ids = seen[1 - side.index]
            view = View(self, side, enemies, self.round, enemy_ids)
            choice = policy.switch(view, self.rng)
            if choice is not None:
                self.do_switch(side, *choice)
            if view.can_summon() and policy.summon(view, self.rng):
                self.spend(side, ARCHON_SUMMON_COST, "archon summon")
                self.emit(
                    "summon",
                    side=side.index,
                    combatant=side.archon.id,
                    reason="resonance",
                    place=None,
                )
                self.bring_in(side, side.archon)
            plans.append(self.commit(side, policy.plays(view, self.rng), view))
        return plans

    def do_switch(self, side: Side, out_id: str, in_id: str) -> None:
        out = self.by_id[out_id]
        inn = self.by_id[in_id]
        if out not in side.slots or not out.alive or inn not in side.stored():
            raise ValueError(f"illegal switch {out_id} -> {in_id}")
        place = side.slots.index(out)
        out.status = STORED
        self.leave_play(side, out)
        side.slots[place] = inn
        self.events.append({"round": self.round, "kind": "switch", "side": side.index,
                            "out": out.id, "in": inn.id})  # fmt: skip
        self.bring_in(side, inn)

    def commit(self, side: Side, choices, view: View) -> list[Play]:
        """Check a policy's cards against R9.2 (hand, MP with surcharge, Resonance, targets)."""
        plays = []
        hand = side.hand
        allies = None
        for card_id, tier, target in choices:
            index = _position(hand, card_id)
            if index < 0:
                raise ValueError(f"{card_id} is not in side {side.index}'s hand")
            card = hand[index]
            user = self.owners[card_id]
            cost = card.mp_cost + user.played_nonquick
            if cost > side.mp:
                raise ValueError(f"{card.name} costs {cost} MP; {side.mp} left")
            if tier != 1:
                card.power_at(tier)  # raises for a Tier the card does not have
            if card.category == "support":
                if allies is None:
                    allies = [f.id for f in side.field()]
                legal = target in allies
            else:
                legal = False
                for enemy in view.enemies:
                    if enemy.id == target:
                        legal = True
                        break
            if not legal:
                raise ValueError(f"{card.name} cannot target {target}")
            side.mp -= cost
            if not card.quick:
                user.played_nonquick += 1
            # By position: CardSpec's dataclass == compares every field, and ids are unique.
            del hand[index]
            side.in_play.append(card)
            if TIER_COST[tier]:
                self.spend(side, TIER_COST[tier], f"tier {tier}: {card.name}")
            plays.append(_new_tuple(Play, (card, user.id, tier, target, cost)))
        self.events.append({"round": self.round, "kind": "plan", "side": side.index,
                            "cards": len(plays), "mp_spent": side.spec.mp - side.mp,
                            "mp_left": side.mp})  # fmt: skip
        return plays

    def initiative(self) -> dict[str, int]:
        """R9.3: SPD + floor(highest AUR on the side's field / 2), fixed as resolution starts."""
        out = {}
        for side in self.sides:
            field = side.field()
            aura = 0
            for f in field:
                if f.spec.aura > aura:
                    aura = f.spec.aura
            bonus = aura // 2
            for f in field:
                out[f.id] = f.spec.speed + bonus
        return out

    def resolve(self, plans: list[list[Play]]) -> bool:
        """R9.3-4; True when the battle ended during resolution."""
        init = self.initiative()
        # Ruling: equal Initiative resolves in waves, each user's k-th card in wave k, so a
        # user's own cards keep their order and rivals still strike at the same time.
        entries = []
        for side_plans in plans:
            counts: dict[str, int] = {}
            for play in side_plans:
                k = counts.get(play.user, 0)
                counts[play.user] = k + 1
                entries.append((-init[play.user], k, play))
        entries.sort(key=_WAVE_KEY)  # stable: side A before side B
        gains = [0, 0]
        sides = self.sides
        group = []
        wave = None
        for initiative, k, play in entries:
            if (initiative, k) != wave:
                if group and self.resolve_wave(group, -wave[0], gains):
                    return True
                group = []
                wave = initiative, k
            group.append(play)
        if group and self.resolve_wave(group, -wave[0], gains):
            return True
        for side in sides:
            if gains[side.index]:
                self.gain(side, gains[side.index], "criticals and weaknesses")
        return False

    def resolve_wave(self, plays: list[Play], initiative: int, gains: list[int]) -> bool:
        """resolve_group, then True when the battle is over (R9: only a knock-out can end it)."""
        if self.resolve_group(plays, initiative, gains):
            self.upheavals += 1
            return self.sides[0].lost() or self.sides[1].lost()
        return False

    def blow(self, card: CardSpec, user: Fighter, target: Fighter, tier: int) -> list:
        """What a card does to a target, fixed for the battle: (accuracy, evasion, crit rate,
        chart entry, 1 if a weakness (R9.4), power, stat, mitigation, same Type (R5), and
        the damage of each outcome (plain, complication, critical, both) once computed)."""
        spec = user.spec
        tspec = target.spec
        physical = card.category == "physical"
        effect = self.chart.get((card.type, tspec.type), "neutral")
        blow = self.blows[card.id, target.id, tier] = (
            spec.physical_accuracy if physical else spec.magic_accuracy,
            tspec.evasion,
            spec.crit_rate,
            effect,
            1 if effect == "weak" else 0,
            card.power_at(tier),
            spec.physical_damage if physical else spec.magic_damage,
            tspec.defense if physical else tspec.resistance,
            card.type == spec.type,
            [None, None, None, None],
        )
        return blow

    def resolve_group(self, plays: list[Play], initiative: int, gains: list[int]) -> bool:
        """Every card of the group is rolled on the state before it, then all apply (R9.3).

        True when someone was knocked out (only then can a side have lost).

        The hot path of a battle: events are dict literals appended directly, and the dice
        come from dice.roll_faces, which draws exactly what dice.roll_attack would."""
        append = self.events.append
        rnd = self.round
        by_id = self.by_id
        sides = self.sides
        rng = self.rng
        blows = self.blows
        pending = []
        for play in plays:
            user = by_id[play.user]
            card = play.card
            if user.status != FIELD or user.hp <= 0:
                append({"round": rnd, "kind": "fizzle", "side": user.side, "combatant": user.id,
                        "card": card.id, "reason": "user knocked out"})  # fmt: skip
                continue
            support = card.category == "support"
            pool = sides[user.side] if support else sides[1 - user.side]
            target = by_id[play.target]
            retargeted = None
            if target.status != FIELD or target.hp <= 0 or target.side != pool.index:
                # Ruling: the first combatant still standing in field order.
                standing = [f for f in pool.field() if f.hp > 0]
                if not standing:
                    append({"round": rnd, "kind": "fizzle", "side": user.side,
                            "combatant": user.id, "card": card.id,
                            "reason": "no target"})  # fmt: skip
                    continue
                retargeted, target = target.id, standing[0]
            tier = play.tier
            append({"round": rnd, "kind": "play", "side": user.side, "combatant": user.id,
                    "card": card.id, "name": card.name, "type": card.type,
                    "category": card.category, "tier": tier, "mp_cost": play.mp_cost,
                    "initiative": initiative, "targets": [target.id],
                    "retargeted_from": retargeted})  # fmt: skip
            if support:
                pending.append((None, user, target, card.power_at(tier)))
                continue
            blow = blows.get((card.id, target.id, tier))
            if blow is None:
                blow = self.blow(card, user, target, tier)
            accuracy, evasion, crit_rate, effect, weak = blow[:5]
            attack, extra, evade, hits, glitches, xhits, dhits = roll_faces(
                rng, accuracy, evasion, crit_rate
            )
            # R4 steps 4-6, as dice.judge.
            landed = hits > dhits
            critical = landed and hits + xhits >= dhits + 5
            complication = glitches >= 1 and glitches >= hits
            append({"round": rnd, "kind": "attack", "attacker": user.id, "defender": target.id,
                    "card": card.id, "accuracy": accuracy, "evasion": evasion,
                    "crit_rate": crit_rate, "attack_dice": attack, "explosive_dice": extra,
                    "evasion_dice": evade, "hits": hits, "glitches": glitches,
                    "explosive_hits": xhits, "defender_hits": dhits, "landed": landed,
                    "critical": critical, "complication": complication,
                    "effect": effect})  # fmt: skip
            if landed:
                # R9.4: +1 Resonance per landed critical, +1 per landed hit on a weakness.
                gains[user.side] += critical + weak
                pending.append((blow, user, target, critical * 2 + complication))
        for blow, user, target, detail in pending:
            before = target.hp
            if blow is None:
                spec = user.spec
                support_power = spec.support_power
                amount = dmg.heal_amount(
                    detail, support_power, hp=max(0, before), max_hp=target.spec.max_hp
                )
                target.hp = before + amount
                append({"round": rnd, "kind": "heal", "source": user.id, "target": target.id,
                        "amount": amount, "hp_before": before, "hp_after": target.hp,
                        "power": detail, "support_power": support_power})  # fmt: skip
                continue
            _, _, _, effect, _, power, stat, mitigation, same_type, outcomes = blow
            critical, complication = detail > 1, detail & 1 == 1
            known = outcomes[detail]
            if known is None:
                known = outcomes[detail] = _damage(
                    power, stat, same_type, effect, critical, complication, mitigation
                )
            amount, stab, multiplier, raw = known
            after = before - amount
            target.hp = after if after > 0 else 0
            append({"round": rnd, "kind": "damage", "source": user.id, "target": target.id,
                    "amount": amount, "hp_before": before, "hp_after": target.hp,
                    "breakdown": {"power": power, "stat": stat, "stab": stab,
                                  "type_multiplier": multiplier, "critical": critical,
                                  "complication": complication, "mitigation": mitigation,
                                  "raw": raw}})  # fmt: skip
        # R9.3: knocked out once the group is applied; its remaining cards do nothing.
        knocked_out = False
        for _, _, target, _ in pending:
            if target.hp <= 0 and target.status == FIELD:
                target.status = KO
                self.leave_play(sides[target.side], target)
                append({"round": rnd, "kind": "ko", "side": target.side,
                        "combatant": target.id})  # fmt: skip
                knocked_out = True
        return knocked_out

    def round_end(self) -> None:
        """R9.5: fill free places from storage (slot order), discard played cards."""
        for side in self.sides:
            for place, f in enumerate(side.slots):
                if f is not None and f.status == FIELD:
                    continue
                stored = side.stored()
                if not stored:
                    side.slots[place] = None
                    continue
                side.slots[place] = stored[0]
                self.emit(
                    "summon",
                    side=side.index,
                    combatant=stored[0].id,
                    reason="replacement",
                    place=place,
                )
                self.bring_in(side, stored[0])
            side.discard.extend(side.in_play)
            side.in_play = []

    def winner(self) -> int | None | bool:
        """0 or 1 for a winner, None for a draw, False while the battle goes on."""
        lost = [side.lost() for side in self.sides]
        if lost[0] and lost[1]:
            return None
        if lost[0] or lost[1]:
            return 1 if lost[0] else 0
        return False

    def growth(self, winner) -> list[dict]:
        """R10: each Memeyori ever on the field gains a Rank (max 6) when the Memeyori the other
        side put on the field averaged at least its Rank. Ruling: on both sides, win or lose."""
        if winner is None:
            return []
        fielded = [[f for f in side.roster if f.fielded] for side in self.sides]
        out = []
        for side in self.sides:
            other = fielded[1 - side.index]
            total, count = sum(f.spec.rank for f in other), len(other)
            average = None
            for f in fielded[side.index]:
                # average >= rank, in integers.
                if total >= f.spec.rank * count and f.spec.rank < 6:
                    if average is None:
                        average = Fraction(total, count)
                    out.append(
                        {
                            "combatant": f.id,
                            "rank_before": f.spec.rank,
                            "rank_after": f.spec.rank + 1,
                            "opponents_average_rank": frac(average),
                        }
                    )
        return out

    def run(self) -> dict:
        self.setup()
        winner = False
        # After round 1's checks (a hand-made snapshot may field no one with HP), a side can
        # only lose by a knock-out or a dismissal, so the (R9) check waits for one.
        for self.round in range(1, MAX_ROUNDS + 1):
            seen = self.upheavals if self.round > 1 else -1
            self.round_start()
            if self.upheavals != seen:
                winner = self.winner()
                if winner is not False:  # an Archon alone, dismissed for want of upkeep
                    break
            plans = self.plan()
            self.resolve(plans)
            if self.upheavals != seen:
                winner = self.winner()
                if winner is not False:
                    break
            self.round_end()
        if winner is False:
            winner = None  # R9: after 30 rounds the battle is a draw
        self.emit("end", winner=winner)
        return {"winner": winner, "rounds": self.round, "growth": self.growth(winner)}


def run_battle(data: BattleInput, policies, rng: random.Random, *, seed=None) -> dict:
    """The whole battle as a `memeyori-battle-log/1` dict."""
    engine = Engine(data, policies, rng)
    result = engine.run()
    return {
        "format": LOG_FORMAT,
        "seed": seed,
        "policies": [p.name for p in policies],
        "sides": [
            {
                "name": spec.name,
                "mp": spec.mp,
                "draw": spec.draw,
                "combatants": [
                    combatant_record(f)
                    for f in (*spec.memeyori, *((spec.archon,) if spec.archon else ()))
                ],
            }
            for spec in data.sides
        ],
        "events": engine.events,
        "result": result,
    }
