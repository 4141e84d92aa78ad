"""The opponent picker's strength panel (fair.py): each opponent's Rank and Level and the
player's chance against it at every AI level, and the fair fight. A page of its own, and
the panel the new-game page loads into its opponent section with htmx."""

import uuid

from django import forms
from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from battles.engine.model import LIMIT_DECIDE, LIMIT_DRAW
from battles.engine.policies import LEVELS
from cards.models import Party
from memeyori_site.http import require_safe

from . import fair


def _own_party(user, code):
    """The user's party with this code (one with a Memeyori in it), else their first."""
    own = Party.objects.filter(owner=user, slots__isnull=False).distinct().order_by("name", "pk")
    try:
        chosen = own.filter(code=uuid.UUID(str(code))).first() if code else None
    except ValueError:
        chosen = None
    return chosen or own.first()


class PickerForm(forms.Form):
    """The picker's question: which of the person's parties (any code: else their first),
    and R9.6's rule the games would be played under, as the new-game form's box says."""

    party = forms.CharField(required=False)
    draw_at_limit = forms.BooleanField(required=False)


@require_safe
@login_required
def play_fair(request):
    form = PickerForm(request.GET)
    form.is_valid()  # neither field can be refused: a bad code means the first party
    asked = form.cleaned_data
    party = _own_party(request.user, asked.get("party"))
    limit = LIMIT_DRAW if asked.get("draw_at_limit") else LIMIT_DECIDE
    context = {
        "picker": fair.picker(request.user, party, limit) if party else None,
        "pending_per_person": fair.PENDING_PER_PERSON,
        "levels": [
            {"label": label, "strength": fair.level_strength(name)}
            for name, (label, _) in LEVELS.items()
        ],
        "fair_low": round(fair.FAIR_LOW * 100),
        "fair_high": round(fair.FAIR_HIGH * 100),
        "fair_draws": round(fair.FAIR_DRAWS * 100),
    }
    template = "battles/play/fair.html#fair" if request.htmx else "battles/play/fair.html"
    return render(request, template, context)
