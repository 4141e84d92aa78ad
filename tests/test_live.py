"""Pushed live updates (memeyori_site/live.py): a follower's stream gets each step as it is
presented, and ends as soon as its holder could no longer open the battle (issue 18.7).

The streams run under Django's ASGI handler (AsyncClient), reading the database from other
threads, so these tests commit (transactional_db).
"""

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.test import AsyncClient

from battles import services
from battles.models import Battle, BattleVisibility
from cards.models import TableMembership
from cards.tables.services import table_create, table_remove_member

from .conftest import make_user
from .test_battle_pages import make_team, run
from .test_presenting import present

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table_battle(alice, bob, types):
    """Bob's unlisted battle at alice's table (alice is its GM)."""
    table = table_create(gm=alice, name="Sunday")
    TableMembership.objects.create(table=table, user=bob)
    a = make_team(alice, types, "Sunrise", visibility="tables")
    b = make_team(bob, types, "Night", visibility="tables")
    battle = run(bob, a, b, table=table)
    # Unlisted though its parties are "my tables": shared before issue 18.6's rule.
    Battle.objects.filter(pk=battle.pk).update(
        visibility=BattleVisibility.UNLISTED, share_token="q" * 43
    )
    battle.refresh_from_db()
    return battle


def in_own_loop(coroutine_function):
    """Run the async part in a thread with its own event loop: a browser test earlier in
    the run may have left Playwright's loop running in this one."""

    async def then_close_its_connections():
        asyncio.get_running_loop().set_default_executor(_ClosingExecutor())
        try:
            await coroutine_function()
        finally:
            await sync_to_async(connections.close_all)()  # asgiref's shared thread's

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, then_close_its_connections()).result()


class _ClosingExecutor(ThreadPoolExecutor):
    """The streams' reads (asyncio.to_thread) close their database connections when done.

    A server's threads keep theirs for the next read; a test's threads end with its loop,
    and a connection left open in one makes PostgreSQL refuse to drop the test database.
    """

    def submit(self, fn, /, *args, **kwargs):
        def then_close():
            try:
                return fn(*args, **kwargs)
            finally:
                connections.close_all()

        return super().submit(then_close)


async def next_message(chunks, timeout: float = 5.0) -> str:
    """The next Server-Sent Events message (each chunk the stream yields is one)."""
    while True:
        chunk = await asyncio.wait_for(anext(chunks), timeout)
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        if not text.startswith(("retry:", ":")):
            return text


def stream_url(client, battle) -> str:
    return client.get(f"{battle.get_absolute_url()}follow/").json()["stream"]


def move(client, battle, step):
    assert present(client, battle, "step", 1, step, HX_Request="true").status_code == 204


def test_a_follower_is_pushed_each_step_and_the_end(client, alice, table_battle):
    client.force_login(alice)
    present(client, table_battle, "start", 1, 1)
    url = stream_url(client, table_battle)

    async def follow():
        response = await AsyncClient().get(url)  # no cookies: the URL names its holder
        assert response["Content-Type"] == "text/event-stream"
        chunks = aiter(response.streaming_content)
        first = await next_message(chunks)
        assert "event: update" in first and 'data-step="1"' in first
        await sync_to_async(move)(client, table_battle, 2)
        second = await next_message(chunks)
        assert 'data-round="1" data-step="2"' in second and "id: " in second
        await sync_to_async(services.presentation_stop)(battle=table_battle, by=alice)
        assert (await next_message(chunks)).startswith("event: end")

    in_own_loop(follow)


def test_a_stream_ends_when_the_battle_is_made_private(client, alice, bob, table_battle):
    client.force_login(alice)
    present(client, table_battle, "start", 1, 1)
    client.logout()
    url = client.get(f"{table_battle.share_url()}follow/").json()["stream"]

    async def follow():
        response = await AsyncClient().get(url)
        chunks = aiter(response.streaming_content)
        assert table_battle.share_url() in await next_message(chunks)
        await sync_to_async(services.battle_set_visibility)(
            battle=table_battle, visibility=BattleVisibility.PRIVATE
        )
        assert (await next_message(chunks)).startswith("event: end")

    in_own_loop(follow)


def test_a_removed_members_stream_ends_at_the_next_step(client, alice, table_battle):
    carol = make_user("carol")
    TableMembership.objects.create(table=table_battle.table, user=carol)
    client.force_login(alice)
    present(client, table_battle, "start", 1, 1)
    client.force_login(carol)
    url = stream_url(client, table_battle)
    client.force_login(alice)

    async def follow():
        response = await AsyncClient().get(url)
        chunks = aiter(response.streaming_content)
        await next_message(chunks)
        await sync_to_async(table_remove_member)(table=table_battle.table, member=carol)
        await sync_to_async(move)(client, table_battle, 2)
        assert (await next_message(chunks)).startswith("event: end")

    in_own_loop(follow)


def test_a_stream_for_a_holder_who_may_not_watch_is_a_404(client, alice, table_battle):
    client.force_login(alice)
    present(client, table_battle, "start", 1, 1)
    url = stream_url(client, table_battle)
    services.battle_share_revoke(battle=table_battle)
    forged = url.replace(f"u{alice.pk}%3A", "a%3A")

    async def follow():
        assert (await AsyncClient().get(forged)).status_code == 404
        assert (await AsyncClient().get(url.partition("?")[0])).status_code == 404

    in_own_loop(follow)
