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
        match = request.resolver_match
        rule = settings.RATE_LIMITS.get(match.url_name if match else None)
        if rule is None or not settings.RATELIMIT_ENABLE:
            return None
        rate, methods = rule
        if request.method not in methods:
            return None
        if is_ratelimited(
            request, group=f"rl:{match.url_name}", key="ip", rate=rate, method=list(methods),
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
