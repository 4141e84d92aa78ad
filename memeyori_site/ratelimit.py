"""Rate limits on the endpoints that are costly or attractive to abuse, in one place.

Which views are limited, and how hard, is the RATE_LIMITS setting (URL name -> rate and
methods); django-ratelimit does the counting. A limited request gets a 429 page that says
when to try again, rather than a bare error.
"""

import ipaddress
from functools import cache

from django.conf import settings
from django.shortcuts import render
from django_ratelimit.core import is_ratelimited


@cache
def _networks(proxies: tuple[str, ...]):
    return tuple(ipaddress.ip_network(p, strict=False) for p in proxies)


def _trusted(address: str, networks) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_ip(request) -> str:
    """The client's address. Behind proxies named in DJANGO_TRUSTED_PROXIES, the right-most
    X-Forwarded-For entry that is not one of them (each proxy appends the address it saw,
    so entries to its left may be whatever the client wrote); otherwise REMOTE_ADDR."""
    remote = request.META.get("REMOTE_ADDR", "")
    networks = _networks(tuple(settings.TRUSTED_PROXIES))
    if not networks or not _trusted(remote, networks):
        return remote
    forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    for address in reversed([a for a in forwarded if a]):
        try:
            ipaddress.ip_address(address)
        except ValueError:
            return remote
        if not _trusted(address, networks):
            return address
    return remote


def requester(request) -> str:
    """Who is asking, for per-person limits: the user, else the client address (an IPv6
    client by its /64, as the rate limits count it)."""
    if request.user.is_authenticated:
        return f"user:{request.user.pk}"
    address = client_ip(request)
    if ":" in address:
        address = str(ipaddress.ip_network(f"{address}/64", strict=False).network_address)
    return f"ip:{address}"


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
