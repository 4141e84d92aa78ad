"""The changing state of a battle: combatants, sides, planned cards, and what a side sees."""

from dataclasses import dataclass
from typing import Final, NamedTuple

from .model import ARCHON_SUMMON_COST, FIELD_SIZE, CardSpec, FighterSpec

# Final: the compiled engine (battles/compile_engine.py) reads them as constants, not names.
STORED: Final = "stored"
FIELD: Final = "field"
KO: Final = "ko"
DISMISSED: Final = "dismissed"
ARCHON_PLACE: Final = FIELD_SIZE  # the Archon stands after the three places in field order


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
        "heirs",
        "last_switch",
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
        # This round's Switch, as {out id: the Fighter that took its place}: a blow planned
        # against the one switched out follows the field to its heir (ruling 4).
        self.heirs: dict[str, Fighter] = {}
        self.last_switch: tuple[int, str, str] | None = None  # (round, out id, in id)

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


class Seen(NamedTuple):
    """What the table sees of a side as planning begins (ruling 8): its Resonance, how many
    cards it holds, each combatant's (id, status, HP) (the Archon last), and its last
    Switch. Taken before either side plans, so no policy reads this round's enemy plan."""

    resonance: int
    hand: int
    roster: tuple[tuple[str, str, int], ...]
    last_switch: tuple[int, str, str] | None


def seen(side: Side) -> Seen:
    fighters = [*side.roster, *([side.archon] if side.archon else [])]
    return Seen(
        side.resonance,
        len(side.hand),
        tuple([(f.id, f.status, f.hp) for f in fighters]),
        side.last_switch,
    )


class View:
    """What one side sees while planning: its own state, and the enemy field as it stood
    when planning began (never the enemy's hand, draw pile or plan).

    `memo` is shared by every battle of the same input (and so by threads): it holds only
    numbers derived from the frozen specs. `scratch` is this plan's own: whatever a policy
    works out for one plan lives there, where no other battle, request or thread reaches.
    `_engine` is the live battle, read only by the frozen policy versions (lookahead 1 and
    2, whose stored battles replay as they were played) and by `plan_check.check_plan`."""

    __slots__ = (
        "side", "enemies", "enemy_ids", "chart", "round", "owners", "memo", "scratch", "_engine",
        "limit",
    )  # fmt: skip

    def __init__(self, engine, side, enemies, round_no, enemy_ids=None):
        self._engine = engine
        self.side = side
        self.enemies = enemies
        self.enemy_ids = tuple([e.id for e in enemies]) if enemy_ids is None else enemy_ids
        self.chart = engine.chart
        self.round = round_no
        self.limit = engine.limit  # R9.6's rule, which near_limit.py plays for
        self.owners = engine.owners
        # A policy's scratch table for the whole battle: specs are frozen, so what it
        # derives from them (expected damage per card and target) never goes stale.
        self.memo = engine.memos[side.index]
        self.scratch: dict = {}

    def shown(self, side_index: int) -> Seen | None:
        """What the table saw of a side as planning began (Seen: Resonance, cards in hand,
        each combatant's status and HP, its last Switch); None for a View made by hand."""
        shown = self._engine.shown
        return shown[side_index] if shown is not None else None

    def effect(self, card_type: str, defender_type: str) -> str:
        return self.chart.get((card_type, defender_type), "neutral")

    def user_of(self, card: CardSpec) -> Fighter:
        return self.owners[card.id]

    def cost(self, card: CardSpec, extra_nonquick: int = 0) -> int:
        """R9: MP cost plus 1 per non-Quick card its user already played this round."""
        return card.mp_cost + self.owners[card.id].played_nonquick + extra_nonquick

    def last_switch(self) -> tuple[str, str] | None:
        """(out id, in id) of this side's Switch in the previous round, if it made one."""
        last = self.side.last_switch
        return (last[1], last[2]) if last and last[0] == self.round - 1 else None

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
    """Three plain functions of a side's View (and the battle's rng, for the random one).

    `version` changes whenever what the policy chooses changes, so that a stored battle
    replays with the version that played it (battles.engine.policies.policy_version)."""

    name: str
    switch: object  # (view, rng) -> (out_id, in_id) | None
    summon: object  # (view, rng) -> bool
    plays: object  # (view, rng) -> list[(card_id, tier, target_id)]
    version: int = 1
    # Where its random numbers come from (plan.dice_for): "battle", the battle's generator
    # (the versions that always did, so that their stored battles replay); "own", dice of
    # its own for each round and side, which nothing the other side plans or draws can
    # move; "none", it draws nothing. A recorded plan of an "own" or "none" policy replays
    # without running the policy: the battle's generator never knew it ran.
    dice: str = "battle"
    # Whether it thinks: tens to hundreds of milliseconds of CPU a plan (lookahead, every
    # version), too slow for a page request, so a played game records its plan from a
    # task (battles/play/thinking.py). The others (greedy, random, beginner) take about a
    # millisecond a plan and are run where the replay reaches them.
    thinks: bool = False

    @property
    def replays_from_record(self) -> bool:
        return self.dice != "battle"
