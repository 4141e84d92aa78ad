"""The lab's records: a lab, its matchups (one per opponent), its chunks of battles, and
the battles opened from it in the viewer. Registered in the battles app (battles.models)."""

import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse

from ..choices import POLICY_CHOICES, BattleVisibility


class LabStatus(models.TextChoices):
    QUEUED = "queued", "Waiting for a worker"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class Lab(models.Model):
    code = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="labs"
    )
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
    # The live parties may change or vanish; each matchup's snapshot is what fought.
    party_a = models.ForeignKey(
        "cards.Party", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    name_a = models.CharField(max_length=60)
    against_field = models.BooleanField(default=False)
    battles = models.PositiveIntegerField(help_text="battles per matchup")
    seed = models.BigIntegerField()
    policy_a = models.CharField(max_length=16, choices=POLICY_CHOICES, default="greedy")
    policy_b = models.CharField(max_length=16, choices=POLICY_CHOICES, default="greedy")
    # The policies' versions when the lab ran (battles.engine.policies): its battles, and
    # every "open battle i", are played by these, so they replay as the lab counted them.
    policy_version_a = models.PositiveSmallIntegerField(default=1)
    policy_version_b = models.PositiveSmallIntegerField(default=1)
    status = models.CharField(max_length=8, choices=LabStatus.choices, default=LabStatus.QUEUED)
    error = models.TextField(blank=True)
    total = models.PositiveIntegerField(default=0)
    # Battles finished so far; chunks add to it with F() so no count is lost between workers.
    done = models.PositiveIntegerField(default=0)
    # When a worker first took one of its chunks, and when the last chunk was counted: the
    # progress line's time estimate and its "no progress for a while" read them.
    started = models.DateTimeField(null=True, blank=True)
    progressed = models.DateTimeField(null=True, blank=True)
    # "What if": this lab is `base` with one change to side A, on the same seeds.
    base = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="variants"
    )
    change = models.CharField(max_length=200, blank=True)
    # The engine's log format when the lab ran ("memeyori-battle-log/1"): a later engine
    # that plays by other rulings cannot replay its battles, and says so.
    log_format = models.CharField(max_length=40, blank=True)
    visibility = models.CharField(
        max_length=8, choices=BattleVisibility.choices, default=BattleVisibility.PRIVATE
    )
    share_token = models.CharField(max_length=64, unique=True, null=True, blank=True)

    class Meta:
        app_label = "battles"
        ordering = ["-created", "-id"]

    def __str__(self):
        return self.title

    @property
    def title(self) -> str:
        if self.against_field:
            title = f"{self.name_a} against the field"
        else:
            # all() so that a list page's prefetch serves every title without a query each.
            first = next(iter(self.matchups.all()), None)
            title = f"{self.name_a} vs {first.name_b if first else '?'}"
        return f"{title}, what if {self.change}" if self.change else title

    @property
    def policies(self) -> tuple[str, str]:
        return self.policy_a, self.policy_b

    @property
    def policy_versions(self) -> tuple[int, int]:
        return self.policy_version_a, self.policy_version_b

    @property
    def finished_ok(self) -> bool:
        return self.status == LabStatus.DONE

    @property
    def running(self) -> bool:
        return self.status in (LabStatus.QUEUED, LabStatus.RUNNING)

    @property
    def percent(self) -> int:
        return 100 * self.done // self.total if self.total else 0

    def seconds_left(self, now) -> int | None:
        """The time to the last battle at the pace so far, or None before any is counted."""
        if not self.done or not self.started or not self.progressed:
            return None
        spent = (self.progressed - self.started).total_seconds()
        if spent <= 0:
            return None
        left = (self.total - self.done) * spent / self.done
        # The pace was measured until the last chunk; the time since then is already gone.
        return max(0, round(left - (now - self.progressed).total_seconds()))

    def idle_seconds(self, now) -> float:
        """How long since anything moved: the last chunk counted, or else its creation."""
        return (now - (self.progressed or self.started or self.created)).total_seconds()

    def earlier_labs_waiting(self) -> int:
        """The owner's labs created before this one still running while none of this one's
        chunks is in the queue: they go first (tasks.dispatch), so this one waits."""
        if not self.running or self.chunks.filter(queued=True, finished=False).exists():
            return 0
        return (
            Lab.objects.filter(
                owner_id=self.owner_id, status__in=(LabStatus.QUEUED, LabStatus.RUNNING)
            )
            .filter(
                models.Q(created__lt=self.created) | models.Q(created=self.created, id__lt=self.id)
            )
            .count()
        )

    def get_absolute_url(self):
        return reverse("lab", kwargs={"code": self.code})

    def share_url(self) -> str | None:
        if not self.share_token or self.visibility == BattleVisibility.PRIVATE:
            return None
        return reverse("lab_shared", kwargs={"token": self.share_token})


class LabMatchup(models.Model):
    """Side A against one opponent, `lab.battles` times."""

    lab = models.ForeignKey(Lab, on_delete=models.CASCADE, related_name="matchups")
    index = models.PositiveSmallIntegerField()
    party_b = models.ForeignKey(
        "cards.Party", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    name_b = models.CharField(max_length=60)
    snapshot = models.JSONField()
    # Names by log id: {"combatants": {"A1": {...}}, "cards": {"A1.1": {...}}}.
    roster = models.JSONField(default=dict)
    # The merged tally (battles.lab.stats) once every chunk is in.
    tally = models.JSONField(null=True, blank=True)

    class Meta:
        app_label = "battles"
        ordering = ["lab", "index"]
        constraints = [
            models.UniqueConstraint(fields=["lab", "index"], name="lab_matchup_index_unique")
        ]

    def __str__(self):
        return f"{self.lab.name_a} vs {self.name_b}"


class LabChunk(models.Model):
    """Battles start..end-1 of one matchup: one task, idempotent (a second run adds nothing)."""

    lab = models.ForeignKey(Lab, on_delete=models.CASCADE, related_name="chunks")
    matchup = models.ForeignKey(LabMatchup, on_delete=models.CASCADE, related_name="chunks")
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    # Its task is in the queue (tasks.dispatch): a person has only a few at a time.
    queued = models.BooleanField(default=False)
    finished = models.BooleanField(default=False)
    tally = models.JSONField(null=True, blank=True)

    class Meta:
        app_label = "battles"
        ordering = ["matchup", "start"]
        constraints = [
            models.UniqueConstraint(fields=["matchup", "start"], name="lab_chunk_start_unique")
        ]

    def __str__(self):
        return f"battles {self.start}-{self.end - 1}"


class LabBattle(models.Model):
    """Battle i of a matchup, opened in the viewer once and reused after."""

    matchup = models.ForeignKey(LabMatchup, on_delete=models.CASCADE, related_name="opened")
    i = models.PositiveIntegerField()
    battle = models.OneToOneField("battles.Battle", on_delete=models.CASCADE, related_name="+")

    class Meta:
        app_label = "battles"
        constraints = [models.UniqueConstraint(fields=["matchup", "i"], name="lab_battle_unique")]

    def __str__(self):
        return f"battle {self.i}"
