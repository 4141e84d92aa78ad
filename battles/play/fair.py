"""How strong each AI opponent is against a player's party, and which one is a fair fight
(issue 31.4).

For the party a player picks, every party they may fight (itself, a mirror match, then
the first others they can see, OPPONENTS in all) at every AI level (engine.policies.LEVELS)
gets an estimate of the player's chance: a quick lab of `battles_for(policy)` battles,
the player's side played by greedy (the nearest thing to a careful player the site has)
against the AI at that level, sides alternated so neither seat helps. Estimates run as
tasks on the bulk queue (`estimate_chance`) and are kept, keyed by what decides a battle
and nothing else: (party digest, opponent digest, policy, version). A party's digest
covers its side of the snapshot without names, codes or portraits, and the type chart,
so a renamed party keeps its estimates and a changed card gets new ones.

Words: "about 1 in 5" for the chance of winning (`in_words`); the fair fight is the party
and level whose estimate is closest to even (FairEstimate.imbalance: both sides win, and
as often as each other).
"""

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from fractions import Fraction

from django.db import transaction
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend

from ..lab.tasks import lock_person
from .fair_tasks import estimate_chance
from .models import FairEstimate

OPPONENTS = 12  # parties estimated for one picker: its own, then the first others it sees
BATTLES = 300  # per estimate, greedy for the player against the AI
# Lookahead thinks for tens of milliseconds a plan, a thousand times the others.
BATTLES_BY_POLICY = {"lookahead": 60}
# Estimates one person may have waiting to be played at once: one whole picker's worth. A
# person who opens the picker for party after party has the rest played as theirs finish
# (the picker keeps asking while any wait), so nobody fills the bulk queue alone.
PENDING_PER_PERSON = 48  # OPPONENTS at each of the four levels
STALE = timedelta(hours=1)  # an estimate queued this long ago and not done is queued again
DRAWS_WORTH_SAYING = 0.1  # the words name the draws from this share of battles
FAR = 0.6  # an imbalance beyond which even the fair fight is called lopsided
# Whatever names or shows a party or character, not how it plays.
NOT_PLAY = ("name", "code", "owner", "portrait")


def battles_for(policy: str) -> int:
    return BATTLES_BY_POLICY.get(policy, BATTLES)


def _playing(row):
    if isinstance(row, dict):
        return {k: _playing(v) for k, v in row.items() if k not in NOT_PLAY}
    if isinstance(row, list):
        return [_playing(v) for v in row]
    return row


def digest(side: dict, chart, limit=None) -> str:
    """SHA-256 of how a party plays: its snapshot side without names, codes and portraits,
    with the type chart and the rule at the round limit (R9.6's `limit`) it plays under, so
    an estimate made under one rule is never read for the other (those made before R9.6,
    without a rule, are not read at all)."""
    played = [_playing(side), chart] if limit is None else [_playing(side), chart, limit]
    text = json.dumps(played, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


# -- words ---------------------------------------------------------------------------------


def in_words(chance: float) -> str:
    """A chance as people say it: "about 1 in 5", "about 3 in 4", "about even"."""
    if chance < 0.05:
        return "less than 1 in 20"
    if chance > 0.95:
        return "more than 19 in 20"
    near = Fraction(chance).limit_denominator(10)
    if near == Fraction(1, 2):
        return "about even"
    # The plainest fraction within a few points: 0.27 is "about 1 in 4", not "3 in 11".
    for denominator in range(2, 11):
        numerator = round(chance * denominator)
        if numerator and abs(numerator / denominator - chance) <= 0.03:
            return f"about {numerator} in {denominator}"
    return f"about {near.numerator} in {near.denominator}"


def ranks(side: dict) -> tuple[int, int]:
    """The lowest and highest Rank of a snapshot side's Memeyori."""
    found = [m["rank"] or 1 for m in side["memeyori"]] or [1]
    return min(found), max(found)


def _mean_rank(side: dict) -> float:
    found = [m["rank"] or 1 for m in side["memeyori"]] or [1]
    return sum(found) / len(found)


def gap(mine: dict, theirs: dict) -> str:
    """What a player should hear before fighting a stronger party, or ""."""
    my_rank, their_rank = _mean_rank(mine), _mean_rank(theirs)
    said = []
    if their_rank >= my_rank + 0.5:
        said.append(f"its Memeyori average Rank {their_rank:.1f} against your {my_rank:.1f}")
    if theirs["level"] > mine["level"]:
        said.append(f"its Level is {theirs['level']} against your {mine['level']}")
    return ("Stronger than yours: " + " and ".join(said) + ".") if said else ""


# -- the estimates ---------------------------------------------------------------------------


def _has_queue() -> bool:
    """Whether tasks wait for a worker. Without one (the immediate backend: the test suite,
    DJANGO_TASKS_IMMEDIATE) an estimate would be played inside the page's request, which
    nothing slow may be: the picker then shows Rank and Level and the estimates it has."""
    return isinstance(estimate_chance.get_backend(), DatabaseBackend)


def _queue(estimate_ids: list[int]) -> None:
    for pk in estimate_ids:
        transaction.on_commit(lambda pk=pk: estimate_chance.enqueue(pk))


@dataclass
class Choice:
    """One opponent at one level, as the picker shows it."""

    party: object  # cards.models.Party
    policy: str
    label: str
    line: str
    estimate: FairEstimate | None

    @property
    def words(self) -> str:
        """ "about 1 in 5", and the draws when there are many (a 30-round battle of equals
        often ends in one, so "2 in 7" alone would hide an even fight)."""
        e = self.estimate
        if e is None or not e.done:
            return ""
        said = in_words(e.chance)
        if e.draws >= e.battles * DRAWS_WORTH_SAYING:
            draws = in_words(e.draws / e.battles).replace("about even", "about 1 in 2")
            said += f", and {draws} are draws"
        return said


@dataclass
class Opponent:
    party: object
    level: int
    ranks: tuple[int, int]
    gap: str
    choices: list[Choice]
    mirror: bool  # the player's own party, against itself


@dataclass
class Picker:
    party: object
    level: int
    ranks: tuple[int, int]
    opponents: list[Opponent]
    fair: Choice | None  # the finished estimate closest to even
    pending: int  # estimates still being played
    waiting: int = 0  # not asked for yet: the person has PENDING_PER_PERSON in the queue

    @property
    def far(self) -> bool:
        """Whether even the fair fight is lopsided: the weaker side wins under 1 in 5."""
        return self.fair is not None and self.fair.estimate.imbalance > FAR

    @property
    def choices(self) -> list[Choice]:
        return [c for o in self.opponents for c in o.choices]


def picker(user, party, limit=None) -> Picker:
    """Every opponent `user` may send `party` against (the first OPPONENTS), at every AI
    level, with its estimate; those not estimated yet are queued (bulk) and kept. `limit`:
    the R9.6 rule the games would be played under (the round limit decides by default)."""
    from battles.engine.model import LIMIT_DECIDE
    from battles.engine.policies import LEVELS, POLICIES
    from battles.services import parties_for
    from battles.snapshot import battle_snapshot

    # The party itself first: a mirror match is even when the AI plays as well as the
    # player, and a fair fight for any party (a newcomer's also has the demo's First
    # Friends, Level 1 and weak on purpose).
    others = (
        parties_for(user)
        .filter(slots__isnull=False)
        .distinct()
        .exclude(pk=party.pk)
        .order_by("name", "pk")
    )
    rows = []  # (opponent, snapshot, its digest)
    limit = limit or LIMIT_DECIDE
    for other in [party, *others[: OPPONENTS - 1]]:
        snap = battle_snapshot(party, other, limit=limit)
        rows.append((other, snap, digest(snap["sides"][1], snap["chart"], limit)))
    mine = rows[0][1]["sides"][0]
    my_digest = rows[0][2]
    kept = FairEstimate.objects.filter(
        party_digest=my_digest, opponent_digest__in=[r[2] for r in rows]
    )
    found = {
        (e.opponent_digest, e.policy): e
        for e in kept
        if e.policy in POLICIES and e.version == POLICIES[e.policy].version
    }
    now = timezone.now()
    queue = _has_queue()
    to_queue = []
    out = []
    waiting = 0
    with transaction.atomic():
        if queue:
            # The person's count stays true until their new estimates are written.
            lock_person(user.pk)
            room = (
                PENDING_PER_PERSON
                - FairEstimate.objects.filter(requested_by=user, done=False).count()
            )
        for other, snap, their_digest in rows:
            choices = []
            for name, (label, line) in LEVELS.items():
                estimate = found.get((their_digest, name))
                if not queue:
                    pass  # no worker to play a new one (_has_queue)
                elif estimate is None and room <= 0:
                    waiting += 1
                elif estimate is None:
                    estimate, created = FairEstimate.objects.get_or_create(
                        party_digest=my_digest,
                        opponent_digest=their_digest,
                        policy=name,
                        version=POLICIES[name].version,
                        defaults={
                            "snapshot": snap,
                            "battles": battles_for(name),
                            "requested_by": user,
                        },
                    )
                    if created:
                        to_queue.append(estimate.pk)
                        room -= 1
                elif not estimate.done and now - estimate.queued > STALE:
                    FairEstimate.objects.filter(pk=estimate.pk).update(queued=now)
                    to_queue.append(estimate.pk)
                choices.append(Choice(other, name, label, line, estimate))
            theirs = snap["sides"][1]
            out.append(
                Opponent(
                    other,
                    theirs["level"],
                    ranks(theirs),
                    gap(mine, theirs),
                    choices,
                    other == party,
                )
            )
    _queue(to_queue)
    finished = [c for o in out for c in o.choices if c.estimate and c.estimate.done]
    fair = min(finished, key=lambda c: c.estimate.imbalance, default=None)
    pending = sum(1 for o in out for c in o.choices if c.estimate and not c.estimate.done)
    return Picker(party, mine["level"], ranks(mine), out, fair, pending, waiting)
