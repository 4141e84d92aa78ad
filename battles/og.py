"""The Open Graph preview image of a battle (1200 x 630 PNG), drawn with Pillow.

No network fonts: DejaVu Sans when the system has it, else Pillow's built-in font.
"""

import io
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 1200, 630
FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))
INK, PAPER = (34, 30, 48), (250, 248, 255)


@cache
def font(size: int, bold: bool = False):
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in FONT_DIRS:
        if (folder / name).exists():
            return ImageFont.truetype(str(folder / name), size)
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow built without FreeType: the fixed bitmap font
        return ImageFont.load_default()


def _colour(value: str, fallback=(136, 136, 136)):
    if isinstance(value, str) and len(value) == 7 and value.startswith("#"):
        try:
            return tuple(int(value[i : i + 2], 16) for i in (1, 3, 5))
        except ValueError:
            return fallback
    return fallback


def _fit(draw, text: str, size: int, width: int, bold=False) -> tuple[str, object]:
    """Shrink, then cut, a line until it fits the width."""
    while size > 14 and draw.textlength(text, font=font(size, bold)) > width:
        size -= 2
    f = font(size, bold)
    while len(text) > 1 and draw.textlength(text, font=f) > width:
        text = text[:-2] + "…"
    return text, f


def inputs(battle) -> dict:
    """Exactly what the picture shows, as plain data: the render store hashes it (a battle's
    picture is drawn once, by a task worker) and `paint` draws from it alone."""
    log = battle.log
    types = battle.snapshot.get("types", {})
    sides = [
        {
            "name": side["name"],
            "combatants": [
                {"name": c["name"], "type": c["type"], "rank": c.get("rank")}
                for c in side["combatants"][:7]
            ],
        }
        for side in log["sides"]
    ]
    used = {c["type"] for side in sides for c in side["combatants"]}
    return {
        "sides": sides,
        "colours": {name: types.get(name, {}).get("colour") for name in sorted(used)},
        "winner": log["result"]["winner"],
        "rounds": log["result"]["rounds"],
        "seed": log["seed"],
    }


def render(battle) -> bytes:
    return paint(inputs(battle))


def paint(data: dict) -> bytes:
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH, 90), fill=INK)
    draw.text((40, 22), "Memeyori battle", font=font(40, True), fill=(255, 255, 255))
    half = WIDTH // 2
    for index, side in enumerate(data["sides"]):
        x = 40 + index * half
        won = data["winner"] == index
        title, f = _fit(draw, side["name"], 44, half - 80, bold=True)
        draw.text((x, 120), title, font=f, fill=INK)
        if won:
            draw.text((x, 172), "WINNER", font=font(28, True), fill=(30, 120, 50))
        y = 220
        for c in side["combatants"]:
            colour = _colour(data["colours"].get(c["type"]))
            draw.rounded_rectangle((x, y, x + 28, y + 28), radius=6, fill=colour)
            label = f"{c['name']} · {c['type']}"
            if c.get("rank"):
                label += f" · Rank {c['rank']}"
            line, f = _fit(draw, label, 26, half - 130)
            draw.text((x + 40, y), line, font=f, fill=INK)
            y += 42
    draw.line((half, 110, half, HEIGHT - 100), fill=(200, 196, 215), width=3)
    if data["winner"] is None:
        verdict = f"Draw after {data['rounds']} rounds"
    else:
        verdict = f"{data['sides'][data['winner']]['name']} wins in {data['rounds']} rounds"
    draw.rectangle((0, HEIGHT - 80, WIDTH, HEIGHT), fill=INK)
    line, f = _fit(draw, f"{verdict} · seed {data['seed']}", 34, WIDTH - 80, bold=True)
    draw.text((40, HEIGHT - 62), line, font=f, fill=(255, 255, 255))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
