"""The password-reset mail is plain text whose link is one whole line (issue 21.6): never
quoted-printable, whose soft line breaks leave a "=" in a link copied from the console."""

import email
import email.policy
import io
import re

from django.contrib.auth import get_user_model
from django.core import mail
from django.core.mail.backends.console import EmailBackend as ConsoleBackend

from memeyori_site.mail import PlainTextMail, plain_transfer_encoding


def reset_mail(client, username="ann", address="ann@example.org"):
    get_user_model().objects.create_user(username, address, "old-pass-123!")
    client.post("/accounts/reset/", {"email": address})
    (sent,) = mail.outbox
    return sent


def test_the_reset_link_is_one_clean_line_in_7bit(client, db):
    sent = reset_mail(client)
    raw = sent.message(policy=email.policy.SMTP).as_bytes().decode("ascii")
    assert "Content-Transfer-Encoding: 7bit" in raw
    assert "quoted-printable" not in raw and "=\r\n" not in raw
    link = re.search(r"^http://testserver/accounts/reset/\S+/$", raw.replace("\r\n", "\n"), re.M)
    assert link, raw
    # The link that arrives is the one the site made, and it opens the reset form.
    assert client.get(link[0].removeprefix("http://testserver"), follow=True).status_code == 200


def test_a_name_outside_ascii_goes_as_8bit_with_the_link_still_whole(client, db):
    sent = reset_mail(client, username="zoë", address="zoe@example.org")
    raw = sent.message(policy=email.policy.SMTP).as_bytes()
    assert b"Content-Transfer-Encoding: 8bit" in raw and "zoë".encode() in raw
    parsed = email.message_from_bytes(raw, policy=email.policy.default)
    text = parsed.get_content().replace("\r\n", "\n")
    assert re.search(r"^http://testserver/accounts/reset/\S+/$", text, re.M)


def test_the_console_shows_a_link_that_can_be_copied(client, db):
    sent = reset_mail(client)
    out = io.StringIO()
    ConsoleBackend(stream=out).send_messages([sent])
    lines = [line for line in out.getvalue().splitlines() if "/accounts/reset/" in line]
    assert len(lines) == 1 and not lines[0].endswith("=")
    assert re.fullmatch(r"http://testserver/accounts/reset/[\w-]+/[\w-]+/", lines[0])


def test_the_mail_says_how_long_the_link_works(client, settings, db):
    assert "within 24 hours" in reset_mail(client).body
    mail.outbox.clear()
    settings.PASSWORD_RESET_TIMEOUT = 3600
    assert "within 1 hour" in reset_mail(client, "bo", "bo@example.org").body


def test_only_a_line_longer_than_smtp_allows_falls_back_to_the_packages_choice():
    assert plain_transfer_encoding("short\n" + "x" * 998) == "7bit"
    assert plain_transfer_encoding("é" * 400) == "8bit"
    assert plain_transfer_encoding("x" * 999) is None
    message = PlainTextMail("s", "x" * 999, "a@example.org", ["b@example.org"]).message()
    assert message["Content-Transfer-Encoding"] in ("quoted-printable", "base64")
