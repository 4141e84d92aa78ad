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


def _sign_in(client, username, password, address):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_strangers_tries_never_lock_the_owner_out_of_a_browser_he_signed_in_from(
    client, bob, clock
):
    """Issue 40.2: ten wrong passwords for bob from ten addresses held bob's right one,
    from a new address, at 429 for as long as the tries went on."""
    from django.test import Client

    assert _sign_in(client, "bob", "bob-pass-123!", "198.51.100.1").status_code == 302
    client.post(reverse("logout"))  # as a browser does: its other cookies stay
    strangers = Client()
    answers = [_sign_in(strangers, "bob", "wrong", f"203.0.113.{i}").status_code for i in range(15)]
    # bob's own log-in counted as one of the account's tries.
    assert answers == [200] * (LIMIT - 1) + [429] * 6
    # A browser without bob's device cookie is still held: the account's count is spent.
    assert _sign_in(Client(), "bob", "bob-pass-123!", "192.0.2.50").status_code == 429
    # bob's own browser, from wherever he is now, is not.
    answer = _sign_in(client, "bob", "bob-pass-123!", "192.0.2.51")
    assert answer.status_code == 302 and "_auth_user_id" in client.session


def test_a_device_cookie_has_a_limit_of_its_own(client, bob, clock):
    assert _sign_in(client, "bob", "bob-pass-123!", "198.51.100.1").status_code == 302
    client.post(reverse("logout"))  # as a browser does: its other cookies stay
    answers = [_sign_in(client, "bob", "wrong", f"203.0.113.{i}").status_code for i in range(11)]
    assert answers == [200] * LIMIT + [429]


def test_a_device_cookie_is_for_its_account_only_and_cannot_be_forged(client, alice, bob, clock):
    from memeyori_site.login import DEVICE_COOKIE

    assert _sign_in(client, "alice", "alice-pass-123!", "198.51.100.1").status_code == 302
    client.post(reverse("logout"))  # as a browser does: its other cookies stay
    for i in range(LIMIT):
        assert _sign_in(client, "bob", "wrong", f"203.0.113.{i}").status_code == 200
    # alice's cookie gives no bucket for bob: bob's account count is spent.
    assert _sign_in(client, "bob", "bob-pass-123!", "192.0.2.9").status_code == 429
    client.cookies[DEVICE_COOKIE] = client.cookies[DEVICE_COOKIE].value[:-2] + "xx"
    for i in range(LIMIT - 1):  # her first log-in counted as one
        assert _sign_in(client, "alice", "wrong", f"192.0.2.{20 + i}").status_code == 200
    assert _sign_in(client, "alice", "alice-pass-123!", "192.0.2.40").status_code == 429


LOOK_ALIKES = ["ｂob", "bｏb", "ｂｏｂ", "𝐛𝐨𝐛", "BOB", "bob"]


def test_look_alike_names_sign_in_as_the_account_and_count_as_it(client, bob, clock):
    """Issue 40.3: the form signs "ｂob" in as bob (NFKC); the limit counted each look-alike
    in a bucket of its own."""
    from django.test import Client

    assert _sign_in(Client(), "ｂｏｂ", "bob-pass-123!", "198.51.100.1").status_code == 302
    answers = [
        _guess(client, username=LOOK_ALIKES[i % len(LOOK_ALIKES)], address=f"203.0.113.{i}")
        for i in range(LIMIT + 2)
    ]
    # The log-in as "ｂｏｂ" was the account's first try.
    assert answers == [200] * (LIMIT - 1) + [429] * 3
