"""The game review's words: a plan as a sentence, a Win% as a percentage."""


def plan_words(planning, side_index: int, plan_: dict, *, first=True) -> str:
    """A plan in words: "Switching Sparkit out for Boltkin, playing Zap on Pebblin at Tier
    2" (`first`: with a capital, to begin a sentence)."""
    by_id = planning.by_id
    cards = {c.id: c for f in by_id.values() for c in f.spec.cards}

    def name(fid):
        f = by_id.get(fid)
        return f.spec.name if f is not None else fid

    parts = []
    if plan_["switch"]:
        out, inn = plan_["switch"]
        parts.append(f"switching {name(out)} out for {name(inn)}")
    if plan_["summon"]:
        archon = planning.sides[side_index].archon
        parts.append(f"summoning {archon.spec.name if archon else 'the Archon'}")
    plays = []
    for cid, tier, target in plan_["cards"]:
        card = cards.get(cid)
        text = f"{card.name if card else cid} on {name(target)}"
        plays.append(text + (f" at Tier {tier}" if tier != 1 else ""))
    if plays:
        parts.append("playing " + ", ".join(plays))
    if not parts:
        return "Passing" if first else "passing"
    text = ", ".join(parts)
    return text[0].upper() + text[1:] if first else text


def _pct(p: float) -> str:
    return f"{round(100 * p)}%"
