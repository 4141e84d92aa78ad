from django.contrib import admin
from django.shortcuts import redirect
from django.templatetags.static import static as static_url
from django.urls import include, path

from battles import views as battle_views
from battles.play.views import updates as play_updates
from battles.play.views import watching as play_watching
from memeyori_site.http import require_safe
from memeyori_site.robots import robots_txt


@require_safe
def favicon(request):
    # Browsers ask for /favicon.ico whatever the page links to; send them to the static one.
    return redirect(static_url("icons/favicon.ico"), permanent=True)


urlpatterns = [
    path("favicon.ico", favicon),
    path("robots.txt", robots_txt, name="robots_txt"),
    path("admin/", admin.site.urls),
    # Server-Sent Events: served by Django's ASGI side (memeyori_site/asgi.py, live.py).
    path(
        "live/battles/p/<str:token>/",
        battle_views.battle_presented_stream,
        name="battle_presented_stream",
    ),
    path(
        "live/play/p/<str:token>/",
        play_watching.play_presented_stream,
        name="play_presented_stream",
    ),
    path("live/play/<str:code>/", play_updates.play_stream, name="play_stream"),
    path("battles/", include("battles.urls")),
    path("labs/", include("battles.lab.urls")),
    path("play/", include("battles.play.urls")),
    path("print/", include("cards.print_urls")),
    path("", include("cards.urls")),
]
# MEDIA_ROOT is never served by path, not even in debug: portraits go through
# cards.views.characters.character_portrait, which applies the character's visibility.

# The site's own pages for errors (memeyori_site/errors.py); 500.html stands alone.
handler400 = "memeyori_site.errors.bad_request"
handler403 = "memeyori_site.errors.permission_denied"
handler404 = "memeyori_site.errors.page_not_found"
handler500 = "memeyori_site.errors.server_error"
