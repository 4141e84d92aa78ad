"""The JSON protocol `memeyori-play/1` (PROTOCOL.md beside this file). Thin: parse, call
battles.play.services, answer. Starting and joining a game (POST /play/new/ and
/play/join/<token>/) are the pages' own forms (views.py), which take the same fields.

Access, as the site's other views: a visitor is sent to sign in; a signed-in user who is
not a player of the game (nor may watch it) gets a 404, so a game's existence is not told.
"""

import json

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, JsonResponse

from memeyori_site.http import noindex, require_post, require_safe

from . import clock, services, stage
from .models import Game


def _game(code: str) -> Game:
    game = (
        Game.objects.select_related("user_a", "user_b").filter(code=code).first() if code else None
    )
    if game is None:
        raise Http404("No such game.")
    return game


def _side(request, game: Game, raw) -> int | None:
    """The side the request plans for: the user's own; the hot-seat owner names one with
    `side` (0 or 1); None for someone who only watches."""
    sides = services.sides_of(game, request.user)
    if len(sides) > 1:
        try:
            side = int(raw)
        except (TypeError, ValueError):
            side = None
        return side if side in sides else sides[0]
    return sides[0] if sides else None


# A plan is a few hundred bytes (a Switch, a summon, a hand's cards): a body larger than this
# is refused before a byte of it is parsed, so no client makes the server build megabytes.
PLAN_BODY_MAX = 16 * 1024
LONE_SURROGATE = (
    "The body holds a lone surrogate (a \\ud800-\\udfff escape without its pair), which is"
    " no character: send text as UTF-8."
)


def _read_json(request):
    """The body as JSON, or the 400/413 answer that says what is wrong with it."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    too_large = {"errors": [f"A plan is at most {PLAN_BODY_MAX // 1024} KiB of JSON."]}
    if declared > PLAN_BODY_MAX:
        return _json(too_large, status=413)
    raw = request.read(PLAN_BODY_MAX + 1)
    if len(raw) > PLAN_BODY_MAX:
        return _json(too_large, status=413)
    try:
        body = json.loads(raw.decode("utf-8") or "{}")
        # A lone surrogate ("\ud800" with no pair) parses, but no answer quoting it could be
        # written as UTF-8 (issue 40.5: it was a 500): refused here, in words.
        json.dumps(body, ensure_ascii=False).encode("utf-8")
        return body
    except UnicodeEncodeError:
        return _json({"errors": [LONE_SURROGATE]}, status=400)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return _json({"errors": ["The body is not JSON."]}, status=400)
    except ValueError:  # an integer of thousands of digits (Python's conversion limit)
        return _json({"errors": ["A number in the plan is too long."]}, status=400)
    except RecursionError:
        return _json({"errors": ["The plan is nested too deeply."]}, status=400)


def _json(data: dict, status: int = 200) -> JsonResponse:
    response = JsonResponse(data, status=status, json_dumps_params={"ensure_ascii": False})
    response["Cache-Control"] = "no-store"  # a side's hand: never in a shared cache
    return response


@require_safe
@login_required
def state_json(request, code):
    """GET: the state for the signed-in player's side (the hot-seat owner: `?side=0|1`);
    for a watcher (a table member of a table game), the state without any hand."""
    game = _game(code)
    side = _side(request, game, request.GET.get("side"))
    if side is None:
        if not services.can_watch(game, request.user):
            raise Http404("No such game.")
        return _json(services.watch_state(game))
    return _json(services.game_state(game, side))


@require_safe
@noindex
def shared_state_json(request, token):
    """GET: a shared game's state as a watcher sees it (no hand of either side)."""
    game = Game.objects.filter(share_token=token).first() if token else None
    if game is None or not services.can_watch(game, None, share_token=token):
        raise Http404("This share link no longer works.")
    return _json(services.watch_state(game))


def _players_body(request, game, what: str):
    """(body, side, round) of a player's JSON post about the round being planned, or the
    answer that refuses it. Who may plan comes first: a stranger learns nothing, not even
    what the body lacks."""
    if not services.sides_of(game, request.user):
        if services.can_watch(game, request.user):
            return _json({"errors": ["You watch this game; you do not plan a side."]}, 403)
        raise Http404("No such game.")
    if request.content_type != "application/json":
        return _json(
            {"errors": [f"Send the {what} as JSON (Content-Type: application/json)."]}, 400
        )
    body = _read_json(request)
    if isinstance(body, JsonResponse):
        return body
    if not isinstance(body, dict):
        return _json({"errors": ["The body is a JSON object."]}, status=400)
    side = _side(request, game, body.get("side", request.GET.get("side")))
    round_no = body.get("round")
    if not isinstance(round_no, int) or isinstance(round_no, bool):
        return _json({"errors": ["round is the number of the round being planned."]}, 400)
    return body, side, round_no


@require_post
@login_required
def plan_json(request, code):
    """POST a plan for the round being planned: 200 and the new state; 400 and the errors
    (nothing stored); 409 for another round than the one being planned."""
    game = _game(code)
    read = _players_body(request, game, "plan")
    if isinstance(read, JsonResponse):
        return read
    body, side, round_no = read
    plan = {k: body.get(k) for k in ("switch", "summon", "cards") if k in body}
    try:
        state = services.submit_plan(game, side, round_no, plan)
    except services.PlanRefused as refused:
        return _json({"errors": refused.errors, "by_card": refused.by_card}, status=400)
    except services.WrongRound as wrong:
        return _json({"errors": [str(wrong)], "state": services.game_state(game, side)}, 409)
    clock.schedule(game)  # the next round's deadline, as the plan page's post queues it
    return _json(state)


@require_post
@login_required
def stage_json(request, code):
    """POST `{"round", "switch", "summon"}`: make the Switch and/or summon now (ruling 8),
    drawing at once; 200 and the state (its `stage` says what was drawn, `hand` holds it);
    400 and the errors (nothing stored); 409 for another round than the one planned."""
    game = _game(code)
    read = _players_body(request, game, "stage")
    if isinstance(read, JsonResponse):
        return read
    body, side, round_no = read
    try:
        switch, summon = body.get("switch"), body.get("summon", False)
        state = stage.make_stage(game, side, round_no, switch, summon)
    except ValidationError as refused:
        return _json({"errors": refused.messages}, status=400)
    except services.WrongRound as wrong:
        return _json({"errors": [str(wrong)], "state": services.game_state(game, side)}, 409)
    return _json(state)
