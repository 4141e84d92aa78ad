"""`{{ memeyori|idle_reason }}`: why a Memeyori can only wait, or "" (cards/idle.py)."""

from contextlib import suppress

from django import template
from django.core.exceptions import ValidationError

from cards.idle import idle_reason as _idle_reason
from cards.idle import party_idle_reasons
from cards.models import Party

register = template.Library()


@register.filter
def idle_reason(memeyori) -> str:
    if memeyori is None or getattr(memeyori, "kind", "") != "memeyori" or not memeyori.pk:
        return ""
    return _idle_reason(memeyori)


@register.filter
def party_form_idle(form) -> list[str]:
    """The party form's chosen Memeyori that can only wait (the saved ones before a post)."""
    if form.is_bound:
        members = form.chosen_memeyori() if hasattr(form, "cleaned_data") else []
    elif form.instance.pk:
        members = form.instance.memeyori_in_order()
    else:
        members = []
    return [reason for m in members if (reason := _idle_reason(m))]


@register.filter
def battle_form_idle(form) -> list[str]:
    """For the battle and lab forms: the idle Memeyori of the parties chosen (or prefilled)
    and of the person's own parties, each named with its party."""
    chosen = []
    for name in ("party_a", "party_b"):
        if name in form.fields and (value := form[name].value()):
            field = form.fields[name]
            # Not a party code: the form says so by the field, and there is nothing to warn.
            with suppress(ValidationError, ValueError):
                chosen += list(field.queryset.filter(**{field.to_field_name or "pk": value}))
    user = getattr(form, "user", None)
    own = list(Party.objects.filter(owner=user)) if user and user.is_authenticated else []
    return party_idle_reasons(chosen + own)
