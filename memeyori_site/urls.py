from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("battles/", include("battles.urls")),
    path("labs/", include("battles.lab.urls")),
    path("print/", include("cards.print_urls")),
    path("", include("cards.urls")),
]
# MEDIA_ROOT is never served by path, not even in debug: portraits go through
# cards.views.characters.character_portrait, which applies the character's visibility.
