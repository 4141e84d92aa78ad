"""Play from here (issue 32 §6): the fork form of a battle, and its post.

Who may: whoever can read the battle (the battle page's own rule, a 404 for anyone else);
a visitor who is not logged in reads the page and is asked to log in to play.
"""

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render

from memeyori_site.http import allow

from ... import views as battle_views
from .. import clock, fork
from ..forms import ForkForm


@allow("GET", "POST")
def battle_fork(request, code):
    battle = battle_views._get_battle_for_user(request, code)
    if request.method == "POST" and not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    refusal = fork.refusal(battle)
    rounds = [] if refusal else fork.forkable_rounds(battle)
    initial = {}
    asked = request.GET.get("round", "")
    if asked.isdigit() and int(asked) in rounds:
        initial["round"] = int(asked)
    form = ForkForm(
        request.POST if request.method == "POST" else None,
        rounds=rounds,
        names=(battle.name_a, battle.name_b),
        initial=initial,
    )
    if request.method == "POST" and not refusal and form.is_valid():
        d = form.cleaned_data
        try:
            game = fork.fork_game(
                user=request.user,
                battle=battle,
                round_no=d["round"],
                opponent=d["opponent"],
                side=d["side"],
                policy=d["policy"],
            )
        except ValidationError as e:
            form.add_error(None, e)
        else:
            clock.schedule(game)
            return redirect(game)
    context = {
        "battle": battle,
        "form": form,
        "refusal": refusal,
        "round_1_only": fork.ROUND_1_ONLY if rounds and fork.round_1_only(battle) else None,
    }
    status = 400 if form.errors else 200
    return render(request, "battles/play/fork.html", context, status=status)
