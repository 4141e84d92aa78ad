"""The site's pages, one module per area; cards/urls.py maps them."""

from .access import (
    get_card_for_owner,
    get_character_for_owner,
    get_character_for_viewer,
    get_party_for_owner,
    get_party_for_viewer,
)

__all__ = [
    "get_card_for_owner",
    "get_character_for_owner",
    "get_character_for_viewer",
    "get_party_for_owner",
    "get_party_for_viewer",
]
