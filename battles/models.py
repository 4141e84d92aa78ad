"""Battle records: frozen snapshots of both parties, the seed, the policies and the log."""

import secrets
import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse

from .engine.policies import POLICIES

POLICY_CHOICES = [(name, name) for name in POLICIES]


class BattleVisibility(models.TextChoices):
    PRIVATE = "private", "Private (only you)"
    UNLISTED = "unlisted", "Unlisted (anyone with the share link)"
    PUBLIC = "public", "Public (listed, anyone can watch)"


def new_share_token() -> str:
    # 32 bytes: 256 bits, so share links cannot be guessed.
    return secrets.token_urlsafe(32)


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
    seed = models.BigIntegerField()
    policy_a = models.CharField(max_length=16, choices=POLICY_CHOICES, default="greedy")
    policy_b = models.CharField(max_length=16, choices=POLICY_CHOICES, default="greedy")
    counts_for_growth = models.BooleanField(default=False)
    log = models.JSONField()
    # One frame per round (battles.engine.state.round_frames), so any round opens at once.
    frames = models.JSONField()
    winner = models.PositiveSmallIntegerField(null=True, blank=True)  # 0 or 1; null: a draw
    rounds = models.PositiveSmallIntegerField()
    # R10 as applied to live rows: [{"memeyori": code, "rank_before", "rank_after"}].
    growth_applied = models.JSONField(default=list, blank=True)
    visibility = models.CharField(
        max_length=8, choices=BattleVisibility.choices, default=BattleVisibility.PRIVATE
    )
    # None when no link is issued (or it was revoked): the share view then 404s.
    share_token = models.CharField(max_length=64, unique=True, null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self):
        return f"{self.name_a} vs {self.name_b}"

    @property
    def result_text(self) -> str:
        if self.winner is None:
            return f"Draw after {self.rounds} rounds"
        name = self.name_a if self.winner == 0 else self.name_b
        return f"{name} wins in {self.rounds} rounds"

    def get_absolute_url(self):
        return reverse("battle", kwargs={"code": self.code})

    def share_url(self) -> str | None:
        if not self.share_token or self.visibility == BattleVisibility.PRIVATE:
            return None
        return reverse("battle_shared", kwargs={"token": self.share_token})


# The lab's models live in their own module; importing them here registers them.
from .lab.models import Lab, LabBattle, LabChunk, LabMatchup, LabStatus  # noqa: E402, F401
