"""A site that stays up without Redis (issue 40.3): with the cache the rate limits count in
unreachable, every rate-limited URL answered 500 (nobody could log in, read a game's state
or watch). Now a read goes on uncounted, a write is counted in the database's cache table,
and the fault is logged. The Redis here is the test's own, on a port of its own, stopped by
the test (never the shared one)."""

import shutil
import subprocess
import time

import pytest
import redis
from django.urls import reverse

from battles.play import services
from tests.play_parties import NIGHT_CARDS, play_party
from tests.servers import free_port

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server")


@pytest.fixture
def own_redis(settings):
    """A redis-server of this test's own, as the default cache; yields its process."""
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 20
    while True:
        try:
            if redis.Redis.from_url(url, socket_timeout=1).ping():
                break
        except redis.exceptions.ConnectionError:
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.1)
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": "sec-outage",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        },
    }
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=10)


def _stop(proc):
    proc.terminate()
    proc.wait(timeout=10)


def _wrong(client, address):
    return client.post(
        reverse("login"), {"username": "alice", "password": "wrong"}, REMOTE_ADDR=address
    ).status_code


def test_with_redis_stopped_a_log_in_answers_and_guesses_stay_limited(
    client, alice, own_redis, caplog
):
    assert _wrong(client, "203.0.113.1") == 200  # counted in Redis while it runs
    _stop(own_redis)
    answers = [_wrong(client, f"203.0.113.{i}") for i in range(2, 14)]
    # Counted in the database now: the account's ten a minute still hold.
    assert 500 not in answers and answers[-1] == 429 and answers.count(200) == 10
    answer = client.post(
        reverse("login"), {"username": "alice", "password": "alice-pass-123!"},
        REMOTE_ADDR="198.51.100.1",
    )  # fmt: skip
    assert answer.status_code == 429
    assert "the cache is unreachable" in caplog.text


def test_with_redis_stopped_a_games_state_and_page_still_answer(
    client, alice, bob, types, own_redis, caplog
):
    night = play_party(bob, types, "Night Crew", cards=NIGHT_CARDS, visibility="public")
    game = services.start_game(
        user=alice, party=play_party(alice, types), opponent="ai", party_b=night
    )
    client.force_login(alice)
    state_url = reverse("play_state", kwargs={"code": game.code})
    assert client.get(state_url).status_code == 200
    _stop(own_redis)
    assert client.get(state_url).status_code == 200
    assert client.get(reverse("play_game", kwargs={"code": game.code})).status_code == 200
    assert "rate limit play_state: the cache is unreachable" in caplog.text
