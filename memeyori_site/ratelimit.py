"""Rate limits on the endpoints that are costly or attractive to abuse, in one place.

Which views are limited, and how hard, is the RATE_LIMITS setting (URL name -> rate and
methods); django-ratelimit does the counting. A limited request gets a 429 page that says
when to try again, rather than a bare error.
"""

import ipaddress
import logging
import math
import time
from functools import cache

from django.conf import settings
from django.core.cache import cache as counts
from django.core.cache import caches
from django.db import DatabaseError
from django.shortcuts import render
from django_ratelimit.core import is_ratelimited

from . import login

try:
    from redis.exceptions import RedisError
except ImportError:  # no Redis client: the database cache counts
    RedisError = OSError

logger = logging.getLogger(__name__)
# What an unreachable cache raises: Redis's client errors (its ConnectionError is not the
# built-in one), a socket's, or the database cache's.
CACHE_FAULTS = (RedisError, OSError, DatabaseError)
# Counts in the database's cache table when the default cache (Redis) is unreachable.
FALLBACK_CACHE = "ratelimit_fallback"


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
    return requester_address(request)


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
        count, _, period = rate.partition("/")
        try:
            if name in settings.SLIDING_RATE_LIMITS:
                wait = _sliding_wait(request, name, int(count), PERIODS[period])
            elif is_ratelimited(
                request, group=f"rl:{name}", key="ip", rate=rate, method=list(methods),
                increment=True,
            ):  # fmt: skip
                wait = PERIODS[period]
            else:
                wait = 0
        except CACHE_FAULTS:
            wait = _without_cache(request, name, int(count), PERIODS[period])
        if not wait:
            return None
        response = render(
            request,
            "429.html",
            {"count": count, "period": {"s": "second", "m": "minute", "h": "hour"}[period]},
            status=429,
        )
        response["Retry-After"] = str(wait)
        return response


def _without_cache(request, name: str, limit: int, period: int) -> int:
    """The wait when the counting cache is unreachable (issue 40.3: Redis down answered
    500 on every limited URL, log-in included). A read goes on uncounted; a write (a
    log-in, a sign-up, a start) is counted in the database's cache table instead, in
    sliding windows, so guesses stay limited while Redis is away. If that fails too, the
    request goes on: a limit is not worth a site that answers nothing."""
    logger.warning("rate limit %s: the cache is unreachable", name, exc_info=True)
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return 0
    try:
        return _sliding_wait(request, name, limit, period, store=caches[FALLBACK_CACHE])
    except CACHE_FAULTS:
        logger.error("rate limit %s: the database's counts failed too", name, exc_info=True)
        return 0


PERIODS = {"s": 1, "m": 60, "h": 3600}
# A sliding window is counted in this many slices of its period (issue 33.7).
SLICES = 12


def _sliding_keys(request, name: str) -> list[str]:
    """One count per key the rule names: the client's address, and the account a log-in
    names (whether or not it exists, so a refusal says nothing about that), by its name as
    the log-in form normalises it; or, from a browser holding that account's device cookie,
    that device (memeyori_site/login.py: strangers' tries never lock the owner out)."""
    keys = []
    for kind in settings.SLIDING_RATE_LIMITS[name]:
        if kind == "ip":
            keys.append(f"sw:{name}:{requester_address(request)}")
        elif kind == "account":
            posted = request.POST.get("username", "")
            device = login.device_of(request, posted)
            if device is not None:
                keys.append(f"sw:{name}:device:{device}")
            else:
                keys.append(f"sw:{name}:account:{login.account_digest(posted)}")
    return keys


def _sliding_wait(request, name: str, limit: int, period: int, store=None) -> int:
    """0 when the request may go on, else the seconds to wait. Each key's tries are counted
    in SLICES slices of the period, and the last SLICES + 1 slices (the current one too)
    are summed: they always cover at least the whole period, so no `period` seconds
    anywhere let more than `limit` tries through, edge or not (a fixed window lets twice
    the limit through across its edge). The count is raised before it is read, so
    requests racing for the last try cannot both have it; refused tries count too."""
    store = counts if store is None else store
    width = period / SLICES
    now = time.time()
    current = int(now // width)
    waits = []
    for key in _sliding_keys(request, name):
        slices = [f"{key}:{i}" for i in range(current - SLICES, current + 1)]
        store.add(slices[-1], 0, timeout=period + 2 * math.ceil(width))
        mine = store.incr(slices[-1])
        held = store.get_many(slices[:-1])
        if sum(held.values()) + mine <= limit:
            continue
        # Free again once the oldest slice holding tries leaves the sum.
        oldest = min([int(k.rpartition(":")[2]) for k, v in held.items() if v] + [current])
        waits.append(math.ceil((oldest + SLICES + 1) * width - now))
    return max(waits, default=0)


def requester_address(request) -> str:
    """The client address as per-address limits count it (an IPv6 client by its /64)."""
    address = client_ip(request)
    if ":" in address:
        address = str(ipaddress.ip_network(f"{address}/64", strict=False).network_address)
    return f"ip:{address}"


UPLOAD_RULE = "portrait_upload"


def _carries_upload(request) -> bool:
    """A multipart POST with a non-empty portrait file in it."""
    if request.method != "POST" or not request.content_type.startswith("multipart/"):
        return False
    upload = request.FILES.get("portrait")
    return bool(upload and upload.size)
