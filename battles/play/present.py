"""The plan page's numbers as players read them, from one side's `memeyori-play/1` state.

No database: the state already holds the engine's exact odds (fractions as "a/b"), its
expected damage and heal amounts, and the engine's plan check each card's cost this round
(R9.2's surcharge included); this module only orders and words them.
"""

from fractions import Fraction

from battles.engine.words import percent
from battles.viewer import hp_bar

EFFECTS = {"weak": "▲ weak", "strong": "▼ strong", "neutral": ""}


def dom_id(card_id: str) -> str:
    """An id a CSS selector can name (card ids hold dots: A1.2)."""
    return card_id.replace(".", "-")


def _chance(exact: str) -> dict:
    value = Fraction(exact)
    return {"text": percent(value), "exact": f"exactly {exact}"}


def plan_rows(
    hand: list[dict], cards: list[list], costs: dict[str, int], refused=frozenset()
) -> list[dict]:
    """The plan's cards in order, each with its cost this round as the engine's plan
    check counted it (`costs`, battles.engine.plan_check.check_plan), and whether the rules
    refuse it (`refused`, card ids): a refused card counts in no total (issue 41.9)."""
    by_id = {c["id"]: c for c in hand}
    rows = []
    for card_id, tier, target in cards:
        card = by_id.get(card_id)
        if card is None or any(row["card"] is card for row in rows):
            continue
        cost = costs.get(card_id, card["mp_cost"])
        names = {t["id"]: t["name"] for t in card["targets"]}
        rows.append(
            {
                "card": card,
                "tier": tier,
                "target": names.get(target, target),
                "cost": cost,
                "surcharge": cost - card["mp_cost"],
                "refused": card_id in refused,
            }
        )
    return rows


def hand_cards(state: dict, cost_now: dict[str, int], by_card: dict[str, list[str]]) -> list:
    """Each card in hand for the page: its numbers, its odds on every target, its cost
    this round and the rules' refusals of it."""
    out = []
    drawn = set((state.get("stage") or {}).get("drawn", ()))
    for card in state["hand"]:
        tiers = card["tiers"]
        targets = []
        for target in card["targets"]:
            row = {"id": target["id"], "name": target["name"]}
            if card["category"] == "support":
                row["heal"] = [target["heal"][str(t["tier"])] for t in tiers]
            else:
                row |= {
                    "effect": EFFECTS.get(target["effect"], ""),
                    "land": _chance(target["land"]),
                    "critical": _chance(target["critical"]),
                    "complication": _chance(target["complication"]),
                    "expected": [target["expected_damage"][str(t["tier"])] for t in tiers],
                }
            targets.append(row)
        cost = cost_now.get(card["id"], card["mp_cost"])
        out.append(
            {
                **card,
                "odds_line": _odds_line(card["category"], targets),
                "dom": dom_id(card["id"]),
                "cost_now": cost,
                "surcharge": cost - card["base_mp_cost"],
                "rows": targets,
                "refusals": by_card.get(card["id"], []),
                # Drawn by this round's Switch or summon, made first (ruling 8).
                "drawn": card["id"] in drawn,
            }
        )
    return out


def stage_words(state: dict) -> dict:
    """This round's stage in words (ruling 8): "Fizzlet out, Sparkit in", and the names of
    the cards it drew. Empty without a stage."""
    stage = state.get("stage")
    if not stage:
        return {}
    names = {f["id"]: f["name"] for f in [*state["field"], *state["stored"]]}
    words = {"switch": "", "drawn": ""}
    if stage["switch"]:
        out_id, in_id = stage["switch"]
        words["switch"] = f"{names.get(out_id, out_id)} out, {names.get(in_id, in_id)} in"
    cards = {c["id"]: c["name"] for c in state["hand"]}
    words["drawn"] = ", ".join(cards.get(c, c) for c in stage["drawn"])
    return words


def _odds_line(category: str, rows: list[dict]) -> str:
    """The card's odds in one line, for a phone (its table is a tap away): the target it
    does most to at Tier 1, and how many others there are."""
    if not rows:
        return ""
    others = len(rows) - 1
    more = f" · {others} more target{'s' if others != 1 else ''}" if others else ""
    if category == "support":
        best = max(rows, key=lambda r: r["heal"][0])
        return f"{best['heal'][0]} HP on {best['name']}{more}"
    best = max(rows, key=lambda r: Fraction(r["expected"][0]["exact"]))
    damage = f"{float(Fraction(best['expected'][0]['exact'])):.2f}"
    return f"Best on {best['name']}: lands {best['land']['text']}, {damage} damage{more}"


def plan_words(plan: dict | None, state: dict) -> list[str]:
    """A side's own recorded plan, in words, for its waiting page."""
    if not plan or "cards" not in plan:
        return []
    names = {c["id"]: c["name"] for c in [*state["field"], *state["stored"], *state["enemy_field"]]}
    # The hand as planning began: the state stops there until both sides have planned.
    hand_names = {card["id"]: card["name"] for card in state["hand"]}
    lines = []
    if plan.get("switch"):
        out, inn = plan["switch"]
        lines.append(f"Switch {names.get(out, out)} out for {names.get(inn, inn)}.")
    if plan.get("summon"):
        lines.append("Summon the Archon.")
    for card_id, tier, target in plan["cards"]:
        name = hand_names.get(card_id, card_id)
        at = f" at Tier {tier}" if tier > 1 else ""
        lines.append(f"{name}{at} on {names.get(target, target)}.")
    return lines or ["No cards: pass this round."]


def _type_marks(type_name: str, types: dict) -> dict:
    t = types.get(type_name, {})
    return {"type_slug": t.get("slug", "ether"), "type_symbol": t.get("symbol", "◆")}


def fighters(rows: list[dict], types: dict) -> list[dict]:
    # The viewer's own HP bars: the same bands and ids on every page.
    return [
        {**r, **_type_marks(r["type"], types), **hp_bar(r["hp"], r["max_hp"], None)} for r in rows
    ]


def field_sides(state: dict, types: dict) -> tuple[dict, dict]:
    """(this side, the enemy) as the field panel shows them."""
    side = state["side"]
    names = state["names"]
    mine = {
        "index": side,
        "name": names[side],
        "field": fighters(state["field"], types),
        "stored": fighters(state["stored"], types),
    }
    enemy = {
        "index": 1 - side,
        "name": names[1 - side],
        "field": fighters(state["enemy_field"], types),
    }
    return mine, enemy


def with_types(cards: list[dict], types: dict) -> list[dict]:
    return [{**c, **_type_marks(c["type"], types)} for c in cards]
