"""The lab's tasks: one chunk of battles each, with plain JSON-able arguments.

Progress lives in the lab's own rows (Lab.done, LabChunk.finished), so a page reads it from
the database and never from a task result; a chunk run twice is counted once. Chunks wait
on the bulk queue, behind whatever a person waits for (cards/workers.py)."""

from django.tasks import task

from cards import workers

from . import services


@task(queue_name=workers.BULK, priority=workers.BULK_PRIORITY)
def run_lab_chunk(lab_code: str, matchup: int, start: int, end: int) -> int:
    """Battles start..end-1 of one matchup; returns how many this run counted."""
    counted = services.run_chunk(lab_code=lab_code, matchup=matchup, start=start)
    return end - start if counted else 0


@workers.on_reclaim(run_lab_chunk)
def _chunk_back_in_queue(lab_code: str, matchup: int, start: int, end: int, *, final: bool):
    services.chunk_stopped(lab_code=lab_code, matchup=matchup, start=start, final=final)
