"""Rate limits on the endpoints that are costly or attractive to abuse, in one place.

Which views are limited, and how hard, is the RATE_LIMITS setting (URL name -> rate and
methods); django-ratelimit does the counting. A limited request gets a 429 page that says
when to try again, rather than a bare error.
"""

from django.conf import settings
from django.shortcuts import render
from django_ratelimit.core import is_ratelimited


class RateLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not settings.RATELIMIT_ENABLE:
            return None
        match = request.resolver_match
        names = [match.url_name if match else None]
        if _carries_upload(request):
            # Whichever page it comes through, a portrait upload counts as one (11.4).
            names.append(UPLOAD_RULE)
        for name in names:
            refused = self._check(request, name)
            if refused is not None:
                return refused
        return None

    def _check(self, request, name):
        rule = settings.RATE_LIMITS.get(name)
        if rule is None:
            return None
        rate, methods = rule
        if request.method not in methods:
            return None
        if is_ratelimited(
            request, group=f"rl:{name}", key="ip", rate=rate, method=list(methods),
            increment=True,
        ):  # fmt: skip
            count, _, period = rate.partition("/")
            response = render(
                request,
                "429.html",
                {"count": count, "period": {"s": "second", "m": "minute", "h": "hour"}[period]},
                status=429,
            )
            response["Retry-After"] = {"s": "1", "m": "60", "h": "3600"}[period]
            return response
        return None


UPLOAD_RULE = "portrait_upload"


def _carries_upload(request) -> bool:
    """A multipart POST with a non-empty portrait file in it."""
    if request.method != "POST" or not request.content_type.startswith("multipart/"):
        return False
    upload = request.FILES.get("portrait")
    return bool(upload and upload.size)
