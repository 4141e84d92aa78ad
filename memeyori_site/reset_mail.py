"""The password-reset mail, sent by a task worker (issue 33.6).

The reset page only enqueues this task with the address it was given, whether or not any
account has it: the look-up, the token, the mail's text and the SMTP round trip all happen
in the worker. So the page answers in the same time for a known and an unknown address,
and cannot be used to learn which addresses have accounts.
"""

import logging

from django.conf import settings
from django.contrib.auth import forms as auth_forms
from django.tasks import task
from django.template.loader import render_to_string

from battles.engine.words import duration
from cards import workers

from .mail import PlainTextMail

logger = logging.getLogger(__name__)


class ResetMail(auth_forms.PasswordResetForm):
    """Django's form and tokens, in the worker: one mail to each active account with the
    address. It goes as plain 7bit or 8bit text, so the link is one whole line in any
    reader (issue 21.6), and it says how long the link works."""

    def send_mail(
        self,
        subject_template_name,
        email_template_name,
        context,
        from_email,
        to_email,
        html_email_template_name=None,
    ):
        context = {**context, "valid_for": duration(settings.PASSWORD_RESET_TIMEOUT)}
        subject = "".join(render_to_string(subject_template_name, context).splitlines())
        body = render_to_string(email_template_name, context)
        try:
            PlainTextMail(subject, body, from_email, [to_email]).send()
        except Exception:
            # As Django's own form does: the page never says whether an address is known.
            logger.exception("Failed to send password reset email to %s", context["user"].pk)


@task(queue_name=workers.INTERACTIVE, priority=workers.INTERACTIVE_PRIORITY)
def send_reset_mail(email: str, domain: str, use_https: bool) -> str:
    form = ResetMail({"email": email})
    if not form.is_valid():
        return "invalid"
    form.save(domain_override=domain, use_https=use_https)
    return "done"
