"""The Rules page: the game's own text, then the rulings (RULES.md) that fix one reading
of it, as HTML. RULES.md is small, regular Markdown (headings, paragraphs, lists, tables,
indented formulas), so a few lines render it; no Markdown dependency."""

import re
from functools import cache
from html import escape
from pathlib import Path

RULES_DIR = Path(__file__).resolve().parent / "data" / "rules"
GAME_TEXT = RULES_DIR / "game.txt"
RULINGS = RULES_DIR / "RULES.md"
# The game text's own damage line reads two ways; R5 states the formula once, exactly.
DAMAGE_LINE = "Damage Formula:"


def _inline(text: str) -> str:
    html = escape(text, quote=False)
    html = re.sub(r"`([^`]+)`", r"<code>\1</code>", html)
    html = re.sub(r"\*([^*]+)\*", r"<em>\1</em>", html)
    return re.sub(r"\bR(10|[1-9])\b", r'<a href="#r\1">R\1</a>', html)


def _table(rows: list[str], label: str = "Table") -> str:
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    head, body = cells[0], [r for r in cells[1:] if not set("".join(r)) <= set("-: ")]
    # Each scrolling region is a landmark, so each gets a name of its own (axe: landmark-unique).
    out = [
        "<div class='table-scroll' tabindex='0' role='region' "
        f"aria-label='{escape(label, quote=True)}'><table>"
    ]
    out.append("<thead><tr>" + "".join(f"<th scope='col'>{_inline(c)}</th>" for c in head))
    out.append("</tr></thead><tbody>")
    out += ["<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>" for r in body]
    return "".join(out) + "</tbody></table></div>"


def markdown(text: str) -> str:
    blocks, lines = [], text.splitlines()
    i = 0
    heading, tables = "", 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.startswith("# "):
            i += 1
        elif m := re.match(r"## (R(\d+)) (.*)", line):
            blocks.append(f"<h3 id='r{m[2]}'>{m[1]} {escape(m[3])}</h3>")
            heading, tables = f"{m[1]} {m[3]}", 0
            i += 1
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            tables += 1
            label = f"{heading} table" if heading else "Table"
            blocks.append(_table(rows, label if tables == 1 else f"{label} {tables}"))
        elif line.startswith("    "):
            code = []
            while i < len(lines) and lines[i].startswith("    "):
                code.append(lines[i][4:])
                i += 1
            blocks.append(f"<pre class='formula-block'>{escape(chr(10).join(code))}</pre>")
        elif re.match(r"(- |\d+\. )", line):
            tag = "ul" if line.startswith("- ") else "ol"
            items: list[str] = []
            while i < len(lines) and (re.match(r"(- |\d+\. |   )", lines[i])):
                if re.match(r"(- |\d+\. )", lines[i]):
                    items.append(re.sub(r"^(- |\d+\. )", "", lines[i]))
                else:
                    items[-1] += " " + lines[i].strip()
                i += 1
            blocks.append(
                f"<{tag}>" + "".join(f"<li>{_inline(t)}</li>" for t in items) + f"</{tag}>"
            )
        else:
            para = []
            while (
                i < len(lines)
                and lines[i].strip()
                and not re.match(r"(## |\||- |\d+\. |    )", lines[i])
            ):
                para.append(lines[i].strip())
                i += 1
            blocks.append(f"<p>{_inline(' '.join(para))}</p>")
    return "\n".join(blocks)


@cache
def rules_html() -> dict[str, str]:
    game = []
    for line in GAME_TEXT.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        if line.startswith(DAMAGE_LINE):
            game.append(
                "<p>Damage: <a href='#r5'>the formula is written once, exactly, in R5</a>.</p>"
            )
        else:
            game.append(f"<p>{escape(line)}</p>")
    rulings = RULINGS.read_text(encoding="utf-8")
    # Keep the rulings from their first section; the preamble speaks to developers.
    rulings = rulings[rulings.index("## R1") :]
    return {"game": "\n".join(game), "rulings": markdown(rulings)}
