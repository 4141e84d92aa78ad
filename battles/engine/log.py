"""Plain-text lines for battle log events (/1 and /2): the CLI's text output and the viewer."""

from .odds import attack_odds
from .words import percent, plural, possessive


def names(log: dict) -> dict[str, str]:
    out = {}
    for side in log["sides"]:
        for c in side["combatants"]:
            out[c["id"]] = c["name"]
            for card in c["cards"]:
                out[card["id"]] = card["name"]
    return out


def odds_text(event: dict) -> str:
    """R4's exact odds before the roll, for an attack event."""
    o = attack_odds(event["accuracy"], event["evasion"], event["crit_rate"])
    return (
        f"land {percent(o.p_land)}, critical {percent(o.p_critical)}, "
        f"complication {percent(o.p_complication)}"
    )


def damage_formula(event: dict) -> str:
    b = event["breakdown"]
    parts = [f"({b['power']} + {b['stat']})", f"x {b['stab']} STAB", f"x {b['type_multiplier']}"]
    if b["critical"]:
        parts.append("x 3/2 crit")
    if b["complication"]:
        parts.append("x 1/2 complication")
    return (
        f"{' '.join(parts)} = {b['raw']}, minus {b['mitigation']} mitigation"
        f" -> {event['amount']} (at least 1)"
    )


def describe(event: dict, n: dict[str, str], sides: list[str], *, odds: bool = True) -> str:
    """One readable line for an event (`odds=False` when the odds are shown apart)."""
    k = event["kind"]
    side = sides[event["side"]] if "side" in event else ""
    if k == "round_start":
        return f"Round {event['round']} begins."
    if k == "resonance":
        sign = "+" if event["delta"] >= 0 else ""
        return (
            f"{side}: Resonance {sign}{event['delta']} ({event['reason']}), now {event['total']}."
        )
    if k == "mp":
        return f"{side}: MP pool refills to {event['total']}."
    if k == "draw":
        cards = ", ".join(n.get(c, c) for c in event["cards"]) or "nothing"
        return f"{side} draws {cards}."
    if k == "reshuffle":
        return f"{side} shuffles {plural(event['cards'], 'discarded card')} into a new draw pile."
    if k == "summon":
        return f"{side} summons {n[event['combatant']]} ({event['reason']})."
    if k == "dismiss":
        return (
            f"{possessive(side)} Archon {n[event['combatant']]} is dismissed:"
            " no Resonance for upkeep."
        )
    if k == "switch":
        return f"{side} switches {n[event['out']]} out for {n[event['in']]}."
    if k == "plan":
        planned = (
            f"{plural(event['cards'], 'card')} for {event['mp_spent']} MP"
            f" ({event['mp_left']} left)."
        )
        # A played battle's plan events say who made the plan (battles/engine/played.py).
        if event.get("by") == "timeout":
            return f"{possessive(side)} time ran out, so the AI planned for {side}: {planned}"
        if event.get("by") == "ai":
            return f"{side} (the AI) plans {planned}"
        return f"{side} plans {planned}"
    if k == "forfeit":
        return f"{side} forfeits."
    if k == "fork":
        piles = " and ".join(
            f"{possessive(name)} ({plural(count, 'card')})"
            for name, count in zip(sides, event["piles"], strict=True)
        )
        return (
            f"The game forks here, from round {event['round']} of another battle: {piles}"
            " draw piles are shuffled anew, and the dice come from a new seed."
        )
    if k == "play":
        tier = f" at Tier {event['tier']}" if event["tier"] > 1 else ""
        targets = ", ".join(n[t] for t in event["targets"])
        again = (
            f" (retargeted from {n[event['retargeted_from']]})"
            if event.get("retargeted_from")
            else ""
        )
        return (
            f"{n[event['combatant']]} plays {n[event['card']]}{tier} on {targets}{again}"
            f" for {event['mp_cost']} MP, Initiative {event['initiative']}."
        )
    if k == "attack":
        outcome = "lands" if event["landed"] else "misses"
        extras = [w for w, on in (("critical", event["critical"]),
                                  ("complication", event["complication"])) if on]  # fmt: skip
        extra = f" ({', '.join(extras)})" if extras else ""
        return (
            f"{n[event['attacker']]} rolls {plural(event['hits'], 'hit')}"
            f" ({plural(event['glitches'], 'glitch')}, +{event['explosive_hits']} explosive)"
            f" against {event['defender_hits']}: {outcome}{extra}."
            + (f" Odds: {odds_text(event)}." if odds else "")
        )
    if k == "damage":
        if "hp_after" not in event:  # /2: the group's apply event changes the HP
            return f"{n[event['target']]} takes {event['amount']} damage: {damage_formula(event)}."
        return (
            f"{n[event['target']]} takes {event['amount']} damage"
            f" ({event['hp_before']} -> {event['hp_after']} HP): {damage_formula(event)}."
        )
    if k == "heal":
        if "hp_after" not in event:
            return (
                f"{n[event['source']]} heals {n[event['target']]} for {event['amount']}"
                f" ({event['power']} Power + {event['support_power']} Support Power)."
            )
        return (
            f"{n[event['target']]} heals {event['amount']}"
            f" ({event['hp_before']} -> {event['hp_after']} HP)."
        )
    if k == "apply":
        parts = [f"-{event['damage']}"] if event["damage"] else []
        parts += [f"+{event['healing']}"] if event["healing"] else []
        return (
            f"{n[event['combatant']]}: {event['hp_before']} {' '.join(parts)}"
            f" -> {event['hp_after']} HP (the group applied together)."
        )
    if k == "ko":
        return f"{n[event['combatant']]} is knocked out."
    if k == "fizzle":
        return f"{n[event['card']]} from {n[event['combatant']]} fizzles: {event['reason']}."
    if k == "limit":
        return limit_words(event, sides)
    if k == "end":
        if event["winner"] is None:
            return "The battle ends in a draw."
        return f"{sides[event['winner']]} wins."
    return k


def limit_words(event: dict, sides: list[str]) -> str:
    """Why a battle that reached the round limit was won or drawn (R9.6, a `limit` event)."""
    counts, hp, full = event["conscious"], event["hp"], event["max_hp"]
    head = f"Round {event['round']} ends with both sides standing: the round limit decides (R9.6)."

    def left(i):
        share = 100 * hp[i] / full[i] if full[i] else 0
        return f"{sides[i]} has {hp[i]} of {full[i]} HP left ({share:.1f}%)"

    if event["step"] == 1:
        w = event["winner"]
        return (
            f"{head} {sides[w]} has more combatants standing, {counts[w]} to {counts[1 - w]}:"
            f" {sides[w]} wins."
        )
    standing = f"Both have {plural(counts[0], 'combatant')} standing;"
    if event["step"] == 2:
        w = event["winner"]
        return (
            f"{head} {standing} {left(w)}, {left(1 - w)}: {sides[w]} wins on the larger share"
            " of its HP."
        )
    return f"{head} {standing} {left(0)}, {left(1)}, the same share: a draw."


def render_text(log: dict) -> str:
    n = names(log)
    sides = [s["name"] for s in log["sides"]]
    lines = [f"{sides[0]} vs {sides[1]}, seed {log['seed']}"]
    for event in log["events"]:
        lines.append(("  " if event["kind"] != "round_start" else "") + describe(event, n, sides))
    for g in log["result"].get("growth", []):
        lines.append(f"Growth: {n[g['combatant']]} Rank {g['rank_before']} -> {g['rank_after']}.")
    return "\n".join(lines)
