"""Imported by the render fork server (pdf._get_context): WeasyPrint, the fonts and the
cards' stylesheets load once there, and every render child forked from it starts warm."""

from pathlib import Path

# The site's own static folder (settings.STATICFILES_DIRS), found without Django, which
# the fork server does not load; a render reads the same files through its roots.
STATIC_CSS = Path(__file__).resolve().parents[2] / "static" / "css"

try:
    from .pdf import warm_up

    warm_up((STATIC_CSS / "card.css", STATIC_CSS / "print.css"))
except Exception:  # a failed warm-up only makes the first render slower
    pass
