"""Mail whose text arrives as it was written (issue 21.6).

Python's email package sends a text line longer than 78 characters as quoted-printable,
which breaks it with a trailing "=" wherever it wraps: a reset link copied from the
console or a plain mail reader then fails. Lines up to 998 octets are legal in 7bit and
8bit mail (RFC 5322 2.1.1), so plain text goes as 7bit when it is ASCII, else as 8bit,
and each line stays whole.
"""

import email.policy

from django.core.mail import EmailMultiAlternatives

LONGEST_LINE = 998  # octets, RFC 5322 2.1.1


def plain_transfer_encoding(text: str) -> str | None:
    """The transfer encoding that keeps `text`'s lines whole, or None if none can."""
    lines = text.encode("utf-8").splitlines()
    if any(len(line) > LONGEST_LINE for line in lines):
        return None  # the email package picks quoted-printable or base64
    return "7bit" if text.isascii() else "8bit"


class PlainTextMail(EmailMultiAlternatives):
    """An EmailMultiAlternatives whose text/plain parts are never quoted-printable."""

    def message(self, *, policy=email.policy.default):
        msg = super().message(policy=policy)
        for part in msg.walk():
            if part.get_content_type() != "text/plain" or part.is_attachment():
                continue
            text = part.get_content()
            cte = plain_transfer_encoding(text)
            if cte is not None:
                part.set_content(text, subtype="plain", charset="utf-8", cte=cte)
        return msg
