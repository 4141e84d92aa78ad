"""A review in words, for `manage.py review` and the viewer's text beside the graph."""

from battles.engine.words import possessive


def pct(p: float) -> str:
    return f"{round(100 * p)}%"


def signed(points: float) -> str:
    return f"{points:+.1f}".replace("+0.0", "0.0").replace("-0.0", "0.0")


def luck_sentence(data: dict, names) -> str:
    """Who the dice favoured and what the plans gave up: "Night Shift's dice were worth
    +18.0 points; Sunrise Squad's plans gave up 9.0"."""
    luck = data["luck"]
    lucky = 0 if luck[0] >= luck[1] else 1
    text = f"{possessive(names[lucky])} dice were worth {signed(luck[lucky])} points"
    losses = [(data["plan_loss"][s], names[s]) for s in (0, 1) if data["plan_loss"][s] is not None]
    for loss, name in losses:
        text += f"; {possessive(name)} plans gave up {loss:.1f}"
    return text + "."


def review_words(data: dict, names) -> list[str]:
    """The review as lines of text: the curve, each round's marks and luck, the totals."""
    a, b = names
    lines = [f"Win% of {a} (side A) against {b} at the start of each round, 95% interval:"]
    for row in data["rounds"]:
        line = (
            f"Round {row['round']}: {pct(row['win_a'])}"
            f" ({pct(row['win_a_low'])}-{pct(row['win_a_high'])});"
            f" after the plans {pct(row['planned_win_a'])};"
            f" the dice {signed(row['luck'][0])} points for {a}"
        )
        lines.append(line)
        for s in (0, 1):
            if row["mark"][s]:
                lines.append(
                    f"  {names[s]}: {row['mark'][s]}, {row['plan_loss'][s]:.1f} points."
                    f" {row['better'][s]}."
                )
    result = data["result"][0]
    outcome = "a draw" if result == 0.5 else (f"{a} won" if result == 1 else f"{b} won")
    lines.append(f"Result: {outcome}. {luck_sentence(data, names)}")
    for s in (0, 1):
        if data["accuracy"][s] is not None:
            lines.append(f"{possessive(names[s])} accuracy: {data['accuracy'][s]:.1f}%.")
    adjusted = data["luck_adjusted"][0]
    lines.append(
        f"Luck-adjusted result: {a} {pct(adjusted)}, {b} {pct(1 - adjusted)}"
        " (the result less the dice's luck)."
    )
    swings = ", ".join(str(r) for r in data["swings"])
    lines.append(f"The dice swung the game most in rounds {swings}.")
    return lines
