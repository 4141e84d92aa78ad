"""`lookahead` version 3, a parameter set over worlds.py kept for the battles it played
(the current version is lookahead.py): version 2's search (lookahead2.py), knowing only
what the table saw, in twice as many worlds. Its choices must not change: a change to
worlds.py that moves one fails tests/test_battle_lookahead.py.

Version 2 read two things from the live battle that the side planning second could not
have known as planning began: the enemy's last Switch, which the enemy's Switch of this
very round had already replaced, and which enemy combatants stood where after that Switch
or summon. An audit that changed only side A's plan saw side B's lookahead plan change.
Version 3 reads the enemy only from what the table saw before either side planned
(View.enemies, View.shown: Seen, and the cards printed on its combatants), so nothing side
A plans this round can move side B's plan.

Its dice are its own (Policy.dice "own", plan.dice_for): drawn from a generator fixed by
where the battle's started, the round and the side, never from the battle's generator. So
the other side's draws cannot move them either, and a played game's recorded lookahead
plan replays without thinking again.

The search is version 2's (candidates: any rescue Switch, greedy's cards and their
neighbours; each candidate's gain over greedy's choice counted world by world on the same
dice, dropped when it gains nothing in the first worlds, chosen only when its mean gain
less `DOUBT` standard errors is above zero), with its numbers changed where measuring
against greedy said so (tests/bench/policies.py): `SAMPLES` worlds, each this round and
`EXTRA_ROUNDS` more, both sides by greedy, scored as version 1 scores them.
"""

from . import greedy1
from .worlds import Thinker

VERSION = 3
# Twice version 2's worlds: against greedy over 400 battles of identical parties (the
# bench's first 200 demo and 200 random), 24 worlds won 72% of the decided demo battles and
# 83% of the random ones; 12 worlds won 62% and 70% over issue 31's 1,400; ten extra rounds
# instead of five, with 12 worlds, did no better on the same 400 (59%, 77%).
SAMPLES = 24  # worlds per candidate
FIRST = 8  # a candidate no better than greedy's in these first worlds is dropped
DOUBT = 1.0  # standard errors a candidate's mean gain over greedy's must clear
EXTRA_ROUNDS = 5  # rounds played out after this one, both sides by greedy

# Its candidates include greedy version 1's Switch and cards (as version 2's did).
THINKER = Thinker(
    key="lookahead3",
    samples=SAMPLES,
    first=FIRST,
    doubt=DOUBT,
    extra_rounds=EXTRA_ROUNDS,
    also_switch=(greedy1.greedy_switch,),
    also_plays=(greedy1.greedy_plays,),
)
switch, summon, plays = THINKER.switch, THINKER.summon, THINKER.plays
