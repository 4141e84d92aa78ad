"""Engine versions: /1 battles stored before R9.3 groups stay as they were; new ones say /2.

tests/battle_log_v1.json is a real /1 battle written by engine 1 (commit c712857), with
digests of what the viewer computes from it at every step: the state after each event
(battles.engine.state), exactly as engine 1 computed it; and each event's text and the
CLI's text (battles.engine.log), in today's words. Engine 1's own digest of both together
(fa1d9ef1...) was reproduced with the old wording before issue 21.9 fixed "1 glitches" and
"2 card(s)", and its states part kept as `states_digest`.
"""

import hashlib
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from battles.engine import log as text
from battles.engine.battle import ENGINE_VERSION, LOG_FORMAT
from battles.engine.state import frame_end, round_frames, state_at
from battles.engine.summary import summarize
from battles.models import Battle, BattleVisibility
from battles.services import battle_run
from tests.test_battle_pages import make_team

STORED = json.loads((Path(__file__).parent / "battle_log_v1.json").read_text(encoding="utf-8"))


def _digest(payload) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _states(log: dict) -> list[dict]:
    frames = round_frames(log)
    states = []
    for r in range(len(frames)):
        length = frame_end(frames, r, len(log["events"])) - frames[r]["first_event"]
        states += [state_at(log, frames, r, step) for step in range(length + 1)]
    return states


def _texts(log: dict) -> list:
    names, sides = text.names(log), [s["name"] for s in log["sides"]]
    return [[text.describe(e, names, sides) for e in log["events"]], text.render_text(log)]


def test_a_v1_log_reads_exactly_as_engine_1_read_it():
    assert STORED["log"]["format"] == "memeyori-battle-log/1"
    assert _digest(_states(STORED["log"])) == STORED["states_digest"]
    assert _digest(_texts(STORED["log"])) == STORED["text_digest"]


def test_a_v1_log_still_sums_up():
    log = STORED["log"]
    s = summarize(log)
    for cid, row in s["combatants"].items():
        taken = [e["amount"] for e in log["events"] if e["kind"] == "damage" and e["target"] == cid]
        assert row["damage_taken"] == sum(taken)
    knocked = {e["combatant"] for e in log["events"] if e["kind"] == "ko"}
    assert {cid for cid, row in s["combatants"].items() if row["knocked_out"]} == knocked
    assert sum(row["knockouts"] for row in s["combatants"].values()) == len(knocked)


@pytest.fixture
def stored_v1(alice):
    log = STORED["log"]
    return Battle.objects.create(
        owner=alice,
        name_a=log["sides"][0]["name"],
        name_b=log["sides"][1]["name"],
        snapshot=STORED["snapshot"],
        seed=STORED["seed"],
        log=log,
        engine_version=1,
        frames=round_frames(log),
        winner=log["result"]["winner"],
        rounds=log["result"]["rounds"],
        visibility=BattleVisibility.PUBLIC,
    )


def test_a_stored_v1_battle_opens_in_the_viewer_at_every_round(client, stored_v1):
    log = stored_v1.log
    for round_no in range(stored_v1.rounds + 1):
        response = client.get(stored_v1.get_absolute_url(), {"round": round_no})
        assert response.status_code == 200
    # A round opens on its first event (issue 12); its last step shows the final blow.
    response = client.get(stored_v1.get_absolute_url(), {"round": round_no, "step": 10_000})
    html = response.content.decode()
    last_damage = [e for e in log["events"] if e["kind"] == "damage"][-1]
    assert f"({last_damage['hp_before']} -&gt; {last_damage['hp_after']} HP)" in html


def test_replay_of_a_v1_battle_says_the_earlier_engine_made_it(stored_v1):
    out = StringIO()
    call_command("replay", str(stored_v1.code), stdout=out)
    said = out.getvalue()
    assert "Made by the earlier engine" in said and "memeyori-battle-log/1" in said
    assert "Different" not in said


def test_a_new_battle_records_todays_engine_and_replays_identically(alice, types):
    party = make_team(alice, types, "Now")
    other = make_team(alice, types, "Then")
    battle = battle_run(owner=alice, party_a=party, party_b=other, seed=5)
    battle.refresh_from_db()
    assert battle.engine_version == ENGINE_VERSION == 2
    assert battle.log["format"] == LOG_FORMAT == "memeyori-battle-log/2"
    out = StringIO()
    call_command("replay", str(battle.code), stdout=out)
    assert "Identical" in out.getvalue()
