"""Taking back a submitted plan (issue 31.4, Showdown's "Cancel"): until the other side
has submitted its plan for the round, a side may withdraw its own and plan again.

The other side learns nothing: its page gets the same "changed" as for any write and asks
for its own view, which never showed this side's plan (services.game_state).
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from . import clock, services
from .models import Game, GameStatus, PlanBy, PlayedPlan


def cancel_plan(game: Game, side: int) -> int:
    """Delete this side's plan for the round being planned; the round number. Refused
    (ValidationError, nothing changed) once the other side has submitted, the round has
    resolved or its time has run out, or when this side has no plan of its own in."""
    if side not in (0, 1):
        raise ValidationError("The side is 0 (A) or 1 (B).")
    with transaction.atomic():
        locked = Game.objects.select_for_update().get(pk=game.pk)
        if locked.status != GameStatus.PLANNING:
            raise ValidationError("The game is not being planned: there is no plan to take back.")
        round_no = locked.round
        plans = PlayedPlan.objects.filter(game=locked, round=round_no)
        mine = plans.filter(side=side, by=PlanBy.PLAYER)
        if not mine.exists():
            raise ValidationError(f"You have no plan in for round {round_no} to take back.")
        if plans.exclude(side=side).exists():
            raise ValidationError(
                f"The other side has planned round {round_no} too: it has resolved."
            )
        deadline = clock.deadline(locked)
        if deadline is not None and deadline <= timezone.now():
            raise ValidationError(f"The time for round {round_no} is up: the plan stands.")
        mine.delete()
        locked.save(update_fields=["updated"])
    game.updated = locked.updated
    services.game_changed(game)
    return round_no
