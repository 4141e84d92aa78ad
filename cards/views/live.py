"""What the builder's stats and odds panels read from the database: the type chart's
column for the reference defender's Type (R6).

The odds and expected damage themselves (R4, R5), and how they read ("lands 91.0%",
"expected 12.83"), live in cards/odds.py, pure Python beside the rules, which the printed
move cards use too.
"""

from ..models import Effect, Matchup, Type


def chart_against(defending_type) -> dict[int, str]:
    """{attacking Type id: effect} for one defending Type; one query, read fresh (R6)."""
    if defending_type is None:
        return {}
    return _chart_column(defending=defending_type)


def _chart_column(**defending) -> dict[int, str]:
    return dict(
        Matchup.objects.filter(**defending)
        .exclude(effect=Effect.NEUTRAL)
        .order_by()  # the model's ordering joins Type twice for nothing here
        .values_list("attacking_id", "effect")
    )


def types_and_chart(defending_slug: str) -> tuple[list, dict[int, str]]:
    """All Types, and the chart column of the defending Type named by its slug (R6).

    Two plain queries: measured cheaper than one with a subquery. An unknown or empty
    slug gives an all-neutral column.
    """
    types = list(Type.objects.all())
    if not defending_slug:
        return types, {}
    return types, _chart_column(defending__slug=defending_slug)
