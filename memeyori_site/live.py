"""Pushed live updates: a channel name, `publish` after commit, and Server-Sent Events.

The whole mechanism, for any page that follows something (a presented battle today, a
played game tomorrow):

- A *channel* is a plain name ("battle:<code>"). `publish(channel)` says "it changed":
  nothing more travels, so no event can carry one person's data to another.
- `stream(request, feed)` answers a browser's EventSource. `feed.read()` is what this
  holder may see now (or None when they may not any more): it runs on connect, again on
  each event of `feed.channel`, and again every KEEPALIVE seconds, so access taken away
  (a battle made private, a member removed from a table) ends the stream at the next of
  those. Each answer the holder has not seen yet goes out as one event.
- A stream waits on the event loop of an ASGI worker (memeyori_site/asgi.py routes
  LIVE_PREFIX there): a thousand open streams cost no thread and no database connection;
  `read` runs in a thread, briefly.

Between processes and machines, events travel through the broker:
- Redis publish/subscribe when REDIS_URL is set (one subscription per web process);
- otherwise the shared cache (the database's, by default): `publish` bumps a counter
  and each web process reads the counters of the channels it has streams for every
  POLL_SECONDS, one query for all of them.

Under a WSGI server (`make run`'s runserver, the test client) a stream cannot be held
without holding a thread, so it answers 204 at once: EventSource then stops, and the
page falls back to polling (static/js/viewer.js does).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections, transaction
from django.http import Http404, HttpResponse, StreamingHttpResponse

log = logging.getLogger(__name__)

# Paths under this prefix are served by Django's ASGI handler (memeyori_site/asgi.py).
LIVE_PREFIX = "/live/"
POLL_SECONDS = 0.1
KEEPALIVE = 15.0
# How long a browser waits before it reconnects on its own after a dropped stream.
RETRY_MS = 2000
COUNTER_TIMEOUT = 24 * 3600


@dataclass(frozen=True)
class Event:
    """One thing a holder may see: `id` changes whenever `data` does."""

    id: str
    data: str
    name: str = "update"


class Feed(Protocol):
    channel: str
    # Streams whose feeds have the same key see the same thing, so one read serves them
    # all for one event (every follower of one share link, for instance). A key must
    # name the holder as well as the channel.
    key: str

    def read(self) -> Event | None: ...


def _prefix() -> str:
    return f"{settings.LIVE_CHANNEL_PREFIX}:live:"


# --- Publishing --------------------------------------------------------------------


def publish(channel: str) -> None:
    """Tell every stream of `channel`, in every process on every machine, that it
    changed: once the current transaction commits (so a reader sees the change), at once
    outside one. Never raises: a lost event leaves followers one step behind until the
    next, and their keep-alive re-read catches up."""
    transaction.on_commit(lambda: _publish_now(channel), robust=True)


def _publish_now(channel: str) -> None:
    try:
        if settings.REDIS_URL:
            _redis().publish(_prefix() + channel, b"1")
            return
        key = _prefix() + channel
        value = 1 if cache.add(key, 1, COUNTER_TIMEOUT) else cache.incr(key)
    except Exception:
        log.warning("live: could not publish %s", channel, exc_info=True)
        return
    _hub_notify_local(channel, value)


_redis_client = None


def _redis():
    global _redis_client
    if _redis_client is None:
        import redis

        _redis_client = redis.Redis.from_url(settings.REDIS_URL)
    return _redis_client


# --- The hub: one per web process, on its event loop ---------------------------------


class Hub:
    """The open streams of this process, by channel, and the one listener that wakes
    them. Lives on the event loop that created it."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.streams: dict[str, set[asyncio.Queue]] = {}
        self.listener: asyncio.Task | None = None
        # (channel, feed key) -> (event number, the read for it), shared by its streams.
        self.reads: dict[tuple[str, str], tuple[int, asyncio.Future]] = {}
        self.seq = 0  # bumped on every event
        self.counters: dict[str, object] = {}  # the cache broker's last value per channel

    def subscribe(self, channel: str) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue(maxsize=1)
        self.streams.setdefault(channel, set()).add(queue)
        if self.listener is None or self.listener.done():
            self.listener = self.loop.create_task(self._listen())
        return queue

    def unsubscribe(self, channel: str, queue: asyncio.Queue) -> None:
        queues = self.streams.get(channel)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self.streams[channel]
                self.counters.pop(channel, None)
                for key in [k for k in self.reads if k[0] == channel]:
                    del self.reads[key]

    def wake(self, channel: str) -> None:
        self.seq += 1
        for queue in self.streams.get(channel, ()):
            if queue.empty():  # one pending wake-up says all there is to say
                queue.put_nowait(self.seq)

    def wake_at(self, channel: str, value) -> None:
        """The cache broker's counter for `channel` is `value`: wake its streams if new."""
        if channel in self.streams and self.counters.get(channel) != value:
            self.counters[channel] = value
            self.wake(channel)

    async def read(self, feed: Feed, seq: int) -> Event | None:
        """feed.read() in a thread, shared by every stream of the same key for one event."""
        slot = (feed.channel, feed.key)
        held = self.reads.get(slot)
        if held is None or held[0] != seq:
            held = (seq, self.loop.create_task(asyncio.to_thread(_read_in_thread, feed)))
            self.reads[slot] = held
        return await asyncio.shield(held[1])

    async def _listen(self) -> None:
        while self.streams:
            try:
                if settings.REDIS_URL:
                    await self._listen_redis()
                else:
                    await self._listen_cache()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("live: listener failed; retrying in a second", exc_info=True)
                await asyncio.sleep(1)

    async def _listen_redis(self) -> None:
        import redis.asyncio as aioredis

        client = aioredis.Redis.from_url(settings.REDIS_URL)
        pubsub = client.pubsub()
        prefix = _prefix()
        await pubsub.psubscribe(prefix + "*")
        try:
            while self.streams:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message and message["type"] == "pmessage":
                    self.wake(message["channel"].decode()[len(prefix) :])
        finally:
            await pubsub.aclose()
            await client.aclose()

    async def _listen_cache(self) -> None:
        prefix = _prefix()
        while self.streams:
            channels = list(self.streams)
            values = await asyncio.to_thread(_counters, [prefix + c for c in channels])
            for channel in channels:
                value = values.get(prefix + channel)
                if channel not in self.counters:
                    # The first look: a change between a stream's first read and now
                    # would be missed, so its streams read once more.
                    self.counters[channel] = value
                    self.wake(channel)
                else:
                    self.wake_at(channel, value)
            await asyncio.sleep(POLL_SECONDS)


def _counters(keys: list[str]) -> dict:
    close_old_connections()
    return cache.get_many(keys)


def _read_in_thread(feed: Feed) -> Event | None:
    close_old_connections()  # drop a connection the database closed meanwhile
    return feed.read()


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()
_hubs_lock = threading.Lock()


def _hub() -> Hub:
    loop = asyncio.get_running_loop()
    with _hubs_lock:
        hub = _hubs.get(loop)
        if hub is None:
            hub = _hubs[loop] = Hub(loop)
        return hub


def _hub_notify_local(channel: str, value) -> None:
    """A publish from this process wakes its own streams at once, without waiting for the
    cache broker's next look (which then finds the counter it already knows)."""
    with _hubs_lock:
        hubs = list(_hubs.values())
    for hub in hubs:
        if channel in hub.streams and not hub.loop.is_closed():
            hub.loop.call_soon_threadsafe(hub.wake_at, channel, value)


# --- The stream ----------------------------------------------------------------------


def _format(event: Event) -> str:
    lines = "".join(f"data: {line}\n" for line in event.data.splitlines() or [""])
    return f"id: {event.id}\nevent: {event.name}\n{lines}\n"


END = "event: end\ndata: \n\n"


async def stream(request, feed: Feed, first: Event | None = None):
    """The response for one EventSource: the current state, then each change.

    `first` is feed.read() as the view already did it (on connect); None means the holder
    may not see the channel (the view should have answered 404). Under WSGI: 204."""
    if not isinstance(request, ASGIRequest):
        return HttpResponse(status=204)
    hub = _hub()
    queue = hub.subscribe(feed.channel)

    async def events():
        last = None
        try:
            yield f"retry: {RETRY_MS}\n\n"
            if first is not None:
                last = first.id
                yield _format(first)
            while True:
                try:
                    seq = await asyncio.wait_for(queue.get(), timeout=KEEPALIVE)
                except TimeoutError:
                    seq = None  # nothing happened: still allowed? (a cheap re-read)
                event = await (hub.read(feed, seq) if seq is not None else _solo_read(feed))
                if event is None:
                    yield END
                    return
                if event.id != last:
                    last = event.id
                    yield _format(event)
                elif seq is None:
                    yield ": still here\n\n"
        finally:
            hub.unsubscribe(feed.channel, queue)

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-store"
    # Proxies (nginx) would otherwise buffer the stream and deliver it in lumps.
    response["X-Accel-Buffering"] = "no"
    return response


# A presented step (a stored battle's presentation, or a played game's): what a follower
# may see behind a poll token, found by `find(token, signed_holder)` as (event id, the
# step's HTML, channel), or None while that holder may not follow.
FindStep = Callable[[str, str], "tuple[str, str, str] | None"]


@dataclass(frozen=True)
class StepFeed:
    """A follower's stream of a presented step."""

    token: str
    signed_holder: str
    channel: str
    find: FindStep

    @property
    def key(self) -> str:
        return f"{self.token}|{self.signed_holder}"

    def read(self) -> Event | None:
        found = self.find(self.token, self.signed_holder)
        if found is None or found[2] != self.channel:
            return None
        return Event(id=found[0], data=found[1])


async def stream_presented(request, token: str, find: FindStep):
    """The followers' stream of a presented step, for as long as `find` lets its holder
    follow; a 404 when it does not on connect."""
    signed_holder = request.GET.get("as", "")
    found = await sync_to_async(find)(token, signed_holder)
    if found is None:
        raise Http404
    feed = StepFeed(token, signed_holder, found[2], find)
    return await stream(request, feed, Event(id=found[0], data=found[1]))


async def _solo_read(feed: Feed) -> Event | None:
    return await asyncio.to_thread(_read_in_thread, feed)
