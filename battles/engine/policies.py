"""How a side plans its round (R9.2): the registry of policies and the `random` one.

A policy is three plain functions of a `View` (its own side, and the enemy field as it
stood when planning began) and the battle's rng. None ever sees the other side's hand,
draw pile or plan.

`POLICIES` maps each name to its current version; a battle records the versions that
played it (the log's `policy_versions`, `Battle.policy_version_a/b`, `Lab.policy_version_a/b`)
and replays with `policy_version(name, version)`. A policy whose choices change gets a new
version; the old one stays here, unchanged, for as long as battles made with it exist.

- `beginner` 1 (beginner.py): a new player's habits, each one to punish: never switches,
  aims at random, no Tiers, summons its Archon the moment it can.
- `greedy` 2 (greedy.py): one round at a time, by rules; 1 (greedy1.py): the first greedy.
- `random` 2: each choice uniform among the legal ones, from dice of its own (Policy.dice);
  1: the same from the battle's generator.
- `lookahead` 4 (lookahead.py): version 3's search over worlds.py with its own candidates
  only and a stricter bar for leaving greedy's choice; 3 (lookahead3.py, a parameter set
  over worlds.py): version 2's search in twice as many worlds (24), knowing
  only what the table saw as planning began, from dice of its own; 2 (lookahead2.py):
  many candidate plans (any Switch; greedy's cards, aimed elsewhere, held back, a Tier up
  or down, greedy's plan against each enemy alone, ...), each played out over sampled
  worlds (this round and the next five, both sides by greedy), the promising ones in more
  worlds (successive halving), the best on average;
  1 (lookahead1.py): greedy's choices and a few neighbours, each in ten worlds.
"""

from . import beginner, greedy, greedy1, lookahead, lookahead1, lookahead2, lookahead3
from .field import Policy, View
from .model import TIER_COST


def random_switch(view: View, rng):
    options = view.switch_options()
    if not options:
        return None
    return rng.choice([None, *options])


def random_summon(view: View, rng) -> bool:
    return rng.random() < 0.5


def random_plays(view: View, rng) -> list[tuple[str, int, str]]:
    """Uniformly random legal choices, one at a time, until it picks "stop" or none is left."""
    side = view.side
    mp = side.mp
    resonance = side.resonance
    hand = list(side.hand)
    extra: dict[str, int] = {}
    allies = [f.id for f in side.field()]
    enemies = [e.id for e in view.enemies]
    plays = []
    while True:
        options = []
        for card in hand:
            user = view.user_of(card)
            spent = card.mp_cost + user.played_nonquick + extra.get(user.id, 0)
            if spent > mp:
                continue
            targets = allies if card.category == "support" else enemies
            for tier in card.tiers():
                if TIER_COST[tier] <= resonance:
                    options.extend((card, user, tier, t, spent) for t in targets)
        if not options:
            return plays
        choice = rng.choice([None, *options])
        if choice is None:
            return plays
        card, user, tier, target, spent = choice
        mp -= spent
        resonance -= TIER_COST[tier]
        if not card.quick:
            extra[user.id] = extra.get(user.id, 0) + 1
        hand.remove(card)
        plays.append((card.id, tier, target))


GREEDY_1 = Policy(
    "greedy", greedy1.greedy_switch, greedy1.greedy_summon, greedy1.greedy_plays, dice="none"
)
GREEDY = Policy(
    "greedy", greedy.switch, greedy.summon, greedy.plays, version=greedy.VERSION, dice="none"
)
# Version 2 chooses as version 1 does, from dice of its own (Policy.dice) instead of the
# battle's: the other side's plan and draws no longer move its choices.
RANDOM_1 = Policy("random", random_switch, random_summon, random_plays)
RANDOM = Policy("random", random_switch, random_summon, random_plays, version=2, dice="own")


def _lookahead(module, **options) -> Policy:
    """A lookahead version from its module: every one thinks (Policy.thinks)."""
    return Policy(
        "lookahead", module.switch, module.summon, module.plays, version=module.VERSION,
        thinks=True, **options,
    )  # fmt: skip


LOOKAHEAD_1 = _lookahead(lookahead1)
LOOKAHEAD_2 = _lookahead(lookahead2)
LOOKAHEAD_3 = _lookahead(lookahead3, dice="own")
LOOKAHEAD = _lookahead(lookahead, dice="own")
BEGINNER = Policy(
    "beginner",
    beginner.switch,
    beginner.summon,
    beginner.plays,
    version=beginner.VERSION,
    dice="own",
)

# Every version that may have played a stored battle, by (name, version).
VERSIONS = {
    (p.name, p.version): p
    for p in (
        GREEDY_1,
        GREEDY,
        RANDOM_1,
        RANDOM,
        LOOKAHEAD_1,
        LOOKAHEAD_2,
        LOOKAHEAD_3,
        LOOKAHEAD,
        BEGINNER,
    )
}
# The current version of each policy: what new battles and labs play.
POLICIES = {"greedy": GREEDY, "random": RANDOM, "lookahead": LOOKAHEAD, "beginner": BEGINNER}
# Each policy as a level people choose, weakest first: (the name a person sees, one line on
# how it plays). Every form that offers a policy reads its labels here.
LEVELS = {
    "random": ("Coin Flipper", "Any legal choice, at random: a warm-up."),
    "beginner": (
        "Beginner",
        "Plays like a new player: never switches, aims anywhere, saves no Resonance for Tiers.",
    ),
    "greedy": ("Greedy", "The best expected damage per MP, one round at a time."),
    "lookahead": ("Thinker", "Plays its options out a few rounds ahead before choosing."),
}
assert set(LEVELS) == set(POLICIES)


def policy_version(name: str, version: int | None = None) -> Policy:
    """The policy `name` at `version` (None: the current one); LookupError if unknown."""
    if version is None:
        if name not in POLICIES:
            raise LookupError(f"There is no policy {name!r}.")
        return POLICIES[name]
    found = VERSIONS.get((name, version))
    if found is None:
        raise LookupError(f"There is no {name} policy version {version}.")
    return found


def current_versions(names) -> tuple[int, ...]:
    return tuple(POLICIES[name].version for name in names)
