"""What the builder's stats and odds panels read from the database: the type chart's
column for the reference defender's Type (R6).

The odds and expected damage themselves (R4, R5), and how they read ("lands 91.0%",
"expected 12.83"), live in cards/odds.py, pure Python beside the rules, which the printed
move cards use too.
"""

from memeyori_site.compiled import Compiled

from ..models import Effect, Matchup, Type


def _column(**defending):
    return (
        Matchup.objects.filter(**defending)
        .exclude(effect=Effect.NEUTRAL)
        .order_by()  # the model's ordering joins Type twice for nothing here
        .values_list("attacking_id", "effect")
    )


# Every keystroke in the builder reads these; compiled once (memeyori_site/compiled.py),
# each still reads the database afresh, so a GM's change to the chart shows at once.
ALL_TYPES = Compiled(lambda: Type.objects.all())
COLUMN_BY_ID = Compiled(lambda pk: _column(defending_id=pk), -7_301_967)
COLUMN_BY_SLUG = Compiled(lambda slug: _column(defending__slug=slug), "\x00a-slug-no-type-has")


def chart_against(defending_type) -> dict[int, str]:
    """{attacking Type id: effect} for one defending Type; one query, read fresh (R6)."""
    if defending_type is None:
        return {}
    return dict(COLUMN_BY_ID.rows(defending_type.pk))


def types_and_chart(defending_slug: str) -> tuple[list, dict[int, str]]:
    """All Types, and the chart column of the defending Type named by its slug (R6).

    Two plain queries: measured cheaper than one with a subquery. An unknown or empty
    slug gives an all-neutral column.
    """
    types = ALL_TYPES.objects()
    if not defending_slug:
        return types, {}
    return types, dict(COLUMN_BY_SLUG.rows(defending_slug))
