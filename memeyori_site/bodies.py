"""Every request body has a hard size (issue 33.1).

A body is read lazily, as the WSGI stream is (a2wsgi under `make serve`), and Django never
reads past the Content-Length it was told. So a request whose Content-Length is over its
limit is refused here, before CSRF, the rate limits or a view parse a byte of it: a 413
with the site's page. A body without a Content-Length (chunked), which Django would read as
empty, is refused with a 411 (issue 40.5).

The limit is small (BODY_MAX_BYTES) except for the URLs that take a file
(BODY_UPLOAD_URLS: a portrait, a party's back image, an import), which may send
BODY_UPLOAD_MAX_BYTES. Within that, CappedUploadHandler keeps no more of a file than the
portrait limit and one byte, so the form says the file is too large, in memory: no upload
is ever written to a temporary file.
"""

from io import BytesIO

from django.conf import settings
from django.core.files.uploadedfile import InMemoryUploadedFile
from django.core.files.uploadhandler import FileUploadHandler, StopFutureHandlers

from .errors import error_page


def body_limit(request) -> int:
    match = request.resolver_match
    if match is not None and match.url_name in settings.BODY_UPLOAD_URLS:
        return settings.BODY_UPLOAD_MAX_BYTES
    return settings.BODY_MAX_BYTES


def declared_length(request) -> int:
    try:
        return max(int(request.META.get("CONTENT_LENGTH") or 0), 0)
    except ValueError:
        return 0


def _megabytes(size: int) -> str:
    return f"{size / 1024 / 1024:.0f} MB" if size >= 1024 * 1024 else f"{size // 1024} KB"


def too_large(request, limit: int):
    response = error_page(
        request,
        413,
        title="That was too large to send",
        message=f"This page takes at most {_megabytes(limit)} at once, so nothing was read "
        "or changed. Go back and choose a smaller file (a portrait can be at most 10 MB).",
        action_url=request.path if request.method == "POST" else "",
        action_label="Back to the page",
    )
    # The rest of the body is not read, so the connection cannot carry another request:
    # memeyori_site/asgi.py closes it (a WSGI application may not say so itself).
    return response


class BodyLimitMiddleware:
    """Placed before CsrfViewMiddleware: its process_view runs before that one's, which is
    the first to read a body."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if _undeclared_body(request):
            return length_required(request)
        limit = body_limit(request)
        if declared_length(request) > limit:
            return too_large(request, limit)
        return None


def _undeclared_body(request) -> bool:
    """A body sent without a Content-Length (Transfer-Encoding: chunked): Django would read
    it as empty and answer as if nothing was sent (issue 40.5), so it is refused."""
    return bool(request.META.get("HTTP_TRANSFER_ENCODING")) and not request.META.get(
        "CONTENT_LENGTH"
    )


def length_required(request):
    response = error_page(
        request,
        411,
        title="Send the length of what you send",
        message="This request had a body without a Content-Length (it was sent in chunks), "
        "so nothing was read or changed. Send it again with its length; a browser does.",
        action_url=request.path if request.method == "POST" else "",
        action_label="Back to the page",
    )
    return response


class CappedUploadHandler(FileUploadHandler):
    """Each uploaded file in memory, cut at FILE_KEEP_MAX_BYTES + 1 bytes: the forms' checks
    (portraits.portrait_check, the import's) refuse a file past their limit by its size
    (the whole size, as counted), and nothing larger is ever kept (the body limit bounds
    what is read)."""

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        self.keep = settings.FILE_KEEP_MAX_BYTES + 1

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.file = BytesIO()
        self.size = 0
        raise StopFutureHandlers()

    def receive_data_chunk(self, raw_data, start):
        room = self.keep - self.size
        if room > 0:
            self.file.write(raw_data[:room])
            self.size += min(len(raw_data), room)
        return None

    def file_complete(self, file_size):
        self.file.seek(0)
        return InMemoryUploadedFile(
            file=self.file, field_name=self.field_name, name=self.file_name,
            content_type=self.content_type, size=file_size, charset=self.charset,
            content_type_extra=self.content_type_extra,
        )  # fmt: skip
