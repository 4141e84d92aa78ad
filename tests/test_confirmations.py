"""Destructive actions ask first (issue 21.4): the control is a GET form to a page that
says what will happen and changes nothing; only that page's POST acts. The page is plain
HTML, so it works without JavaScript, and its button looks destructive."""

import re

import pytest

from battles.models import Battle, BattleVisibility, Growth
from cards.models import Table, TableMembership
from cards.tables import services as tables

from .conftest import make_user
from .test_battle_pages import make_team, run


@pytest.fixture
def table(alice, bob):
    table = tables.table_create(gm=alice, name="Sunday Table")
    TableMembership.objects.create(table=table, user=bob)
    return table


def member_url(table, **query):
    return f"/tables/{table.code}/members/?" + "&".join(f"{k}={v}" for k, v in query.items())


def the_form(html: str) -> str:
    """The question page's own form (after its title, so not the header's log-out)."""
    return re.search(r'<form method="post".*?</form>', html.split('id="confirm-title"')[1], re.S)[0]


def test_removing_a_member_asks_first_and_the_question_changes_nothing(client, alice, bob, table):
    client.force_login(alice)
    for method in (client.get, client.head):
        assert method(member_url(table, member="bob", action="remove")).status_code == 200
    assert tables.is_member(table, bob)
    html = client.get(member_url(table, member="bob", action="remove")).content.decode()
    assert '<h1 id="confirm-title">Remove bob from Sunday Table?</h1>' in html
    assert "Their characters and parties stay theirs" in html
    form = the_form(html)
    assert f'action="/tables/{table.code}/members/"' in form
    assert 'name="member" value="bob"' in form and 'name="action" value="remove"' in form
    assert 'class="danger solid"' in form
    assert "Keep bob at the table" in html
    response = client.post(f"/tables/{table.code}/members/", {"member": "bob", "action": "remove"})
    assert response.status_code == 302
    assert not tables.is_member(table, bob)


def test_the_table_page_offers_remove_as_a_red_question_not_a_one_click_post(client, alice, table):
    client.force_login(alice)
    html = client.get(table.get_absolute_url()).content.decode()
    members = re.search(r'<section class="members".*?</section>', html, re.S)[0]
    assert 'method="post"' not in members  # every control in it asks first
    assert 'name="action" value="remove" class="danger">Remove</button>' in html
    assert 'value="make_gm" class="secondary">Make GM</button>' in html
    assert '<button type="submit" class="danger">Leave the table</button>' in html


def test_handing_the_gm_role_asks_first(client, alice, bob, table):
    client.force_login(alice)
    html = client.get(member_url(table, member="bob", action="make_gm")).content.decode()
    assert "Make bob the GM of Sunday Table?" in html
    assert "Only bob can hand the GM role back." in html
    table.refresh_from_db()
    assert table.gm == alice
    client.post(f"/tables/{table.code}/members/", {"member": "bob", "action": "make_gm"})
    table.refresh_from_db()
    assert table.gm == bob


def test_the_question_about_someone_who_left_sends_the_gm_back_with_a_message(client, alice, table):
    client.force_login(alice)
    response = client.get(member_url(table, member="nobody", action="remove"), follow=True)
    assert "They do not sit at this table." in response.content.decode()


def test_only_the_gm_is_asked(client, bob, table):
    client.force_login(bob)
    assert client.get(member_url(table, member="bob", action="remove")).status_code == 404


def test_leaving_asks_first_and_a_gm_with_players_is_told_what_to_do_instead(
    client, alice, bob, table
):
    client.force_login(bob)
    html = client.get(f"/tables/{table.code}/leave/").content.decode()
    assert "Leave Sunday Table?" in html and "you need a new invite link" in html
    assert tables.is_member(table, bob)
    client.post(f"/tables/{table.code}/leave/")
    assert not tables.is_member(table, bob)

    TableMembership.objects.create(table=table, user=bob)
    client.force_login(alice)
    html = client.get(f"/tables/{table.code}/leave/").content.decode()
    assert "hand the GM role to another member first" in html
    assert 'method="post"' not in html.split('id="confirm-title"')[1]  # nothing to press


def test_closing_a_table_of_one_asks_first(client, alice):
    table = tables.table_create(gm=alice, name="Solo")
    client.force_login(alice)
    html = client.get(f"/tables/{table.code}/leave/").content.decode()
    assert "Close Solo?" in html and "closes it for good" in html
    assert Table.objects.filter(pk=table.pk).exists()
    client.post(f"/tables/{table.code}/leave/")
    assert not Table.objects.filter(pk=table.pk).exists()


def test_revoking_or_replacing_a_live_invite_asks_first(client, alice, table):
    token = tables.table_invite_open(table=table).invite_token
    client.force_login(alice)
    html = client.get(f"/tables/{table.code}/invite/?action=revoke").content.decode()
    assert "Revoke the invite link?" in html and "The link you sent stops working" in html
    html = client.get(f"/tables/{table.code}/invite/?action=open&days=3").content.decode()
    assert 'name="days" value="3"' in the_form(html)
    table.refresh_from_db()
    assert table.invite_token == token
    client.post(f"/tables/{table.code}/invite/", {"action": "revoke"})
    table.refresh_from_db()
    assert table.invite_token is None


@pytest.fixture
def table_battle(alice, bob, types, table):
    a = make_team(alice, types, "Sunrise", visibility="public")
    b = make_team(bob, types, "Night", visibility="public")
    return run(alice, a, b, table=table, visibility=BattleVisibility.UNLISTED)


def test_counting_for_growth_asks_first_and_names_the_ranks_it_grants(client, alice, table_battle):
    client.force_login(alice)
    viewer = client.get(table_battle.get_absolute_url()).content.decode()
    assert f'<form method="get" action="/battles/{table_battle.code}/growth/">' in viewer
    html = client.get(f"/battles/{table_battle.code}/growth/").content.decode()
    assert "Count this battle for growth?" in html and "It cannot be undone." in html
    grants = table_battle.log["result"]["growth"]
    assert grants, "the fixture's battle grants Ranks"
    assert html.count("<li>") >= len({g["combatant"] for g in grants})
    assert re.search(r"<li>Sunrise \d: Rank 1 -&gt; 2</li>|<li>Night \d: Rank 1 -&gt; 2</li>", html)
    table_battle.refresh_from_db()
    assert not table_battle.counts_for_growth and not Growth.objects.exists()
    client.post(f"/battles/{table_battle.code}/growth/")
    table_battle.refresh_from_db()
    assert table_battle.counts_for_growth and Growth.objects.exists()


def test_the_growth_question_says_who_will_not_grow(client, alice, bob, table, table_battle):
    TableMembership.objects.filter(table=table, user=bob).delete()
    client.force_login(alice)
    html = client.get(f"/battles/{table_battle.code}/growth/").content.decode()
    # Side B is bob's, who has left: its grants change nothing, and the page says so.
    bs = {g["combatant"] for g in table_battle.log["result"]["growth"] if g["combatant"][0] == "B"}
    assert bs, "the fixture's battle grants bob's side a Rank"
    assert html.count("no Rank (its owner does not sit at the table") == len(bs)
    assert "Rank 1 -&gt; 2" in html  # alice's side still grows


def test_a_battle_that_already_counts_is_refused_on_the_question_page(client, alice, table_battle):
    client.force_login(alice)
    client.post(f"/battles/{table_battle.code}/growth/")
    html = client.get(f"/battles/{table_battle.code}/growth/").content.decode()
    assert "This battle already counts for growth." in html
    assert 'method="post"' not in html.split('id="confirm-title"')[1]


def test_revoking_a_share_link_asks_first(client, alice, table_battle):
    client.force_login(alice)
    token = table_battle.share_token
    url = f"/battles/{table_battle.code}/share/"
    html = client.get(url + "?action=revoke").content.decode()
    assert "Revoke the share link?" in html and "stops working for everyone" in html
    assert "Make a new share link?" in client.get(url + "?action=regenerate").content.decode()
    assert Battle.objects.get(pk=table_battle.pk).share_token == token
    client.post(url, {"action": "revoke"})
    assert Battle.objects.get(pk=table_battle.pk).share_token is None


def test_delete_buttons_on_the_existing_question_pages_look_destructive(client, alice, types):
    from .conftest import make_memeyori

    pup = make_memeyori(alice, types["Blaze"])
    client.force_login(alice)
    html = client.get(f"/c/memeyori/{pup.code}/delete/").content.decode()
    assert '<button type="submit" class="danger solid">Delete Emberpup</button>' in html


def test_a_stranger_cannot_reach_the_questions(client, table, table_battle):
    client.force_login(make_user("mallory"))
    assert client.get(member_url(table, member="bob", action="remove")).status_code == 404
    assert client.get(f"/battles/{table_battle.code}/growth/").status_code == 404
    assert client.get(f"/battles/{table_battle.code}/share/?action=revoke").status_code == 404
