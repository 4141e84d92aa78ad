"""Presenter mode on a game in progress (issue 17: "presenter mode works on a game in
progress"): someone at the game steps through its resolved rounds and the others follow,
as on a stored battle, and nothing reaches a follower that a spectator could not see:
no hand, no plan of the round being planned, no card either side drew (R9.2)."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from battles.models import Presentation
from battles.play import presenting, services
from cards.models import TableMembership
from tests.playing import affordable_plan, hand_words, leaks, make_side, table_game, with_seed

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(types):
    """A table game (tests.playing.table_game: Gwen the GM, Ana and Ben play, Cal sits at
    the table, Dee does not) with round 1 resolved and Ana's plan for round 2 in."""
    users, table, game = table_game(types)
    for side in (0, 1):
        state = services.game_state(game, side)
        services.submit_plan(game, side, 1, {"cards": affordable_plan(state)})
    planned = services.game_state(game, 0)
    services.submit_plan(game, 0, 2, {"cards": affordable_plan(planned)})
    clients = {"visitor": Client()}
    for name, user in users.items():
        clients[name] = Client()
        clients[name].force_login(user)
    return {"users": users, "table": table, "game": game, "clients": clients}


def present(client, game, action, round_no=None, step=None, **headers):
    data = {"action": action}
    if round_no is not None:
        data |= {"round": round_no, "step": step}
    url = reverse("play_present", kwargs={"code": game.code})
    return client.post(url, data, headers=headers)


def follow(client, game):
    """The poll URL the follow button is given, as this client."""
    answer = client.get(reverse("play_follow", kwargs={"code": game.code}))
    assert answer.status_code == 200
    return answer.json()["poll"]


def secrets_of_the_round_being_planned(game) -> set[str]:
    """Both sides' hands now, which no follower may read."""
    return hand_words(services.game_state(game, 0)) | hand_words(services.game_state(game, 1))


def test_a_table_member_presents_a_game_in_progress_and_a_player_follows(world):
    game, cal, ben = world["game"], world["clients"]["cal"], world["clients"]["ben"]
    hands = secrets_of_the_round_being_planned(game)
    response = present(cal, game, "start", 1, 3)
    assert response.status_code == 302 and response.url.endswith("?round=1&step=3#present")
    assert b"You are presenting" in cal.get(response.url).content

    poll = follow(ben, game)
    first = ben.get(poll)
    assert first.status_code == 200
    html = first.content.decode()
    assert 'data-round="1" data-step="3"' in html
    # Its links step through the watch page; no hand of round 2, no card anyone drew.
    assert reverse("play_watch", kwargs={"code": game.code}) in html
    assert not leaks(html, hands)
    assert ben.get(poll, headers={"If-None-Match": first["ETag"]}).status_code == 304

    # The presenter's next step (an htmx post, as each step of the viewer makes).
    assert present(cal, game, "step", 1, 5, HX_Request="true").status_code == 204
    moved = ben.get(poll, headers={"If-None-Match": first["ETag"]})
    assert moved.status_code == 200 and 'data-step="5"' in moved.content.decode()


def test_the_followers_see_both_sides_draws_as_counts_whoever_presents(world):
    game, ana = world["game"], world["clients"]["ana"]
    # Ana plays side A: her own watch page names the cards she drew...
    mine = ana.get(reverse("play_watch", kwargs={"code": game.code}), {"round": 0, "step": 99})
    assert re.search(r"Sunrise draws Sun ", mine.content.decode())
    present(ana, game, "start", 0, 99)
    followed = world["clients"]["cal"].get(follow(world["clients"]["cal"], game)).content.decode()
    # ...but what the group follows says how many, for her side as for Ben's.
    assert re.search(r"Sunrise draws \d+ cards?\.", followed)
    assert re.search(r"Night draws \d+ cards?\.", followed)
    assert "Sunrise draws Sun " not in followed


def test_a_step_past_the_resolved_rounds_is_the_last_resolved_one(world):
    game, cal = world["game"], world["clients"]["cal"]
    present(cal, game, "start", 9, 0)
    shown = Presentation.objects.get(game=game)
    assert shown.round == 1  # round 2 has not resolved: Ben has not planned it
    assert not leaks(shown.html, secrets_of_the_round_being_planned(game))


def test_only_who_may_watch_presents_and_the_gm_may_take_over(world):
    game, c = world["game"], world["clients"]
    assert present(c["dee"], game, "start", 1, 0).status_code == 404
    assert present(c["visitor"], game, "start", 1, 0).url.startswith(reverse("login"))
    assert not Presentation.objects.filter(game=game).exists()

    present(c["ben"], game, "start", 1, 0)
    old_poll = follow(c["cal"], game)
    refused = present(c["cal"], game, "start", 1, 0)
    assert "ben is presenting this game." in c["cal"].get(refused.url).content.decode()
    assert present(c["cal"], game, "step", 1, 2, HX_Request="true").status_code == 409
    assert Presentation.objects.get(game=game).presenter == world["users"]["ben"]

    present(c["gwen"], game, "start", 1, 1)  # the table's GM leads
    assert Presentation.objects.get(game=game).presenter == world["users"]["gwen"]
    assert c["cal"].get(old_poll).status_code == 404  # the old presentation's token died
    present(c["gwen"], game, "stop")
    assert c["cal"].get(reverse("play_follow", kwargs={"code": game.code})).json() == {"poll": None}


def test_each_sees_only_the_present_controls_they_may_use(world):
    game, c = world["game"], world["clients"]
    watch = reverse("play_watch", kwargs={"code": game.code})
    assert "Present this game" in c["ben"].get(watch).content.decode()
    present(c["ben"], game, "start", 1, 0)
    cal = c["cal"].get(watch).content.decode()
    assert "ben is presenting." in cal and "Take over presenting" not in cal
    assert "Take over presenting" in c["gwen"].get(watch).content.decode()
    assert "Stop presenting" in c["ben"].get(watch).content.decode()


def test_a_share_link_follower_follows_until_the_link_is_revoked(world):
    game, gwen, visitor = world["game"], world["clients"]["gwen"], world["clients"]["visitor"]
    token = services.share_game(game)
    present(gwen, game, "start", 1, 4)
    answer = visitor.get(reverse("play_shared_follow", kwargs={"token": token})).json()
    followed = visitor.get(answer["poll"])
    assert followed.status_code == 200
    html = followed.content.decode()
    # Its links stay on the share link: a visitor cannot open the watch page.
    assert reverse("play_shared", kwargs={"token": token}) in html
    assert reverse("play_watch", kwargs={"code": game.code}) not in html
    assert not leaks(html, secrets_of_the_round_being_planned(game))
    # A member's poll token is not a visitor's: the share link's holder cannot use it.
    member_poll = follow(world["clients"]["cal"], game)
    assert (
        visitor.get(member_poll.split("?")[0] + "?" + answer["poll"].split("?")[1]).status_code
        == 404
    )
    services.unshare_game(game)
    assert visitor.get(answer["poll"]).status_code == 404


def test_a_follower_who_leaves_the_table_stops_following(world):
    game, cal = world["game"], world["clients"]["cal"]
    present(world["clients"]["gwen"], game, "start", 1, 0)
    poll = follow(cal, game)
    assert cal.get(poll).status_code == 200
    TableMembership.objects.filter(user=world["users"]["cal"]).delete()
    assert cal.get(poll).status_code == 404
    assert (
        world["clients"]["dee"].get(reverse("play_follow", kwargs={"code": game.code})).status_code
        == 404
    )


def test_a_game_nobody_has_joined_has_nothing_to_present(world, types):
    ana = world["users"]["ana"]
    party = make_side(ana, types, "Dawn", prefix="Dawn")
    waiting = with_seed(services.start_game(user=ana, party=party, opponent="friend"), 5)
    assert not presenting.may_present(waiting, ana)
    assert present(world["clients"]["ana"], waiting, "start", 0, 0).status_code == 404


def test_a_presentation_is_of_a_battle_or_a_game_never_both_or_neither(world):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Presentation.objects.create(presenter=world["users"]["gwen"])


def test_a_game_poll_refuses_a_forged_holder_and_is_bounded_per_address(world, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "play_presented": ("3/m", {"GET", "HEAD"})}
    game, cal = world["game"], world["clients"]["cal"]
    present(world["clients"]["gwen"], game, "start", 1, 0)
    poll = follow(cal, game)
    bare, _, signed = poll.partition("?as=")
    signature = signed.partition("%3A")[2]
    forged = f"{bare}?as=u{world['users']['dee'].pk}%3A{signature}"
    assert cal.get(bare).status_code == 404
    assert cal.get(forged).status_code == 404
    # The two refused polls counted too: the bound is on the address, not the holder.
    assert [cal.get(poll).status_code for _ in range(3)] == [200, 429, 429]


def test_a_poll_url_is_bound_to_its_game_and_expires(world, monkeypatch):
    """Issue 40.5: a poll URL signed for one user worked for anyone who had it, with any
    game's token, for ever."""
    from django.core import signing

    from battles.play.views.watching import PRESENTED_MAX_AGE

    game, cal, gwen = world["game"], world["clients"]["cal"], world["clients"]["gwen"]
    present(gwen, game, "start", 1, 0)
    poll = follow(cal, game)
    assert cal.get(poll).status_code == 200
    # Another game at the table, which Cal may follow too: its token with this `as`.
    other = services.start_game(
        user=world["users"]["gwen"], party=game.party_a, opponent="table",
        party_b=game.party_b, table=world["table"],
    )  # fmt: skip
    for side in (0, 1):
        services.submit_plan(
            other, side, 1, {"cards": affordable_plan(services.game_state(other, side))}
        )
    present(gwen, other, "start", 1, 0)
    other_poll = follow(cal, other)
    assert cal.get(other_poll).status_code == 200
    bare_other = other_poll.partition("?")[0]
    assert cal.get(bare_other + "?" + poll.partition("?")[2]).status_code == 404
    # Past its age, refused (the follow button then asks for a fresh one).
    now = signing.time.time()
    monkeypatch.setattr(signing.time, "time", lambda: now + PRESENTED_MAX_AGE + 5)
    assert cal.get(poll).status_code == 404
    assert cal.get(follow(cal, game)).status_code == 200
