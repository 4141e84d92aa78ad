"""Battle records: frozen snapshots of both parties, the seed, the policies and the log."""

import secrets
import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse

from .choices import POLICY_CHOICES, BattleVisibility
from .engine.battle import ENGINE_VERSION
from .engine.keyed import KEY_HEX
from .engine.words import plural


def new_share_token() -> str:
    # 32 bytes: 256 bits, so share links cannot be guessed.
    return secrets.token_urlsafe(32)


class SeedField(models.CharField):
    """A record's seed, stored as text (issue 40.1): a whole number (a chosen seed, a
    battle's or lab's, a game played before keys) reads back as an int, a key of 64 hex
    digits (battles/engine/keyed.py: a played game's drawn secret) as that str, so
    `keyed.rng_for` picks the generator from the type alone."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("max_length", KEY_HEX)
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        return name, "battles.models.SeedField", args, kwargs

    def from_db_value(self, value, expression, connection):
        return self.to_python(value)

    def to_python(self, value):
        if value is None or isinstance(value, int):
            return value
        value = str(value)
        return value.lower() if len(value) == KEY_HEX else int(value)

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return None if value is None else str(value)


class Battle(models.Model):
    code = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="battles"
    )
    created = models.DateTimeField(auto_now_add=True)
    # The live parties may change or vanish; the snapshot is what fought.
    party_a = models.ForeignKey(
        "cards.Party", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    party_b = models.ForeignKey(
        "cards.Party", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    name_a = models.CharField(max_length=60)
    name_b = models.CharField(max_length=60)
    snapshot = models.JSONField()
    seed = SeedField()
    policy_a = models.CharField(max_length=16, choices=POLICY_CHOICES, default="greedy")
    policy_b = models.CharField(max_length=16, choices=POLICY_CHOICES, default="greedy")
    counts_for_growth = models.BooleanField(default=False)
    # Run at a table: its members may watch, and only its GM may make it count for growth.
    table = models.ForeignKey(
        "cards.Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="battles"
    )
    log = models.JSONField()
    # The rules version that wrote the log (battles.engine.battle.ENGINE_VERSION): 1 for
    # /1 logs (equal Initiative in waves), 2 for /2 (R9.3 groups). Replays compare only
    # battles of today's version; older ones stay viewable as they were.
    engine_version = models.PositiveSmallIntegerField(default=ENGINE_VERSION)
    # The versions of policy_a and policy_b that played it (battles.engine.policies): a
    # replay plays these, not today's. Read from the log on save (its `policy_versions`,
    # absent for two version-1 policies), so the record always says what the log says.
    policy_version_a = models.PositiveSmallIntegerField(default=1)
    policy_version_b = models.PositiveSmallIntegerField(default=1)
    # One frame per round (battles.engine.state.round_frames), so any round opens at once.
    frames = models.JSONField()
    # The plans a thinking AI (lookahead) made in this battle, as it made them
    # (engine.run.simulate_keeping_plans): a fork replays them instead of thinking again in
    # its request (issue 39). Empty for other battles, and for those made before.
    plans = models.JSONField(default=list, blank=True)
    winner = models.PositiveSmallIntegerField(null=True, blank=True)  # 0 or 1; null: a draw
    rounds = models.PositiveSmallIntegerField()
    # R10 as applied to live rows: [{"memeyori": code, "rank_before", "rank_after"}].
    growth_applied = models.JSONField(default=list, blank=True)
    visibility = models.CharField(
        max_length=8, choices=BattleVisibility.choices, default=BattleVisibility.PRIVATE
    )
    # None when no link is issued (or it was revoked): the share view then 404s.
    share_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    # Off: headers, lists, share pages and the preview image keep the winner a surprise.
    show_result = models.BooleanField("show the result in previews", default=False)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self):
        return f"{self.name_a} vs {self.name_b}"

    def save(self, *args, **kwargs):
        if isinstance(self.log, dict) and "policies" in self.log:
            self.policy_version_a, self.policy_version_b = self.log.get("policy_versions", [1, 1])
        super().save(*args, **kwargs)

    @property
    def policy_versions(self) -> tuple[int, int]:
        return self.policy_version_a, self.policy_version_b

    @property
    def result_text(self) -> str:
        if self.winner is None:
            return f"Draw after {self.rounds_text}"
        name = self.name_a if self.winner == 0 else self.name_b
        return f"{name} wins in {self.rounds_text}"

    @property
    def rounds_text(self) -> str:
        return plural(self.rounds, "round")

    @property
    def preview_text(self) -> str:
        """What a list, a header or a preview says before anyone has watched to the end."""
        if self.show_result:
            return self.result_text
        return f"{self.name_a} vs {self.name_b}, {self.rounds_text}"

    @property
    def list_result(self) -> str:
        return self.result_text if self.show_result else self.rounds_text

    def get_absolute_url(self):
        return reverse("battle", kwargs={"code": self.code})

    def share_url(self) -> str | None:
        if not self.share_token or self.visibility == BattleVisibility.PRIVATE:
            return None
        return reverse("battle_shared", kwargs={"token": self.share_token})


class Growth(models.Model):
    """One Rank gained by one live Memeyori from one battle (R10), for its owner's history."""

    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="growths")
    memeyori = models.ForeignKey("cards.Memeyori", on_delete=models.CASCADE, related_name="growths")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="growths"
    )
    rank_before = models.PositiveSmallIntegerField()
    rank_after = models.PositiveSmallIntegerField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["battle", "memeyori"], name="one_growth_per_battle")
        ]

    def __str__(self):
        return f"{self.memeyori}: Rank {self.rank_before} -> {self.rank_after}"


class Presentation(models.Model):
    """Someone steps through a battle, or a played game's resolved rounds (issue 17), for a
    group; followers poll for the presented step.

    The step's viewer is rendered once per step, here, so that followers only read it:
    `html` links back to the battle's or game's own page (for members), `html_shared` to
    its share link (for visitors). Each poll token hands out one of them and dies with the
    presentation, so a follower of a stopped one gets a 404.
    """

    # Exactly one of the two: a stored battle, or a game (in progress or finished).
    battle = models.OneToOneField(
        Battle, null=True, blank=True, on_delete=models.CASCADE, related_name="presentation"
    )
    game = models.OneToOneField(
        "battles.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="presentation"
    )
    presenter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="presentations"
    )
    token = models.CharField(max_length=64, unique=True, default=new_share_token)
    token_shared = models.CharField(max_length=64, unique=True, default=new_share_token)
    round = models.PositiveSmallIntegerField(default=0)
    step = models.PositiveSmallIntegerField(default=0)
    version = models.PositiveIntegerField(default=0)
    html = models.TextField(blank=True)
    html_shared = models.TextField(blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(battle__isnull=False, game__isnull=True)
                    | models.Q(battle__isnull=True, game__isnull=False)
                ),
                name="presentation_of_a_battle_or_a_game",
            )
        ]

    def __str__(self):
        return f"{self.battle or self.game} presented by {self.presenter}"


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Waiting for a worker"
    RUNNING = "running", "Being played"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class BattleJob(models.Model):
    """A battle that takes thinking (a policy beyond a few milliseconds a battle, such as
    lookahead), played by a task worker instead of in the page (issue 39.2-3): either a new
    battle (`request`: battle_run's arguments, parties and table by key) or battle `i` of a
    lab's matchup, made once and kept (LabBattle). The page that asked polls it."""

    code = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=8, choices=JobStatus.choices, default=JobStatus.QUEUED)
    request = models.JSONField(default=dict, blank=True)
    matchup = models.ForeignKey(
        "battles.LabMatchup", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    i = models.PositiveIntegerField(null=True, blank=True)
    battle = models.ForeignKey(
        Battle, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    error = models.CharField(max_length=500, blank=True)

    class Meta:
        constraints = [
            # One job at a time makes a lab's battle i: a second ask joins the first.
            models.UniqueConstraint(
                fields=["matchup", "i"],
                condition=models.Q(status__in=["queued", "running"]),
                name="one_active_job_per_lab_battle",
            )
        ]

    def __str__(self):
        return f"battle job {self.code} ({self.status})"

    @property
    def active(self) -> bool:
        return self.status in (JobStatus.QUEUED, JobStatus.RUNNING)

    def get_absolute_url(self):
        return reverse("battle_job", kwargs={"code": self.code})


# The lab's models live in their own module; importing them here registers them.
from .lab.models import Lab, LabBattle, LabChunk, LabMatchup, LabStatus  # noqa: E402, F401
from .play.models import FairEstimate, Game, PlanStage, PlayedPlan  # noqa: E402, F401
from .review.models import Review, ReviewStatus  # noqa: E402, F401
