"""The site as one ASGI application, for `make serve` (gunicorn's asgi worker).

Two halves behind one port:
- Paths under live.LIVE_PREFIX (Server-Sent Events) go to Django's ASGI handler: an open
  stream waits on the event loop and holds no thread.
- Everything else goes to the WSGI application, run by a2wsgi in a long-lived thread
  (THREADS, below, says why one). Django's ASGI handler would run each synchronous view
  in a thread of its own, made for that request, so no database connection could outlive
  it (persistent connections are off under ASGI, Django's docs say); in this thread they
  do (DATABASE_CONN_MAX_AGE), and a page costs what it costs under WSGI.

Every response says `Server: Memeyori`: gunicorn would name itself and its version.
"""

import gc
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memeyori_site.settings")

from a2wsgi import WSGIMiddleware  # noqa: E402
from django.core.asgi import get_asgi_application  # noqa: E402

from memeyori_site.live import LIVE_PREFIX  # noqa: E402
from memeyori_site.wsgi import application as wsgi_application  # noqa: E402

SERVER = (b"server", b"Memeyori")
# Threads per worker process for pages: one. The GIL runs one thread at a time, and each
# database call hands it to another thread, which then holds it for up to the switch
# interval while the first waits: make load on 2 cores, SQLite, 2 workers, runs taken in
# turns: 1 thread 272-278 requests/s (live stats p99 177-186 ms), 2 threads 255-260
# (224-229 ms), 4 threads 228-249 (241-302 ms); on PostgreSQL on the same machine 195
# against 148 with 4. A database across a network, where a thread waits longer for each
# query, may want a second (DJANGO_WSGI_THREADS). What one thread gives up: a page waits
# while another hashes a password at log-in (about 0.4 s here; the hash does not hold the
# GIL, so the event loop and its live streams go on).
THREADS = int(os.environ.get("DJANGO_WSGI_THREADS", "1"))

live = get_asgi_application()
pages = WSGIMiddleware(wsgi_application, workers=THREADS)

# What is loaded by now (Django, the apps and their models, the middleware) lives as long
# as the worker. Frozen, the garbage collector no longer walks it at each full collection:
# timed in process over the load test's pages, that walk held the GIL for about 65 ms once
# in some 600 requests, and collections took 5.6% of the CPU instead of 2.9%.
gc.freeze()


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        return await _lifespan(receive, send)

    async def named_send(message):
        if message["type"] == "http.response.start":
            headers = [h for h in message.get("headers", []) if h[0].lower() != b"server"]
            if message["status"] in (411, 413):  # a body left unread (memeyori_site/bodies.py)
                headers.append((b"connection", b"close"))
            message = {**message, "headers": [*headers, SERVER]}
        await send(message)

    if scope["type"] == "http" and scope["path"].startswith(LIVE_PREFIX):
        if _has_body(scope):
            # Django's ASGI handler would read the whole body to a file before any view
            # ran; a stream takes none (pages are bounded by memeyori_site/bodies.py).
            return await _refuse_body(named_send)
        return await live(scope, receive, named_send)
    return await pages(scope, receive, named_send)


def _has_body(scope) -> bool:
    headers = dict(scope.get("headers", []))
    return headers.get(b"content-length", b"0") not in (b"", b"0") or (
        b"transfer-encoding" in headers
    )


async def _refuse_body(send):
    await send({
        "type": "http.response.start", "status": 413,
        "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")],
    })  # fmt: skip
    await send({"type": "http.response.body", "body": b"A live stream takes no body.\n"})


async def _lifespan(receive, send):
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
