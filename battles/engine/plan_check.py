"""A player's plan checked against R9.2 before it is recorded (issue 17), each refusal in words.

A played battle (played.py) plays a player's recorded plan as it stands, so the plan is
checked before it is recorded: the engine's own rules (`plan.switch`, `plan_round`'s
summon, `plan.commit`), told to the player where a plan breaks them, with the MP and
Resonance it leaves. Nothing in the battle loop needs this; the plan page and its
submission (battles/play) and the game review's alternatives (review/ratings.py) do.
"""

from dataclasses import dataclass, field

from .field import DISMISSED, FIELD, KO, STORED, View
from .model import ARCHON_SUMMON_COST, TIER_COST


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
    a card, a player makes the Switch and summon first (a stage, `played.staged`); the
    cards are then checked against the View after it, with no Switch or summon of their
    own."""
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
    made: `view` is the side's View after it drew, from `played.staged`): its cards are
    checked against that hand, so a card the stage drew may be played. The plan's own Switch is
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
