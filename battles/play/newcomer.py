"""A newcomer plays at once (issue 41.2): one click gives a new account a party to play, and
the AI's level starts at the weakest that gives them an even game until they win.

The starter party is a copy of the demo's First Friends (cards/data/demo.json), not a party
of its own kept here, because:
- it is the party a new player would build: Level 1, three Memeyori at Rank 1, no Archon,
  every card legal; one definition (the demo file) stays balanced for both uses;
- the copies are the player's own, so the builder opens on something of theirs to change
  (a copy says where it came from, cards.services.copied_from);
- the demo's First Friends stays public, so the first game is a mirror match: equal parties,
  where only how each side plays decides.

NEWCOMER_LEVEL was measured with the engine (`python -m tests.bench newcomer`, the
estimates' way: seats alternated, seeds from 31,000): a copy of First Friends against First
Friends, the player's side played by `beginner` (a new player) and by `greedy` (the
estimates' stand-in for a careful player), 300 battles a level (60 against the Thinker).
Share of decided battles the player won, Coin Flipper / Beginner / Greedy / Thinker:
beginner 77% / 45% / 39% / 36%, greedy 89% / 61% / 53% / 49%. For both, Beginner is the
weakest level with an even game (35-65% won, under 20% drawn): Coin Flipper is a rout.
The estimates and their levels (fair.py) are another part's; this module keeps only the
default.
"""

from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.urls import reverse

from cards.demo import DEMO_USERNAME
from cards.models import Party, Visibility
from cards.services import copied_from, party_copy

from ..engine.played_record import PLAYER
from .models import Game, GameKind, GameStatus

STARTER = "First Friends"  # the demo party a starter party is a copy of
NEWCOMER_LEVEL = "beginner"  # the weakest even level for the starter (see above)
LEVEL = "greedy"  # the start form's level once a person has beaten the AI


def starter_source() -> Party | None:
    """The demo's First Friends, if the demo is loaded (seed_demo) and it can fight."""
    return (
        Party.objects.filter(
            owner__username=DEMO_USERNAME,
            name=STARTER,
            visibility=Visibility.PUBLIC,
            slots__isnull=False,
        )
        .distinct()
        .first()
    )


def playable_parties(user):
    return Party.objects.filter(owner=user, slots__isnull=False).distinct()


def has_beaten_the_ai(user) -> bool:
    """Whether `user` has won a game against the AI (a side they planned won)."""
    won = Q(policy_a=PLAYER, user_a=user, winner=0) | Q(policy_b=PLAYER, user_b=user, winner=1)
    return Game.objects.filter(won, kind=GameKind.AI, status=GameStatus.FINISHED).exists()


def default_level(user) -> str:
    """The AI level the start form offers first: the weakest even one until they win."""
    return LEVEL if has_beaten_the_ai(user) else NEWCOMER_LEVEL


def starter_party_create(*, owner) -> Party:
    """The owner's copy of the starter party, made once: a second click (another tab, a
    double click) gets the same copy. ValidationError when there is no starter to copy or
    the owner's bounds are full (party_copy counts the copies against them)."""
    source = starter_source()
    if source is None:
        raise ValidationError("There is no starter party on this site: build a Memeyori instead.")
    with transaction.atomic():
        # Under a lock on the owner's row, so two clicks at once make one copy.
        get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
        made = playable_parties(owner).filter(origin=copied_from(source)).order_by("pk").first()
        return made or party_copy(party=source, owner=owner)


def first_game_offer(user) -> dict | None:
    """What the first-game offer (templates/battles/play/_first_game.html) shows, or None
    when `user` has a party to play."""
    if playable_parties(user).exists():
        return None
    source = starter_source()
    return {"starter": source, "memeyori": source.memeyori_in_order() if source else []}


def first_game_url(party: Party, user) -> str:
    """The start form filled for `party` against the starter at the default level."""
    query = {"party": party.code, "opponent": "ai", "policy_b": default_level(user)}
    if (source := starter_source()) is not None:
        query["party_b"] = source.code
    return f"{reverse('play_new')}?{urlencode(query)}"
