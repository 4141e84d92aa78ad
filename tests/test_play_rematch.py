"""A rematch of a played game is a played game (issue 31.2): the same opponent kind, the
same seed or a new one; on the game's end page and on its battle page alike."""

import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from battles.play import services
from battles.play.models import Game
from tests.playing import make_side, table_game

pytestmark = pytest.mark.django_db


def links(html: str) -> dict[str, str]:
    return {
        label: url.replace("&amp;", "&")
        for url, label in re.findall(
            r'<a class="button secondary" href="([^"]+)">(Rematch[^<]*)</a>', html
        )
    }


def finished(game: Game, side: int = 1) -> Game:
    services.forfeit(game, side)
    game.refresh_from_db()
    return game


def test_an_ai_games_rematch_is_a_game_against_the_same_ai_with_the_same_seed_or_a_new_one(
    client, alice, bob, types
):
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    night = make_side(bob, types, "Night", prefix="Moon", visibility="public")
    game = services.start_game(
        user=alice, party=sun, opponent="ai", party_b=night, policy_b="random", seed=77
    )
    game = finished(game)
    client.force_login(alice)
    for page in (game.get_absolute_url(), game.battle.get_absolute_url()):
        found = links(client.get(page).content.decode())
        assert set(found) == {"Rematch (same seed)", "Rematch (new seed)"}, page
        # Never the battle form: that runs two AIs against each other.
        assert all(url.startswith(reverse("play_new")) for url in found.values())
    form = client.get(found["Rematch (same seed)"]).content.decode()
    assert 'value="77"' in form and 'value="random" selected' in form
    assert re.search(r'value="ai"[^>]*checked', form)
    query = dict(p.split("=") for p in found["Rematch (same seed)"].split("?")[1].split("&"))
    response = client.post(reverse("play_new"), query)
    again = Game.objects.latest("id")
    assert response["Location"] == again.get_absolute_url()
    assert (again.kind, again.policy_b, again.seed) == ("ai", "random", 77)
    assert (again.party_a, again.party_b) == (sun, night)
    # Bob, whose party it was, has no rematch of alice's game.
    client.force_login(bob)
    assert client.get(game.battle.get_absolute_url()).status_code in (200, 404)
    assert not links(client.get(game.battle.get_absolute_url()).content.decode())


def test_a_friend_games_rematch_is_a_new_invite_for_either_player_with_their_own_party(
    alice, bob, types
):
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    night = make_side(bob, types, "Night", prefix="Moon")
    game = services.start_game(user=alice, party=sun, opponent="friend")
    game = finished(services.join_game(game.invite_token, bob, night))
    for user, party, friend in ((alice, sun, bob), (bob, night, alice)):
        client = Client()
        client.force_login(user)
        for page in (game.get_absolute_url(), game.battle.get_absolute_url()):
            found = links(client.get(page).content.decode())
            assert found == {
                "Rematch: invite your friend again": (
                    f"{reverse('play_new')}?party={party.code}&opponent=friend"
                    f"&challenge={friend.username}"
                )
            }, (user, page)


def test_a_table_games_rematch_is_the_gms_same_pairing_at_the_table(client, types):
    users, table, game = table_game(types)
    game = finished(game)
    client.force_login(users["gwen"])
    found = links(client.get(game.battle.get_absolute_url()).content.decode())
    url = reverse("play_table_new", kwargs={"table_code": table.code})
    assert found == {
        "Rematch: the same pairing": (
            f"{url}?party_a={game.party_a.code}&party_b={game.party_b.code}"
        )
    }
    form = client.get(found["Rematch: the same pairing"]).content.decode()
    assert f'value="{game.party_a.code}" selected' in form
    assert f'value="{game.party_b.code}" selected' in form
    # A player at the table does not pair games: no rematch for them.
    client.force_login(users["ana"])
    assert not links(client.get(game.get_absolute_url()).content.decode())


class _FormValues(HTMLParser):
    """The values a browser would post from each POST form of a page, as it is filled."""

    def __init__(self):
        super().__init__()
        self.forms: list[dict[str, str]] = []
        self._select = None
        self._in_form = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "").lower() == "post":
            self._in_form = True
            self.forms.append({})
        if not self._in_form:
            return
        values = self.forms[-1]
        if tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind in ("radio", "checkbox"):
                if "checked" in a:
                    values[a["name"]] = a.get("value", "on")
            elif kind != "submit":
                values[a["name"]] = a.get("value") or ""
        elif tag == "select":
            self._select = a.get("name")
        elif tag == "option" and self._select and "selected" in a:
            values[self._select] = a.get("value", "")

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "form":
            self._in_form = False


def post_as_filled(client, url: str):
    """GET the form at `url`, then POST what it shows, untouched."""
    parser = _FormValues()
    parser.feed(client.get(url).content.decode())
    (values,) = [f for f in parser.forms if "party" in f or "party_a" in f]
    return client.post(url.split("?")[0], values)


SETTINGS = ("kind", "party_a", "party_b", "policy_b", "time_limit", "table")


@pytest.mark.parametrize("kind", ["ai", "hotseat", "friend"])
def test_a_rematch_posted_as_filled_keeps_every_setting_of_its_game(alice, bob, types, kind):
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    night = make_side(bob, types, "Night", prefix="Moon", visibility="public")
    other = None if kind == "friend" else night
    game = services.start_game(
        user=alice, party=sun, opponent=kind, party_b=other, policy_b="beginner", time_limit=60
    )
    if kind == "friend":
        game = services.join_game(game.invite_token, bob, night)
    game = finished(game)
    client = Client()
    client.force_login(alice)
    for label, url in links(client.get(game.get_absolute_url()).content.decode()).items():
        response = post_as_filled(client, url)
        again = Game.objects.latest("id")
        assert response.status_code == 302 and again.pk != game.pk, label
        if kind == "friend":  # addressed to bob again, who brings a party of his
            assert again.user_b == bob
            again = services.join_game(again.invite_token, bob, night)
        for setting in SETTINGS:
            assert getattr(again, setting) == getattr(game, setting), (label, setting)
        same_seed = label == "Rematch (same seed)"
        assert (again.seed == game.seed, again.seed_chosen) == (same_seed, same_seed), label
        services.forfeit(again, 1)


def test_a_table_rematch_posted_as_filled_keeps_the_time_limit(client, types):
    users, table, game = table_game(types)
    Game.objects.filter(pk=game.pk).update(time_limit=120)
    game = finished(game)
    client.force_login(users["gwen"])
    (url,) = links(client.get(game.battle.get_absolute_url()).content.decode()).values()
    assert post_as_filled(client, url).status_code == 302
    again = Game.objects.latest("id")
    assert again.pk != game.pk
    for setting in SETTINGS:
        assert getattr(again, setting) == getattr(game, setting), setting
