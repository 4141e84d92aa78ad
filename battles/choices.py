"""Choices the battles app's models share (battles, labs): a module of their own, so that
battles/models.py, which registers the lab's and the play's models, and lab/models.py each
import them without importing the other."""

from django.db import models

from .engine.played_record import PLAYER
from .engine.policies import LEVELS, POLICIES

POLICY_CHOICES = [(name, name) for name in POLICIES]


def level_name(policy: str) -> str:
    """The name a person sees for whoever plays a side (issue 41.5): the AI level's name as
    the forms offer it ("lookahead" is the Thinker), or "Player" for a side people plan.
    Every page, list, title and preview that names an AI asks here; the internal names stay
    in the JSON log and the protocol, which programs read."""
    if policy == PLAYER:
        return "Player"
    level = LEVELS.get(policy)
    return level[0] if level else policy


class BattleVisibility(models.TextChoices):
    PRIVATE = "private", "Private (only you)"
    UNLISTED = "unlisted", "Unlisted (anyone with the share link)"
    PUBLIC = "public", "Public (listed, anyone can watch)"
