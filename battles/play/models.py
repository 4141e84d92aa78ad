"""A played game and its recorded plans. Registered in the battles app (battles.models).

No engine state is stored: the snapshot, the seed, the policies and the plans recorded so
far are the record, and each request replays them (battles.engine.played).
"""

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from ..choices import level_name
from ..models import SeedField


def new_seed_salt() -> str:
    return secrets.token_hex(32)


def seed_commitment(seed: int | str, salt: str) -> str:
    """SHA-256 of the seed (a game's key since issue 40, 64 hex digits) and its salt: shown
    from the first round, so that when the game ends (and both are shown) either player can
    check the deal and dice were fixed before anyone planned. The salt (256 bits) keeps an
    older game's 32-bit seed from being found from the commitment by trying them all."""
    return hashlib.sha256(f"memeyori-seed:{seed}:{salt}".encode()).hexdigest()


def new_game_code() -> str:
    # 32 bytes: 256 bits, so a game's address cannot be guessed.
    return secrets.token_urlsafe(32)


class GameKind(models.TextChoices):
    AI = "ai", "Against the AI"
    FRIEND = "friend", "Against a friend"
    HOTSEAT = "hotseat", "Hot-seat (one device, both sides)"
    TABLE = "table", "At a table"


class GameStatus(models.TextChoices):
    WAITING = "waiting", "Waiting for the friend to join"
    PLANNING = "planning", "Planning"
    FINISHED = "finished", "Finished"


class PlanBy(models.TextChoices):
    PLAYER = "player", "its player"
    AI = "ai", "the AI"
    TIMEOUT = "timeout", "the AI, when the time ran out"


TIME_LIMITS = (0, 60, 120, 300)  # seconds per round; 0 is off


class Game(models.Model):
    code = models.CharField(max_length=64, unique=True, default=new_game_code, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="games_created"
    )
    kind = models.CharField(max_length=8, choices=GameKind.choices)
    # Who plans each side: a user, or nobody (the AI side; a friend game before the join).
    user_a = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    user_b = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    party_a = models.ForeignKey(
        "cards.Party", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    party_b = models.ForeignKey(
        "cards.Party", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    name_a = models.CharField(max_length=60)
    name_b = models.CharField(max_length=60, blank=True)
    # Taken when both parties are known (at the start, or at the friend's join): what fights.
    snapshot = models.JSONField(null=True, blank=True)
    seed = SeedField()
    # Whoever started the game chose the seed (an AI or hot-seat game), or the server drew it
    # and keeps it secret until the game ends (a friend or table game), with its salt. A
    # drawn one is a 256-bit key (64 hex digits, battles/engine/keyed.py) since issue 40;
    # a chosen one, or a game's from before, is a whole number (random.Random).
    seed_chosen = models.BooleanField(default=True)
    seed_salt = models.CharField(max_length=64, blank=True, default="")
    # "player" for a side people plan; else the AI's policy and its version.
    policy_a = models.CharField(max_length=16, default="player")
    policy_b = models.CharField(max_length=16, default="player")
    policy_version_a = models.PositiveSmallIntegerField(default=1)
    policy_version_b = models.PositiveSmallIntegerField(default=1)
    time_limit = models.PositiveSmallIntegerField(default=0)  # seconds per round; 0: off
    # The version of greedy that plans for a side whose time ran out, fixed at the start so
    # that the record replays the same whatever version is current later.
    timeout_policy_version = models.PositiveSmallIntegerField(default=2)
    # Ruling 8 for everyone (issue 31): the draws a side makes while planning come from a
    # generator of its own for the round, so a player may Switch or summon first (PlanStage)
    # and play what that drew. True for games started since; older games replay as they were.
    own_draws = models.BooleanField(default=False)
    # R9.6: a draw at the limit, as chosen when the game started (a table's game: its GM's
    # rule). Read when the snapshot is taken (a friend's game: at the join), which then
    # carries the rule its replays follow; a game started before R9.6 has none (a draw).
    draw_at_limit = models.BooleanField(default=False)
    round = models.PositiveSmallIntegerField(default=0)  # the round being planned
    round_started_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=8, choices=GameStatus.choices, default=GameStatus.PLANNING)
    winner = models.PositiveSmallIntegerField(null=True, blank=True)  # 0 or 1; null: a draw
    forfeit_side = models.PositiveSmallIntegerField(null=True, blank=True)
    forfeit_round = models.PositiveSmallIntegerField(null=True, blank=True)
    # The round whose AI plan a thinking task was queued for (battles/play/thinking.py):
    # at most one queued a round; null when none is, or the last one failed (the next
    # write on the game queues it again).
    thinking_round = models.PositiveSmallIntegerField(null=True, blank=True)
    # 256 bits; None when no invite is open (not a friend game, used, or revoked).
    invite_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    table = models.ForeignKey(
        "cards.Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="games"
    )
    battle = models.OneToOneField(
        "battles.Battle", null=True, blank=True, on_delete=models.SET_NULL, related_name="game"
    )
    # A fork (issue 32 §6, battles/play/fork.py): the battle it came from (a stored battle or
    # a finished game's), the round it starts at, and its record (battles/engine/fork.py:
    # the round and the origin's own replay record, so the fork replays even if the origin
    # is deleted). All null for a game played from round 1.
    fork_battle = models.ForeignKey(
        "battles.Battle", null=True, blank=True, on_delete=models.SET_NULL, related_name="forks"
    )
    fork_round = models.PositiveSmallIntegerField(null=True, blank=True)
    fork = models.JSONField(null=True, blank=True)
    # None when the game is not shared (never, or revoked): then only its players watch.
    share_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated", "-id"]

    def __str__(self):
        return f"{self.name_a} vs {self.name_b or '?'}"

    def get_absolute_url(self):
        return reverse("play_game", kwargs={"code": self.code})

    @property
    def policies(self) -> tuple[str, str]:
        return self.policy_a, self.policy_b

    @property
    def policy_versions(self) -> tuple[int, int]:
        return self.policy_version_a, self.policy_version_b

    @property
    def seed_commitment(self) -> str | None:
        return seed_commitment(self.seed, self.seed_salt) if self.seed_salt else None

    @property
    def seed_revealed(self) -> bool:
        """May the seed be shown? A chosen one always; a drawn one when the game is over."""
        return self.seed_chosen or self.status == GameStatus.FINISHED

    @property
    def kind_label(self) -> str:
        """ "Against the AI (Thinker)": the kind, and for an AI game its level's name."""
        label = self.get_kind_display()
        ai = [p for p in self.policies if p != "player"]
        if self.kind == GameKind.AI and ai:
            label = f"{label} ({level_name(ai[0])})"
        return label

    def user_of(self, side: int):
        return self.user_a if side == 0 else self.user_b

    def is_player_side(self, side: int) -> bool:
        return self.policies[side] == "player"


class PlayedPlan(models.Model):
    """One side's plan for one round, as recorded: the player's own, or (a time limit ran
    out) `{"policy": "greedy", "version": n}`, the AI planning for that side."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="plans")
    round = models.PositiveSmallIntegerField()
    side = models.PositiveSmallIntegerField()
    plan = models.JSONField()
    by = models.CharField(max_length=8, choices=PlanBy.choices, default=PlanBy.PLAYER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["round", "side"]
        constraints = [
            # Exactly once: a double click, two tabs or a timeout racing a submission.
            models.UniqueConstraint(fields=["game", "round", "side"], name="one_plan_per_side"),
            models.CheckConstraint(condition=models.Q(side__in=[0, 1]), name="plan_side_0_or_1"),
        ]

    def __str__(self):
        return f"{self.game}: round {self.round}, side {'AB'[self.side]}"


class PlanStage(models.Model):
    """A player's Switch and summon for one round, made before its cards (ruling 8): they
    drew at once, and, like drawing at a table, cannot be taken back. Not a plan: the side
    still plans its cards, which may include what the stage drew (battles.play.stage)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="stages")
    round = models.PositiveSmallIntegerField()
    side = models.PositiveSmallIntegerField()
    switch = models.JSONField(null=True, blank=True)  # [out id, in id] or None
    summon = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "battles"
        ordering = ["round", "side"]
        constraints = [
            models.UniqueConstraint(fields=["game", "round", "side"], name="one_stage_per_side"),
            models.CheckConstraint(condition=models.Q(side__in=[0, 1]), name="stage_side_0_or_1"),
        ]

    def __str__(self):
        return f"{self.game}: round {self.round}, side {'AB'[self.side]}'s stage"

    @property
    def stage(self) -> dict:
        return {"switch": self.switch, "summon": self.summon}


class FairEstimate(models.Model):
    """The player's chance against one AI opponent: greedy for the party with
    `party_digest` against the party with `opponent_digest` played by `policy` at
    `version`, over `battles` battles (sides alternated)."""

    party_digest = models.CharField(max_length=64)
    opponent_digest = models.CharField(max_length=64)
    policy = models.CharField(max_length=16)
    version = models.PositiveSmallIntegerField()
    # [the player's side, the AI's side] and the chart, as the battles play them.
    snapshot = models.JSONField()
    battles = models.PositiveIntegerField()
    wins = models.PositiveIntegerField(default=0)  # the player's
    losses = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    done = models.BooleanField(default=False)
    queued = models.DateTimeField(default=timezone.now)
    # Its task is in the task queue; False while it waits its owner's turn (fair.dispatch:
    # a person has at most QUEUED_PER_PERSON there, issue 39.4).
    in_queue = models.BooleanField(default=True)
    # Who asked for it to be played: a person's estimates still waiting are bounded
    # (fair.PENDING_PER_PERSON). Kept when they leave, for the others who read it.
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        app_label = "battles"
        constraints = [
            models.UniqueConstraint(
                fields=["party_digest", "opponent_digest", "policy", "version"],
                name="one_fair_estimate_per_matchup",
            )
        ]

    def __str__(self):
        return f"{self.party_digest[:8]} vs {self.opponent_digest[:8]} ({self.policy})"

    @property
    def chance(self) -> float:
        return self.wins / self.battles if self.battles else 0.0

    @property
    def outcome(self):
        """The shares won, lost and drawn (play/levels.py's Outcome)."""
        from .levels import Outcome

        n = self.battles or 1
        return Outcome(self.wins / n, self.losses / n, self.draws / n)

    @property
    def imbalance(self) -> float:
        """How far from a fight either side wins as often as the other: 1 less twice the
        weaker side's share of wins (0 is a coin toss with no draws; a fight that always
        ends in a draw is as far from even as one that is always lost)."""
        if not self.battles:
            return 1.0
        return 1 - 2 * min(self.wins, self.losses) / self.battles
