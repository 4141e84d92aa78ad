"""Server-drawn SVG charts for the lab. Each chart is also printed as a table beside it
(the template's job), so the SVG itself is hidden from screen readers.

Each chart is drawn twice: wide (560 units, names left of the bars) and narrow (340
units, names above the bars, fewer ticks) for a phone, and static/css/lab.css shows the
one that fits, so neither is shrunk to unreadable text nor cut off at the screen's edge
(issue 21.2). Every label is placed inside the drawing, whatever its length.

Colours come from classes in static/css/lab.css (the CSP allows no style attributes)."""

from django.utils.html import escape
from django.utils.safestring import mark_safe

W = 560  # the wide viewBox width; the SVG scales to its container
NARROW = 340  # the phone's: about the width of a 390 px screen's column, so text stays 15 px
CHAR = 8.5  # a generous width of one character of the 15 px chart font, in viewBox units


def _svg(width: int, height: int, body: list[str], label: str, kind: str) -> str:
    return (
        f'<svg class="chart chart-{kind}" viewBox="0 0 {width} {height}" width="100%" '
        f'preserveAspectRatio="xMinYMin meet" aria-hidden="true" focusable="false" '
        f'data-label="{escape(label)}">' + "".join(body) + "</svg>"
    )


def _both(draw, *args) -> str:
    return mark_safe(draw(*args, wide=True) + draw(*args, wide=False))


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _name(label: str, room: float) -> str:
    """The label cut to the characters that fit in `room` units, with an ellipsis."""
    most = max(4, int(room / CHAR))
    return escape(label if len(label) <= most else label[: most - 1] + "…")


def _axis(x0: float, x1: float, y: float, ticks) -> list[str]:
    out = [f'<line class="axis" x1="{x0}" y1="{y}" x2="{x1}" y2="{y}"/>']
    for t in ticks:
        x = x0 + (x1 - x0) * t
        out.append(f'<line class="grid" x1="{x:.1f}" y1="12" x2="{x:.1f}" y2="{y}"/>')
        out.append(
            f'<text class="tick" x="{x:.1f}" y="{y + 16}" text-anchor="middle">{_pct(t)}</text>'
        )
    return out


def _interval_rows(rows: list[dict], label: str, *, wide: bool) -> str:
    width = W if wide else NARROW
    # Wide: the name left of its bar. Narrow: the name on a line of its own above it.
    left, right = (185, width - 30) if wide else (22, width - 22)
    head = 0 if wide else 18
    row_h = 32 + head
    axis_y = 14 + row_h * len(rows)
    height = axis_y + 26
    ticks = (0, 0.25, 0.5, 0.75, 1) if wide else (0, 0.5, 1)
    body = _axis(left, right, axis_y, ticks)
    span = right - left
    for n, row in enumerate(rows):
        y = 16 + n * row_h + head
        if wide:
            body.append(
                f'<text class="label" x="{left - 8}" y="{y + 19}" text-anchor="end">'
                f"{_name(row['label'], left - 16)}</text>"
            )
        else:
            body.append(
                f'<text class="label" x="{left}" y="{y - 4}">{_name(row["label"], span)}</text>'
            )
        w = max(span * row["rate"], 0.5)
        body.append(
            f'<rect class="bar bar-{row.get("kind", "a")}" x="{left}" y="{y + 3}" '
            f'width="{w:.1f}" height="22"/>'
        )
        lo, hi = left + span * row["low"], left + span * row["high"]
        mid = y + 14
        body.append(f'<line class="whisker" x1="{lo:.1f}" y1="{mid}" x2="{hi:.1f}" y2="{mid}"/>')
        for x in (lo, hi):
            body.append(
                f'<line class="whisker" x1="{x:.1f}" y1="{mid - 6}" x2="{x:.1f}" y2="{mid + 6}"/>'
            )
    return _svg(width, height, body, label, "wide" if wide else "narrow")


def interval_rows(rows: list[dict], label: str) -> str:
    """Horizontal bars from 0 to each rate, with the 95% interval as a whisker.

    rows: [{"label", "rate", "low", "high", "kind"}], kind a class suffix (a, b, draw)."""
    return _both(_interval_rows, rows, label)


def _histogram(bins: list[tuple[int, int]], label: str, *, wide: bool) -> str:
    width = W if wide else NARROW
    kind = "wide" if wide else "narrow"
    if not bins:
        return _svg(width, 40, [], label, kind)
    first, last = bins[0][0], bins[-1][0]
    counts = dict(bins)
    peak = max(counts.values())
    # The count labels sit left of the axis, right-aligned: room for the longest in full.
    left = 12 + CHAR * len(str(peak))
    right, top, bottom = width - 10, 16, 176
    n = last - first + 1
    slot = (right - left) / n
    body = [f'<line class="axis" x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}"/>']
    body.append(f'<text class="tick" x="{left - 6}" y="{top + 5}" text-anchor="end">{peak}</text>')
    body.append(f'<line class="grid" x1="{left}" y1="{top}" x2="{right}" y2="{top}"/>')
    body.append(f'<text class="tick" x="{left - 6}" y="{bottom}" text-anchor="end">0</text>')
    # One round label per ~45 units, so the numbers never touch.
    step = max(1, -(-n * 45 // int(right - left)))
    for k in range(n):
        r = first + k
        h = (bottom - top) * counts.get(r, 0) / peak
        x = left + k * slot
        body.append(
            f'<rect class="bar bar-len" x="{x + slot * 0.1:.1f}" y="{bottom - h:.1f}" '
            f'width="{slot * 0.8:.1f}" height="{h:.1f}"/>'
        )
        if k % step == 0 or (r == last and (n - 1) % step >= step / 2):
            body.append(
                f'<text class="tick" x="{x + slot / 2:.1f}" y="{bottom + 16}" '
                f'text-anchor="middle">{r}</text>'
            )
    body.append(
        f'<text class="tick" x="{(left + right) / 2}" y="{bottom + 34}" text-anchor="middle">'
        "rounds</text>"
    )
    return _svg(width, bottom + 42, body, label, kind)


def histogram(bins: list[tuple[int, int]], label: str) -> str:
    """Battles per length in rounds: one bar per round from the shortest to the longest."""
    return _both(_histogram, bins, label)


def _difference_rows(rows: list[dict], label: str, *, wide: bool) -> str:
    width = W if wide else NARROW
    left, right = (185, width - 30) if wide else (22, width - 22)
    head = 0 if wide else 18
    row_h = 32 + head
    axis_y = 14 + row_h * len(rows)
    height = axis_y + 26
    extent = max([0.1] + [max(abs(r["low"]), abs(r["high"])) for r in rows])
    extent = min(1.0, round(extent + 0.05, 1))
    span = right - left

    def x(v):
        return left + span * (v + extent) / (2 * extent)

    body = [f'<line class="axis" x1="{left}" y1="{axis_y}" x2="{right}" y2="{axis_y}"/>']
    ticks = (-extent, -extent / 2, 0, extent / 2, extent) if wide else (-extent, 0, extent)
    for t in ticks:
        body.append(
            f'<line class="grid{" zero" if t == 0 else ""}" x1="{x(t):.1f}" y1="12" '
            f'x2="{x(t):.1f}" y2="{axis_y}"/>'
        )
        body.append(
            f'<text class="tick" x="{x(t):.1f}" y="{axis_y + 16}" text-anchor="middle">'
            f"{100 * t:+.0f}</text>"
        )
    for n, row in enumerate(rows):
        y = 16 + n * row_h + head
        mid = y + 14
        if wide:
            body.append(
                f'<text class="label" x="{left - 8}" y="{mid + 5}" text-anchor="end">'
                f"{_name(row['label'], left - 16)}</text>"
            )
        else:
            body.append(
                f'<text class="label" x="{left}" y="{y - 4}">{_name(row["label"], span)}</text>'
            )
        body.append(
            f'<line class="whisker" x1="{x(row["low"]):.1f}" y1="{mid}" '
            f'x2="{x(row["high"]):.1f}" y2="{mid}"/>'
        )
        kind = "a" if row["diff"] >= 0 else "b"
        body.append(f'<circle class="dot dot-{kind}" cx="{x(row["diff"]):.1f}" cy="{mid}" r="5"/>')
    return _svg(width, height, body, label, "wide" if wide else "narrow")


def difference_rows(rows: list[dict], label: str) -> str:
    """Differences in win rate (percentage points) with their intervals, around zero.

    rows: [{"label", "diff", "low", "high"}] with values in -1..1."""
    return _both(_difference_rows, rows, label)
