"""Sign up; log in, log out and password change are Django's own views (see cards/urls.py)."""

import logging

from django import forms
from django.conf import settings
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.db import transaction
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme

from battles.engine.words import duration
from memeyori_site.http import allow
from memeyori_site.mail import PlainTextMail

logger = logging.getLogger(__name__)


def _next_url(request) -> str | None:
    """The page to return to (the builder with a draft, say), if it is one of ours."""
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return None


class SignupForm(UserCreationForm):
    """Django's form plus an optional email address, the only way to reset a password."""

    email = forms.EmailField(
        required=False,
        help_text="Optional. Only used to send a link if you forget your password.",
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


@allow("GET", "POST")
def signup(request):
    """Django's UserCreationForm with the project's password validators; logs the user in
    (login() rotates the session key)."""
    if request.user.is_authenticated:
        return redirect("my_characters")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            user = form.save()
        login(request, user)  # the one backend there is (settings.AUTHENTICATION_BACKENDS)
        return redirect(_next_url(request) or "my_characters")
    return render(request, "registration/signup.html", {"form": form, "next": _next_url(request)})


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's form and tokens. Its mail goes as plain 7bit or 8bit text, so the link is
    one whole line in any reader (issue 21.6), and it says how long the link works.

    The page only enqueues the mail (memeyori_site/reset_mail.py) with the address as
    given: a task worker looks it up and sends, so a known address takes no longer to
    answer than an unknown one (issue 33.6)."""

    def save(self, domain_override=None, use_https=False, request=None, **kwargs):
        from memeyori_site.reset_mail import send_reset_mail

        domain = domain_override or request.get_host()
        send_reset_mail.enqueue(self.cleaned_data["email"], domain, use_https)

    def deliver(self, *, domain: str, use_https: bool) -> None:
        """Django's save, in the worker: one mail to each active account with the address."""
        super().save(domain_override=domain, use_https=use_https)

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
