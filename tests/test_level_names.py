"""The AI's internal names never show (issue 41.5): wherever a game, battle, list, lab or
title names who plays a side, it says the level's name the picker offers (Thinker, Coin
Flipper, Greedy, Beginner), never "lookahead", "random" or "player"."""

import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from battles.choices import level_name
from battles.engine.policies import LEVELS, POLICIES
from battles.play import services
from tests.playing import make_side

pytestmark = pytest.mark.django_db

# An internal name as the pages used to show it: "player vs lookahead", "(greedy)". Level
# names are capitalised, so "Greedy" is fine where "greedy" is not.
_NAMES = "lookahead|random|greedy|beginner|player"
INTERNAL = re.compile(
    rf"\b(lookahead|greedy)\b|\b({_NAMES})\s+vs\b|\bvs\s+({_NAMES})\b|\(({_NAMES})\)"
)


class _Text(HTMLParser):
    """What a person reads: the text, the title and the alt and aria labels; not the
    attributes a program reads (hrefs, form values) nor scripts."""

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            if name in ("alt", "title", "aria-label", "content") and value:
                self.parts.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def shown(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(parser.parts)


def test_every_policy_has_the_level_name_the_picker_offers():
    for policy in POLICIES:
        assert level_name(policy) == LEVELS[policy][0]
    assert level_name("lookahead") == "Thinker" and level_name("random") == "Coin Flipper"
    assert level_name("player") == "Player"


@pytest.mark.parametrize("policy", ["lookahead", "random"])
def test_a_game_against_the_ai_names_its_level_on_every_page(alice, bob, types, policy):
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    night = make_side(bob, types, "Night", prefix="Moon", visibility="public")
    game = services.start_game(
        user=alice, party=sun, opponent="ai", party_b=night, policy_b=policy, time_limit=60
    )
    client = Client()
    client.force_login(alice)
    pages = {"game": game.get_absolute_url(), "my games": reverse("play_list")}
    for name, url in pages.items():
        text = shown(client.get(url).content.decode())
        assert f"Against the AI ({LEVELS[policy][0]})" in text, name
    services.forfeit(game, 1)
    game.refresh_from_db()
    pages |= {
        "finished game": game.get_absolute_url(),
        "watch": reverse("play_watch", kwargs={"code": game.code}),
        "battle": game.battle.get_absolute_url(),
        "my battles": reverse("battle_list"),
    }
    for name, url in pages.items():
        text = shown(client.get(url).content.decode())
        assert not INTERNAL.findall(text), name
    battle = shown(client.get(game.battle.get_absolute_url()).content.decode())
    assert f"Player vs {LEVELS[policy][0]}" in battle
