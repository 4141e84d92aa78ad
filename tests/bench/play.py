"""`make bench` figures for played games (issue 17): what a plan submission costs the
server at round 30 of a 30-round game, the replay of the 29 rounds before it included.

A hot-seat game of two demo parties whose sides plan simply (a heal on the most hurt ally
when one is hurt, else the cheapest attack on the first enemy), on a seed where that game
lasts all 30 rounds. Timed in CPU seconds of this process: POST /play/<code>/plan.json
through Django's test client (the view, the JSON, the game's row lock, the replay, the
checks, the write; each one rolled back so the next finds the same game), for side A
(the round waits for side B) and side B (the round resolves, the battle ends and is
stored as a Battle); and the replay alone. The baseline, from the same run: one whole
greedy battle of the same parties.

Self-contained: a throwaway database (a temporary SQLite file, or a test database on
PostgreSQL when DATABASE_URL says so).
"""

import json
import random
import statistics
import time

from tests.bench import QUICK, sized, throwaway_database

PARTIES = ("Sunrise Squad", "Night Shift")


def cpu_timed(fn, *, repeat: int = 7, number: int = 20) -> float:
    """Median CPU seconds of this process for one call: on a shared machine, what other
    processes do stays out of it (SQLite runs in this process, so its work counts)."""
    if QUICK:
        repeat, number = 1, 1
    samples = []
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(number):
            fn()
        samples.append((time.process_time() - start) / number)
    return statistics.median(samples)


ROUNDS = 30


def simple_plan(view) -> dict:
    """A heal on the most hurt ally, else the cheapest attack on the first enemy."""
    from battles.engine.plan_choices import card_choices

    hand = card_choices(view)
    allies = {f.id: f for f in view.side.field()}
    hurt = sorted(
        (f for f in allies.values() if f.hp < f.spec.max_hp), key=lambda f: f.hp / f.spec.max_hp
    )
    for card in sorted(hand, key=lambda c: c["mp_cost"]):
        if card["mp_cost"] > view.side.mp:
            continue
        if card["category"] == "support" and hurt:
            return {"switch": None, "summon": False, "cards": [[card["id"], 1, hurt[0].id]]}
    for card in sorted(hand, key=lambda c: c["mp_cost"]):
        if card["category"] != "support" and card["mp_cost"] <= view.side.mp:
            target = card["targets"][0]["id"]
            return {"switch": None, "summon": False, "cards": [[card["id"], 1, target]]}
    return {"switch": None, "summon": False, "cards": []}


def _long_game(snap) -> tuple[int, dict]:
    """A seed on which the simple plans last 30 rounds, and their plans for rounds 1-29."""
    from battles.engine import played
    from battles.engine.run import input_for

    data = input_for(snap)
    for seed in range(1000):
        plans = {}
        while True:
            # Own draws, as the game these plans are recorded in has (Game.own_draws).
            result = played.play(data, (None, None), seed, plans, own_draws=True)
            if result.needed is None:
                break
            if result.needed.round == ROUNDS:
                return seed, plans
            for side in result.needed.sides:
                plans[result.needed.round, side] = simple_plan(result.needed.views[side])
    raise RuntimeError("no seed lasts 30 rounds with the simple plans")


def bench_play() -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.test import Client

    from battles.engine import played
    from battles.engine.policies import GREEDY
    from battles.engine.run import input_for, simulate
    from battles.play import services
    from battles.play.models import PlayedPlan
    from battles.snapshot import battle_snapshot
    from cards.demo import seed_demo
    from cards.models import Party

    with throwaway_database("play.sqlite3"):
        seed_demo()
        user = get_user_model().objects.get(username="demo")
        a, b = (Party.objects.get(owner=user, name=name) for name in PARTIES)
        snap = battle_snapshot(a, b)
        seed, plans = _long_game(snap)
        game = services.start_game(user=user, party=a, opponent="hotseat", party_b=b, seed=seed)
        PlayedPlan.objects.bulk_create(
            PlayedPlan(game=game, round=r, side=s, plan=p) for (r, s), p in plans.items()
        )
        game.round = ROUNDS
        game.save()
        replay = played.play(
            input_for(game.snapshot), (None, None), seed, plans, own_draws=game.own_draws
        )
        assert replay.needed.round == ROUNDS
        last = [simple_plan(replay.needed.views[s]) for s in (0, 1)]
        client = Client()
        client.force_login(user)
        url = f"/play/{game.code}/plan.json"

        def post(side, *, then=None):
            with transaction.atomic():
                if then is not None:
                    PlayedPlan.objects.create(game=game, round=ROUNDS, side=0, plan=last[0])
                body = json.dumps({"round": ROUNDS, "side": side, **last[side]})
                response = client.post(url, body, content_type="application/json")
                assert response.status_code == 200, response.content
                transaction.set_rollback(True)

        post(0)  # the first request imports the URLconf and views
        number = int(sized(20))
        side_a = cpu_timed(lambda: post(0), number=number)
        side_b = cpu_timed(lambda: post(1, then=True), number=number)
        replay_only = cpu_timed(
            lambda: played.play(
                input_for(game.snapshot), (None, None), seed, plans, own_draws=game.own_draws
            ),
            number=number,
        )
        greedy = cpu_timed(
            lambda: simulate(snap, seed=random.randrange(10**6), policies=("greedy", "greedy")),
            number=number,
        )
        print(
            f"play: a plan submission at round {ROUNDS} of a {ROUNDS}-round game, the replay"
            f" of rounds 1-{ROUNDS - 1} included (plan.json on {connection.vendor}, CPU time):"
            f" side A (the round waits) {side_a * 1e3:.1f} ms, side B (the round resolves and"
            f" the battle is stored) {side_b * 1e3:.1f} ms; goal under 20 ms at round 30"
        )
        print(
            f"play: ratios to one whole greedy battle of the same parties"
            f" ({greedy * 1e3:.2f} ms, greedy {GREEDY.version}) in the same run: side A"
            f" {side_a / greedy:.1f}x, side B {side_b / greedy:.1f}x, the replay alone"
            f" {replay_only / greedy:.2f}x ({replay_only * 1e3:.2f} ms)"
        )


def _finish_against(services, record, user, a, b, policy: str, seed: int):
    """A game of greedy's cards against the AI, played to its end through the services."""
    game = services.start_game(
        user=user, party=a, opponent="ai", party_b=b, policy_b=policy, seed=seed
    )
    from battles.engine import greedy, played
    from battles.engine.run import input_for
    from tests.playing import think

    while True:
        think(game)  # the AI's thinking, as an interactive worker makes it (thinking.py)
        state = services.game_state(game, 0)
        if state["status"] == "finished":
            return game
        replay = played.play(
            input_for(game.snapshot),
            record.ai_policies(game),
            game.seed,
            record.recorded_plans(game),
            own_draws=game.own_draws,
        )
        view = replay.needed.views[0]
        # Greedy's cards, without a Switch (a player plans against the hand as it stands).
        summon = view.can_summon() and greedy.summon(view, None)
        plan = {"switch": None, "summon": summon, "cards": greedy.plays(view, None)}
        services.submit_plan(game, 0, state["round"], plan)


def bench_lookahead_reads() -> None:
    """What reading a finished game against lookahead costs: state.json replays the
    recorded plans, the AI's included, with the engine alone (issue 31.1); before, every
    read ran lookahead again for each of its plans (the same replay with the AI's plans
    left out, timed in the same run). Ratios to one greedy battle of the same parties."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from battles.engine import played
    from battles.engine.run import input_for, simulate
    from battles.play import record, services
    from battles.play.models import PlanBy, PlayedPlan
    from battles.snapshot import battle_snapshot
    from cards.demo import seed_demo
    from cards.models import Party

    with throwaway_database("play-reads.sqlite3"):
        seed_demo()
        user = get_user_model().objects.get(username="demo")
        a, b = (Party.objects.get(owner=user, name=name) for name in PARTIES)
        snap = battle_snapshot(a, b)
        # The longest of a few games (lookahead ends most of them early).
        games = [
            _finish_against(services, record, user, a, b, "lookahead", s)
            for s in range(int(sized(6)))
        ]
        game = max(games, key=lambda g: g.round)
        client = Client()
        client.force_login(user)
        url = f"/play/{game.code}/state.json"
        assert client.get(url).status_code == 200
        plans = record.recorded_plans(game)
        without_ai = {
            key: plan
            for key, plan in plans.items()
            if not PlayedPlan.objects.filter(
                game=game, round=key[0], side=key[1], by=PlanBy.AI
            ).exists()
        }
        ai = record.ai_policies(game)
        data = input_for(game.snapshot)
        number = int(sized(10))
        read = cpu_timed(lambda: client.get(url), number=number)
        thinking = cpu_timed(
            lambda: played.play(data, ai, game.seed, without_ai, own_draws=game.own_draws),
            number=1,
        )
        greedy = cpu_timed(
            lambda: simulate(snap, seed=random.randrange(10**6), policies=("greedy", "greedy")),
            number=number,
        )
        print(
            f"play: reading a finished {game.round}-round game against lookahead"
            f" (state.json, CPU time): {read / greedy:.1f}x one greedy battle of the same"
            f" parties ({read * 1e3:.1f} ms against {greedy * 1e3:.2f} ms, same run); its"
            f" replay with lookahead thinking again, as every read did before:"
            f" {thinking / greedy:.0f}x ({thinking * 1e3:.0f} ms)"
        )


BENCHES = [bench_play, bench_lookahead_reads]
