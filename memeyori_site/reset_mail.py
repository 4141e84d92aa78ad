"""The password-reset mail, sent by a task worker (issue 33.6).

The reset page only enqueues this task with the address it was given, whether or not any
account has it: the look-up, the token, the mail's text and the SMTP round trip all happen
in the worker. So the page answers in the same time for a known and an unknown address,
and cannot be used to learn which addresses have accounts.
"""

from django.tasks import task

from cards import workers


@task(queue_name=workers.INTERACTIVE, priority=workers.INTERACTIVE_PRIORITY)
def send_reset_mail(email: str, domain: str, use_https: bool) -> str:
    from cards.views.accounts import PasswordResetForm

    form = PasswordResetForm({"email": email})
    if not form.is_valid():
        return "invalid"
    form.deliver(domain=domain, use_https=use_https)
    return "done"
