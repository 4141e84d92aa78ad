"""The review under the viewer: side A's Win% by round as plain SVG geometry, and the rows
of text beside it, spoiler-free as the viewer is (issue 32)."""

from battles.engine.state import frame_end
from battles.engine.words import possessive

from . import words
from .words import luck_sentence, pct

WIDTH, HEIGHT = 400, 180
PAD_X, PAD_Y = 40, 14
MARK_WORDS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def _dice_step(log: dict, frames: list[dict], round_no: int) -> int:
    """The viewer step of the round's first roll (its first attack), else its first step."""
    if round_no >= len(frames):
        return 1
    first = frames[round_no]["first_event"]
    last = frame_end(frames, round_no, len(log["events"]))
    for index in range(first, last):
        if log["events"][index]["kind"] == "attack":
            return index - first + 1
    return 1


def graph(data: dict, names, *, upto: int, ended: bool, log: dict, frames: list[dict]) -> dict:
    """What the template draws. `upto`: the round shown; before the end, only the rounds
    up to it are drawn (each from its start), and only the luck and marks of the rounds
    before it, so the graph tells nothing the viewer has not shown yet."""
    rows = data["rounds"]
    count = len(rows)
    shown = rows if ended else [r for r in rows if r["round"] <= upto]
    told = rows if ended else [r for r in rows if r["round"] < upto]
    # The x axis has a place for every round and the result: the round count is on the
    # viewer's round list already, so it gives nothing away.
    span = max(count, 1)

    def x(i: float) -> float:
        return round(PAD_X + (WIDTH - 2 * PAD_X) * i / span, 1)

    def y(p: float) -> float:
        return round(PAD_Y + (HEIGHT - 2 * PAD_Y) * (1 - p), 1)

    points = [(x(i), y(r["win_a"])) for i, r in enumerate(shown)]
    if ended:
        points.append((x(count), y(data["result"][0])))
    upper = [(x(i), y(r["win_a_high"])) for i, r in enumerate(shown)]
    lower = [(x(i), y(r["win_a_low"])) for i, r in enumerate(shown)]
    band = " ".join(f"{a},{b}" for a, b in upper + lower[::-1])
    marks = []
    lines = []
    for i, r in enumerate(shown):
        text = (
            f"Round {r['round']}: {names[0]} {pct(r['win_a'])}"
            f" (95% interval {pct(r['win_a_low'])} to {pct(r['win_a_high'])})"
        )
        notes = []
        marked = False
        if r in told:
            notes.append(words.dice_words(r["luck"][0], names[0]))
            for s in (0, 1):
                if r["mark"][s]:
                    marked = True
                    notes.append(f"{names[s]}: {r['mark'][s]}, {r['better'][s]}")
                    marks.append(
                        {
                            "x": x(i),
                            "y": y(r["win_a"]),
                            "side": s,
                            "label": MARK_WORDS[r["mark"][s]],
                        }
                    )
        lines.append({"round": r["round"], "text": text, "notes": notes, "marked": marked})
    swings = []
    if ended:
        for round_no in words.swings(data):
            row = rows[round_no - 1]
            swings.append(
                {
                    "round": round_no,
                    "luck": words.signed(row["luck"][0]),
                    "step": _dice_step(log, frames, round_no),
                }
            )
    every = -(-count // 12)  # at most about a dozen labels, so they never overlap
    ticks = [{"x": x(i), "label": str(r["round"])} for i, r in enumerate(rows) if i % every == 0]
    ticks.append({"x": x(count), "label": "end"})
    return {
        "own": [possessive(n) for n in names],
        "ticks": ticks,
        "width": WIDTH,
        "height": HEIGHT,
        "line": " ".join(f"{a},{b}" for a, b in points),
        "band": band,
        "dots": [{"x": a, "y": b} for a, b in points],
        "half": y(0.5),
        "top": y(1.0),
        "bottom": y(0.0),
        "left": PAD_X,
        "right": WIDTH - PAD_X,
        "marks": marks,
        "lines": lines,
        "ended": ended,
        "swings": swings,
        "accuracy": words.counted_accuracy(data) if ended else [None, None],
        "unclaimed": words.unclaimed_accuracy(data, names) if ended else [],
        "decided": words.decided_sentence(data, names) if ended else "",
        "luck_text": luck_sentence(data, names) if ended else "",
        "adjusted": pct(data["luck_adjusted"][0]) if ended else "",
        "result_x": x(count),
    }
