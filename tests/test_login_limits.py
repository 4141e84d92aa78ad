"""Log-in limits people trust (issue 33.7): counted per account as well as per address,
in windows with no edge that lets twice the limit through."""

import types

import pytest
from django.urls import reverse

LIMIT = 10  # RATE_LIMITS["login"]: 10 a minute


@pytest.fixture
def clock(monkeypatch):
    """One clock for the sliding windows and django-ratelimit's fixed ones."""
    from django_ratelimit import core

    from memeyori_site import ratelimit

    now = [1_800_000_000.0]  # a whole minute: a fixed window starts here
    fake = types.SimpleNamespace(time=lambda: now[0])
    monkeypatch.setattr(core, "time", fake)
    monkeypatch.setattr(ratelimit, "time", fake, raising=False)
    return now


def _guess(client, username="alice", address="203.0.113.7"):
    return client.post(
        reverse("login"), {"username": username, "password": "wrong"}, REMOTE_ADDR=address
    ).status_code


def test_five_addresses_get_no_more_guesses_at_one_account_than_one(client, alice, clock):
    addresses = [f"203.0.113.{n}" for n in range(1, 6)]
    answers = [_guess(client, address=addresses[i % 5]) for i in range(LIMIT + 5)]
    assert answers == [200] * LIMIT + [429] * 5
    # Another account from the same addresses is not held up by alice's.
    assert _guess(client, username="bob", address=addresses[0]) == 200


def test_the_account_limit_ignores_case_and_spaces(client, alice, clock):
    names = ["alice", "Alice", " ALICE "]
    answers = [_guess(client, username=names[i % 3], address=f"198.51.100.{i}") for i in range(11)]
    assert answers[-1] == 429


def test_no_window_edge_lets_twice_the_limit_through(client, alice, clock):
    clock[0] += 59.5  # the end of a minute
    assert [_guess(client, address=f"192.0.2.{i}") for i in range(LIMIT)] == [200] * LIMIT
    clock[0] += 1  # a new minute, one second later
    answer = client.post(
        reverse("login"), {"username": "alice", "password": "wrong"}, REMOTE_ADDR="192.0.2.99"
    )
    assert answer.status_code == 429
    assert 55 <= int(answer["Retry-After"]) <= 66
    clock[0] += int(answer["Retry-After"])
    assert _guess(client, address="192.0.2.99") == 200


def test_one_address_is_still_limited_across_accounts(client, db, clock):
    answers = [_guess(client, username=f"user{i}") for i in range(LIMIT + 1)]
    assert answers[-1] == 429
