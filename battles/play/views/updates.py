"""Live: "it changed", then each client fetches its own view. A stream or poll URL names
its holder, signed (common.py): each answer checks that this holder may watch the game
now, so a URL copied out of a page works only while its holder could open the game."""

from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.http import Http404, HttpResponseNotModified, JsonResponse

from memeyori_site import live
from memeyori_site.http import noindex, require_safe

from .. import services
from ..models import Game
from ..thinking import thinking_sides
from .common import game_or_404, holder_may_watch, version


def _status_row(code):
    return (
        Game.objects.filter(code=code)
        .only(
            "code",
            "round",
            "status",
            "updated",
            "share_token",
            "kind",
            "created_by",
            "policy_a",
            "policy_b",
            "policy_version_a",
            "policy_version_b",
        )  # fmt: skip
        .select_related(None)
        .first()
    )


@require_safe
@noindex
def play_status(request, code):
    """The polling fallback of the live stream: a 304 until the game changes, then its
    round and status, and whether the AI is still thinking about the round (thinking.py);
    never a hand or a plan."""
    game = _status_row(code)
    if game is None or not holder_may_watch(game_or_404(code), request.GET.get("as", "")):
        raise Http404
    etag = version(game)
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponseNotModified()
    else:
        thinking = bool(thinking_sides(game))
        response = JsonResponse({"round": game.round, "status": game.status, "thinking": thinking})
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response


@dataclass(frozen=True)
class GameFeed:
    code: str
    signed_holder: str

    @property
    def channel(self) -> str:
        return services.game_channel(self.code)

    @property
    def key(self) -> str:
        return f"{self.code}|{self.signed_holder}"

    def read(self) -> live.Event | None:
        # live.py's stream runs this in a thread of its own, with fresh connections.
        game = Game.objects.filter(code=self.code).first()
        if game is None or not holder_may_watch(game, self.signed_holder):
            return None
        return live.Event(id=version(game), data="changed", name="changed")


@require_safe
async def play_stream(request, code):
    """Server-Sent Events: a "changed" event whenever the game changes, nothing more; the
    page then fetches its own side's view (static/js/play.js)."""
    feed = GameFeed(code, request.GET.get("as", ""))
    first = await sync_to_async(feed.read)()
    if first is None:
        raise Http404
    return await live.stream(request, feed, first)
