"""Sign up; log in, log out and password change are Django's own views (see cards/urls.py)."""

from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.db import transaction
from django.shortcuts import redirect, render

from memeyori_site.http import allow


@allow("GET", "POST")
def signup(request):
    """Django's UserCreationForm with the project's password validators; logs the user in
    (login() rotates the session key)."""
    if request.user.is_authenticated:
        return redirect("my_characters")
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("my_characters")
    return render(request, "registration/signup.html", {"form": form})
