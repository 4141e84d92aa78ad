"""Log-in limits that never lock the owner out (issue 40.2, OWASP's "device cookies").

Guesses are counted per address and per account (memeyori_site/ratelimit.py), so that many
addresses add up to no more guesses at one account than one. That alone lets anyone lock
an account's owner out by guessing at it. A successful log-in therefore leaves a device
cookie in the browser: signed by the site, naming the account (by a digest of its
normalised name) and a random id of its own. A log-in post that carries a valid device
cookie for the account it names is counted in that device's own bucket instead of the
account's, so strangers' wrong tries elsewhere never hold the owner up in a browser they
signed in from before; wrong tries with the cookie still use up that device's bucket, and
the address is counted as always.

Names are counted as the log-in form reads them: Django's UsernameField normalises to NFKC
before it authenticates, so "ｂob" and "𝐛𝐨𝐛" are the account "bob"; counting the raw name
gave each look-alike a bucket of its own. Case is folded as well, as before.

Why not django-axes: it counts failures per username, address or both, and locks the
account (or the pair) when they run out, which is the lock-out this issue is about; it has
no device cookies (jazzband/django-axes#300, closed without them), and it counts the
posted name as typed (a callable could normalise it). It would also replace the sliding
windows and the one place (RATE_LIMITS) that says how hard each URL is limited. The part
added here is small: a signed cookie and a third key for the count already kept.
"""

import hashlib
import secrets
import unicodedata

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core import signing

DEVICE_COOKIE = "memeyori_device"
DEVICE_SALT = "memeyori_site.login.device"
DEVICE_AGE = 365 * 24 * 3600  # a year: a browser signed in from since is still the owner's


def account_name(raw: str) -> str:
    """A posted user name as the log-in form authenticates it (CharField strips, then
    UsernameField applies NFKC), with case folded, as the limits count it."""
    return unicodedata.normalize("NFKC", str(raw).strip()).casefold()[:150]


def account_digest(raw: str) -> str:
    return hashlib.sha256(account_name(raw).encode()).hexdigest()[:32]


def device_of(request, raw_name: str) -> str | None:
    """The id of this browser's device cookie if it was issued for the account `raw_name`
    names, else None (no cookie, another account's, tampered with or too old)."""
    value = request.COOKIES.get(DEVICE_COOKIE)
    if not value:
        return None
    try:
        found = signing.loads(value, salt=DEVICE_SALT, max_age=DEVICE_AGE)
    except signing.BadSignature:
        return None
    if not isinstance(found, dict) or found.get("a") != account_digest(raw_name):
        return None
    device = found.get("d")
    return device if isinstance(device, str) else None


def issue_device_cookie(response, raw_name: str) -> None:
    value = signing.dumps(
        {"a": account_digest(raw_name), "d": secrets.token_hex(16)}, salt=DEVICE_SALT
    )
    response.set_cookie(
        DEVICE_COOKIE,
        value,
        max_age=DEVICE_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


class LoginView(auth_views.LoginView):
    """Django's log-in view, leaving a device cookie after a successful log-in."""

    def form_valid(self, form):
        response = super().form_valid(form)
        issue_device_cookie(response, form.get_user().get_username())
        return response
