"""Types, the type chart, characters, cards and parties (RULES.md R1-R8).

Formulas live in cards/stats.py; models store choices and check them in clean().
"""

import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q
from django.http import Http404
from django.urls import reverse

from . import stats
from .validators import multi_line, single_line

attribute_validators = [
    MinValueValidator(stats.ATTRIBUTE_MIN, f"Must be at least {stats.ATTRIBUTE_MIN}."),
    MaxValueValidator(stats.ATTRIBUTE_MAX, f"Must be at most {stats.ATTRIBUTE_MAX}."),
]
# Flavour text is a line or two on a card, not a biography (issue 34).
FLAVOUR_MAX = 200
ART_VARIANTS = 8

rank_validators = [
    MinValueValidator(stats.RANK_MIN, f"Rank must be at least {stats.RANK_MIN}."),
    MaxValueValidator(stats.RANK_MAX, f"Rank must be at most {stats.RANK_MAX}."),
]


class Visibility(models.TextChoices):
    PRIVATE = "private", "Private (only you)"
    TABLES = "tables", "My tables (members of your tables)"
    PUBLIC = "public", "Public (anyone can view)"


# Every level, least visible first: the one place that orders them. A party can be no
# more visible than its members (issue 11.2). Battles add "unlisted" (anyone with the link).
VISIBILITY_ORDER = ("private", "tables", "unlisted", "public")


def visibility_rank(value: str) -> int:
    return VISIBILITY_ORDER.index(value)


def table_mates(user):
    """Users who sit at a table with `user` (themselves included), as a subquery."""
    return TableMembership.objects.filter(table__memberships__user=user).values("user")


def visible_to(user, *, at_table: bool = False) -> Q:
    """Who may read a character, party or battle: its owner; members of the owner's tables
    when it is shared with "my tables"; anyone when it is public.

    Battles share the "public" value, so this one rule serves every kind of object. A
    battle run at a table (`at_table`, for models with a `table` field) is also open to
    that table's members, whatever its visibility. get_readable_or_404 reads "public" and
    "the owner's" from the row without this Q: any rule here must keep letting both through.
    """
    if not user.is_authenticated:
        return Q(visibility=Visibility.PUBLIC)
    rule = (
        Q(visibility=Visibility.PUBLIC)
        | Q(owner=user)
        | Q(visibility=Visibility.TABLES, owner__in=table_mates(user))
    )
    if at_table:
        rule |= Q(table__in=TableMembership.objects.filter(user=user).values("table"))
    return rule


def get_readable_or_404(queryset, user, *, at_table: bool = False, also: Q | None = None, **lookup):
    """The one object `lookup` names in `queryset` if visible_to(user, at_table=...), widened
    by `also`, lets `user` read it; else the same 404 as for a code that never existed.

    Public objects and the owner's own pass that rule whatever else it says, and the row
    says so itself; only the others pay for its subqueries (table mates, tables), built and
    run in a second query. Most reads are of those two, and reading a battle through the
    whole rule took a third of a viewer step's CPU.
    """
    try:
        found = queryset.get(**lookup)
    except queryset.model.DoesNotExist:
        raise Http404 from None
    return readable_or_404(found, queryset, user, at_table=at_table, also=also)


def readable_or_404(found, queryset, user, *, at_table: bool = False, also: Q | None = None):
    """`found`, a row of `queryset` already read (None when there was none), if `user`
    may read it, as get_readable_or_404 decides; else the same 404."""
    if found is None:
        raise Http404
    if found.visibility == Visibility.PUBLIC:
        return found
    if user.is_authenticated and found.owner_id == user.pk:
        return found
    rule = visible_to(user, at_table=at_table)
    if also is not None:
        rule |= also
    if queryset.filter(rule, pk=found.pk).exists():
        return found
    raise Http404


class Type(models.Model):
    """A Memeyori Type (R6). Ether is the neutral one."""

    name = models.CharField(max_length=40, unique=True, validators=[single_line])
    slug = models.SlugField(max_length=40, unique=True)
    colour = models.CharField(
        max_length=7,
        default="#888888",
        validators=[RegexValidator(r"^#[0-9a-fA-F]{6}$", "Give the colour as #rrggbb.")],
        help_text="Frame colour, as #rrggbb.",
    )
    symbol = models.CharField(
        max_length=8, default="◆", help_text="Shown beside the colour so it never stands alone."
    )
    description = models.TextField(blank=True, validators=[multi_line])
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "name"]

    def __str__(self):
        return self.name


class Effect(models.TextChoices):
    WEAK = "weak", "Weak (x3/2)"
    STRONG = "strong", "Strong (x1/2)"
    NEUTRAL = "neutral", "Neutral (x1)"


class Matchup(models.Model):
    """One cell of the type chart: how the defending Type takes the attacking Type.

    A missing pair is neutral, so the chart stores only what differs from x1.
    """

    attacking = models.ForeignKey(Type, on_delete=models.CASCADE, related_name="attacks")
    defending = models.ForeignKey(Type, on_delete=models.CASCADE, related_name="defences")
    effect = models.CharField(max_length=8, choices=Effect.choices, default=Effect.NEUTRAL)

    class Meta:
        ordering = ["attacking__position", "defending__position"]
        constraints = [
            models.UniqueConstraint(fields=["attacking", "defending"], name="one_matchup_per_pair")
        ]

    def __str__(self):
        return f"{self.attacking} -> {self.defending}: {self.effect}"


def type_chart() -> dict[tuple[str, str], str]:
    """The chart as {(attacking name, defending name): 'weak' | 'strong'}; absent is neutral."""
    rows = Matchup.objects.exclude(effect=Effect.NEUTRAL).values_list(
        "attacking__name", "defending__name", "effect"
    )
    return {(a, d): effect for a, d, effect in rows}


class Character(models.Model):
    """What Memeyori and Archons share: an owner, a Type and the six attributes (R1)."""

    code = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="%(class)ss"
    )
    name = models.CharField(max_length=60, validators=[single_line])
    type = models.ForeignKey(Type, on_delete=models.PROTECT, related_name="%(class)ss")
    strength = models.PositiveSmallIntegerField(default=2, validators=attribute_validators)
    endurance = models.PositiveSmallIntegerField(default=2, validators=attribute_validators)
    iq = models.PositiveSmallIntegerField("IQ", default=2, validators=attribute_validators)
    wit = models.PositiveSmallIntegerField(default=2, validators=attribute_validators)
    speed = models.PositiveSmallIntegerField(default=2, validators=attribute_validators)
    aura = models.PositiveSmallIntegerField(default=2, validators=attribute_validators)
    portrait = models.ImageField(upload_to="portraits/", blank=True)
    # Where the card's crop centres, as fractions of the image's width and height.
    portrait_focus_x = models.FloatField(
        default=0.5, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)]
    )
    portrait_focus_y = models.FloatField(
        default=0.5, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)]
    )
    # Made from `portrait` by the print pipeline: cropped for print, and a small thumbnail.
    portrait_print = models.ImageField(upload_to="portraits/print/", blank=True, editable=False)
    portrait_thumb = models.ImageField(upload_to="portraits/thumbs/", blank=True, editable=False)
    # An upload stored as it came, waiting for cards.tasks.process_portrait (issue 11.4);
    # and why the last one was refused there, for the builder to say.
    portrait_pending = models.CharField(max_length=200, blank=True, editable=False)
    portrait_error = models.CharField(max_length=300, blank=True, editable=False)
    flavour = models.TextField(
        "flavour text",
        blank=True,
        max_length=FLAVOUR_MAX,
        validators=[multi_line],
        help_text=f"A line or two in italics on the Mastercard, at most {FLAVOUR_MAX} characters.",
    )
    # Which of the generated pictures (cards/printing/art.py) the cards show when there is
    # no portrait: the owner's pick, 0 to ART_VARIANTS - 1.
    art_variant = models.PositiveSmallIntegerField(
        "art variant",
        default=0,
        validators=[
            MaxValueValidator(ART_VARIANTS - 1, f"Pick a variant from 0 to {ART_VARIANTS - 1}.")
        ],
        help_text="Without a portrait the cards show art drawn for this character: pick a look.",
    )
    # A copy of someone else's (issue 21.8): "from alice's Fizzlet".
    origin = models.CharField("copied from", max_length=200, blank=True, editable=False)
    visibility = models.CharField(
        max_length=8, choices=Visibility.choices, default=Visibility.PRIVATE
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    kind = ""  # "memeyori" or "archon", for URLs, snapshots and logs

    class Meta:
        abstract = True
        ordering = ["name"]

    def __str__(self):
        return self.name

    @property
    def rank_for_stats(self) -> int:
        return 1

    def attributes(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in stats.ATTRIBUTES}

    @property
    def derived(self) -> stats.DerivedStats:
        return stats.derive(**self.attributes(), rank=self.rank_for_stats)

    def explained(self) -> list[stats.Explained]:
        return stats.explain(**self.attributes(), rank=self.rank_for_stats)

    @property
    def is_public(self) -> bool:
        return self.visibility == Visibility.PUBLIC

    @property
    def upload_held(self) -> bool:
        """Is the pending upload waiting for the picture store (HeldUpload), which a worker
        tried and found not answering?"""
        return (
            bool(self.portrait_pending)
            and HeldUpload.objects.filter(name=self.portrait_pending, tries__gt=0).exists()
        )

    def portrait_url(self, size: str = "thumb") -> str:
        """The portrait through the view that applies the character's visibility (issue
        11.5). The file's name is in the query, so a new portrait is a new URL."""
        file = {"full": self.portrait, "print": self.portrait_print, "thumb": self.portrait_thumb}
        if not file[size]:
            return ""
        url = reverse(
            "character_portrait", kwargs={"kind": self.kind, "code": self.code, "size": size}
        )
        stem = file[size].name.rpartition("/")[2].partition(".")[0]
        return f"{url}?v={stem.rpartition('-')[2]}"

    @property
    def portrait_full_url(self) -> str:
        return self.portrait_url("full")

    @property
    def portrait_thumb_url(self) -> str:
        return self.portrait_url("thumb") or self.portrait_url("full")

    def parties_holding(self):
        if isinstance(self, Memeyori):
            return Party.objects.filter(slots__memeyori=self)
        return Party.objects.filter(archon=self)

    def clean(self):
        super().clean()
        if self.pk is not None and self.visibility in Visibility.values:
            check_member_visibility(self, self.visibility)

    def get_absolute_url(self):
        return reverse("character", kwargs={"kind": self.kind, "code": self.code})


class Memeyori(Character):
    rank = models.PositiveSmallIntegerField(default=1, validators=rank_validators)

    kind = "memeyori"

    class Meta(Character.Meta):
        verbose_name_plural = "Memeyori"
        constraints = [
            models.CheckConstraint(
                condition=Q(rank__gte=stats.RANK_MIN, rank__lte=stats.RANK_MAX),
                name="memeyori_rank_1_to_6",
            ),
            *[
                models.CheckConstraint(
                    condition=Q(
                        **{f"{a}__gte": stats.ATTRIBUTE_MIN, f"{a}__lte": stats.ATTRIBUTE_MAX}
                    ),
                    name=f"memeyori_{a}_1_to_20",
                )
                for a in stats.ATTRIBUTES
            ],
        ]

    @property
    def rank_for_stats(self) -> int:
        return self.rank

    def unlocked_cards(self):
        """R7: a Memeyori plays only the cards its Rank has unlocked."""
        return self.cards.filter(unlock_rank__lte=self.rank)


class Archon(Character):
    """A summoner: a Memeyori's attributes without a Rank (R2)."""

    kind = "archon"

    class Meta(Character.Meta):
        constraints = [
            models.CheckConstraint(
                condition=Q(**{f"{a}__gte": stats.ATTRIBUTE_MIN, f"{a}__lte": stats.ATTRIBUTE_MAX}),
                name=f"archon_{a}_1_to_20",
            )
            for a in stats.ATTRIBUTES
        ]


class Category(models.TextChoices):
    PHYSICAL = "physical", "Physical"
    MAGIC = "magic", "Magic"
    SUPPORT = "support", "Support (heal)"


class Card(models.Model):
    """A move (R7). It belongs to exactly one Memeyori or one Archon."""

    code = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    memeyori = models.ForeignKey(
        Memeyori, null=True, blank=True, on_delete=models.CASCADE, related_name="cards"
    )
    archon = models.ForeignKey(
        Archon, null=True, blank=True, on_delete=models.CASCADE, related_name="cards"
    )
    position = models.PositiveSmallIntegerField(default=0)
    name = models.CharField(max_length=60, validators=[single_line])
    type = models.ForeignKey(Type, on_delete=models.PROTECT, related_name="cards")
    category = models.CharField(max_length=8, choices=Category.choices)
    power = models.PositiveSmallIntegerField(
        default=4, validators=[MaxValueValidator(99, "Power must be at most 99.")]
    )
    mp_cost = models.PositiveSmallIntegerField(
        "MP cost", default=1, validators=[MaxValueValidator(20, "MP cost must be at most 20.")]
    )
    quick = models.BooleanField(
        default=False, help_text="A Quick card adds no surcharge to its user's later cards."
    )
    unlock_rank = models.PositiveSmallIntegerField(default=1, validators=rank_validators)
    text = models.TextField("rules text", blank=True, max_length=600, validators=[multi_line])
    tier2_power = models.PositiveSmallIntegerField(
        "Tier 2 power", null=True, blank=True, validators=[MaxValueValidator(99)]
    )
    tier2_text = models.TextField(
        "Tier 2 text", blank=True, max_length=400, validators=[multi_line]
    )
    tier3_power = models.PositiveSmallIntegerField(
        "Tier 3 power", null=True, blank=True, validators=[MaxValueValidator(99)]
    )
    tier3_text = models.TextField(
        "Tier 3 text", blank=True, max_length=400, validators=[multi_line]
    )
    flavour = models.TextField(
        "flavour text",
        blank=True,
        max_length=FLAVOUR_MAX,
        validators=[multi_line],
        help_text=f"In italics at the foot of the move card, at most {FLAVOUR_MAX} characters.",
    )

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(memeyori__isnull=False, archon__isnull=True)
                    | Q(memeyori__isnull=True, archon__isnull=False)
                ),
                name="card_has_exactly_one_owner",
            ),
            models.CheckConstraint(
                condition=Q(unlock_rank__gte=stats.RANK_MIN, unlock_rank__lte=stats.RANK_MAX),
                name="card_unlock_rank_1_to_6",
            ),
        ]

    def __str__(self):
        return self.name

    @property
    def holder(self) -> Character | None:
        return self.memeyori or self.archon

    def tiers(self) -> list[tuple[int, int, str]]:
        """(tier, power, text) for Tier 1 and each Tier 2/3 version the card has."""
        rows = [(1, self.power, self.text)]
        if self.tier2_power is not None:
            rows.append((2, self.tier2_power, self.tier2_text))
        if self.tier3_power is not None:
            rows.append((3, self.tier3_power, self.tier3_text))
        return rows

    def clean(self):
        errors = {}
        if (self.memeyori_id is None) == (self.archon_id is None):
            errors["__all__"] = "A card belongs to exactly one Memeyori or one Archon."
        if self.tier3_power is not None and self.tier2_power is None:
            errors["tier3_power"] = "Give the card a Tier 2 version before a Tier 3 one."
        if self.tier2_text and self.tier2_power is None:
            errors["tier2_power"] = "Tier 2 text needs a Tier 2 power."
        if self.tier3_text and self.tier3_power is None:
            errors["tier3_power"] = "Tier 3 text needs a Tier 3 power."
        if errors:
            raise ValidationError(errors)


class Party(models.Model):
    """R8: an optional Archon, up to six Memeyori in slot order, a Party Level and its DP."""

    code = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="parties"
    )
    name = models.CharField(max_length=60, validators=[single_line])
    archon = models.ForeignKey(
        Archon, null=True, blank=True, on_delete=models.SET_NULL, related_name="parties"
    )
    level = models.PositiveSmallIntegerField(
        "Party Level", default=1, validators=[MinValueValidator(1, "Party Level starts at 1.")]
    )
    dp_sp = models.PositiveSmallIntegerField("DP on SP", default=0)
    dp_mp = models.PositiveSmallIntegerField("DP on MP", default=0)
    dp_draw = models.PositiveSmallIntegerField("DP on Draw", default=0)
    visibility = models.CharField(
        max_length=8, choices=Visibility.choices, default=Visibility.PRIVATE
    )
    # The picture on the backs of the party's printed sheet: card-sized, made from an
    # upload by cards.tasks.process_party_back (the upload form checks only its header).
    back_image = models.ImageField(upload_to="backs/", blank=True, editable=False)
    origin = models.CharField("copied from", max_length=200, blank=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "parties"

    def __str__(self):
        return self.name

    @property
    def totals(self) -> stats.PartyTotals:
        return stats.party_totals(
            level=self.level, dp_sp=self.dp_sp, dp_mp=self.dp_mp, dp_draw=self.dp_draw
        )

    def memeyori_in_order(self) -> list[Memeyori]:
        return [slot.memeyori for slot in self.slots.select_related("memeyori__type")]

    def get_absolute_url(self):
        return reverse("party", kwargs={"code": self.code})

    def clean(self):
        errors = {}
        spent = self.dp_sp + self.dp_mp + self.dp_draw
        available = max(0, (self.level or 1) - 1)
        if spent > available:
            errors["__all__"] = f"Party Level {self.level} gives {available} DP; you spent {spent}."
        if self.archon_id and self.owner_id and self.archon.owner_id != self.owner_id:
            errors["archon"] = "You can only put your own Archon in your party."
        if errors:
            raise ValidationError(errors)


def check_party_memeyori(party: Party, memeyori: list[Memeyori]) -> None:
    """R8 checks on a party's chosen Memeyori, in slot order; raises ValidationError."""
    totals = party.totals
    if len(memeyori) > totals.max_memeyori:
        raise ValidationError(
            f"SP {totals.sp} allows {totals.max_memeyori} Memeyori; you chose {len(memeyori)}."
        )
    seen = set()
    for m in memeyori:
        if m.pk in seen:
            raise ValidationError(f"{m.name} is already in another slot of this party.")
        seen.add(m.pk)
        if m.owner_id != party.owner_id:
            raise ValidationError(f"{m.name} is not yours to put in a party.")
    check_party_visibility(party, memeyori, party.archon if party.archon_id else None)


def _names(objects) -> str:
    names = [f"{o.name} ({o.visibility})" for o in objects]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def check_party_visibility(party: Party, memeyori: list[Memeyori], archon=None) -> None:
    """Issue 11.2: a party can be no more visible than its members; raises ValidationError
    naming each member that is less visible than the party."""
    level = visibility_rank(party.visibility)
    members = ([archon] if archon is not None else []) + list(memeyori)
    hidden = [m for m in members if visibility_rank(m.visibility) < level]
    if hidden:
        raise ValidationError(
            f"A {party.visibility} party cannot hold {_names(hidden)}: a party can be no "
            f"more visible than its members. Make them {party.visibility} first, or choose "
            "a less visible party.",
            code="party_visibility",
        )


def check_member_visibility(character: Character, visibility: str) -> None:
    """Issue 11.2 from the member's side: refuse a visibility below a party it sits in."""
    level = visibility_rank(visibility)
    above = [p for p in character.parties_holding() if visibility_rank(p.visibility) > level]
    if above:
        raise ValidationError(
            {
                "visibility": (
                    f"{character.name} cannot be {visibility} while it is in "
                    f"{_names(above)}: a party can be no more visible than its members. "
                    f"Make those parties {visibility} first."
                )
            },
            code="party_visibility",
        )


class PartySlot(models.Model):
    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="slots")
    memeyori = models.ForeignKey(Memeyori, on_delete=models.CASCADE, related_name="slots")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["party", "memeyori"], name="memeyori_once_per_party"),
            models.UniqueConstraint(fields=["party", "position"], name="one_memeyori_per_slot"),
            models.CheckConstraint(
                condition=Q(position__lt=stats.PARTY_MAX_MEMEYORI), name="slot_0_to_5"
            ),
        ]

    def __str__(self):
        return f"{self.party} #{self.position + 1}: {self.memeyori}"


class Table(models.Model):
    """A group and its game master (GM). The GM is always a member too."""

    code = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=60, validators=[single_line])
    description = models.CharField(
        "short description", max_length=200, blank=True, validators=[single_line]
    )
    gm = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tables_run"
    )
    created = models.DateTimeField(auto_now_add=True)
    # 256 bits; None when no invite is open (never issued, or revoked).
    invite_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    invite_expires = models.DateTimeField(null=True, blank=True)
    # R9.6: the GM's rule for the table's battles and games at round 30. Off, the round
    # limit decides (more standing, then more HP); on, a draw at the limit.
    draw_at_limit = models.BooleanField(
        "a draw at the limit",
        default=False,
        help_text="When round 30 ends with both sides standing, the battle is a draw instead of "
        "going to the side with more combatants standing, then more HP left (R9.6).",
    )

    class Meta:
        ordering = ["name", "id"]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("table", kwargs={"code": self.code})


class TableMembership(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="table_memberships"
    )
    joined = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["joined", "id"]
        constraints = [models.UniqueConstraint(fields=["table", "user"], name="one_seat_per_table")]

    def __str__(self):
        return f"{self.user} at {self.table}"


class PrintedNumbers(models.Model):
    """What a printed card said, by a digest of it (issue 34): its QR code carries the
    digest, and the page it opens compares these numbers with today's ("printed 3 days
    ago; Power has changed since"). Written once, the first time the numbers print."""

    digest = models.CharField(max_length=16, unique=True)
    numbers = models.JSONField()
    first_printed = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.digest


class HeldUpload(models.Model):
    """An upload on its way to the object store: the request keeps its bytes here, in the
    database every process shares, and answers (issue 39.5); cards.tasks.store_held_upload
    writes them to the store from a worker, trying again until the store answers (issue
    33.2: nothing lost), then processes the upload. `tries` counts the tries that failed.
    `name` is the storage name the row awaiting it holds (a character's portrait_pending,
    or a party's incoming back image)."""

    class Kind(models.TextChoices):
        MEMEYORI = "memeyori"
        ARCHON = "archon"
        BACK = "back"  # a party's back image

    name = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    code = models.UUIDField()  # the character's or party's
    data = models.BinaryField()
    held_at = models.DateTimeField(auto_now_add=True)
    tries = models.PositiveIntegerField(default=0)

    def __str__(self):
        return self.name


# Stored renders (PDFs and PNGs) are this app's too; their code lives with the printing.
# So are the task workers' heartbeats (cards/workers.py).
from .printing.renders import Render  # noqa: E402, F401
from .workers import TaskWorker  # noqa: E402, F401
