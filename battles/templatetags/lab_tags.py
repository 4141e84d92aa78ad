from django import template

register = template.Library()


@register.filter
def pct(value, places=1):
    """0.5234 -> "52.3%"; None (nothing to divide by) -> an en dash."""
    if value is None:
        return "–"
    return f"{100 * value:.{int(places)}f}%"


@register.filter
def pp(value):
    """A difference of proportions in percentage points, signed: 0.031 -> "+3.1"."""
    return f"{100 * value:+.1f}"
