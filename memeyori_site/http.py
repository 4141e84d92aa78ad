"""Which HTTP methods a view takes, declared on the view (issue 11.9).

Django's require_GET answers HEAD and OPTIONS with a 405, which confuses link checkers,
uptime monitors and caches. A view that takes GET also takes HEAD (Django drops the body),
and every view answers OPTIONS with its Allow header without running. The list is kept on
the view as `allowed_methods`, so a test can check every URL declares one.
"""

from functools import wraps
from inspect import iscoroutinefunction

from django.http import HttpResponse, HttpResponseNotAllowed


def allow(*methods: str):
    allowed = {m.upper() for m in methods} | {"OPTIONS"}
    if "GET" in allowed:
        allowed.add("HEAD")
    header = ", ".join(sorted(allowed))

    def refusal(request):
        if request.method == "OPTIONS":
            response = HttpResponse()
            response["Allow"] = header
            return response
        if request.method not in allowed:
            return HttpResponseNotAllowed(sorted(allowed))
        return None

    def decorator(view):
        if iscoroutinefunction(view):  # the live streams (memeyori_site/live.py)

            @wraps(view)
            async def inner(request, *args, **kwargs):
                refused = refusal(request)
                return refused if refused is not None else await view(request, *args, **kwargs)

        else:

            @wraps(view)
            def inner(request, *args, **kwargs):
                refused = refusal(request)
                return refused if refused is not None else view(request, *args, **kwargs)

        inner.allowed_methods = frozenset(allowed)
        return inner

    return decorator


# The usual cases by name: pages that only read, and actions that only write.
require_safe = allow("GET")
require_post = allow("POST")


def noindex(view):
    """Share-link views: whoever holds the link may look, but no search engine may index it
    (HTML, JSON or image alike), even where a crawler ignores /robots.txt (issue 21.10)."""

    @wraps(view)
    def inner(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        response["X-Robots-Tag"] = "noindex"
        return response

    return inner
