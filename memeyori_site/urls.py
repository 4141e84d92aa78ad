from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.shortcuts import redirect
from django.templatetags.static import static as static_url
from django.urls import include, path


def favicon(request):
    # Browsers ask for /favicon.ico whatever the page links to; send them to the static one.
    return redirect(static_url("icons/favicon.ico"), permanent=True)


urlpatterns = [
    path("favicon.ico", favicon),
    path("admin/", admin.site.urls),
    path("battles/", include("battles.urls")),
    path("print/", include("cards.print_urls")),
    path("", include("cards.urls")),
]
if settings.DEBUG:
    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
