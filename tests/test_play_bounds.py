"""What one client can make a played game's server do is bounded: a plan's body is small and
refused before it is parsed, a malformed one answers a few reasons and a 400 (never a 500),
starting games is limited per person and per minute, and so are reads."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from battles.play import services
from battles.play.api import PLAN_BODY_MAX
from battles.play.models import Game, PlayedPlan
from tests.play_parties import play_party
from tests.test_play_protocol import signed_in


@pytest.fixture
def game(alice, bob, types):
    night = play_party(bob, types, "Night Crew", visibility="public")
    return services.start_game(
        user=alice, party=play_party(alice, types), opponent="ai", party_b=night, seed=4
    )


def _post(client, game, body: bytes, **extra):
    return client.post(
        reverse("play_plan", kwargs={"code": game.code}),
        body,
        content_type="application/json",
        HTTP_X_CSRFTOKEN=client.csrf,
        **extra,
    )


def test_a_plan_body_over_the_limit_is_refused_before_it_is_parsed(alice, game):
    client = signed_in(alice)
    rows = b",".join([b'["x", "y", "z"]'] * 12_000)  # 190 kB of malformed card rows
    response = _post(client, game, b'{"round": 1, "cards": [' + rows + b"]}")
    assert response.status_code == 413
    assert response.json()["errors"] == ["A plan is at most 16 KiB of JSON."]
    assert len(response.content) < 200
    # Past the site's own bound for any body (memeyori_site/bodies.py), the site's page.
    huge = _post(client, game, b'{"round": 1, "cards": [' + rows * 8 + b"]}")
    assert huge.status_code == 413
    assert not PlayedPlan.objects.filter(game=game).exists()


def test_malformed_rows_answer_the_first_ten_reasons_and_a_count(alice, game):
    client = signed_in(alice)
    rows = b",".join([b'["x"]'] * 1000)
    body = b'{"round": 1, "cards": [' + rows + b"]}"
    assert len(body) <= PLAN_BODY_MAX
    response = _post(client, game, body)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert len(errors) == 11 and errors[-1] == "and 990 more."
    assert errors[0] == "['x'] is not [card id, tier 1-3, target id]."


def test_a_number_of_thousands_of_digits_or_deep_nesting_is_a_400_with_words(alice, game):
    client = signed_in(alice)
    huge = _post(client, game, b'{"round": ' + b"9" * 5000 + b"}")
    assert huge.status_code == 400
    assert huge.json()["errors"] == ["A number in the plan is too long."]
    # As deep as 16 KiB allows (100,000 levels is over the size limit: a 413).
    deep = _post(client, game, b'{"round": 1, "cards": ' + b"[" * 8000 + b"]" * 8000 + b"}")
    assert deep.status_code == 400
    assert all(len(error) < 200 for error in deep.json()["errors"])
    assert not PlayedPlan.objects.filter(game=game).exists()


def test_nobody_has_more_than_twenty_games_in_progress(alice, bob, types):
    party = play_party(alice, types)
    night = play_party(bob, types, "Night Crew", visibility="public")
    for _ in range(services.MAX_GAMES_IN_PROGRESS):
        services.start_game(user=alice, party=party, opponent="ai", party_b=night)
    with pytest.raises(ValidationError, match="20 games started and not finished"):
        services.start_game(user=alice, party=party, opponent="friend")
    assert Game.objects.filter(created_by=alice).count() == services.MAX_GAMES_IN_PROGRESS
    # A finished one makes room.
    services.forfeit(Game.objects.filter(created_by=alice).first(), 0)
    services.start_game(user=alice, party=party, opponent="friend")


def test_a_loop_of_reads_of_one_game_is_stopped(alice, game, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "play_state": ("5/m", {"GET", "HEAD"})}
    client = signed_in(alice)
    url = reverse("play_state", kwargs={"code": game.code})
    answers = [client.get(url).status_code for _ in range(7)]
    assert answers == [200] * 5 + [429] * 2
