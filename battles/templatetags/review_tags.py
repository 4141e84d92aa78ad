"""The review under the viewer (issue 32): `{% review_graph %}` inside #viewer, so each
step (and each presented step) draws it as far as that step and no further."""

from django import template

from battles.models import Battle
from battles.review import graph, services
from battles.review.models import Review, ReviewStatus
from memeyori_site.compiled import Compiled

register = template.Library()
# Read on every step of the viewer: compiled once (memeyori_site/compiled.py).
REVIEW_OF = Compiled(lambda pk: Review.objects.filter(battle_id=pk), -9_301_977)


@register.inclusion_tag("battles/viewer.html#viewer-review", takes_context=True)
def review_graph(context):
    battle = context.get("battle")
    # A played game has a Battle only once it is over (battles/play/services.py), so no
    # review is ever shown while it is being played.
    if not isinstance(battle, Battle) or battle.pk is None:
        return {"show": False}
    review = REVIEW_OF.first(battle.pk)
    view = context["view"]
    shared = context.get("shared", False)
    request = context.get("request")
    user = getattr(request, "user", None)
    can_start = (
        not shared
        and user is not None
        and (review is None or not review.started)
        and services.may_start(battle, user, review)
    )
    out = {
        "show": True,
        "battle": battle,
        "review": review,
        "status": review.status if review else ReviewStatus.OPEN,
        "can_start": can_start,
        "is_owner": not shared and user is not None and battle.owner_id == user.pk,
        "has_ai": battle.policy_a != "player" or battle.policy_b != "player",
        "at_round": context.get("at_round"),
        "at_step": context.get("at_step"),
        "csrf_token": context.get("csrf_token"),
        "shared": shared,
        # A marked round links to its step, and to a new game from it (the viewer's own
        # "Play from here" rule).
        "can_fork": context.get("can_fork", False),
        # "The review is queued", said here while it is (views.py): the poll that brings
        # the review replaces this section, and the words go with it.
        "notes": [m for m in context.get("messages", ()) if "review" in m.tags.split()]
        if review is not None and review.status in (ReviewStatus.QUEUED, ReviewStatus.RUNNING)
        else [],
    }
    if review is not None and review.status == ReviewStatus.DONE:
        names = (battle.name_a, battle.name_b)
        out["graph"] = graph.graph(
            review.data,
            names,
            upto=view["round"],
            ended=bool(view["ended"]),
            log=battle.log,
            frames=battle.frames,
        )
        out["names"] = names
    return out
