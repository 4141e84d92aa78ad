"""`lookahead` version 4 (the Thinker): version 3's search over worlds.py, its own
candidates only, and a stricter bar for leaving greedy's choice.

Each decision of a plan (the Switch, the Archon summon, the cards) weighs candidates:
greedy's choice first, then its neighbours (worlds.switch_options, worlds.card_options).
Each is played out in `SAMPLES` sampled worlds (worlds.Seen: only what the table saw as
planning began, the enemy's hand drawn from the cards printed on its combatants), this round
and `EXTRA_ROUNDS` more, both sides by greedy, and scored by what is left (worlds.score).
A candidate's gain over greedy's choice is counted world by world on the same dice; one
that gains nothing in the first `FIRST` worlds is dropped, and one displaces greedy's
choice only when its mean gain less `DOUBT` standard errors is above zero.

What version 4 changes from version 3 (lookahead3.py), measured against greedy in the
policies bench (tests/bench/policies.py: different demo parties and random pairs, both
seats):
- no candidates from greedy version 1 (its Switch and cards): nothing current asks a
  frozen version;
- DOUBT 2 standard errors instead of 1: with a dozen candidates, one standard error let a
  candidate better only by luck displace greedy's choice in most plans;
- see the figures below.

Its dice are its own (Policy.dice "own"): the one number a plan draws seeds every world.
"""

from .worlds import Thinker

VERSION = 4
SAMPLES = 24  # worlds per candidate
FIRST = 8  # a candidate no better than greedy's in these first worlds is dropped
DOUBT = 2.0  # standard errors a candidate's mean gain over greedy's must clear
EXTRA_ROUNDS = 3  # rounds played out after this one, both sides by greedy

THINKER = Thinker(
    key="lookahead4", samples=SAMPLES, first=FIRST, doubt=DOUBT, extra_rounds=EXTRA_ROUNDS
)
switch, summon, plays = THINKER.switch, THINKER.summon, THINKER.plays
