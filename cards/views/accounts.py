"""Sign up; log in, log out and password change are Django's own views (see cards/urls.py)."""

from django import forms
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from memeyori_site.http import allow
from memeyori_site.reset_mail import send_reset_mail


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
    """Django's form, whose save only enqueues the mail (memeyori_site/reset_mail.py) with
    the address as given: a task worker looks it up and sends, so a known address takes no
    longer to answer than an unknown one (issue 33.6)."""

    def save(self, domain_override=None, use_https=False, request=None, **kwargs):
        domain = domain_override or request.get_host()
        send_reset_mail.enqueue(self.cleaned_data["email"], domain, use_https)
