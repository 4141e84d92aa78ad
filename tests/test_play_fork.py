"""Fork from any round (issue 32 §6): a played game from the start of a round of a battle
the reader can see, with the draw piles shuffled anew and new dice from a server seed."""

import io
import json
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.management import call_command
from django.urls import reverse

from battles.engine import fork as engine_fork
from battles.engine import log as text
from battles.engine import played, review
from battles.engine.policies import GREEDY
from battles.engine.run import input_for, log_json, simulate
from battles.engine.state import apply, initial_state
from battles.models import Battle
from battles.play import fork, services
from battles.play.models import Game, GameStatus
from battles.services import battle_run
from battles.snapshot import demo_snapshot
from tests.playing import make_side

SNAP = demo_snapshot("Sunrise Squad", "Night Shift")
DATA = input_for(SNAP)
STORED = simulate(SNAP, seed=7)  # greedy against greedy: 11 rounds


def timeouts(round_sides) -> dict:
    """Plans a timeout would make (greedy planning for the side): a played side's record."""
    return {
        key: {"by": "timeout", "policy": "greedy", "version": GREEDY.version} for key in round_sides
    }


def play_out(make, policies=(None, GREEDY)):
    """Play a battle to its end, each missing plan made by greedy as a timeout."""
    plans = {}
    result = make(plans)
    while result.log is None:
        plans |= timeouts((result.needed.round, s) for s in result.needed.sides)
        result = make(plans)
    return result.log, plans


def played_origin() -> dict:
    """A finished played game's log (side A a player) as the site stores it."""
    log, _ = play_out(lambda plans: played.play(DATA, (None, GREEDY), 21, plans))
    return log


def fork_at(
    origin: dict, round_no: int, seed: int = 99, policies=(None, GREEDY), plans=None, data=DATA
):
    record = engine_fork.fork_record(origin, round_no, data=data, battle="b")
    return engine_fork.play_fork(DATA, record, policies, seed, plans or {})


def engine_state(engine) -> dict:
    """Everything a round's planning starts from, draw order aside (piles as multisets)."""
    return {
        "round": engine.round,
        "sides": [
            {
                "resonance": side.resonance,
                "mp": side.mp,
                "hand": [c.id for c in side.hand],
                "pile": Counter(c.id for c in side.pile),
                "discard": Counter(c.id for c in side.discard),
                "slots": [f.id if f else None for f in side.slots],
                "archon": (side.archon.status, side.archon.hp) if side.archon else None,
                "last_switch": side.last_switch,
            }
            for side in engine.sides
        ],
        "fighters": {
            f.id: (f.hp, f.status, f.played_nonquick, f.fielded) for f in engine.by_id.values()
        },
    }


def origin_engine(origin: dict, round_no: int):
    return engine_fork.state_at_round(DATA, engine_fork.origin_record(origin), round_no)


# -- the engine ------------------------------------------------------------------------------
@pytest.mark.parametrize("origin", ["stored", "played"])
@pytest.mark.parametrize("round_no", [1, 3, 6])
def test_the_forked_state_equals_the_battles_state_at_that_round_but_the_draw_order(
    origin, round_no
):
    log = STORED if origin == "stored" else played_origin()
    forked = fork_at(log, round_no)
    assert forked.needed.round == round_no
    assert engine_state(forked.needed.engine) == engine_state(origin_engine(log, round_no))


def test_a_fork_of_a_game_with_own_draws_starts_from_that_games_own_state():
    """The origin's record says its draws were its sides' own ("draws": "own"), and its
    replay to the fork round draws them so: hands and piles as the game had them."""
    for seed in range(21, 60):
        log, plans = play_out(
            lambda plans, seed=seed: played.play(DATA, (None, GREEDY), seed, plans, own_draws=True)
        )
        switched = [e["round"] for e in log["events"] if e["kind"] == "switch"]
        if switched and switched[0] < log["result"]["rounds"]:
            break
    assert log["draws"] == "own"
    round_no = switched[0] + 1
    before = {k: v for k, v in plans.items() if k[0] < round_no}
    game_then = played.play(DATA, (None, GREEDY), seed, before, own_draws=True).needed.engine
    assert engine_state(origin_engine(log, round_no)) == engine_state(game_then)
    assert [c.id for s in game_then.sides for c in s.pile] == [
        c.id for s in origin_engine(log, round_no).sides for c in s.pile
    ]  # the very draw order: the origin replayed as it was played


@pytest.mark.parametrize("origin", ["stored", "played"])
def test_the_forks_log_is_the_battles_own_log_up_to_the_fork(origin):
    log = STORED if origin == "stored" else played_origin()
    forked, _ = play_out(lambda plans: fork_at(log, 4, plans=plans))
    at = next(i for i, e in enumerate(forked["events"]) if e["kind"] == "fork")
    assert forked["events"][:at] == log["events"][:at]
    # The fork starts as round 4's planning begins: after its start, before its plans.
    assert forked["events"][at]["round"] == 4
    assert log["events"][at]["kind"] in ("plan", "switch", "summon")
    # Folded as the viewer folds it: HP, statuses, Resonance and MP at that moment.
    mine, theirs = initial_state(forked), initial_state(log)
    for event in forked["events"][:at]:
        apply(mine, event)
    for event in log["events"][:at]:
        apply(theirs, event)
    assert mine == theirs
    assert forked["fork"]["round"] == 4 and forked["fork"]["battle"] == "b"
    line = text.describe(forked["events"][at], text.names(forked), ["Sun", "Night"])
    assert line.startswith("The game forks here, from round 4 of another battle: Sun's (")
    assert forked["fork"]["origin"]["seed"] == log["seed"]


def test_the_fork_shuffles_each_draw_pile_anew_and_rolls_new_dice():
    log = STORED
    round_no = 2
    before = origin_engine(log, round_no)
    forked = fork_at(log, round_no, policies=(GREEDY, GREEDY))
    after = forked.engine  # the fork engine as it finished
    again = fork_at(log, round_no, policies=(GREEDY, GREEDY), seed=99)
    piles_before = [[c.id for c in s.pile] for s in before.sides]
    # The fork's piles as it began: its own replay stopped at its first round.
    record = engine_fork.fork_record(log, round_no)
    start = engine_fork.Forked(DATA, record, (GREEDY, GREEDY), 99, {}, None, stop=round_no)
    piles_fork = [[c.id for c in s.pile] for s in start.engine.sides]
    assert [Counter(p) for p in piles_fork] == [Counter(p) for p in piles_before]
    assert piles_fork != piles_before

    # The dice of the fork's first round are not the battle's.
    def dice(events, r):
        return [e["attack_dice"] for e in events if e["kind"] == "attack" and e["round"] == r]

    assert dice(forked.log["events"], round_no) != dice(log["events"], round_no)
    assert after is not None and log_json(again.log) == log_json(forked.log)


def test_a_forks_record_keeps_the_origins_plans_so_a_read_never_asks_the_ai_again():
    origin = simulate(SNAP, seed=3, policies=("random", "lookahead"))
    record = engine_fork.fork_record(origin, 4, data=DATA)
    made = [(r["round"], r["side"], r["by"], r["policy"]) for r in record["origin"]["plans"]]
    assert made == [(n, s, "ai", ("random", "lookahead")[s]) for n in (1, 2, 3) for s in (0, 1)]
    # The same fork, its origin's AIs thinking again (no plans kept): the same log.
    kept, _ = play_out(lambda plans: fork_at(origin, 4, plans=plans))
    again, _ = play_out(lambda plans: fork_at(origin, 4, plans=plans, data=None))
    assert kept["events"] == again["events"] and kept["plans"] == again["plans"]
    assert kept["result"] == again["result"]


def test_a_fork_replays_byte_identically_from_its_record_twice_and_in_threads():
    forked, plans = play_out(lambda plans: fork_at(played_origin(), 3, plans=plans))
    text = log_json(forked)
    assert log_json(engine_fork.replay(DATA, forked)) == text
    assert log_json(engine_fork.replay(DATA, forked)) == text
    with ThreadPoolExecutor(max_workers=6) as pool:
        texts = list(pool.map(lambda _: log_json(engine_fork.replay(DATA, forked)), range(12)))
    assert set(texts) == {text}


def test_a_fork_of_a_fork_replays_and_starts_from_the_right_state():
    first, _ = play_out(lambda plans: fork_at(STORED, 3, plans=plans))
    for round_no in (2, 3, 5):
        again = fork_at(first, round_no, seed=5)
        assert engine_state(again.needed.engine) == engine_state(origin_engine(first, round_no))
    second, _ = play_out(lambda plans: fork_at(first, 5, seed=5, plans=plans))
    assert log_json(engine_fork.replay(DATA, second)) == log_json(second)


@pytest.mark.parametrize("round_no", [0, 12, 31])
def test_a_fork_refuses_a_round_the_battle_never_planned(round_no):
    with pytest.raises(engine_fork.ForkRefused):
        fork_at(STORED, round_no)


# -- the site --------------------------------------------------------------------------------
@pytest.fixture
def battle(alice, bob, types) -> Battle:
    sun = make_side(alice, types, "Sunrise", prefix="Sun", archon=True)
    night = make_side(alice, types, "Night", prefix="Moon")
    return battle_run(owner=alice, party_a=sun, party_b=night, seed=7)


def fork_url(battle) -> str:
    return reverse("battle_fork", kwargs={"code": battle.code})


def test_the_viewer_offers_play_from_here_at_the_round_it_shows(client, alice, battle):
    client.force_login(alice)
    html = client.get(battle.get_absolute_url() + "?round=3").content.decode()
    assert f'href="{fork_url(battle)}?round=3"' in html
    page = client.get(fork_url(battle) + "?round=3").content.decode()
    assert re.search(r'<option value="3" selected>Round 3</option>', page)
    assert "Both hands at that round are known from the battle's log" in page


@pytest.mark.django_db(transaction=True)
def test_a_fork_against_the_ai_names_its_battle_and_round_and_plays_on(client, alice, battle):
    client.force_login(alice)
    response = client.post(
        fork_url(battle), {"round": "3", "opponent": "ai", "side": "1", "policy": "greedy"}
    )
    game = Game.objects.get()
    assert response["Location"] == game.get_absolute_url()
    assert (game.fork_battle, game.fork_round, game.round) == (battle, 3, 3)
    assert game.fork["round"] == 3 and game.fork["battle"] == str(battle.code)
    assert (game.kind, game.policies, game.user_a, game.user_b) == (
        "ai", ("greedy", "player"), None, alice,
    )  # fmt: skip
    # A round planned: it resolves, and the game plans the next.
    state = services.game_state(game, 1)
    assert state["status"] == "planning" and state["round"] == 3
    assert state["fork"] == {"round": 3, "battle": battle.get_absolute_url()}
    assert services.watch_state(game)["fork"] == state["fork"]
    services.submit_plan(game, 1, 3, {"switch": None, "summon": False, "cards": []})
    game.refresh_from_db()
    assert game.round == 4
    log, resolved = services.game_log(game)
    assert resolved == 3
    assert any(e["kind"] == "fork" for e in log["events"])
    # The log a side steps through is the battle's own up to the fork.
    at = next(i for i, e in enumerate(log["events"]) if e["kind"] == "fork")
    assert log["events"][:at] == battle.log["events"][:at]
    # Hidden information: what alice steps through shows the AI's draws as counts only,
    # and her state, its hand size only; the fork's seed is not said.
    seen = services.visible_log(game, 1)
    assert seen["seed"] is None
    ai_draws = [e for e in seen["events"] if e["kind"] == "draw" and e["side"] == 0]
    assert ai_draws and all(e["cards"] == [] for e in ai_draws)
    ai_hand = {c["id"] for c in services.game_state(game, 0)["hand"]}
    mine = json.dumps(services.game_state(game, 1))
    assert ai_hand and not [card for card in ai_hand if f'"{card}"' in mine]
    # The game's pages name where it came from, and its rounds step as any game's.
    page = client.get(game.get_absolute_url()).content.decode()
    assert "played from round 3 of" in page and battle.get_absolute_url() in page
    watch = client.get(reverse("play_watch", kwargs={"code": game.code}) + "?round=3")
    assert watch.status_code == 200
    assert '<li class="event fork' in watch.content.decode()  # its words, once stepped to


@pytest.mark.django_db(transaction=True)
def test_a_finished_fork_is_stored_as_a_battle_that_replays(client, alice, battle):
    game = fork.fork_game(user=alice, battle=battle, round_no=2, opponent="hotseat")
    assert game.policies == ("player", "player") and game.user_a == game.user_b == alice
    services.forfeit(game, 0)
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED
    stored = game.battle
    assert stored.log["fork"]["round"] == 2
    client.force_login(alice)
    at = [e["kind"] for e in stored.log["events"] if e["round"] == 2].index("fork") + 1
    viewer = client.get(stored.get_absolute_url() + f"?round=2&step={at}").content.decode()
    assert "The game forks here, from round 2 of another battle" in viewer
    assert "Rematch" not in viewer and "Review this battle" in viewer
    again = engine_fork.replay(input_for(stored.snapshot), stored.log)
    # PostgreSQL's jsonb keeps no key order: the stored log is compared by its content.
    assert json.dumps(again, sort_keys=True) == json.dumps(stored.log, sort_keys=True)
    # The fork's own battle can be forked in turn.
    again = fork.fork_game(user=alice, battle=stored, round_no=2, opponent="ai", side=0)
    assert again.fork["origin"]["fork"]["round"] == 2


def test_the_forks_seed_is_the_servers_and_is_not_shown_while_it_is_played(client, alice, battle):
    client.force_login(alice)
    for _ in range(2):
        client.post(fork_url(battle), {"round": "2", "opponent": "ai", "seed": "5"})
    games = list(Game.objects.all())
    assert len(games) == 2 and games[0].seed != games[1].seed
    assert all(not g.seed_chosen and g.seed != 5 for g in games)
    state = client.get(reverse("play_state", kwargs={"code": games[0].code})).json()
    assert state["seed"] is None and state["seed_commitment"]


def test_someone_who_cannot_see_the_battle_gets_a_404(client, bob, battle):
    client.force_login(bob)
    assert client.get(fork_url(battle)).status_code == 404
    assert client.post(fork_url(battle), {"round": "2", "opponent": "ai"}).status_code == 404
    assert not Game.objects.exists()
    client.logout()
    assert client.get(fork_url(battle)).status_code == 404
    assert client.post(fork_url(battle), {"round": "2"}).status_code == 404


def test_a_public_battle_can_be_forked_by_anyone_who_logs_in(client, bob, battle):
    Battle.objects.filter(pk=battle.pk).update(visibility="public")
    page = client.get(fork_url(battle)).content.decode()
    assert "Log in to play from here" in page
    assert client.post(fork_url(battle), {"round": "2"}).url.startswith(reverse("login"))
    client.force_login(bob)
    client.post(fork_url(battle), {"round": "2", "opponent": "ai", "side": "0"})
    game = Game.objects.get()
    assert game.user_a == bob and game.fork_battle == battle


def test_a_round_the_battle_does_not_have_is_refused_by_the_field(client, alice, battle):
    client.force_login(alice)
    response = client.post(fork_url(battle), {"round": "99", "opponent": "ai"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Choose a round this battle planned." in html
    assert 'id="id_round_error"' in html
    assert not Game.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_an_in_progress_game_cannot_be_forked(client, alice, bob, types):
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    night = make_side(bob, types, "Night", prefix="Moon", visibility="public")
    game = services.start_game(user=alice, party=sun, opponent="ai", party_b=night, seed=3)
    client.force_login(alice)
    # In progress it has no battle to fork, and its pages offer none.
    assert game.battle is None
    assert "Play from here" not in client.get(game.get_absolute_url()).content.decode()
    services.forfeit(game, 0)
    game.refresh_from_db()
    battle = game.battle
    assert client.get(fork_url(battle)).status_code == 200
    # Were its battle's game not over, the fork is refused, and nothing is stored.
    Game.objects.filter(pk=game.pk).update(status=GameStatus.PLANNING)
    response = client.post(fork_url(battle), {"round": "1", "opponent": "ai"})
    assert "This game is still being played" in response.content.decode()
    assert "Play from here" not in client.get(battle.get_absolute_url()).content.decode()
    assert Game.objects.count() == 1


def test_a_forks_review_rates_the_rounds_played_in_the_fork_from_the_forks_own_states():
    forked, _ = play_out(lambda plans: fork_at(STORED, 3, plans=plans))
    rounds, result = review.replay_states(DATA, forked)
    assert [r.round for r in rounds] == list(range(3, forked["result"]["rounds"] + 1))
    # Its first round starts where the fork began, and every round is the fork's own.
    assert engine_state(rounds[0].planning) == engine_state(fork_at(STORED, 3).needed.engine)
    winner = forked["result"]["winner"]
    assert result == (0.5 if winner is None else 1 - winner)
    made = [p for p in forked["plans"] if p["side"] == 0]
    assert [r.made[0]["cards"] for r in rounds] == [p["cards"] for p in made]
    assert all(r.by == ["timeout", "ai"] for r in rounds)


def test_a_forks_review_is_the_same_each_time_and_rates_its_player():
    forked, _ = play_out(lambda plans: fork_at(played_origin(), 4, plans=plans))
    first = review.review(DATA, forked, max_pairs=16)
    assert first == review.review(DATA, forked, max_pairs=16)
    assert first["rounds"][0]["round"] == 4 and first["rated"] == [True, False]
    assert all(r["plan_loss"][0] is not None for r in first["rounds"])


@pytest.mark.django_db(transaction=True)
def test_the_replay_command_replays_a_forks_battle(alice, battle):
    game = fork.fork_game(user=alice, battle=battle, round_no=3, opponent="ai", side=0)
    services.forfeit(game, 0)
    game.refresh_from_db()
    out = io.StringIO()
    call_command("replay", str(game.battle.code), stdout=out)
    assert "identical" in out.getvalue().lower()


@pytest.mark.django_db(transaction=True)
def test_a_forks_player_may_switch_first_and_play_the_card_it_drew(alice, types):
    """Ruling 8 for everyone, in a fork too: its own rounds have own draws, so a stage
    shows what the Switch draws, and the round, resolved, draws that very card."""
    from battles.play import stage

    sun = make_side(alice, types, "Sunrise", prefix="Sun", size=4)
    night = make_side(alice, types, "Night", prefix="Moon", size=4)
    battle = battle_run(owner=alice, party_a=sun, party_b=night, seed=7)
    game = fork.fork_game(user=alice, battle=battle, round_no=3, opponent="hotseat")
    assert game.own_draws
    state = services.game_state(game, 0)
    assert state["can_stage"] and state["switches"], "the fork's side A has a Memeyori stored"
    after = stage.make_stage(game, 0, 3, state["switches"][0], False)
    out_id, in_id = after["stage"]["switch"]
    (drawn,) = after["stage"]["drawn"]
    assert drawn.startswith(in_id + ".") and drawn in [c["id"] for c in after["hand"]]
    card = next(c for c in after["hand"] if c["id"] == drawn)
    cards = [[drawn, 1, card["targets"][0]["id"]]] if card["targets"] else []
    services.submit_plan(game, 0, 3, {"switch": None, "summon": False, "cards": cards})
    services.submit_plan(game, 1, 3, {"switch": None, "summon": False, "cards": []})
    log, resolved = services.game_log(game)
    assert resolved == 3
    at = next(i for i, e in enumerate(log["events"]) if e["kind"] == "fork")
    draws = [e for e in log["events"][at:] if e["kind"] == "draw" and e["side"] == 0]
    assert draws[0]["cards"] == [drawn]
    # Finished, it replays byte-identically from its record, own draws and all.
    services.forfeit(game, 0)
    out = io.StringIO()
    finished = Battle.objects.get(game=game)
    assert finished.log["draws"] == "own"
    call_command("replay", str(finished.code), stdout=out)
    assert "Identical" in out.getvalue()
