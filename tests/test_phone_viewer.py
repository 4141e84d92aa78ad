"""The viewer's compact field (issue 21.1): each combatant's name, HP bar and status at the
current step, and what the step's blow took off. The browser journey in
test_browser_evening.py checks it stays in view on a phone and that the bar moves."""

import re

from battles.models import BattleVisibility
from battles.viewer import hp_bar, hp_change

from .test_battle_pages import make_team, run


def test_a_blow_is_drawn_as_the_fill_and_the_chunk_it_took():
    bar = hp_bar(27, 53, 53)
    assert bar["hp_width"] == "50.9" and bar["lost_width"] == "49.1"
    assert bar["delta"] == -26 and bar["delta_text"] == "\u221226"
    assert bar["hp_band"] == "high"  # above half
    assert hp_bar(14, 53, None)["hp_band"] == "mid" and hp_bar(14, 53, None)["delta"] == 0
    assert hp_bar(13, 53, 13)["hp_band"] == "low"  # a quarter and less
    healed = hp_bar(5, 53, 2)
    assert healed["delta_text"] == "+3" and healed["lost_width"] == ""
    assert hp_bar(0, 53, 9)["hp_band"] == "low" and hp_bar(0, 53, 9)["hp_width"] == "0.0"


def test_hp_moves_where_the_log_says_it_lands():
    assert hp_change({"kind": "apply", "combatant": "A1", "hp_before": 9, "hp_after": 4}) == {
        "A1": 9
    }
    # /1 logs changed HP at each damage event; /2 damage waits for its group's apply.
    assert hp_change({"kind": "damage", "target": "B2", "hp_before": 7, "hp_after": 1}) == {"B2": 7}
    assert hp_change({"kind": "damage", "target": "B2", "amount": 6}) == {}
    assert hp_change({"kind": "plan", "side": 0}) == {}


def test_the_compact_field_names_everyone_on_the_field_and_marks_the_blow(
    client, alice, bob, types
):
    battle = run(
        alice,
        make_team(alice, types, "Sunrise", visibility="public"),
        make_team(bob, types, "Night", visibility="public"),
        visibility=BattleVisibility.PUBLIC,
    )
    log, frames = battle.log, battle.frames
    first = frames[1]["first_event"]
    step, hit = next(
        (i, e)
        for i, e in enumerate(log["events"][first:], start=1)
        if e["kind"] == "apply" and e["hp_after"] < e["hp_before"]
    )
    html = client.get(f"{battle.get_absolute_url()}?round=1&step={step}").content.decode()
    glance = re.search(r'<div class="glance".*?(?=<p class="now"|<form class="jump")', html, re.S)
    assert glance, "the stage holds a compact field"
    rows = re.findall(r'<li class="glance-row[^"]*">.*?</li>', glance[0], re.S)
    assert len(rows) == 4  # two a side, as made
    marked = [r for r in rows if 'class="glance-row hit"' in r or "glance-row ko hit" in r]
    assert len(marked) == 1 and f'id="hp-glance-{hit["combatant"]}"' in marked[0]
    assert f"\u2212{hit['hp_before'] - hit['hp_after']}" in marked[0]
    assert f"{hit['hp_after']}/" in marked[0]
    assert '<p class="now"><span class="sr">This step: </span>' in html
    # The full field's bar carries its own id, so both slide from step to step.
    assert f'id="hp-field-{hit["combatant"]}"' in html
    # No step taken yet: nothing is marked.
    start = client.get(f"{battle.get_absolute_url()}?round=1&step=0").content.decode()
    assert "glance-row hit" not in start and '<p class="now">' not in start
