"""Who may open each play URL (issue 17): the game's owner (its creator), each side's
player, a member of its table, someone else signed in, a visitor, a share link's holder,
and each of them again once the link or the invite is revoked. A page someone may not
open is a 404, like a game that never existed; a visitor is first asked to sign in where
signing in could help."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from battles.play import services
from battles.play.views import common as views
from cards.models import TableMembership
from tests.playing import hand_words, leaks, table_game, with_seed

pytestmark = pytest.mark.django_db

ROLES = ("gm", "player_a", "player_b", "member", "stranger", "visitor")


@pytest.fixture
def world(types):
    users, table, game = table_game(types)
    friend = with_seed(
        services.start_game(user=users["ana"], party=game.party_a, opponent="friend"), 4
    )
    clients = {"visitor": Client()}
    for role, name in zip(ROLES, ("gwen", "ana", "ben", "cal", "dee"), strict=False):
        clients[role] = Client()
        clients[role].force_login(users[name])
    return {"users": users, "table": table, "game": game, "friend": friend, "clients": clients}


def statuses(world, method, url, data=None) -> dict[str, int]:
    out = {}
    for role in ROLES:
        call = getattr(world["clients"][role], method)
        out[role] = call(url, data or {}).status_code
    return out


LOGIN = 302  # a visitor is sent to sign in


def test_the_game_page_and_its_plan_post_are_for_its_two_players_only(world):
    game = world["game"]
    page = game.get_absolute_url()
    # The GM and the table's members may watch: the game's page sends them there
    # (issue 31.5: the GM's own table game was a 404); their plans are refused below.
    assert statuses(world, "get", page) == {
        "gm": 302, "player_a": 200, "player_b": 200, "member": 302, "stranger": 404,
        "visitor": LOGIN,
    }  # fmt: skip
    watch = reverse("play_watch", kwargs={"code": game.code})
    for role in ("gm", "member"):
        sent = world["clients"][role].get(page, follow=True)
        assert sent.redirect_chain == [(watch, 302)] and sent.status_code == 200
    post = reverse("play_plan_form", kwargs={"code": game.code})
    got = statuses(world, "post", post, {"round": 1})
    assert got["gm"] == got["member"] == got["stranger"] == 404 and got["visitor"] == LOGIN
    # A player's empty plan is a legal pass: stored, then their page waits.
    assert got["player_a"] == got["player_b"] == 302
    forfeit = reverse("play_forfeit", kwargs={"code": game.code})
    assert statuses(world, "get", forfeit) == {
        "gm": 404, "player_a": 200, "player_b": 200, "member": 404, "stranger": 404,
        "visitor": LOGIN,
    }  # fmt: skip


def test_the_resolved_rounds_are_for_the_players_and_the_tables_members(world):
    url = reverse("play_watch", kwargs={"code": world["game"].code})
    assert statuses(world, "get", url) == {
        "gm": 200, "player_a": 200, "player_b": 200, "member": 200, "stranger": 404,
        "visitor": 404,
    }  # fmt: skip
    timeout = reverse("play_timeout", kwargs={"code": world["game"].code})
    got = statuses(world, "post", timeout)
    assert got["stranger"] == got["visitor"] == 404
    assert {got[r] for r in ("gm", "player_a", "player_b", "member")} == {302}


def test_the_share_link_works_for_anyone_until_it_is_revoked(world):
    game = world["game"]
    share = reverse("play_share", kwargs={"code": game.code})
    got = statuses(world, "post", share, {"action": "share"})
    assert got["gm"] == 302 and got["visitor"] == LOGIN
    assert got["player_a"] == got["member"] == got["stranger"] == 404  # only its owner shares
    game.refresh_from_db()
    url = reverse("play_shared", kwargs={"token": game.share_token})
    assert set(statuses(world, "get", url).values()) == {200}
    page = world["clients"]["visitor"].get(url)
    assert page["X-Robots-Tag"] == "noindex"
    # A spectator sees neither hand, nor which cards either side drew at the setup.
    hands = hand_words(services.game_state(game, 0)) | hand_words(services.game_state(game, 1))
    assert not leaks(page.content.decode(), hands)
    assert re.search(r"Sunrise draws \d+ cards?\.", page.content.decode())
    ask = world["clients"]["gm"].get(share, {"action": "revoke"})
    assert b"Stop sharing this game?" in ask.content
    world["clients"]["gm"].post(share, {"action": "revoke"})
    dead = statuses(world, "get", url)
    assert set(dead.values()) == {404}
    assert b"no longer works" in world["clients"]["visitor"].get(url).content


def test_live_urls_answer_only_the_holder_they_were_made_for(world, rf):
    game = world["game"]
    request = rf.get("/")
    request.user = world["users"]["ana"]
    urls = views.live_urls(request, game, shared=False)
    ana, dee = world["clients"]["player_a"], world["clients"]["stranger"]
    assert ana.get(urls["poll"]).status_code == 200
    assert ana.get(urls["stream"]).status_code == 204  # no stream under WSGI: poll instead
    # The URL works for whoever holds it, but only while Ana could watch the game...
    assert dee.get(urls["poll"]).status_code == 200
    # ...and nothing in it tells more than the round and the status (and whether the AI
    # is still thinking about the round: that its plan is made, never what it is).
    assert set(ana.get(urls["poll"]).json()) == {"round", "status", "thinking"}
    forged = urls["poll"].split("?")[0] + "?as=u" + str(world["users"]["dee"].pk)
    assert dee.get(forged).status_code == 404
    request.user = world["users"]["dee"]
    stranger = views.live_urls(request, game, shared=False)
    assert dee.get(stranger["poll"]).status_code == 404
    assert dee.get(stranger["stream"]).status_code == 404
    TableMembership.objects.filter(user=world["users"]["ana"]).delete()
    # Ana still plays her side: her URL keeps working; a removed member's would not.
    assert ana.get(urls["poll"]).status_code == 200
    request.user = world["users"]["cal"]
    cal = views.live_urls(request, game, shared=False)
    TableMembership.objects.filter(user=world["users"]["cal"]).delete()
    assert world["clients"]["member"].get(cal["poll"]).status_code == 404


def test_the_invite_is_its_creators_to_revoke_and_dies_with_the_revocation(world):
    friend = world["friend"]
    join = reverse("play_join", kwargs={"token": friend.invite_token})
    got = statuses(world, "get", join)
    assert got["visitor"] == LOGIN and got["player_a"] == 302  # her own invite: her game
    assert got["gm"] == got["member"] == got["stranger"] == got["player_b"] == 200
    revoke = reverse("play_invite", kwargs={"code": friend.code})
    got = statuses(world, "get", revoke)
    assert got["player_a"] == 200 and got["visitor"] == LOGIN
    assert got["gm"] == got["player_b"] == got["member"] == got["stranger"] == 404
    world["clients"]["player_a"].post(revoke)
    after = statuses(world, "get", join)
    assert after["visitor"] == 404  # a dead link says so before anyone signs in
    assert {after[r] for r in ("gm", "player_b", "member", "stranger")} == {404}


def test_only_the_gm_starts_a_table_game_and_my_games_are_each_ones_own(world):
    url = reverse("play_table_new", kwargs={"table_code": world["table"].code})
    assert statuses(world, "get", url) == {
        "gm": 200, "player_a": 404, "player_b": 404, "member": 404, "stranger": 404,
        "visitor": LOGIN,
    }  # fmt: skip
    for name in ("play_list", "play_new"):
        got = statuses(world, "get", reverse(name))
        assert got["visitor"] == LOGIN and {got[r] for r in ROLES[:-1]} == {200}
    mine = world["clients"]["stranger"].get(reverse("play_list")).content.decode()
    assert "Sunrise vs Night" not in mine
    theirs = world["clients"]["player_b"].get(reverse("play_list")).content.decode()
    assert "Sunrise vs Night" in theirs
