"""The site's pages, one module per area; cards/urls.py maps them.

The names the foundation's single views module had are re-exported so that code
written against it keeps working.
"""

from .access import (
    CHARACTER_MODELS,
    get_card_for_owner,
    get_cards_for_owner,
    get_character_for_owner,
    get_character_for_viewer,
    get_party_for_owner,
    get_party_for_viewer,
)
from .characters import character_page, home
from .parties import party_page
from .typechart import type_chart_page, types_css

__all__ = [
    "CHARACTER_MODELS",
    "character_page",
    "get_card_for_owner",
    "get_cards_for_owner",
    "get_character_for_owner",
    "get_character_for_viewer",
    "get_party_for_owner",
    "get_party_for_viewer",
    "home",
    "party_page",
    "type_chart_page",
    "types_css",
]
