"""Error pages a person can reach, in the site's style, with debug on and off (issue 21.5).

Each says what happened and what to do next, with the status code that fits. A view that
knows why a link is dead raises `DeadLink` (a 404 with the explanation) or returns
`error_page(...)`; everything else gets the general page for its status.

With DEBUG on Django answers a 404 with its technical page (the URL list). That page is
for developers, and `make run` is also where a new group tries the site, so
`ErrorPagesMiddleware` shows the site's page instead, with the technical reason folded
away beneath it.
"""

import logging
import sys

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import urlencode
from django.views import defaults

logger = logging.getLogger(__name__)

STATUS_NAMES = {
    400: "Bad request", 403: "Not allowed", 404: "Not found", 410: "Gone", 411: "No length",
    413: "Too large", 503: "Unavailable",
}  # fmt: skip


class DeadLink(Http404):
    """A 404 that says why this link no longer works and what to do about it."""

    def __init__(self, title: str, message: str, *, action_url: str = "", action_label: str = ""):
        super().__init__(message)
        self.title = title
        self.message = message
        self.action_url = action_url
        self.action_label = action_label


def error_page(
    request,
    status: int,
    *,
    title: str,
    message: str,
    action_url: str = "",
    action_label: str = "",
    debug_reason: str = "",
):
    """The site's error page: what happened, what to do, and a way on."""
    context = {
        "status": status,
        "status_name": STATUS_NAMES.get(status, "Error"),
        "title": title,
        "message": message,
        "action_url": action_url,
        "action_label": action_label,
        "debug_reason": debug_reason if settings.DEBUG else "",
    }
    return render(request, "error.html", context, status=status)


NOT_FOUND = (
    "There is nothing here. The page may never have existed, it may be private, or its "
    "share link may have been revoked: ask whoever sent it for a new one."
)


def page_not_found(request, exception=None, *, debug_reason: str = ""):
    """handler404, and the 404 with debug on (ErrorPagesMiddleware)."""
    if isinstance(exception, DeadLink):
        return error_page(
            request,
            404,
            title=exception.title,
            message=exception.message,
            action_url=exception.action_url,
            action_label=exception.action_label,
        )
    reason = debug_reason or (str(exception) if exception is not None else "")
    return error_page(request, 404, title="Not found", message=NOT_FOUND, debug_reason=reason)


def permission_denied(request, exception=None):
    """handler403: signed in as someone who may not do this (or not signed in)."""
    reason = str(exception or "")
    signed_in = request.user.is_authenticated
    login = reverse("login") + "?" + urlencode({"next": request.get_full_path()})
    return error_page(
        request,
        403,
        title="Not allowed",
        message=(f"{reason} " if reason else "")
        + "If you think you should be able to, log in with the account that may.",
        action_url="" if signed_in else login,
        action_label="" if signed_in else "Log in",
    )


def bad_request(request, exception=None):
    """handler400: a request the site cannot read (with debug off)."""
    return error_page(
        request,
        400,
        title="That request did not make sense",
        message="Something in the address or the form was not what this page expects. "
        "Go back and try again from the page itself.",
    )


def csrf_failure(request, reason=""):
    """CSRF_FAILURE_VIEW: most often a form left open while its session ended (a log-out in
    another tab, or a day-old page)."""
    return error_page(
        request,
        403,
        title="This form has expired",
        message="The page it came from is too old, or you logged in or out since it was "
        "opened, so nothing was sent or changed. Go back, reload the page, and send it again.",
        action_url=reverse("home"),
        action_label="Go to the start",
        debug_reason=reason,
    )


class ErrorPagesMiddleware:
    """With DEBUG on, the site's own 404 page instead of Django's technical one (with DEBUG
    off Django already calls handler404, which is the same page)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if settings.DEBUG and response.status_code == 404 and request.resolver_match is None:
            # No URL pattern matched: Django's debug page would list them all.
            return page_not_found(request, debug_reason=f"No URL pattern matches {request.path}.")
        return response

    def process_exception(self, request, exception):
        if settings.DEBUG and isinstance(exception, Http404):
            return page_not_found(request, exception)
        if _store_failed(exception):
            return store_unavailable(request)
        if isinstance(exception, DATABASE_DOWN):
            return database_unavailable(request, exception)
        return None


# What the database driver raises while the server is away or restarting: refused or lost
# connections (psycopg's OperationalError, a closed connection's InterfaceError), SQLite's
# "unable to open" or "locked". Not IntegrityError and the like, which are the code's.
DATABASE_DOWN = (OperationalError, InterfaceError)
DATABASE_RETRY_AFTER = 5  # seconds: PostgreSQL restarts within a few


def database_unavailable(request, exception=None):
    """A request while the database is down or restarting (issue 40.5: a restart under load
    gave 9 x 500 in about 510 requests): a 503 that says to try again, with Retry-After. The
    page is rendered without the site's layout, which would ask the database who is signed
    in."""
    logger.error("database unavailable: %s %s: %s", request.method, request.path, exception)
    response = HttpResponse(
        render_to_string("database_unavailable.html", {"retry": DATABASE_RETRY_AFTER}),
        status=503,
    )
    response["Retry-After"] = str(DATABASE_RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    return response


def server_error(request):
    """handler500: the database's faults raised outside a view (a middleware reading the
    session, saving it) are a 503 too; anything else is Django's 500 page."""
    exception = sys.exc_info()[1]
    if isinstance(exception, DATABASE_DOWN):
        return database_unavailable(request, exception)
    return defaults.server_error(request)


def _store_failed(exception) -> bool:
    """The object store did not answer within its timeouts (settings, S3_*), or refused."""
    if settings.MEDIA_STORAGE != "s3":
        return False
    from botocore.exceptions import BotoCoreError, ClientError

    return isinstance(exception, BotoCoreError | ClientError)


def store_unavailable(request):
    """A page that reads media while the object store is down: a 503 that says so within
    the store's timeouts (issue 33.2), not a 500 after minutes."""
    response = error_page(
        request,
        503,
        title="The picture store is not answering",
        message="This page needs a picture from the store that keeps them, and it did not "
        "answer. Nothing was changed. Try again in a minute.",
    )
    response["Retry-After"] = "30"
    return response
