"""A newcomer plays at once (issue 41.2): sign-up lands on a next step, one click gives a
party and a filled start form, "Play a game" never shows an empty party choice, and the AI
starts at the weakest level that gives a new player an even game until they beat it."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from battles.engine.policies import LEVELS
from battles.play import newcomer, services
from battles.play.models import Game
from battles.snapshot import battle_snapshot
from cards.demo import seed_demo
from cards.models import Party
from tests.bench.newcomer import even, record
from tests.test_play_rematch import post_as_filled

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(db):
    seed_demo()
    return Party.objects.get(owner__username="demo", name=newcomer.STARTER)


def sign_up(client, name="newt") -> str:
    response = client.post(
        reverse("signup"),
        {"username": name, "password1": "a-long-pass-phrase", "password2": "a-long-pass-phrase"},
        follow=True,
    )
    assert response.status_code == 200
    return response.content.decode()


def test_sign_up_lands_on_a_next_step_and_one_click_starts_a_game(client, demo):
    page = sign_up(client)
    assert "Play your first game" in page and "build a Memeyori" in page
    assert "None yet" not in page
    user = get_user_model().objects.get(username="newt")
    response = client.post(reverse("play_starter"))
    (party,) = Party.objects.filter(owner=user)
    assert response.status_code == 302
    assert response["Location"] == newcomer.first_game_url(party, user)
    # The copy is theirs, whole: the same Memeyori with their cards.
    assert [m.name for m in party.memeyori_in_order()] == [m.name for m in demo.memeyori_in_order()]
    assert all(m.owner == user and m.cards.exists() for m in party.memeyori_in_order())
    # The form it lands on is filled: their party, the starter's against it, the newcomer
    # level; posted as it is, the game starts.
    form = client.get(response["Location"]).content.decode()
    assert f'value="{party.code}" selected' in form and f'value="{demo.code}" selected' in form
    assert 'value="beginner" selected' in form
    assert post_as_filled(client, response["Location"]).status_code == 302
    game = Game.objects.get(created_by=user)
    assert (game.kind, game.party_a, game.party_b, game.policy_b) == (
        "ai",
        party,
        demo,
        "beginner",
    )


def test_play_a_game_offers_the_click_instead_of_an_empty_party_choice(client, demo, alice):
    client.force_login(alice)
    page = client.get(reverse("play_new")).content.decode()
    assert 'id="id_party"' not in page
    assert f'action="{reverse("play_starter")}"' in page and "Play your first game" in page
    client.post(reverse("play_starter"))
    page = client.get(reverse("play_new")).content.decode()
    assert 'id="id_party"' in page and "Play your first game" not in page


def test_two_clicks_make_one_starter_party(client, demo, alice):
    client.force_login(alice)
    client.post(reverse("play_starter"))
    client.post(reverse("play_starter"))
    assert Party.objects.filter(owner=alice).count() == 1


def test_without_the_demo_the_next_step_is_the_builder(client, alice):
    client.force_login(alice)
    for url in (reverse("play_new"), reverse("my_characters")):
        page = client.get(url).content.decode()
        assert "Build a Memeyori" in page and reverse("play_starter") not in page, url
    response = client.post(reverse("play_starter"))
    assert response["Location"] == reverse("builder_new", kwargs={"kind": "memeyori"})
    assert not Party.objects.filter(owner=alice).exists()


def test_an_invite_offers_the_starter_and_comes_back_to_the_invite(client, demo, alice, bob):
    starter = newcomer.starter_party_create(owner=alice)
    game = services.start_game(user=alice, party=starter, opponent="friend")
    join = reverse("play_join", kwargs={"token": game.invite_token})
    client.force_login(bob)
    page = client.get(join).content.decode()
    assert "Take a starter party" in page and 'id="id_party"' not in page
    response = client.post(reverse("play_starter"), {"next": join})
    assert response["Location"] == join
    assert 'id="id_party"' in client.get(join).content.decode()


def test_the_ai_starts_at_the_newcomer_level_until_they_beat_it(client, demo, alice):
    client.force_login(alice)
    starter = newcomer.starter_party_create(owner=alice)
    level = re.compile(r'<option value="(\w+)" selected>')

    def offered():
        return level.findall(client.get(reverse("play_new")).content.decode())

    assert newcomer.NEWCOMER_LEVEL in offered()
    lost = services.start_game(user=alice, party=starter, opponent="ai", party_b=demo)
    services.forfeit(lost, 0)
    assert newcomer.NEWCOMER_LEVEL in offered()  # a loss changes nothing
    won = services.start_game(user=alice, party=starter, opponent="ai", party_b=demo)
    services.forfeit(won, 1)  # the AI's side gives up: alice won
    assert newcomer.LEVEL in offered() and newcomer.NEWCOMER_LEVEL not in offered()
    # A prefilled level (a rematch, the picker) is kept either way.
    page = client.get(reverse("play_new") + "?policy_b=random").content.decode()
    assert "random" in level.findall(page) and "beginner" not in level.findall(page)


def test_the_newcomer_level_is_the_weakest_that_gives_a_new_player_an_even_game(demo, alice):
    """Measured as newcomer.py says: the starter against the demo's, a new player's side
    played by `beginner`. Levels weaker than NEWCOMER_LEVEL are routs; it is even."""
    snapshot = battle_snapshot(newcomer.starter_party_create(owner=alice), demo)
    order = list(LEVELS)
    for level in order[: order.index(newcomer.NEWCOMER_LEVEL) + 1]:
        counts = record(snapshot, "beginner", level, 200)
        assert even(*counts) == (level == newcomer.NEWCOMER_LEVEL), (level, counts)
