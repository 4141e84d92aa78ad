"""A played game's dice from a key no one can search (issue 40.1, battles/engine/keyed.py):
a drawn seed is 256 secret bits, the stream under it changes everywhere when one bit of the
key does, the game replays from its record, and nothing a player sees before the end lets
them find the key (a 32-bit seed they could find by trying them all)."""

import copy
import io
import pickle
import random
import re

import pytest
from django.core.management import call_command

from battles.engine import fork as engine_fork
from battles.engine import played
from battles.engine.keyed import KeyedRandom, rng_for
from battles.engine.run import canonical, input_for
from battles.models import Battle
from battles.play import fork, services
from battles.play.models import Game
from tests.play_parties import NIGHT_CARDS, play_party

KEY = "0f" * 32


def _flipped(key: str, bit: int) -> str:
    raw = bytearray(bytes.fromhex(key))
    raw[bit // 8] ^= 1 << (bit % 8)
    return raw.hex()


@pytest.mark.parametrize("bit", [0, 7, 128, 255])
def test_one_bit_of_the_key_changes_every_draw(bit):
    a, b = KeyedRandom(KEY), KeyedRandom(_flipped(KEY, bit))
    # Past several blocks of each stream (312 floats, 1,024 bytes a block).
    floats = [(a.random(), b.random()) for _ in range(2_000)]
    assert all(x != y for x, y in floats)
    words = [(a.getrandbits(64), b.getrandbits(64)) for _ in range(500)]
    assert all(x != y for x, y in words)


def test_the_same_key_gives_the_same_stream_and_every_method_draws_from_it():
    a, b = KeyedRandom(KEY), KeyedRandom(KEY)
    for rng in (a, b):
        deck = list(range(40))
        rng.shuffle(deck)
        rng.__dict__["deck"] = deck
    assert a.deck == b.deck
    assert [a.randrange(1000) for _ in range(50)] == [b.randrange(1000) for _ in range(50)]
    assert a.choice("abcdef") == b.choice("abcdef") and a.random() == b.random()
    # Nothing comes from Mersenne Twister under the same name: its draws differ.
    mt = random.Random(int(KEY, 16))
    assert [KeyedRandom(KEY).random() for _ in range(5)] != [mt.random() for _ in range(5)]
    assert KeyedRandom._randbelow is random.Random._randbelow_with_getrandbits


def test_the_floats_are_uniform_enough_for_dice():
    rng = KeyedRandom(KEY)
    faces = [int(rng.random() * 6) for _ in range(60_000)]
    counts = [faces.count(f) for f in range(6)]
    assert all(9_500 < c < 10_500 for c in counts), counts  # 10,000 +- 5 sigma
    assert all(0.0 <= rng.random() < 1.0 for _ in range(5_000))


def test_a_copy_a_pickle_and_a_saved_state_go_on_where_the_stream_stood():
    rng = KeyedRandom(KEY)
    for _ in range(500):
        rng.random()
    rng.getrandbits(13)
    state = rng.getstate()
    twins = [copy.deepcopy(rng), pickle.loads(pickle.dumps(rng)), KeyedRandom()]
    twins[2].setstate(state)
    expected = [rng.random() for _ in range(400)] + [rng.getrandbits(40) for _ in range(9)]
    for twin in twins:
        assert [twin.random() for _ in range(400)] + [twin.getrandbits(40) for _ in range(9)] == (
            expected
        )


def test_a_seed_picks_its_generator_by_its_type():
    assert type(rng_for(7)) is random.Random and rng_for(7).random() == random.Random(7).random()
    assert type(rng_for(KEY)) is KeyedRandom
    with pytest.raises(ValueError):
        rng_for("7")  # a whole number is an int, never a string


@pytest.fixture
def parties(alice, bob, types):
    night = play_party(bob, types, "Night Crew", cards=NIGHT_CARDS, visibility="public")
    return play_party(alice, types), night


def _plan(state) -> dict:
    for card in state["hand"]:
        if card["mp_cost"] <= state["mp"] and card["targets"]:
            return {"switch": None, "summon": False,
                    "cards": [[card["id"], 1, card["targets"][0]["id"]]]}  # fmt: skip
    return {"switch": None, "summon": False, "cards": []}


def _friend_game(alice, bob, parties) -> Game:
    game = services.start_game(user=alice, party=parties[0], opponent="friend")
    services.join_game(game.invite_token, bob, parties[1])
    game.refresh_from_db()
    return game


def _play_rounds(game, rounds):
    for _ in range(rounds):
        game.refresh_from_db()
        if game.status == "finished":
            return
        for side in (0, 1):
            state = services.game_state(game, side)
            services.submit_plan(game, side, state["round"], _plan(state))


def test_a_friend_game_is_dealt_from_a_256_bit_key_that_replays_from_its_record(
    alice, bob, parties
):
    game = _friend_game(alice, bob, parties)
    other = _friend_game(alice, bob, parties)
    # Stored as 64 hex digits where the seed was, read back as the key it is.
    assert re.fullmatch(r"[0-9a-f]{64}", game.seed) and game.seed != other.seed
    assert not game.seed_chosen and Game.objects.get(pk=game.pk).seed == game.seed
    _play_rounds(game, 3)
    services.forfeit(game, 1)
    battle = Battle.objects.get(game=game)
    assert battle.seed == game.seed == battle.log["seed"]
    again = engine_fork.replay(input_for(battle.snapshot), battle.log)
    assert canonical(again) == canonical(battle.log)
    out = io.StringIO()
    call_command("replay", str(battle.code), stdout=out)
    assert "Identical" in out.getvalue()
    # A fork of it draws a key of its own, and replays too (through the origin's key).
    forked = fork.fork_game(user=alice, battle=battle, round_no=2, opponent="hotseat")
    assert re.fullmatch(r"[0-9a-f]{64}", forked.seed) and forked.seed != game.seed
    services.forfeit(forked, 0)
    fork_battle = Battle.objects.get(game=forked)
    again = engine_fork.replay(input_for(fork_battle.snapshot), fork_battle.log)
    assert canonical(again) == canonical(fork_battle.log)


def test_a_chosen_seed_is_still_a_whole_number_on_mersenne_twister(alice, parties):
    pa, pb = parties
    game = services.start_game(user=alice, party=pa, opponent="ai", party_b=pb, seed=99)
    game.refresh_from_db()
    assert game.seed == 99 and game.seed_chosen
    assert services.game_state(game, 0)["seed"] == 99
    drawn = services.start_game(user=alice, party=pa, opponent="ai", party_b=pb)
    assert len(drawn.seed) == 64 and not drawn.seed_chosen
    # A finished game's key may be typed to deal its game again (a rematch, same seed).
    again = services.start_game(user=alice, party=pa, opponent="ai", party_b=pb, seed=drawn.seed)
    assert again.seed == drawn.seed and again.seed_chosen


def _opening(data, seed) -> list[str]:
    """What side A's state.json shows of round 1: its hand, in order."""
    game = played.play(data, (None, None), seed, {}, own_draws=True)
    return [card.id for card in game.needed.views[0].side.hand]


def test_a_player_cannot_find_the_key_from_what_the_state_shows(alice, bob, parties):
    """The review's attack, at a size a test can run: try every seed of a range and keep
    those that deal side A's opening hand (state.json shows it, in order). It finds a
    whole-number seed in its range; a key has 2**256 values and is not among them."""
    game = _friend_game(alice, bob, parties)
    state = services.game_state(game, 0)
    shown = [card["id"] for card in state["hand"]]
    data = input_for(game.snapshot)
    assert _opening(data, game.seed) == shown  # what the attack compares is what is shown
    candidates = range(1_500)
    planted = 1_234  # an older game's seed, in the range the attack searches
    found_old = [s for s in candidates if _opening(data, s) == _opening(data, planted)]
    assert planted in found_old
    # The key is no whole number to try: 256 bits (at least 128 asked), from secrets.
    assert isinstance(game.seed, str) and len(bytes.fromhex(game.seed)) * 8 >= 128
    # And nothing of the key is in what either player or a watcher is sent before the end.
    for text in (str(services.game_state(game, 0)), str(services.game_state(game, 1))):
        assert game.seed not in text and game.seed[:16] not in text
    assert game.seed not in str(services.watch_state(game))
