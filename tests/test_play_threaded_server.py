"""Under a threaded server (`make run` serves with Django's threaded development server):
a player plays a game against lookahead through the JSON protocol while two other clients
poll its state every 100 ms, each read in its own server thread. Every read of a round
shows that round's one state (one while the AI thinks about it, one after): the game is a
function of its record, whoever reads it and however the threads interleave."""

import json
import threading
import time
import urllib.request

import pytest

from battles.play import services
from tests.play_parties import NIGHT_CARDS, play_party


def _opener(session: str):
    opener = urllib.request.build_opener()
    opener.addheaders = [("Cookie", f"sessionid={session}")]
    return opener


def _session_of(client) -> str:
    return client.cookies["sessionid"].value


@pytest.mark.django_db(transaction=True)
def test_readers_and_a_player_in_threads_see_one_state_per_round(
    live_server, client, alice, bob, types
):  # noqa: E501
    pa = play_party(alice, types)
    pb = play_party(bob, types, "Night Crew", cards=NIGHT_CARDS, visibility="public")
    game = services.start_game(
        user=alice, party=pa, opponent="ai", party_b=pb, policy_b="lookahead", seed=21
    )
    client.force_login(alice)
    opener = _opener(_session_of(client))
    state_url = f"{live_server.url}/play/{game.code}/state.json"
    seen: dict[tuple, set] = {}
    lock = threading.Lock()
    done = threading.Event()

    def poll():
        while not done.is_set():
            with opener.open(state_url) as answer:
                text = answer.read().decode()
            state = json.loads(text)
            with lock:
                # A round has two states for its player: while the AI thinks about it
                # (a task, battles/play/thinking.py) and once its plan is made.
                key = (state["round"], state["status"], bool(state["thinking"]))
                seen.setdefault(key, set()).add(text)
            time.sleep(0.1)

    pollers = [threading.Thread(target=poll) for _ in range(2)]
    for poller in pollers:
        poller.start()
    try:
        for _ in range(4):
            with opener.open(state_url) as answer:
                state = json.loads(answer.read())
            if state["status"] != "planning":
                break
            cards = [
                [c["id"], 1, c["targets"][0]["id"]]
                for c in state["hand"][:1]
                if c["mp_cost"] <= state["mp"] and c["targets"]
            ]
            body = {"round": state["round"], "switch": None, "summon": False, "cards": cards}
            services.submit_plan(game, 0, state["round"], body)
            time.sleep(0.35)  # a few polls of each round
    finally:
        done.set()
        for poller in pollers:
            poller.join()
    assert len(seen) >= 3
    for key, texts in seen.items():
        assert len(texts) == 1, (key, len(texts))
