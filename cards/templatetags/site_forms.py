"""Accessible form errors, as the GOV.UK Design System shows them."""

from django import template

register = template.Library()


@register.simple_tag
def error_items(*forms) -> list[tuple[str, str]]:
    """(field id or "", message) for every error of the bound forms given, in field order.

    The summary links each message to its field; Django itself marks the field with
    aria-invalid and ties the message shown above it with aria-describedby.
    """
    items = []
    for form in forms:
        if not getattr(form, "is_bound", False) or not form.errors:
            continue
        items += [("", error) for error in form.non_field_errors()]
        for field in form:
            items += [(field.id_for_label or "", error) for error in field.errors]
    return items
