from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("battles/", include("battles.urls")),
    path("labs/", include("battles.lab.urls")),
    path("print/", include("cards.print_urls")),
    path("", include("cards.urls")),
]
if settings.DEBUG:
    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
