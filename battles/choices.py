"""Choices the battles app's models share (battles, labs): a module of their own, so that
battles/models.py, which registers the lab's and the play's models, and lab/models.py each
import them without importing the other."""

from django.db import models

from .engine.policies import POLICIES

POLICY_CHOICES = [(name, name) for name in POLICIES]


class BattleVisibility(models.TextChoices):
    PRIVATE = "private", "Private (only you)"
    UNLISTED = "unlisted", "Unlisted (anyone with the share link)"
    PUBLIC = "public", "Public (listed, anyone can watch)"
