"""The lab's tasks: one chunk of battles each, with plain JSON-able arguments.

Progress lives in the lab's own rows (Lab.done, LabChunk.finished), so a page reads it from
the database and never from a task result; a chunk run twice is counted once."""

from django.tasks import task

from . import services


@task
def run_lab_chunk(lab_code: str, matchup: int, start: int, end: int) -> int:
    """Battles start..end-1 of one matchup; returns how many this run counted."""
    counted = services.run_chunk(lab_code=lab_code, matchup=matchup, start=start)
    return end - start if counted else 0
