"""How strong each AI opponent is against a player's party, and which one is a fair fight
(issues 31.4, 39.1, 41.3, 41.4).

For the party a player picks, every party they may fight (itself, a mirror match, then
the first others they can see, OPPONENTS in all) gets a few quick measurements: the
player's side played by greedy (the nearest thing to a careful player the site has)
against each cheap level (BATTLES_BY_POLICY: greedy itself, Beginner, Coin Flipper), sides
alternated so neither seat helps. The Thinker, whose battles cost about 600 greedy ones,
is never played for a picker: its chance is predicted from the greedy-against-greedy
measurement and the levels' ratings (levels.py: one strength scale, fitted once from
AI-against-AI battles, kept in levels.json). Why measure the cheap levels instead of
predicting them too: from 60 greedy battles the ratings alone missed Beginner and Coin
Flipper by more than 10 points on 6 and 5 of 20 kept-out pairings, where the picker's own
45-battle measurements miss on 1 each (tests/bench/levels.py; Greedy 19 of 20), because
how much a weak level loses by depends on the parties (a party with few choices plays as
well at random); their battles cost less than greedy's.
The Thinker's prediction is right on average (47.5% shown against 49.2% measured over the
20 pairings); it is checked pairing by pairing only with the bench's full Thinker labs.

One visit plays at most OPPONENTS x sum(BATTLES_BY_POLICY) battles, under 2,000 greedy
battles' time (tests/bench/budget.py measures it), once for every user: measurements are
kept, keyed by what decides a battle and nothing else: (party digest, opponent digest,
policy, version). A party's digest covers its side of the snapshot without names, codes or
portraits, and the type chart, so a renamed party keeps its measurements and a changed
card gets new ones.

Measurements run as tasks on the bulk queue (`estimate_chance`), a person's taking turns
with everyone else's bulk work (`dispatch`: at most QUEUED_PER_PERSON of theirs in the task
queue at once, issue 39.4); the page shows the parties' Rank and Level meanwhile.

Words: "about 1 in 5" for the chance of winning (`in_words`). A fair fight (issue 41.4) is
one that gives the player FAIR_LOW-FAIR_HIGH of the decided battles and fewer than
FAIR_DRAWS draws; the closest to even of those is offered, and none when none is.
"""

import hashlib
import json
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend

from ..lab.tasks import lock_person
from . import levels
from .fair_tasks import estimate_chance
from .models import FairEstimate

OPPONENTS = 12  # parties measured for one picker: its own, then the first others it sees
# Battles per measurement, greedy for the player against each level played for a picker;
# the others (the Thinker) are predicted from greedy's and the ratings (levels.predict).
BATTLES_BY_POLICY = {"greedy": 60, "beginner": 45, "random": 45}
# Measurements one person may have asked for and not yet had played: one picker's worth.
# A person who opens the picker for party after party has the rest asked for as theirs
# finish (the picker keeps asking while any wait), so nobody fills the bulk queue alone.
PENDING_PER_PERSON = OPPONENTS * len(BATTLES_BY_POLICY)
# Of those, in the task queue at once: each one played queues the person's next, at the
# back, so people's bulk work takes turns (as the lab's chunks do, lab/tasks.py).
QUEUED_PER_PERSON = 2
STALE = timedelta(hours=1)  # a measurement queued this long ago and not done is queued again
DRAWS_WORTH_SAYING = 0.1  # the words name the draws from this share of battles
# A fair fight (issue 41.4): the player wins this share of the decided battles, and fewer
# than FAIR_DRAWS of all battles are draws.
FAIR_LOW, FAIR_HIGH, FAIR_DRAWS = 0.35, 0.65, 0.20
# Whatever names or shows a party or character, not how it plays.
NOT_PLAY = ("name", "code", "owner", "portrait")


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

in_words = levels.in_words


def level_ratings() -> dict:
    """The kept ratings of the current policies (levels.kept): {} before any is fitted."""
    from battles.engine.policies import POLICIES

    return levels.kept({name: p.version for name, p in POLICIES.items()})


def level_strength(name: str) -> str:
    """ "wins about 7 in 10 against Greedy", or "" for a level not rated yet."""
    from battles.engine.policies import LEVELS

    return levels.strength(name, level_ratings(), LEVELS[levels.ANCHOR][0])


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


# -- the measurements ------------------------------------------------------------------------


def _has_queue() -> bool:
    """Whether tasks wait for a worker. Without one (the immediate backend: the test suite,
    DJANGO_TASKS_IMMEDIATE) a measurement would be played inside the page's request, which
    nothing slow may be: the picker then shows Rank and Level and what it has."""
    return isinstance(estimate_chance.get_backend(), DatabaseBackend)


def dispatch(user_id: int) -> None:
    """Put the person's next waiting measurements in the task queue, oldest first, until
    QUEUED_PER_PERSON of theirs are there. Call it in a transaction, the person locked."""
    mine = FairEstimate.objects.filter(requested_by_id=user_id, done=False)
    room = QUEUED_PER_PERSON - mine.filter(in_queue=True).count()
    if room <= 0:
        return
    ids = list(mine.filter(in_queue=False).order_by("queued", "pk").values_list("pk", flat=True))
    ids = ids[:room]
    FairEstimate.objects.filter(pk__in=ids).update(in_queue=True, queued=timezone.now())
    for pk in ids:
        transaction.on_commit(lambda pk=pk: estimate_chance.enqueue(pk))


@dataclass
class Choice:
    """One opponent at one level, as the picker shows it: the pairing's measurement and
    the outcome the levels' ratings predict from it (None until both are there)."""

    party: object  # cards.models.Party
    policy: str
    label: str
    line: str
    estimate: FairEstimate | None
    outcome: levels.Outcome | None = None

    @property
    def words(self) -> str:
        """ "about 1 in 5", and the draws when there are many (a 30-round battle of equals
        often ends in one, so "2 in 7" alone would hide an even fight)."""
        o = self.outcome
        if o is None:
            return ""
        said = in_words(o.won)
        if o.drawn >= DRAWS_WORTH_SAYING:
            draws = in_words(o.drawn).replace("about even", "about 1 in 2")
            said += f", and {draws} are draws"
        return said

    @property
    def fair(self) -> bool:
        """Close enough to even to offer as a fair fight (issue 41.4)."""
        o = self.outcome
        return o is not None and FAIR_LOW <= o.decided <= FAIR_HIGH and o.drawn < FAIR_DRAWS


def _outcome(measured: dict, policy: str, ratings: dict) -> levels.Outcome | None:
    """A level's chance from its own measurement, or predicted from greedy's (levels.py)."""
    own = measured.get(policy)
    if own is not None:
        return own.outcome if own.done else None
    greedy = measured.get(levels.ANCHOR)
    if greedy is None or not greedy.done or policy not in ratings:
        return None
    return levels.predict(greedy.wins, greedy.losses, greedy.draws, policy, ratings)


@dataclass
class Opponent:
    party: object
    level: int
    ranks: tuple[int, int]
    gap: str
    choices: list[Choice]
    mirror: bool  # the player's own party, against itself
    measured: dict = field(default_factory=dict)  # policy -> FairEstimate

    @property
    def measuring(self) -> bool:
        return any(not e.done for e in self.measured.values())

    @property
    def asked(self) -> bool:
        """Whether every measurement of this opponent has been asked for."""
        return len(self.measured) == len(BATTLES_BY_POLICY)


@dataclass
class Picker:
    party: object
    level: int
    ranks: tuple[int, int]
    opponents: list[Opponent]
    fair: Choice | None  # the fair fight closest to even, if any is fair
    pending: int  # measurements still being played
    waiting: int = 0  # measurements not asked for yet: the person has enough pending
    rated: bool = True  # the levels have kept ratings (levels.json)
    limit: str = "decide"  # R9.6's rule the chances are for (model.LIMITS)

    @property
    def draw_at_limit(self) -> bool:
        return self.limit == "draw"

    @property
    def none_close(self) -> bool:
        """Every measurement is in (none pending or waiting) and no fight is fair."""
        return self.fair is None and not self.pending and not self.waiting and self.rated

    @property
    def choices(self) -> list[Choice]:
        return [c for o in self.opponents for c in o.choices]


def picker(user, party, limit=None) -> Picker:
    """Every opponent `user` may send `party` against (the first OPPONENTS), at every AI
    level, with the predicted chance; pairings not measured yet are asked for (bulk). `limit`:
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
    found = {
        (e.opponent_digest, e.policy): e
        for e in FairEstimate.objects.filter(
            party_digest=my_digest,
            opponent_digest__in=[r[2] for r in rows],
            policy__in=list(BATTLES_BY_POLICY),
        )
        if e.version == POLICIES[e.policy].version
    }
    ratings = level_ratings()
    now = timezone.now()
    queue = _has_queue()
    out = []
    waiting = 0
    with transaction.atomic():
        if queue:
            # The person's counts stay true until their new measurements are written.
            lock_person(user.pk)
            room = (
                PENDING_PER_PERSON
                - FairEstimate.objects.filter(requested_by=user, done=False).count()
            )
        for other, snap, their_digest in rows:
            measured = {}
            for name, battles in BATTLES_BY_POLICY.items():
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
                            "battles": battles,
                            "requested_by": user,
                            "in_queue": False,
                        },
                    )
                    room -= created
                elif not estimate.done and estimate.in_queue and now - estimate.queued > STALE:
                    # Lost (a queue emptied by hand): asked for again, as the person's own.
                    FairEstimate.objects.filter(pk=estimate.pk).update(
                        in_queue=False, requested_by=user
                    )
                if estimate is not None:
                    measured[name] = estimate
            choices = [
                Choice(other, name, label, line, measured.get(name),
                       _outcome(measured, name, ratings))
                for name, (label, line) in LEVELS.items()
            ]  # fmt: skip
            theirs = snap["sides"][1]
            out.append(
                Opponent(other, theirs["level"], ranks(theirs), gap(mine, theirs), choices,
                         other == party, measured)
            )  # fmt: skip
        if queue:
            dispatch(user.pk)
    fair = [c for o in out for c in o.choices if c.fair]
    best = min(fair, key=lambda c: (abs(c.outcome.decided - 0.5), c.outcome.drawn), default=None)
    pending = sum(1 for o in out for e in o.measured.values() if not e.done)
    return Picker(
        party, mine["level"], ranks(mine), out, best, pending, waiting, bool(ratings), limit
    )
