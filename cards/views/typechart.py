"""The type chart (R6) as a grid; staff edit it in place, everyone else views it."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render

from battles.engine.words import plural
from memeyori_site.http import require_post, require_safe

from ..forms import TypeChartForm
from ..models import Effect, Matchup, Type
from ..printing.design import type_rules
from ..services import type_chart_set


def _chart():
    types = list(Type.objects.all())
    effects = {
        (m.attacking_id, m.defending_id): m.effect
        for m in Matchup.objects.exclude(effect=Effect.NEUTRAL)
    }
    return types, effects


def _render(request, types, effects, form=None, status=200):
    if form is None and request.user.is_staff:
        form = TypeChartForm(types=types, effects=effects)
    rows = [
        (
            attacker,
            [
                (
                    defender,
                    effects.get((attacker.id, defender.id), Effect.NEUTRAL),
                    form[TypeChartForm.cell_name(attacker, defender)] if form else None,
                )
                for defender in types
            ],
        )
        for attacker in types
    ]
    return render(
        request,
        "cards/type_chart.html",
        {"types": types, "rows": rows, "form": form},
        status=status,
    )


@require_safe
def type_chart_page(request):
    types, effects = _chart()
    return _render(request, types, effects)


@require_post
def type_chart_save(request):
    """Staff only. The odds and later battles read the chart fresh, so a change shows at once."""
    if not request.user.is_staff:
        raise PermissionDenied("Only staff edit the type chart.")
    types, effects = _chart()
    form = TypeChartForm(request.POST, types=types, effects=effects)
    if not form.is_valid():
        return _render(request, types, effects, form=form)
    changed = type_chart_set(changes=form.changes())
    messages.success(request, f"Saved the type chart ({plural(changed, 'cell')} changed).")
    return redirect("type_chart")


@require_safe
def types_css(request):
    """Each Type's colours as a class, so markup needs no style attribute (the CSP refuses
    them): the same rules the PDFs carry (cards/printing/design.py), so screen = print."""
    rules = type_rules(Type.objects.only("slug", "colour"))
    return HttpResponse(rules + "\n", content_type="text/css; charset=utf-8")
