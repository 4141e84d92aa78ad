"""Played battles (issue 17): a side's plans may come from outside, one round at a time.

A played battle is the same battle as `battle.run_battle`, except that a side marked as a
player takes its R9.2 plan (Switch, Archon summon, cards) from a recorded plan for
(round, side). When the plan of the round being played is missing, the battle stops there
(`PlanNeeded`), with each side's View as planning began. So the state at any round is a
pure function of (snapshot, seed, policies and their versions, the plans recorded so far):
a player's plan draws nothing from the generator, and the AI's and the dice's draws keep
their fixed order. Nothing of the engine is stored; each request replays (about a
millisecond a battle).

A recorded plan is one of
- `{"switch": None | [out, in], "summon": bool, "cards": [[card, tier, target], ...]}`, a
  player's own, checked by `check_plan` (the engine's R9.2 rules, in words) before it is
  recorded; or
- `{"policy": "greedy", "version": 2}`: the AI plans that round for the side (a time limit
  ran out), with the battle's own generator, as it would for an AI side; with a `stage`
  (`{"switch", "summon"}`, made before the time ran out) the AI plans the cards only.

A game played with own draws (`own_draws`, ruling 8 for everyone, issue 31) lets a player
make the Switch and summon first, as a step that draws at once (a stage), and then plan
cards that include what they drew: `staged` replays the game to that moment and answers
the side's View there. Its log says `"draws": "own"`.

The finished log is a `memeyori-battle-log/2` log with the plan records (PROTOCOL.md):
`plans` (every plan, with its round, side and who made it: player, ai or timeout), the
`by` of each `plan` event, and a `forfeit` record and event when a side gave up.
"""

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from . import end, plan, resolve, start
from .battle import LOG_FORMAT, Engine, side_records
from .damage import NEUTRAL, STAB, heal_amount, type_multiplier
from .field import DISMISSED, FIELD, KO, STORED, Policy, View
from .keyed import rng_for
from .model import ARCHON_SUMMON_COST, MAX_ROUNDS, TIER_COST, BattleInput
from .odds import attack_odds, expected_damage
from .policies import policy_version

PLAYER = "player"  # the policy name of a side whose plans come from outside
PLAYER_VERSION = 1
BY = ("player", "ai", "timeout")  # who made a plan: its side's player, the AI side, a timeout


class PlanNeeded(Exception):  # noqa: N818 (not an error: the battle waits for a plan)
    """The battle stopped at `round` because `sides` have no plan for it yet.

    `views[s]` is side s's View as planning began (what its player plans against), and
    `engine` the battle's state at that moment. `thinking` are the AI sides whose thinking
    policy (Policy.thinks) has not made its plan for the round yet, in a replay that may
    not think (`play(..., think=False)`): `sides` may then be empty, every player having
    planned, and the round waits for the AI alone."""

    def __init__(
        self,
        round_no: int,
        sides: tuple[int, ...],
        views: list[View],
        engine,
        thinking: tuple[int, ...] = (),
    ):
        super().__init__(
            f"round {round_no} needs a plan from side(s) {list(sides)}"
            + (f", the AI's of side(s) {list(thinking)}" if thinking else "")
        )
        self.round = round_no
        self.sides = sides
        self.views = views
        self.engine = engine
        self.thinking = thinking


@dataclass
class Staged(Exception):  # noqa: N818 (not an error: a probe's answer)
    """A probe replay (`staged`) stopped where the staged side was to choose its cards:
    `view` is that side's View after its Switch and summon drew, `drawn` the ids of the
    cards they drew (the hand less the hand as planning began)."""

    def __init__(self, view: View, drawn: list[str]):
        super().__init__(f"round {view.round}: side {view.side.index}'s stage")
        self.view = view
        self.drawn = drawn


def empty_plan() -> dict:
    """A plan that does nothing, made fresh for each use: nothing module-level is handed to
    a battle, where a plan's dict could be written."""
    return {"switch": None, "summon": False, "cards": []}


@dataclass
class Checked:
    """What `check_plan` found: the reasons in words, each refused card's own reasons, and
    the running totals after the legal part of the plan."""

    errors: list[str] = field(default_factory=list)
    by_card: dict[str, list[str]] = field(default_factory=dict)
    mp_left: int = 0
    resonance_left: int = 0
    plan: dict | None = None  # the plan in its normal form, when it was well formed
    # Each card in hand: its MP cost this round (R9.2's surcharge included) where it
    # stands in the plan, or, for one not in it, were it added at the plan's end.
    costs: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors

    def refusals(self) -> tuple[list[str], dict[str, list[str]]]:
        """The reasons and each card's, cut to what an answer shows (capped)."""
        return capped(self.errors), dict(list(self.by_card.items())[:ERRORS_SHOWN])

    def refuse(self, message: str, card: str | None = None) -> None:
        self.errors.append(message)
        if card is not None:
            self.by_card.setdefault(card, []).append(message)


# -- the plan's shape ----------------------------------------------------------------------
def normal_plan(raw) -> tuple[dict | None, list[str]]:
    """A plan as JSON gives it, in its normal form, or None and what is wrong with its
    shape: {"switch": None | [out, in], "summon": bool, "cards": [[card, tier, target]]}."""
    if not isinstance(raw, dict):
        return None, ["A plan is an object with switch, summon and cards."]
    errors = []
    switch = raw.get("switch")
    if switch is not None and not (
        isinstance(switch, (list, tuple))
        and len(switch) == 2
        and all(isinstance(x, str) for x in switch)
    ):
        errors.append("switch is null or [the one going out, the one coming in].")
    summon = raw.get("summon", False)
    if not isinstance(summon, bool):
        errors.append("summon is true or false.")
    cards = raw.get("cards", [])
    rows = []
    if not isinstance(cards, (list, tuple)):
        errors.append("cards is a list of [card id, tier, target id].")
    else:
        for row in cards:
            if not (
                isinstance(row, (list, tuple))
                and len(row) == 3
                and isinstance(row[0], str)
                and isinstance(row[1], int)
                and not isinstance(row[1], bool)
                and isinstance(row[2], str)
            ):
                errors.append(f"{_short(row)} is not [card id, tier 1-3, target id].")
                continue
            rows.append([row[0], row[1], row[2]])
    if errors:
        return None, errors
    return {"switch": list(switch) if switch else None, "summon": summon, "cards": rows}, []


ERRORS_SHOWN = 10  # a malformed plan's first reasons; the rest are counted


def capped(errors: list[str]) -> list[str]:
    """The first ERRORS_SHOWN reasons, then how many more: an answer stays small whatever
    the plan holds."""
    if len(errors) <= ERRORS_SHOWN:
        return errors
    return [*errors[:ERRORS_SHOWN], f"and {len(errors) - ERRORS_SHOWN} more."]


def _short(value, limit: int = 60) -> str:
    try:
        text = repr(value)
    except RecursionError:  # nested deeper than repr goes
        return "A row nested too deeply"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _surcharge_words(user_name: str, earlier: int) -> str:
    cards = "a card" if earlier == 1 else f"{earlier} cards"
    return f"plus {earlier} because {user_name} already played {cards} without Quick"


def check_plan(view: View, raw) -> Checked:
    """R9.2 on a player's plan, against its side as planning began: the engine's own rules
    (`plan.switch`, `plan_round`'s summon, `plan.commit`), each refusal in words.

    - Switch: the one going out is on the field and conscious, the one coming in is in
      storage and not knocked out; its cards leave the hand (ruling 9).
    - Summon: the party's Archon is not on the field and 8 Resonance are there to pay.
    - Each card: in the hand (so unlocked: only unlocked cards are ever drawn, R7), once;
      its MP cost this round is its cost plus 1 for each card without Quick its user
      already played this round (R9.2), within the MP left; a Tier it has, with its
      Resonance (4 or 8) left after the summon and earlier Tiers; its target an enemy on
      the field as planning began (an attack) or an ally on the field after the Switch
      and the summon (support).
    A card the plan plays after a Switch or summon drew it is refused: a plan made in one
    go is checked against the hand as planning began (what the player sees). To play such
    a card, a player makes the Switch and summon first (a stage, `staged`); the cards are
    then checked against the View after it, with no Switch or summon of their own."""
    side = view.side
    checked = Checked(mp_left=side.mp, resonance_left=side.resonance)
    plan_, errors = normal_plan(raw)
    if plan_ is None:
        checked.errors.extend(errors)
        return checked
    checked.plan = plan_
    by_id = view._engine.by_id
    names = {f.id: f.spec.name for f in by_id.values()}
    mine = {f.id: f for f in (*side.roster, *([side.archon] if side.archon else []))}
    leaving = None
    field_ids = [f.id for f in side.field()]
    if plan_["switch"] is not None:
        out_id, in_id = plan_["switch"]
        out, inn = mine.get(out_id), mine.get(in_id)
        ok = True
        if out is None or out is side.archon:
            checked.refuse(f"There is no Memeyori {out_id} on your side to switch out.")
            ok = False
        elif not (out in side.slots and out.alive):
            checked.refuse(f"{out.spec.name} is not on the field, so it cannot switch out.")
            ok = False
        if inn is None or inn is side.archon:
            checked.refuse(f"There is no Memeyori {in_id} on your side to switch in.")
            ok = False
        elif inn.status == KO or inn.hp <= 0:
            checked.refuse(f"{inn.spec.name} is knocked out, so it cannot switch in.")
            ok = False
        elif inn.status == FIELD:
            checked.refuse(f"{inn.spec.name} is already on the field.")
            ok = False
        elif inn.status != STORED:
            checked.refuse(f"{inn.spec.name} cannot switch in.")
            ok = False
        if ok:
            leaving = out
            field_ids[field_ids.index(out.id)] = inn.id
    if plan_["summon"]:
        archon = side.archon
        if archon is None:
            checked.refuse("Your party has no Archon to summon.")
        elif archon.status == KO or archon.hp <= 0:
            checked.refuse(f"{archon.spec.name} is knocked out, so it cannot be summoned.")
        elif archon.status not in (STORED, DISMISSED):
            checked.refuse(f"{archon.spec.name} is already on the field.")
        elif side.resonance < ARCHON_SUMMON_COST:
            checked.refuse(
                f"Summoning {archon.spec.name} costs {ARCHON_SUMMON_COST} Resonance;"
                f" you have {side.resonance}."
            )
        else:
            checked.resonance_left -= ARCHON_SUMMON_COST
            field_ids.append(archon.id)
    hand = {c.id: c for c in side.hand}
    used: set[str] = set()
    extra: dict[str, int] = {}
    enemy_ids = view.enemy_ids
    for card_id, tier, target in plan_["cards"]:
        card = hand.get(card_id)
        user = view.owners.get(card_id)
        if card is None:
            if user is None or user.side != side.index:
                checked.refuse(f"There is no card {card_id} in your hand.", card_id)
                continue
            spec = next(c for c in user.spec.cards if c.id == card_id)
            if user.spec.rank is not None and spec.unlock_rank > user.spec.rank:
                checked.refuse(
                    f"{spec.name} unlocks at Rank {spec.unlock_rank}; {user.spec.name} is"
                    f" Rank {user.spec.rank}.",
                    card_id,
                )
            else:
                checked.refuse(f"{spec.name} is not in your hand.", card_id)
            continue
        if card_id in used:
            checked.refuse(f"{card.name} is already in this plan.", card_id)
            continue
        if leaving is not None and user is leaving:
            checked.refuse(
                f"{card.name} leaves your hand when {user.spec.name} switches out.", card_id
            )
            continue
        refused = False
        earlier = user.played_nonquick + extra.get(user.id, 0)
        cost = card.mp_cost + earlier
        checked.costs[card_id] = cost
        if cost > checked.mp_left:
            if earlier:
                why = f"{card.mp_cost}, {_surcharge_words(user.spec.name, earlier)}"
                text = f"{card.name} costs {cost} MP this round: {why}; {checked.mp_left} MP left."
            else:
                text = f"{card.name} costs {cost} MP; {checked.mp_left} MP left."
            checked.refuse(text, card_id)
            refused = True
        if tier not in card.tiers():
            checked.refuse(f"{card.name} has no Tier {tier}.", card_id)
            refused = True
        elif TIER_COST[tier] > checked.resonance_left:
            checked.refuse(
                f"{card.name} at Tier {tier} costs {TIER_COST[tier]} Resonance;"
                f" {checked.resonance_left} Resonance left.",
                card_id,
            )
            refused = True
        who = names.get(target, target)
        if card.category == "support":
            if target not in field_ids:
                checked.refuse(
                    f"{card.name} heals an ally on the field; {who} is not one.", card_id
                )
                refused = True
        elif target not in enemy_ids:
            checked.refuse(f"{card.name} targets an enemy on the field; {who} is not one.", card_id)
            refused = True
        if refused:
            continue
        used.add(card_id)
        checked.mp_left -= cost
        checked.resonance_left -= TIER_COST[tier]
        if not card.quick:
            extra[user.id] = extra.get(user.id, 0) + 1
    for card in side.hand:
        if card.id not in checked.costs:
            user = view.owners[card.id]
            checked.costs[card.id] = card.mp_cost + user.played_nonquick + extra.get(user.id, 0)
    return checked


def check_staged(view: View, stage: dict, raw) -> Checked:
    """R9.2 on a player's plan made after its stage (`stage`, `{"switch", "summon"}`, already
    made: `view` is the side's View after it drew, from `staged`): its cards are checked
    against that hand, so a card the stage drew may be played. The plan's own Switch is
    none or the stage's; it may add a summon the stage did not make (what that draws is
    not in this hand). `plan` is what is recorded: the stage's Switch and summon with the
    cards."""
    plan_, errors = normal_plan(raw)
    if plan_ is None:
        checked = Checked(mp_left=view.side.mp, resonance_left=view.side.resonance)
        checked.errors.extend(errors)
        return checked
    summon_now = plan_["summon"] and not stage["summon"]
    checked = check_plan(view, {**plan_, "switch": None, "summon": summon_now})
    if plan_["switch"] is not None and plan_["switch"] != stage["switch"]:
        if stage["switch"] is None:
            text = (
                "You made this round's summon first without a Switch: a Switch comes"
                " before the summon (ruling 8)."
            )
        else:
            names = {f.id: f.spec.name for f in view._engine.by_id.values()}
            out_id, in_id = stage["switch"]
            text = (
                f"You switched {names.get(out_id, out_id)} out for {names.get(in_id, in_id)}"
                " already this round: one Switch a round."
            )
        checked.refuse(text)
    if checked.plan is not None:
        checked.plan = {
            "switch": stage["switch"],
            "summon": bool(stage["summon"] or plan_["summon"]),
            "cards": checked.plan["cards"],
        }
    return checked


# -- what a side plans with ----------------------------------------------------------------
def _exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value)


@lru_cache(maxsize=8192)
def _expected(power, stat, same_type, effect, mitigation, accuracy, evasion, crit_rate):
    """R5's exact mean damage of one attack (a miss counts 0), memoised: it is a function of
    numbers printed on the cards, and a game's every request asks for the same few."""
    return expected_damage(
        power=power,
        stat=stat,
        stab=STAB if same_type else NEUTRAL,
        type_multiplier=type_multiplier(effect),
        mitigation=mitigation,
        accuracy=accuracy,
        evasion=evasion,
        crit_rate=crit_rate,
    )


def card_choices(view: View) -> list[dict]:
    """Each card in hand as the plan page shows it: this round's MP cost (before the plan's
    own surcharges), Quick, Tiers with their Resonance and Power, and for an attack R4's
    exact odds and R5's expected damage on each enemy on the field, for a heal the HP it
    restores on each ally on the field (R5), at each Tier it has."""
    side = view.side
    out = []
    allies = side.field()
    for card in side.hand:
        user = view.owners[card.id]
        spec = user.spec
        row = {
            "id": card.id,
            "name": card.name,
            "type": card.type,
            "category": card.category,
            "power": card.power,
            "user": user.id,
            "user_name": spec.name,
            "base_mp_cost": card.mp_cost,
            "mp_cost": card.mp_cost + user.played_nonquick,
            "quick": card.quick,
            "tiers": [
                {"tier": t, "power": card.power_at(t), "resonance": TIER_COST[t]}
                for t in card.tiers()
            ],
            "targets": [],
        }
        if card.category == "support":
            for ally in allies:
                row["targets"].append(
                    {
                        "id": ally.id,
                        "name": ally.spec.name,
                        "heal": {
                            str(t): heal_amount(
                                card.power_at(t),
                                spec.support_power,
                                hp=ally.hp,
                                max_hp=ally.spec.max_hp,
                            )
                            for t in card.tiers()
                        },
                    }
                )
        else:
            physical = card.category == "physical"
            accuracy = spec.physical_accuracy if physical else spec.magic_accuracy
            stat = spec.physical_damage if physical else spec.magic_damage
            same = card.type == spec.type  # R5's STAB
            for enemy in view.enemies:
                tspec = enemy.spec
                odds = attack_odds(accuracy, tspec.evasion, spec.crit_rate)
                effect = view.effect(card.type, tspec.type)
                mitigation = tspec.defense if physical else tspec.resistance
                expected = {}
                for t in card.tiers():
                    value = _expected(
                        card.power_at(t), stat, same, effect, mitigation, accuracy,
                        tspec.evasion, spec.crit_rate,
                    )  # fmt: skip
                    expected[str(t)] = {"value": round(float(value), 2), "exact": _exact(value)}
                row["targets"].append(
                    {
                        "id": enemy.id,
                        "name": tspec.name,
                        "effect": effect,
                        "land": _exact(odds.p_land),
                        "critical": _exact(odds.p_critical),
                        "complication": _exact(odds.p_complication),
                        "expected_damage": expected,
                    }
                )
        out.append(row)
    return out


def switch_options(view: View) -> list[list[str]]:
    return [list(pair) for pair in view.switch_options()]


# -- the battle, one plan at a time --------------------------------------------------------
class _Plans:
    """The recorded plans as a side's policy, and the record of every plan made."""

    def __init__(self, plans: dict, ai: tuple, probe: tuple[int, int] | None = None):
        self.plans = plans  # {(round, side): recorded plan}
        self.ai = ai  # per side: the AI's Policy, or None for a player
        self.made: list[dict] = []  # the log's `plans`, in order
        self.current: dict[int, dict] = {}
        # (round, side) of a stage being probed (`staged`): that side's plan stops at its
        # cards, and the other side's plan that round is the empty plan, whoever makes it,
        # so nothing of it reaches the staged side.
        self.probe = probe

    def _begin(self, view: View, rng) -> dict:
        key = (view.round, view.side.index)
        recorded = self.plans.get(key)
        ai = self.ai[view.side.index]
        probe = self.probe
        if probe is not None and probe[0] == view.round:
            rec = {"round": view.round, "side": view.side.index, "by": "player"}
            delegate = None
            if probe[1] != view.side.index:
                recorded = empty_plan()
        elif ai is not None:
            rec = {"round": view.round, "side": view.side.index, "by": "ai", "policy": ai.name}
            # The AI's plan recorded when it was made replays as it stands: its policy drew
            # nothing from the battle's generator (Policy.replays_from_record), so a read
            # never thinks again. Older policies are run again, as they always were.
            replay = recorded is not None and ai.replays_from_record
            delegate = None if replay else ai
        elif "policy" in recorded:
            rec = {
                "round": view.round,
                "side": view.side.index,
                "by": recorded.get("by", "timeout"),
                "policy": recorded["policy"],
                "version": recorded["version"],
            }
            # A timeout's plan stored as the AI made it ("cards" beside the policy) replays
            # as it stands, as the AI side's own do; an older record names the policy only.
            made = "cards" in recorded
            delegate = None if made else policy_version(recorded["policy"], recorded["version"])
        else:
            rec = {"round": view.round, "side": view.side.index, "by": "player"}
            delegate = None
        stage = recorded.get("stage") if recorded else None
        if stage is not None:
            rec["staged"] = True  # the Switch and summon were the player's (replay keeps them)
        rec.update({"switch": None, "summon": False, "cards": []})
        self.current[view.side.index] = {
            "rec": rec,
            "delegate": delegate,
            "plan": recorded,
            # A stage the player made before the time ran out stands; the AI plans the rest.
            "stage": stage,
            "hand": [c.id for c in view.side.hand],
        }
        self.made.append(rec)
        return self.current[view.side.index]

    def switch(self, view: View, rng):
        now = self._begin(view, rng)
        delegate = now["delegate"]
        if now["stage"] is not None:
            choice = now["stage"]["switch"]
        else:
            choice = delegate.switch(view, rng) if delegate else now["plan"]["switch"]
        now["rec"]["switch"] = list(choice) if choice else None
        return tuple(choice) if choice else None

    def summon(self, view: View, rng) -> bool:
        now = self.current[view.side.index]
        delegate = now["delegate"]
        if now["stage"] is not None:
            choice = bool(now["stage"]["summon"])
        else:
            choice = bool(delegate.summon(view, rng) if delegate else now["plan"]["summon"])
        now["rec"]["summon"] = choice
        return choice

    def plays(self, view: View, rng):
        now = self.current[view.side.index]
        if self.probe == (view.round, view.side.index):
            before = set(now["hand"])
            raise Staged(view, [c.id for c in view.side.hand if c.id not in before])
        delegate = now["delegate"]
        chosen = delegate.plays(view, rng) if delegate else now["plan"]["cards"]
        now["rec"]["cards"] = [[c, t, x] for c, t, x in chosen]
        return [(c, t, x) for c, t, x in chosen]

    def policy(self, side: int) -> Policy:
        ai = self.ai[side]
        if ai is None:  # a player; a timeout's greedy draws nothing
            return Policy(PLAYER, self.switch, self.summon, self.plays, PLAYER_VERSION, "none")
        return Policy(ai.name, self.switch, self.summon, self.plays, ai.version, ai.dice, ai.thinks)


class Played:
    """Where a played battle stands: `log` when it is over, else `needed` (PlanNeeded).

    `resume()` carries on from where it stopped once the missing plans are in the `plans`
    dict it was given, without replaying the rounds before (a submission that resolves a
    round replays once)."""

    def __init__(
        self,
        data: BattleInput,
        policies: tuple,
        seed: int,
        plans: dict,
        forfeit,
        *,
        stop: int | None = None,
        own_draws: bool = False,
        probe: tuple[int, int] | None = None,
        think: bool = True,
    ):
        self.data = data
        self.seed = seed
        self.recorded = _Plans(plans, policies, probe)
        self.made = self.recorded.made
        self.own_draws = own_draws
        self.think = think
        self.log: dict | None = None
        self.needed: PlanNeeded | None = None
        # True when the battle stopped as round `stop`'s planning began (a fork's origin).
        self.stopped = False
        self._rounds = self._begin(policies, plans, forfeit, stop)
        self.resume()

    def _begin(self, policies: tuple, plans: dict, forfeit, stop):
        """The engine, and the rounds to play (a fork begins elsewhere: engine/fork.py)."""
        self.engine = Engine(
            self.data,
            (self.recorded.policy(0), self.recorded.policy(1)),
            rng_for(self.seed),  # a key's stream, or Mersenne Twister for an int (keyed.py)
            own_draws=self.own_draws,
        )
        return _rounds(
            self.engine, self.recorded, policies, plans, forfeit, stop=stop, think=self.think
        )

    def resume(self) -> "Played":
        try:
            self.needed = next(self._rounds)
        except StopIteration as stop:
            self.needed = None
            if stop.value is None:
                self.stopped = True
            else:
                self.log = self._finish(*stop.value)
        return self

    def _finish(self, winner, forfeited) -> dict:
        engine, data, seed, recorded = self.engine, self.data, self.seed, self.recorded
        if winner is False:
            winner = end.at_limit(engine)  # R9.6, or a draw at the limit
        engine.emit("end", winner=winner)
        result = {"winner": winner, "rounds": engine.round, "growth": end.growth(engine, winner)}
        log = {
            "format": LOG_FORMAT,
            "seed": seed,
            "policies": [p.name for p in engine.policies],
            "policy_versions": [p.version for p in engine.policies],
        }
        if engine.own_draws:
            log["draws"] = "own"
        if data.limit is not None:
            log["limit"] = data.limit  # R9.6's rule, written only since R9.6
        log |= {
            "sides": side_records(data),
            "events": engine.events,
            "plans": recorded.made,
        }
        if forfeited is not None:
            log["forfeit"] = {"round": engine.round, "side": forfeited}
        log["result"] = result
        return log


def open_round(engine, *, started: bool = False):
    """R9.1 for `engine.round`: (the upheavals before it, to tell after the resolution
    whether to look for a winner; the winner its start decided, or False). A round whose
    start was already played (a fork's first round: its origin played it) has nothing to
    start, and its winner is looked for after its resolution, whatever happened."""
    if started:
        return -1, False
    seen = engine.upheavals if engine.round > 1 else -1
    start.round_start(engine)
    return seen, end.winner(engine) if engine.upheavals != seen else False


def _rounds(
    engine,
    recorded: _Plans,
    policies: tuple,
    plans: dict,
    forfeit,
    *,
    first: int = 1,
    started: bool = False,
    stop: int | None = None,
    think: bool = True,
):
    """The battle loop of `Engine.run`, stopping (a yield) at each plan it lacks; it returns
    (winner, the side that forfeited or None).

    A fork (engine/fork.py) carries on from round `first`, whose start (R9.1) its origin
    already played (`started`); `stop` ends the loop as round `stop`'s planning begins
    (the state a fork starts from), returning None. With `think` false an AI side whose
    policy thinks (`_thinking`) and whose plan for the round is not recorded is a plan it
    lacks too (PlanNeeded.thinking): the replay never runs that policy."""
    if not started:
        start.setup(engine)
    winner = False
    forfeited = None
    for engine.round in range(first, MAX_ROUNDS + 1):
        seen, winner = open_round(engine, started=started and engine.round == first)
        if winner is not False:
            break
        if engine.round == stop:
            return None
        if forfeit is not None and forfeit[0] == engine.round:
            forfeited = forfeit[1]
            engine.emit("forfeit", side=forfeited)
            winner = 1 - forfeited
            break
        while True:
            missing = tuple(
                s for s in (0, 1) if policies[s] is None and (engine.round, s) not in plans
            )
            thinking = () if think else _thinking(policies, plans, engine.round)
            if not missing and not thinking:
                break
            yield PlanNeeded(engine.round, missing, plan.begin(engine), engine, thinking)
        first = len(engine.events)
        plans_made = plan.plan_round(engine)
        # The plan events of this round say who made each plan (the plan records).
        by = {rec["side"]: rec["by"] for rec in recorded.made[-2:]}
        for event in engine.events[first:]:
            if event["kind"] == "plan":
                event["by"] = by[event["side"]]
        resolve.resolve_round(engine, plans_made)
        if engine.upheavals != seen:
            winner = end.winner(engine)
            if winner is not False:
                break
        end.round_end(engine)
    return winner, forfeited


def _thinking(policies: tuple, plans: dict, round_no: int) -> tuple[int, ...]:
    """The AI sides whose policy thinks (Policy.thinks) and whose plan for `round_no` is not
    recorded. Only a policy that replays from its record (Policy.replays_from_record): an
    older one (lookahead 1 and 2) drew from the battle's own generator, so its plan cannot
    be recorded and made apart from the round; it is run where the replay reaches it, as
    it always was (no new game plays those versions)."""
    return tuple(
        s
        for s in (0, 1)
        if (ai := policies[s]) is not None
        and ai.thinks
        and ai.replays_from_record
        and (round_no, s) not in plans
    )


def play(
    data: BattleInput,
    policies: tuple,
    seed: int,
    plans: dict,
    *,
    forfeit: tuple[int, int] | None = None,
    own_draws: bool = False,
    think: bool = True,
) -> Played:
    """Play the battle as far as the recorded plans go.

    `policies[s]` is side s's AI Policy, or None for a player; `plans` maps (round, side)
    to a recorded plan (a player's, the AI's as it made it, or a timeout's `{"policy",
    "version"}`); `forfeit` is (round, side) when that side gave up as that round's
    planning began; `own_draws`, the draws made while planning come from each side's own
    generator (Engine.own_draws). With `think` false the replay stops before running a
    thinking policy whose plan is not recorded (PlanNeeded.thinking; `ai_plans` makes
    it): what a page request replays."""
    return Played(data, policies, seed, plans, forfeit, own_draws=own_draws, think=think)


def _builder(data: BattleInput, policies: tuple, seed, forfeit):
    """A replay of this battle from any set of plans, with any of Played's options: what
    `staged` and `ai_plans` probe with (a fork passes its own, fork._builder)."""

    def build(plans_, **options):
        return Played(data, policies, seed, plans_, forfeit, **options)

    return build


def staged(
    data: BattleInput,
    policies: tuple,
    seed: int,
    plans: dict,
    round_no: int,
    side: int,
    stage: dict,
    *,
    forfeit: tuple[int, int] | None = None,
    build=None,
    think: bool = True,
) -> Staged:
    """A side's View after its stage (`{"switch", "summon"}`) for `round_no` has drawn, in
    a game with own draws: the recorded plans replayed to that round, where the other side
    plans nothing (its real plan, recorded or an AI's, never reaches this side) and this
    side makes its stage, then stops where it would choose its cards. With own draws the
    stage draws the same cards whatever the other side plans, so the round, when it
    resolves, draws what this showed. ValueError when the round is not reached (with
    `think` false, also when an AI's thinking plan before it is not recorded)."""
    probe = dict(plans)
    probe[round_no, side] = {"switch": stage["switch"], "summon": stage["summon"], "cards": []}
    probe[round_no, 1 - side] = empty_plan()
    if build is None:  # `build`: a fork's (engine/fork.py)
        build = _builder(data, policies, seed, forfeit)
    try:
        build(probe, own_draws=True, probe=(round_no, side), think=think)
    except Staged as stopped:
        return stopped
    raise ValueError(f"round {round_no} is not planned in this game")


def ai_plans(
    data: BattleInput,
    policies: tuple,
    seed: int,
    plans: dict,
    round_no: int,
    *,
    forfeit: tuple[int, int] | None = None,
    own_draws: bool = False,
    build=None,
) -> dict[int, dict]:
    """The plans the AI sides make for `round_no` ({side: {"switch", "summon", "cards"}}),
    thinking as it must: what `play(..., think=False)` stopped for (PlanNeeded.thinking),
    made apart from any page request (battles/play/thinking.py).

    A plan depends on the record alone, so it is the one the replay would have made where
    it reached the round (and `replay`, which runs the AI again, makes it once more, byte
    for byte). When every player's plan for the round is in, the round is replayed as it
    will be; before that, in a game with own draws, each player plans nothing in the
    probe: an AI plans against the table as planning began, from dice and draws of its
    own (Policy.dice, Engine.own_draws), so nothing a player plans that round reaches it.
    Without own draws a player's Switch could move what the AI's own Switch draws from the
    battle's generator: there the AI waits for the players' plans ({} until then)."""
    players = [s for s in (0, 1) if policies[s] is None]
    probe = dict(plans)
    for s in players:
        if (round_no, s) not in plans:
            if not own_draws:
                return {}
            probe[round_no, s] = empty_plan()
    if build is None:  # `build`: a fork's (engine/fork.py)
        build = _builder(data, policies, seed, forfeit)
    played = build(probe, own_draws=own_draws, stop=round_no + 1)
    return {
        rec["side"]: {"switch": rec["switch"], "summon": rec["summon"], "cards": rec["cards"]}
        for rec in played.made
        if rec["round"] == round_no and rec["by"] == "ai"
    }


def inputs_from_log(log: dict) -> tuple[tuple, dict, tuple[int, int] | None]:
    """What replays a played log: (AI policies per side, the recorded plans, forfeit)."""
    policies = tuple(
        None if name == PLAYER else policy_version(name, version)
        for name, version in zip(log["policies"], log["policy_versions"], strict=True)
    )
    plans = {}
    for rec in log["plans"]:
        if rec["by"] == "player":
            plans[rec["round"], rec["side"]] = {
                "switch": rec["switch"],
                "summon": rec["summon"],
                "cards": rec["cards"],
            }
        elif rec["by"] == "timeout":
            plans[rec["round"], rec["side"]] = {
                "by": "timeout",
                "policy": rec["policy"],
                "version": rec["version"],
            }
            if rec.get("staged"):
                stage = {"switch": rec["switch"], "summon": rec["summon"]}
                plans[rec["round"], rec["side"]]["stage"] = stage
    forfeit = log.get("forfeit")
    return policies, plans, (forfeit["round"], forfeit["side"]) if forfeit else None


def own_draws_of(log: dict) -> bool:
    """Whether a played log's planning draws came from each side's own generator."""
    return log.get("draws") == "own"


def replay(data: BattleInput, log: dict) -> dict:
    """A played log again, from its input, seed and plan records (`manage.py replay`)."""
    policies, plans, forfeit = inputs_from_log(log)
    again = play(data, policies, log["seed"], plans, forfeit=forfeit, own_draws=own_draws_of(log))
    if again.log is None:
        raise ValueError(f"the plan records stop at round {again.needed.round}")
    return again.log


def is_played(log: dict) -> bool:
    return "plans" in log
