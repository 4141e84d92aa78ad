"""A review in words, for `manage.py review` and the viewer's text beside the graph.

The words hold for every game, a rout too (issue 41.7): a percentage is never below 0% or
above 100%, a list of the dice's swings names only rounds where they moved the Win% by a
tenth of a point or more, a game that was never in doubt says so, and a side's accuracy
counts only the rounds where a plan could change the result."""

from battles.engine.review import game_accuracy
from battles.engine.words import possessive

# A Win% that reads 0% or 100% (pct rounds to whole points): every playout from there
# ended the same way, whatever was planned.
SETTLED_BELOW, SETTLED_FROM = 0.005, 0.995
# The dice moved less than this many points: "0.0" in words, so not worth naming.
NO_SWING = 0.05


def pct(p: float) -> str:
    """A share in whole percent, never outside 0-100% (a luck-adjusted result of a lost
    game whose dice were kind, 0 - 0.01, is 0%, not -1%)."""
    return f"{round(100 * min(1.0, max(0.0, p)))}%"


def signed(points: float) -> str:
    return f"{points:+.1f}".replace("+0.0", "0.0").replace("-0.0", "0.0")


def settled(win: float) -> bool:
    return win < SETTLED_BELOW or win >= SETTLED_FROM


def dice_words(points: float, name: str) -> str:
    """One round's luck: "the dice +4.2 points for Aces", or that they changed nothing."""
    if abs(points) < NO_SWING:
        return "the dice changed nothing"
    return f"the dice {signed(points)} points for {name}"


def luck_sentence(data: dict, names) -> str:
    """Who the dice favoured and what the plans gave up: "Night Shift's dice were worth
    +18.0 points; Sunrise Squad's plans gave up 9.0"."""
    luck = data["luck"]
    if abs(luck[0]) < NO_SWING:
        text = "The dice favoured neither side"
    else:
        lucky = 0 if luck[0] >= luck[1] else 1
        text = f"{possessive(names[lucky])} dice were worth {signed(luck[lucky])} points"
    losses = [(data["plan_loss"][s], names[s]) for s in (0, 1) if data["plan_loss"][s] is not None]
    for loss, name in losses:
        text += f"; {possessive(name)} plans gave up {loss:.1f}"
    return text + "."


def swings(data: dict) -> list[int]:
    """The rounds where the dice swung the game most, leaving out those where they moved
    nothing (a rout's three "biggest" swings were 0.0 points each)."""
    by_round = {r["round"]: r for r in data["rounds"]}
    return [n for n in data["swings"] if abs(by_round[n]["luck"][0]) >= NO_SWING]


def counted_accuracy(data: dict) -> list[float | None]:
    """Each side's accuracy over the rounds where its plan could change the result: a round
    counts when its Win% was not settled at 0% or 100%, or when the plan gave points up all
    the same. A careless plan at 100% gives nothing up and proves nothing; a side with no
    such round gets no accuracy (None), never a 100% it did not earn."""
    out = []
    for s in (0, 1):
        losses = [
            r["plan_loss"][s]
            for r in data["rounds"]
            if r["plan_loss"][s] is not None and (r["plan_loss"][s] > 0 or not settled(r["win_a"]))
        ]
        out.append(game_accuracy(losses))
    return out


def unclaimed_accuracy(data: dict, names) -> list[str]:
    """A sentence for each rated side whose accuracy is not claimed, and why."""
    counted = counted_accuracy(data)
    return [
        f"No accuracy for {names[s]}: no plan of theirs could change the result "
        "(every round they planned stood at 0% or 100%)."
        for s in (0, 1)
        if counted[s] is None and any(r["plan_loss"][s] is not None for r in data["rounds"])
    ]


def decided_sentence(data: dict, names) -> str:
    """A game whose Win% sat at its result from some round on, said in words: "Aces's win
    was certain from the start: every playout from round 1 on ended in it, whatever either
    side planned and however the dice fell." Empty when the game was in doubt to the end
    (or ended in a draw)."""
    result = data["result"][0]
    rows = data["rounds"]
    if result not in (0, 1) or not rows:
        return ""
    first = None
    for row in reversed(rows):
        if not settled(row["win_a"]) or round(row["win_a"]) != result:
            break
        first = row["round"]
    if first is None:
        return ""
    winner = names[0] if result == 1 else names[1]
    when = "from the start" if first == rows[0]["round"] else f"from round {first}"
    return (
        f"{possessive(winner)} win was certain {when}: every playout from round {first} on "
        "ended in it, whatever either side planned and however the dice fell."
    )


def review_words(data: dict, names) -> list[str]:
    """The review as lines of text: the curve, each round's marks and luck, the totals."""
    a, b = names
    lines = [f"Win% of {a} (side A) against {b} at the start of each round, 95% interval:"]
    for row in data["rounds"]:
        line = (
            f"Round {row['round']}: {pct(row['win_a'])}"
            f" ({pct(row['win_a_low'])}-{pct(row['win_a_high'])});"
            f" after the plans {pct(row['planned_win_a'])};"
            f" {dice_words(row['luck'][0], a)}"
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
    decided = decided_sentence(data, names)
    if decided:
        lines.append(decided)
    accuracy = counted_accuracy(data)
    for s in (0, 1):
        if accuracy[s] is not None:
            lines.append(f"{possessive(names[s])} accuracy: {accuracy[s]:.1f}%.")
    lines += unclaimed_accuracy(data, names)
    adjusted = data["luck_adjusted"][0]
    lines.append(
        f"Luck-adjusted result: {a} {pct(adjusted)}, {b} {pct(1 - adjusted)}"
        " (the result less the dice's luck)."
    )
    swung = swings(data)
    if swung:
        lines.append(f"The dice swung the game most in rounds {', '.join(map(str, swung))}.")
    else:
        lines.append("The dice never moved the Win% by a tenth of a point.")
    return lines
