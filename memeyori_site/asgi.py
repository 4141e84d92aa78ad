"""The site as one ASGI application, for `make serve` (gunicorn's asgi worker).

Two halves behind one port:
- Paths under live.LIVE_PREFIX (Server-Sent Events) go to Django's ASGI handler: an open
  stream waits on the event loop and holds no thread.
- Everything else goes to the WSGI application, run by a2wsgi in a small pool of
  long-lived threads. Django's ASGI handler would run each synchronous view in a thread
  of its own, made for that request, so no database connection could outlive it
  (persistent connections are off under ASGI, Django's docs say); in these threads they
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
# Threads per worker process for pages; the GIL runs one at a time, the others wait on
# the database or the network meanwhile.
THREADS = int(os.environ.get("DJANGO_WSGI_THREADS", "4"))

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
            message = {**message, "headers": [*headers, SERVER]}
        await send(message)

    if scope["type"] == "http" and scope["path"].startswith(LIVE_PREFIX):
        return await live(scope, receive, named_send)
    return await pages(scope, receive, named_send)


async def _lifespan(receive, send):
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
