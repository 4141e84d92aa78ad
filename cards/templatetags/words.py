"""The small words in templates: `{{ n|plural:"card" }}`, `{{ name|possessive }}`,
`{{ chance|percent }}`. One rule each, kept in battles/engine/words.py."""

from django import template

from battles.engine import words

register = template.Library()


@register.filter
def plural(count, noun: str) -> str:
    """`{{ 2|plural:"card" }}` is "2 cards"; "noun,plural" names an irregular plural."""
    noun, _, many = noun.partition(",")
    return words.plural(int(count), noun, many or None)


@register.filter
def possessive(name) -> str:
    return words.possessive(str(name))


@register.filter
def percent(chance) -> str:
    return words.percent(chance)
