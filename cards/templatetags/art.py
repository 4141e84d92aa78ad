from django import template
from django.utils.safestring import mark_safe

from cards.printing.art import character_art_svg

register = template.Library()


@register.simple_tag
def default_art(character):
    """The character's generated picture (cards/printing/art.py); every value is escaped
    or checked there, so the markup is safe to insert."""
    return mark_safe(character_art_svg(character))  # noqa: S308
