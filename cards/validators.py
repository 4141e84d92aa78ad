"""The one check on every name and text a player writes (issue 11.8).

Refused: the bidirectional controls (U+202A-U+202E, U+2066-U+2069, the LRM, RLM and ALM
marks), which can make "gpj.exe" read as "exe.jpg" or reorder a card's rules text; NUL and
every other C0 and C1 control and DEL; zero-width and other invisible formatting
characters (Unicode category Cf, which holds the ZWSP, ZWJ, word joiner and BOM); lone
surrogates, which no database or UTF-8 file can store. Multi-line fields keep newlines
and tabs. A name with an emoji joined by a ZWJ is refused too: one rule, no exceptions.
"""

import unicodedata

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible

MULTI_LINE_ALLOWED = frozenset("\n\r\t")
# Category Cc is C0, DEL and C1; Cf holds the bidi controls and the zero-width characters;
# Cs is a lone surrogate half.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})


def first_refused(value: str, *, multi_line: bool) -> str | None:
    for ch in value:
        if multi_line and ch in MULTI_LINE_ALLOWED:
            continue
        if unicodedata.category(ch) in REFUSED_CATEGORIES:
            return ch
    return None


@deconstructible
class PlainText:
    """Refuse invisible and control characters; `multi_line` allows newlines and tabs."""

    def __init__(self, multi_line: bool = False):
        self.multi_line = multi_line

    def __call__(self, value):
        if not isinstance(value, str):
            return
        ch = first_refused(value, multi_line=self.multi_line)
        if ch is not None:
            name = unicodedata.name(ch, "") if unicodedata.category(ch) != "Cs" else ""
            shown = f"U+{ord(ch):04X}" + (f" {name}" if name else "")
            raise ValidationError(
                f"Remove the invisible or control character {shown}: "
                "it can hide or reorder what others read.",
                code="control_character",
            )

    def __eq__(self, other):
        return isinstance(other, PlainText) and other.multi_line == self.multi_line


single_line = PlainText()
multi_line = PlainText(multi_line=True)
