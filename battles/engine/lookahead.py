"""`lookahead` version 3: version 2's play (lookahead2.py), knowing only what the table saw.

Version 2 read two things from the live battle that the side planning second could not
have known as planning began: the enemy's last Switch, which the enemy's Switch of this
very round had already replaced, and which enemy combatants stood where after that Switch
or summon. An audit that changed only side A's plan saw side B's lookahead plan change.
Version 3 reads the enemy only from what the table saw before either side planned
(View.shown: Seen), so nothing side A plans this round can move side B's plan.

Its dice are its own (Policy.dice "own", plan.dice_for): drawn from a generator fixed by
where the battle's started, the round and the side, never from the battle's generator. So
the other side's draws cannot move them either, and a played game's recorded lookahead
plan replays without thinking again.
"""

from functools import partial

from . import lookahead2
from .field import DISMISSED, FIELD, KO, STORED, View
from .lookahead1 import _Known

VERSION = 3
SAMPLES = lookahead2.SAMPLES


class _Seen(_Known):
    """Version 1's knowledge, with the enemy as the table saw it when planning began."""

    __slots__ = ()

    def __init__(self, view: View, rng, samples: int):
        super().__init__(view, rng, samples)
        shown = view.shown(1 - view.side.index)
        if shown is None:  # a View made by hand, outside plan_round: nothing has moved yet
            return
        on_field = {e.id: e.hp for e in view.enemies}
        enemy = []
        for fid, status, hp in shown.roster:
            if fid in on_field:
                enemy.append((fid, FIELD, on_field[fid]))
            elif status == KO:
                enemy.append((fid, KO, hp))
            else:
                enemy.append((fid, DISMISSED if status == DISMISSED else STORED, hp))
        self.enemy = enemy
        self.enemy_switch = shown.last_switch


def _known(view: View, rng) -> _Known:
    """This plan's knowledge, made once per plan, kept with the plan's own View."""
    known = view.scratch.get("lookahead3")
    if known is None:
        known = view.scratch["lookahead3"] = _Seen(view, rng, SAMPLES)
    return known


switch = partial(lookahead2.switch, knowing=_known)
summon = partial(lookahead2.summon, knowing=_known)
plays = partial(lookahead2.plays, knowing=_known)
