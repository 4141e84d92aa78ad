"""The fair-fight estimates' task (fair.py): one estimate's battles, on the bulk queue,
behind whatever a person waits for (cards/workers.py). Run twice, it counts once."""

from django.tasks import task

from cards import workers

from . import fair


@task(queue_name=workers.BULK, priority=workers.BULK_PRIORITY)
def estimate_chance(estimate_id: int) -> bool:
    return fair.run_estimate(estimate_id)
