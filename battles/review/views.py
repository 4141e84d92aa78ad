"""The review's controls on the battle page (issue 32): start it, let viewers start it,
and the review section alone (what the page polls while a worker computes it)."""

from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect

from memeyori_site.http import allow

from .. import views as battle_views
from . import services


class ReviewForm(forms.Form):
    action = forms.ChoiceField(choices=[("start", "start"), ("open", "open")])
    rate_ai = forms.BooleanField(required=False)
    open_to_viewers = forms.BooleanField(required=False)
    round = forms.IntegerField(min_value=0, required=False)
    step = forms.IntegerField(min_value=0, required=False)


def _back(battle, data: dict, anchor: str = ""):
    """Back to the battle page at the step the reader was on (at `anchor`, if given)."""
    query = {k: int(data[k]) for k in ("round", "step") if str(data.get(k) or "").isdigit()}
    url = battle.get_absolute_url()
    return redirect((f"{url}?{urlencode(query)}" if query else url) + anchor)


@allow("GET", "POST")
def battle_review(request, code):
    """POST: start the review, or (the owner) say whether viewers may start it. GET: the
    battle page, where the review is shown (for a reader who may open the battle)."""
    if request.method != "POST":
        battle = battle_views._get_battle_for_user(request, code)
        return _back(battle, {k: request.GET.get(k) for k in ("round", "step")})
    return _post(request, code)


@login_required
def _post(request, code):
    battle = battle_views._get_battle_for_user(request, code)
    form = ReviewForm(request.POST)
    if not form.is_valid():
        messages.error(request, "That review request was not understood.")
        return _back(battle, {})
    data = form.cleaned_data
    try:
        if data["action"] == "start":
            services.start(battle, request.user, rate_ai=data["rate_ai"])
            # Said in the review's own section, which the page polls until the review is in:
            # a banner at the top stayed there after it was (issue 41.9).
            messages.success(
                request,
                "The review is queued: it shows here as it is made.",
                extra_tags="in-place review",
            )
            return _back(battle, data, "#review")
        else:
            services.set_open(battle, request.user, data["open_to_viewers"])
            messages.success(request, "Saved who may start the review.")
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    return _back(battle, data)
