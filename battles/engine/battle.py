"""One whole battle under RULES.md R9-R10: a pure function of (input, policies, rng).

`run_battle` returns the `memeyori-battle-log/2` dict (see PROTOCOL.md beside this file);
`run_summary` returns the same battle's summary (battles.engine.summary) without building
the log's events. Every die and shuffle comes from the one `random.Random` passed in, in a
fixed order, so the same input, policies and seed give a byte-identical log.

A round is four steps, each in its own module:
- `start`: setup and R9.1 (Resonance or upkeep, the draw, the MP refill);
- `plan`: R9.2 (each side's Switch, Archon summon and cards);
- `resolve`: R9.3 groups of equal Initiative, each rolled on the state before it, and
  `settle`: each group applied at once, its knock-outs, then R9.4's Resonance;
- `end`: R9.5 replacements and the discard, the winner, and R10's growth.
This module holds what they share: the Engine's state and the card and Resonance moves.
"""

import hashlib
import random
from array import array

from . import end, plan, resolve, start
from .dice import shuffle
from .field import FIELD, Fighter, Policy, Side, View  # noqa: F401  (policies import these)
from .model import MAX_ROUNDS, RESONANCE_MAX, BattleInput, FighterSpec
from .tally import Tally

LOG_FORMAT = "memeyori-battle-log/2"
# The rules' version: 1 wrote /1 logs (equal Initiative in waves), 2 writes /2 (R9.3 groups).
ENGINE_VERSION = 2


# What the policies (their memos) and the blows (resolve.blow) derive from a battle's frozen
# input, kept for the next battle of the same input object: the bench's, or a lab's
# thousands of seeds. Never battle state: only numbers printed on the specs. The input is
# held in the entry, so its id cannot be reused while the entry lives.
_DERIVED: dict[int, tuple] = {}
DERIVED_LIMIT = 64


def _derived(data: BattleInput) -> tuple:
    entry = _DERIVED.get(id(data))
    if entry is None or entry[0] is not data:
        if len(_DERIVED) >= DERIVED_LIMIT:
            _DERIVED.clear()
        entry = _DERIVED[id(data)] = (data, ({}, {}), {})
    return entry


class Engine:
    """One battle's state. `events` is the log's event list, or None in summary mode, where
    `tally` counts what `summary.summarize` would read from those events instead.

    `own_draws` (played games started since issue 31's "one rule"): the cards a side draws
    while it plans (its Switch's and its summon's newcomers, ruling 8) are shuffled in by a
    generator of that side's own for the round (`draw_rng`), so that what a side's Switch
    draws never depends on what the other side planned first, and a player can be shown it
    before planning the cards. Off, they come from the battle's generator, as they always
    did (every stored and lab battle replays so)."""

    own_draws = False  # a class default: copies made with object.__new__ (review) read it
    limit = None  # R9.6's rule (BattleInput.limit); the same default for such copies

    def __init__(
        self, data: BattleInput, policies, rng: random.Random, *, summary=False, own_draws=False
    ):
        self.chart = data.chart
        self.policies = policies
        self.rng = rng
        self.own_draws = own_draws
        self.limit = data.limit
        # Where the battle's generator started: the root of the policies' own dice (and of
        # own draws), taken only when needed (a copy of the state is some 10 us).
        own = own_draws or any(getattr(p, "dice", "battle") == "own" for p in policies)
        self._origin = rng.getstate() if own else None
        self._dice_root: bytes | None = None
        self.sides = [Side(i, spec) for i, spec in enumerate(data.sides)]
        self.owners: dict[str, Fighter] = {}
        self.by_id: dict[str, Fighter] = {}
        for side in self.sides:
            for f in [*side.roster, *([side.archon] if side.archon else [])]:
                self.by_id[f.id] = f
                for c in f.spec.cards:
                    self.owners[c.id] = f
        self.events: list[dict] | None = None if summary else []
        self.tally: Tally | None = Tally(self) if summary else None
        # Derived from the frozen input alone, so shared by every battle of that input.
        _, self.memos, self.blows = _derived(data)
        self.round = 0
        # Knock-outs and dismissals so far: only they can make a side lose (R9).
        self.upheavals = 0
        # Each side's (Resonance, cards in hand) as planning began (plan.plan_round).
        self.shown: list[tuple[int, int]] | None = None

    # -- what the steps share ----------------------------------------------------------
    def emit(self, kind: str, **fields) -> None:
        if self.events is not None:
            self.events.append({"round": self.round, "kind": kind, **fields})

    def draw(self, side: Side, count: int) -> None:
        """Draw from the top of the pile; an empty pile is refilled from the discard (R9.1)."""
        pile = side.pile
        events = self.events
        if events is None and count <= len(pile):
            # Summary mode, no reshuffle: the top `count` cards, last first, as pop() takes.
            if count:
                side.hand += pile[-1 : -count - 1 : -1]
                del pile[-count:]
            return
        drawn = []
        hand = side.hand
        for _ in range(count):
            if not pile:
                if not side.discard:
                    break
                pile = side.pile = side.discard
                side.discard = []
                shuffle(self.rng, pile)
                if events is not None:
                    events.append({"round": self.round, "kind": "reshuffle", "side": side.index,
                                   "cards": len(pile)})  # fmt: skip
            card = pile.pop()
            hand.append(card)
            drawn.append(card.id)
        if events is not None:
            events.append({"round": self.round, "kind": "draw", "side": side.index,
                           "cards": drawn})  # fmt: skip

    def bring_in(self, side: Side, fighter: Fighter, rng: random.Random | None = None) -> None:
        """A newcomer's cards are shuffled into the pile and one of them is drawn (R9.2, R9.5),
        shuffled by `rng` (a side's own draws while planning), else the battle's generator."""
        fighter.status = FIELD
        fighter.fielded = True
        fighter.played_nonquick = 0
        cards = fighter.spec.playable_cards()
        if not cards:
            self.emit("draw", side=side.index, cards=[])
            return
        pile = side.pile
        pile.extend(cards)
        shuffle(rng or self.rng, pile)
        # The topmost of its own cards: a uniformly random one of them, as the shuffle is.
        mine = fighter.id + "."
        for i in range(len(pile) - 1, -1, -1):
            if pile[i].id.startswith(mine):
                card = pile.pop(i)
                break
        side.hand.append(card)
        if self.events is not None:
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
            if self.events is not None:
                self.events.append({"round": self.round, "kind": "resonance",
                                    "side": side.index, "delta": total - side.resonance,
                                    "total": total, "reason": reason})  # fmt: skip
            else:
                self.tally.sides[side.index]["resonance_gained"] += total - side.resonance
        side.resonance = total

    def spend(self, side: Side, amount: int, reason: str) -> None:
        if amount > side.resonance:
            raise ValueError(f"side {side.index} cannot pay {amount} Resonance for {reason}")
        side.resonance -= amount
        if self.events is not None:
            self.events.append({"round": self.round, "kind": "resonance", "side": side.index,
                                "delta": -amount, "total": side.resonance,
                                "reason": reason})  # fmt: skip
        else:
            self.tally.sides[side.index]["resonance_spent"] += amount

    def _root(self) -> bytes:
        if self._dice_root is None:
            if self._origin is None:
                raise ValueError("no policy of this battle had dice of its own when it began")
            version, words, gauss = self._origin
            self._dice_root = hashlib.sha256(
                array("Q", [version, *words]).tobytes() + repr(gauss).encode()
            ).digest()
        return self._dice_root

    def policy_rng(self, side: int) -> random.Random:
        """Dice of a policy's own for this round and `side` (Policy.own_dice): fixed by where
        the battle's generator started, the round and the side, and by nothing drawn since,
        so neither side's plan or draws can move the other's."""
        return random.Random(self._root() + bytes([self.round, side]))

    def draw_rng(self, side: int) -> random.Random:
        """The shuffles of `side`'s draws while it plans this round (`own_draws`): fixed as
        `policy_rng` is, in a domain of their own, so they never repeat a policy's dice."""
        return random.Random(self._root() + b"draws" + bytes([self.round, side]))

    # -- the steps, for tests that drive a battle by hand --------------------------------
    def setup(self) -> None:
        start.setup(self)

    def round_start(self) -> None:
        start.round_start(self)

    def plan(self):
        return plan.plan_round(self)

    def winner(self) -> int | None | bool:
        return end.winner(self)

    # -- the battle ----------------------------------------------------------------------
    def run(self) -> dict:
        start.setup(self)
        winner = False
        # After round 1's checks (a hand-made snapshot may field no one with HP), a side can
        # only lose by a knock-out or a dismissal, so the (R9) check waits for one.
        for self.round in range(1, MAX_ROUNDS + 1):
            seen = self.upheavals if self.round > 1 else -1
            start.round_start(self)
            if self.upheavals != seen:
                winner = end.winner(self)
                if winner is not False:  # an Archon alone, dismissed for want of upkeep
                    break
            plans = plan.plan_round(self)
            resolve.resolve_round(self, plans)
            if self.upheavals != seen:
                winner = end.winner(self)
                if winner is not False:
                    break
            end.round_end(self)
        if winner is False:
            winner = end.at_limit(self)  # R9.6, or a draw at the limit
        self.emit("end", winner=winner)
        return {"winner": winner, "rounds": self.round, "growth": end.growth(self, winner)}


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


def side_records(data: BattleInput) -> list[dict]:
    """The log's `sides`: each side's name, pool and draw, and its combatants in slot order,
    then its Archon (PROTOCOL.md)."""
    return [
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
    ]


def run_battle(data: BattleInput, policies, rng: random.Random, *, seed=None) -> dict:
    """The whole battle as a `memeyori-battle-log/2` dict."""
    engine = Engine(data, policies, rng)
    result = engine.run()
    log = {"format": LOG_FORMAT, "seed": seed, "policies": [p.name for p in policies]}
    versions = [getattr(p, "version", 1) for p in policies]
    if versions != [1, 1]:
        # Only when a later version played, so logs of version 1 stay as they always were.
        log["policy_versions"] = versions
    if data.limit is not None:
        # R9.6's rule, written only since R9.6, so every earlier log stays byte-identical.
        log["limit"] = data.limit
    log.update(
        {
            "sides": side_records(data),
            "events": engine.events,
            "result": result,
        }
    )
    return log


def run_summary(data: BattleInput, policies, rng: random.Random, *, seed=None) -> dict:
    """What `summary.summarize(run_battle(...))` gives, without building the events."""
    engine = Engine(data, policies, rng, summary=True)
    result = engine.run()
    return engine.tally.summary(seed, result)
