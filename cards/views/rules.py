"""The Rules page for players: the game's text and the rulings this site applies."""

from django.shortcuts import render
from django.utils.safestring import mark_safe

from memeyori_site.http import require_safe

from ..printing.deck import example_face
from ..rules_page import rules_html


@require_safe
def rules(request):
    # Built from files in the repository (escaped line by line), never from user input.
    html = {k: mark_safe(v) for k, v in rules_html().items()}  # noqa: S308
    # "Above is an example of a Memeyori Mastercard": so there is one above it.
    return render(request, "cards/rules.html", {**html, "example": example_face()})
