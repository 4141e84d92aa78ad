"""Rate limits on log-in, sign-up and the expensive endpoints, with a clear message."""

import pytest
from django.conf import settings
from django.urls import reverse

from battles.models import Battle
from cards.models import Party
from cards.services import party_set_memeyori

from .conftest import make_card, make_memeyori, make_party

PASSWORD = "a-long-pass-123!"


def limit_of(name: str) -> int:
    return int(settings.RATE_LIMITS[name][0].split("/")[0])


def test_the_eleventh_login_in_a_minute_is_refused_with_a_message(client, alice):
    for _ in range(limit_of("login")):
        response = client.post(reverse("login"), {"username": "alice", "password": "wrong"})
        assert response.status_code == 200
    response = client.post(reverse("login"), {"username": "alice", "password": "alice-pass-123!"})
    assert response.status_code == 429
    # A sliding window (issue 33.7): free again once the tries are a minute old.
    assert 60 <= int(response["Retry-After"]) <= 65
    assert "allows 10 tries a minute" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_signups_are_limited_and_the_refused_one_creates_nothing(client, django_user_model):
    for i in range(limit_of("signup") + 1):
        response = client.post(
            reverse("signup"),
            {
                "username": f"newbie{i}",
                "password1": "a-long-pass-123!",
                "password2": "a-long-pass-123!",
            },
        )
        client.logout()
    assert response.status_code == 429
    assert not django_user_model.objects.filter(username=f"newbie{limit_of('signup')}").exists()


def test_a_limit_counts_per_endpoint_and_reading_the_form_is_free(client, alice):
    for _ in range(limit_of("login") + 5):
        assert client.get(reverse("login")).status_code == 200
    client.force_login(alice)
    assert client.get(reverse("home")).status_code == 200


@pytest.mark.django_db
def test_battle_runs_are_limited_and_the_refused_one_saves_nothing(client, alice, types):
    party = make_party(alice, name="Solo")
    m = make_memeyori(alice, types["Blaze"])
    make_card(m, types["Blaze"])
    party_set_memeyori(party=party, memeyori=[m])
    client.force_login(alice)
    data = {"party_a": party.code, "party_b": party.code, "seed": 1, "policy_a": "greedy",
            "policy_b": "greedy", "visibility": "private"}  # fmt: skip
    limit = limit_of("battle_new")
    for _ in range(limit):
        assert client.post(reverse("battle_new"), data).status_code == 302
    assert client.post(reverse("battle_new"), data).status_code == 429
    assert Battle.objects.count() == limit
    assert Party.objects.count() == 1


def test_pdf_sheets_are_limited(client, alice, types):
    m = make_memeyori(alice, types["Blaze"])
    client.force_login(alice)
    url = reverse("print_sheet") + f"?characters={m.code}"
    statuses = [client.get(url).status_code for _ in range(limit_of("print_sheet") + 1)]
    assert statuses[-1] == 429
    assert 429 not in statuses[:-1]
