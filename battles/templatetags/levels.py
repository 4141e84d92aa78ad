from django import template

from battles.choices import level_name as _level_name

register = template.Library()


@register.filter
def level_name(policy):
    """{{ battle.policy_b|level_name }}: "Thinker" for "lookahead" (battles.choices)."""
    return _level_name(policy)
