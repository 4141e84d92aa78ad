"""Server-drawn SVG charts for the lab. Each chart is also printed as a table beside it
(the template's job), so the SVG itself is hidden from screen readers.

Colours come from classes in static/css/lab.css (the CSP allows no style attributes)."""

from django.utils.html import escape
from django.utils.safestring import mark_safe

W = 560  # the viewBox width; the SVG scales to its container


def _svg(height: int, body: list[str], label: str) -> str:
    return mark_safe(
        f'<svg class="chart" viewBox="0 0 {W} {height}" width="100%" '
        f'preserveAspectRatio="xMinYMin meet" aria-hidden="true" focusable="false" '
        f'data-label="{escape(label)}">' + "".join(body) + "</svg>"
    )


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _axis(x0: int, x1: int, y: int, ticks=(0, 0.25, 0.5, 0.75, 1)) -> list[str]:
    out = [f'<line class="axis" x1="{x0}" y1="{y}" x2="{x1}" y2="{y}"/>']
    for t in ticks:
        x = x0 + (x1 - x0) * t
        out.append(f'<line class="grid" x1="{x:.1f}" y1="12" x2="{x:.1f}" y2="{y}"/>')
        out.append(
            f'<text class="tick" x="{x:.1f}" y="{y + 16}" text-anchor="middle">{_pct(t)}</text>'
        )
    return out


def interval_rows(rows: list[dict], label: str) -> str:
    """Horizontal bars from 0 to each rate, with the 95% interval as a whisker.

    rows: [{"label", "rate", "low", "high", "kind"}], kind a class suffix (a, b, draw)."""
    left, right, row_h = 185, W - 30, 32
    height = 20 + row_h * len(rows) + 26
    axis_y = 14 + row_h * len(rows)
    body = _axis(left, right, axis_y)
    span = right - left
    for n, row in enumerate(rows):
        y = 16 + n * row_h
        name = escape(row["label"])
        if len(name) > 19:
            name = name[:18] + "…"
        body.append(
            f'<text class="label" x="{left - 8}" y="{y + row_h / 2 + 3:.0f}" '
            f'text-anchor="end">{name}</text>'
        )
        w = max(span * row["rate"], 0.5)
        body.append(
            f'<rect class="bar bar-{row.get("kind", "a")}" x="{left}" y="{y + 3}" '
            f'width="{w:.1f}" height="{row_h - 10}"/>'
        )
        lo, hi = left + span * row["low"], left + span * row["high"]
        mid = y + row_h / 2 - 2
        body.append(f'<line class="whisker" x1="{lo:.1f}" y1="{mid}" x2="{hi:.1f}" y2="{mid}"/>')
        for x in (lo, hi):
            body.append(
                f'<line class="whisker" x1="{x:.1f}" y1="{mid - 6}" x2="{x:.1f}" y2="{mid + 6}"/>'
            )
    return _svg(height, body, label)


def histogram(bins: list[tuple[int, int]], label: str) -> str:
    """Battles per length in rounds: one bar per round from the shortest to the longest."""
    if not bins:
        return _svg(40, [], label)
    first, last = bins[0][0], bins[-1][0]
    counts = dict(bins)
    peak = max(counts.values())
    left, right, top, bottom = 40, W - 10, 10, 170
    n = last - first + 1
    slot = (right - left) / n
    body = [f'<line class="axis" x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}"/>']
    body.append(f'<text class="tick" x="{left - 6}" y="{top + 10}" text-anchor="end">{peak}</text>')
    body.append(f'<text class="tick" x="{left - 6}" y="{bottom}" text-anchor="end">0</text>')
    step = max(1, round(n / 12))
    for k in range(n):
        r = first + k
        h = (bottom - top) * counts.get(r, 0) / peak
        x = left + k * slot
        body.append(
            f'<rect class="bar bar-len" x="{x + slot * 0.1:.1f}" y="{bottom - h:.1f}" '
            f'width="{slot * 0.8:.1f}" height="{h:.1f}"/>'
        )
        if k % step == 0 or r == last:
            body.append(
                f'<text class="tick" x="{x + slot / 2:.1f}" y="{bottom + 16}" '
                f'text-anchor="middle">{r}</text>'
            )
    body.append(
        f'<text class="tick" x="{(left + right) / 2}" y="{bottom + 34}" text-anchor="middle">'
        "rounds</text>"
    )
    return _svg(bottom + 40, body, label)


def difference_rows(rows: list[dict], label: str) -> str:
    """Differences in win rate (percentage points) with their intervals, around zero.

    rows: [{"label", "diff", "low", "high"}] with values in -1..1."""
    left, right, row_h = 185, W - 30, 32
    height = 20 + row_h * len(rows) + 26
    axis_y = 14 + row_h * len(rows)
    extent = max([0.1] + [max(abs(r["low"]), abs(r["high"])) for r in rows])
    extent = min(1.0, round(extent + 0.05, 1))
    span = right - left

    def x(v):
        return left + span * (v + extent) / (2 * extent)

    body = [f'<line class="axis" x1="{left}" y1="{axis_y}" x2="{right}" y2="{axis_y}"/>']
    for t in (-extent, -extent / 2, 0, extent / 2, extent):
        body.append(
            f'<line class="grid{" zero" if t == 0 else ""}" x1="{x(t):.1f}" y1="12" '
            f'x2="{x(t):.1f}" y2="{axis_y}"/>'
        )
        body.append(
            f'<text class="tick" x="{x(t):.1f}" y="{axis_y + 16}" text-anchor="middle">'
            f"{100 * t:+.0f}</text>"
        )
    for n, row in enumerate(rows):
        y = 16 + n * row_h
        mid = y + row_h / 2 - 2
        name = escape(row["label"])
        if len(name) > 19:
            name = name[:18] + "…"
        body.append(
            f'<text class="label" x="{left - 8}" y="{mid + 5}" text-anchor="end">{name}</text>'
        )
        body.append(
            f'<line class="whisker" x1="{x(row["low"]):.1f}" y1="{mid}" '
            f'x2="{x(row["high"]):.1f}" y2="{mid}"/>'
        )
        kind = "a" if row["diff"] >= 0 else "b"
        body.append(f'<circle class="dot dot-{kind}" cx="{x(row["diff"]):.1f}" cy="{mid}" r="5"/>')
    return _svg(height, body, label)
