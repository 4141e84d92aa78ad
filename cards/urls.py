from django.urls import path, register_converter

from . import views


class KindConverter:
    regex = "memeyori|archon"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(KindConverter, "kind")

urlpatterns = [
    path("", views.home, name="home"),
    path("types/", views.type_chart_page, name="type_chart"),
    path("types.css", views.types_css, name="types_css"),
    path("c/<kind:kind>/<uuid:code>/", views.character_page, name="character"),
    path("parties/<uuid:code>/", views.party_page, name="party"),
]
