"""How counts, names and chances read in English, in one place (issue 21.9).

Pure Python like the rest of the engine: the battle log's text (log.py) uses it, and so do
the site's pages, through the `words` template filters (cards/templatetags/words.py).
"""

from fractions import Fraction

# Nouns whose plural is not the noun plus "s". Memeyori, like sheep, is its own plural.
IRREGULAR = {"Memeyori": "Memeyori"}


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """The count and its noun: `1 card`, `2 cards`, `0 cards`, `2 parties`."""
    if count == 1:
        return f"{count} {noun}"
    many = plural_form or IRREGULAR.get(noun) or _regular_plural(noun)
    return f"{count} {many}"


def _regular_plural(noun: str) -> str:
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in set("aeiou"):
        return noun[:-1] + "ies"
    return noun + "s"


def possessive(name: str) -> str:
    """`Ana's`, `Sparks'`: a name that already ends in s takes the apostrophe alone."""
    if not name:
        return name
    return name + ("'" if name[-1] in "sS" else "'s")


def percent(p: Fraction | float) -> str:
    """A chance as people read it, with one decimal.

    Certain and impossible are `100%` and `0%`; anything else never rounds to look like
    them: a chance of 0.99999 is `over 99.9%`, not `100.0%`, and 0.00001 is `under 0.1%`.
    """
    if p >= 1:
        return "100%"
    if p <= 0:
        return "0%"
    shown = f"{float(p) * 100:.1f}"
    if shown == "100.0":
        return "over 99.9%"
    if shown == "0.0":
        return "under 0.1%"
    return f"{shown}%"


def duration(seconds: int) -> str:
    """A length of time in its largest whole unit: `24 hours`, `3 days`, `90 minutes`."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        # A day reads better as 24 hours; two days and more as days.
        if seconds % size == 0 and (unit != "day" or seconds >= 2 * size):
            return plural(seconds // size, unit)
    return plural(seconds, "second")
