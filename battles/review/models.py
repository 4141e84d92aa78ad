"""A battle's game review (issue 32), stored with it: computed once by a task worker.
Registered in the battles app (battles.models imports it)."""

from django.conf import settings
from django.db import models


class ReviewStatus(models.TextChoices):
    OPEN = "open", "Not started"  # a row that only records the owner's permission
    QUEUED = "queued", "Waiting for a worker"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class Review(models.Model):
    battle = models.OneToOneField("battles.Battle", on_delete=models.CASCADE, related_name="review")
    # The owner's say: anyone who can watch the battle may start its review.
    open_to_viewers = models.BooleanField(default=False)
    status = models.CharField(max_length=8, choices=ReviewStatus.choices, default=ReviewStatus.OPEN)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    rate_ai = models.BooleanField(default=False)  # rate the AI sides' plans too
    # Queued: its task is in the task queue; False while it waits its requester's turn
    # (services.dispatch: fair shares of the bulk queue, issue 39.4).
    in_queue = models.BooleanField(default=True)
    done = models.PositiveSmallIntegerField(default=0)  # rounds reviewed so far
    total = models.PositiveSmallIntegerField(default=0)
    # battles.engine.review.review's dict (its `format` says which).
    data = models.JSONField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"Review of {self.battle_id}: {self.status}"

    @property
    def started(self) -> bool:
        return self.status in (ReviewStatus.QUEUED, ReviewStatus.RUNNING, ReviewStatus.DONE)
