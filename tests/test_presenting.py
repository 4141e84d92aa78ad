"""Presenter mode: a member steps, followers poll the presented step with an ETag."""

import pytest
from django.core.exceptions import ValidationError

from battles import services
from battles.models import Battle, BattleVisibility, Presentation
from cards.models import TableMembership
from cards.tables.services import table_create, table_remove_member

from .conftest import make_user
from .test_battle_pages import make_team, run


@pytest.fixture
def table_battle(alice, bob, types):
    table = table_create(gm=alice, name="Sunday")
    TableMembership.objects.create(table=table, user=bob)
    a = make_team(alice, types, "Sunrise", visibility="tables")
    b = make_team(bob, types, "Night", visibility="tables")
    battle = run(bob, a, b, table=table)
    # Unlisted though its parties are "my tables": a battle shared before issue 18.6's rule
    # (refused now), so that a share link's followers have something to follow.
    Battle.objects.filter(pk=battle.pk).update(
        visibility=BattleVisibility.UNLISTED, share_token="p" * 43
    )
    battle.refresh_from_db()
    return battle


def present(client, battle, action, round_no=1, step=1, **headers):
    url = f"{battle.get_absolute_url()}present/"
    return client.post(url, {"action": action, "round": round_no, "step": step}, headers=headers)


def poll_url(client, battle) -> str:
    return client.get(f"{battle.get_absolute_url()}follow/").json()["poll"]


def test_followers_see_the_presenters_step_and_a_304_until_it_moves(client, alice, table_battle):
    client.force_login(alice)
    assert present(client, table_battle, "start", 1, 2).status_code == 302
    url = poll_url(client, table_battle)
    first = client.get(url)
    assert first.status_code == 200 and 'data-round="1" data-step="2"' in first.content.decode()
    assert client.get(url, headers={"If-None-Match": first["ETag"]}).status_code == 304
    moved = present(client, table_battle, "step", 1, 3, HX_Request="true")
    assert moved.status_code == 204
    second = client.get(url, headers={"If-None-Match": first["ETag"]})
    assert second.status_code == 200 and 'data-step="3"' in second.content.decode()
    assert second["ETag"] != first["ETag"]


def test_a_poll_that_has_not_moved_costs_one_query(
    client, alice, table_battle, django_assert_num_queries, settings
):
    settings.RATELIMIT_ENABLE = False  # the count is a cache write of its own, tested below
    client.force_login(alice)
    present(client, table_battle, "start")
    url = poll_url(client, table_battle)
    etag = client.get(url)["ETag"]
    with django_assert_num_queries(1):
        assert client.get(url, headers={"If-None-Match": etag}).status_code == 304


def test_share_link_visitors_follow_with_links_back_to_the_share_link(client, alice, table_battle):
    client.force_login(alice)
    present(client, table_battle, "start")
    client.logout()
    follow = client.get(f"{table_battle.share_url()}follow/").json()["poll"]
    html = client.get(follow).content.decode()
    assert table_battle.share_url() in html and str(table_battle.code) not in html
    assert Presentation.objects.get().token not in follow


def test_a_member_waits_while_the_gm_presents_but_the_gm_takes_over(alice, bob, table_battle):
    kw = {"round_no": 1, "step": 1, "html": "", "html_shared": ""}
    services.presentation_start(battle=table_battle, by=alice, **kw)
    with pytest.raises(ValidationError, match="alice is presenting"):
        services.presentation_start(battle=table_battle, by=bob, **kw)
    services.presentation_stop(battle=table_battle, by=alice)
    old = services.presentation_start(battle=table_battle, by=bob, **kw).token
    new = services.presentation_start(battle=table_battle, by=alice, **kw)
    assert new.presenter == alice and new.token != old  # old followers' token is dead


def test_only_the_presenter_moves_the_presentation(alice, bob, table_battle):
    kw = {"round_no": 1, "step": 1, "html": "", "html_shared": ""}
    services.presentation_start(battle=table_battle, by=alice, **kw)
    with pytest.raises(ValidationError):
        services.presentation_move(battle=table_battle, by=bob, **kw)


def test_nobody_presenting_answers_with_no_poll(client, alice, table_battle):
    client.force_login(alice)
    assert client.get(f"{table_battle.get_absolute_url()}follow/").json() == {"poll": None}


# --- Who a poll answers (issue 18.7) and how often (18.10) ----------------------------


def test_a_members_poll_stops_once_the_gm_removes_them_from_the_table(client, alice, table_battle):
    carol = make_user("carol")
    TableMembership.objects.create(table=table_battle.table, user=carol)
    services.presentation_start(
        battle=table_battle, by=alice, round_no=1, step=1, html="<section>", html_shared=""
    )
    client.force_login(carol)
    url = poll_url(client, table_battle)
    client.logout()  # the token is all a copied link would carry
    assert client.get(url).status_code == 200
    table_remove_member(table=table_battle.table, member=carol)
    assert client.get(url).status_code == 404


def test_a_visitors_poll_stops_once_a_public_battle_is_made_private(client, alice, table_battle):
    # Public before issue 18.6's rule (its parties are "my tables"; the service refuses now).
    Battle.objects.filter(pk=table_battle.pk).update(visibility=BattleVisibility.PUBLIC)
    table_battle.refresh_from_db()
    services.presentation_start(
        battle=table_battle, by=alice, round_no=1, step=1, html="<section>", html_shared=""
    )
    url = poll_url(client, table_battle)  # an anonymous visitor of the public battle
    assert client.get(url).status_code == 200
    services.battle_set_visibility(battle=table_battle, visibility=BattleVisibility.PRIVATE)
    assert client.get(url).status_code == 404


def test_a_share_link_followers_poll_stops_when_the_link_is_made_anew(client, alice, table_battle):
    services.presentation_start(
        battle=table_battle, by=alice, round_no=1, step=1, html="", html_shared="<section>"
    )
    url = client.get(f"{table_battle.share_url()}follow/").json()["poll"]
    assert client.get(url).status_code == 200
    services.battle_share_regenerate(battle=table_battle)
    assert client.get(url).status_code == 404


def test_a_poll_with_a_forged_or_missing_holder_is_a_404(client, alice, table_battle):
    client.force_login(alice)
    present(client, table_battle, "start")
    url = poll_url(client, table_battle)
    assert client.get(url).status_code == 200
    bare, _, signed = url.partition("?as=")
    holder, _, signature = signed.partition("%3A")
    assert client.get(bare).status_code == 404
    forged = f"{bare}?as=u{table_battle.owner_id + 100}%3A{signature}"
    assert client.get(forged).status_code == 404


def test_polls_from_one_address_are_bounded(client, alice, table_battle, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "battle_presented": ("3/m", {"GET", "HEAD"})}
    client.force_login(alice)
    present(client, table_battle, "start")
    url = poll_url(client, table_battle)
    assert [client.get(url).status_code for _ in range(4)] == [200, 200, 200, 429]


# --- The take-over control (issue 21.3) ----------------------------------------------


def test_take_over_shows_only_to_whoever_may_take_over(client, alice, bob, table_battle):
    services.presentation_start(
        battle=table_battle, by=alice, round_no=1, step=1, html="", html_shared=""
    )
    client.force_login(bob)  # the battle's owner, but alice is the table's GM
    page = client.get(table_battle.get_absolute_url()).content.decode()
    assert "alice is presenting" in page and "Take over presenting" not in page
    services.presentation_stop(battle=table_battle, by=alice)
    services.presentation_start(
        battle=table_battle, by=bob, round_no=1, step=1, html="", html_shared=""
    )
    client.force_login(alice)
    assert "Take over presenting" in client.get(table_battle.get_absolute_url()).content.decode()


def test_a_refused_take_over_is_said_beside_the_present_controls(client, alice, bob, table_battle):
    services.presentation_start(
        battle=table_battle, by=alice, round_no=1, step=1, html="", html_shared=""
    )
    client.force_login(bob)
    response = present(client, table_battle, "start")  # a crafted post: bob has no button
    assert response.url.endswith("#present")
    page = client.get(response.url).content.decode()
    top, _, rest = page.partition('id="present"')
    assert "alice is presenting this battle." not in top
    assert "alice is presenting this battle." in rest.partition("</div>")[0]


def test_a_poll_url_is_bound_to_its_presentation_and_expires(client, alice, table_battle):
    """Issue 40.5: a holder's signature was no key to another presentation nor for ever."""
    from django.core import signing

    from battles import views as battle_views

    client.force_login(alice)
    present(client, table_battle, "start")
    url = poll_url(client, table_battle)
    bare, _, signed = url.partition("?as=")
    presentation = table_battle.presentation
    presentation.refresh_from_db()
    # The same holder's signature on the shared token's URL is refused.
    other = bare.replace(presentation.token, presentation.token_shared)
    assert client.get(f"{other}?as={signed}").status_code == 404
    # A signature made more than PRESENTED_MAX_AGE ago is refused.
    old = signing.TimestampSigner(salt=battle_views.HOLDER_SALT)
    old.timestamp = lambda: signing.b62_encode(int(__import__("time").time()) - 7 * 3600)
    stale = old.sign(f"{presentation.token}|u{alice.pk}")
    assert client.get(f"{bare}?as={stale}").status_code == 404
    fresh = battle_views.presented_as(presentation.token, f"u{alice.pk}")
    assert client.get(f"{bare}?as={fresh}").status_code == 200
