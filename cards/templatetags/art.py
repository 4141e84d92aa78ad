from django import template
from django.utils.safestring import mark_safe

from cards.printing.art import character_art_svg, look_svg

register = template.Library()


@register.simple_tag
def default_art(character):
    """The character's generated picture (cards/printing/art.py); every value is escaped
    or checked there, so the markup is safe to insert."""
    return mark_safe(character_art_svg(character))  # noqa: S308


@register.simple_tag
def look_art(look, symbol, prefix):
    """A look's picture (art.look_svg, the function the cards print with), its one id
    (the Type symbol's path, "s") renamed with `prefix`: the builder shows nine at once,
    and each <use> must find its own symbol. `prefix` is the template's own text."""
    svg = look_svg(look, symbol).replace('id="s"', f'id="{prefix}s"')
    return mark_safe(svg.replace('href="#s"', f'href="#{prefix}s"'))  # noqa: S308
