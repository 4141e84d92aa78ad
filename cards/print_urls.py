"""The print pages: sheets, Mastercard PDFs, share images, portraits (cards/printing/views.py)."""

from django.urls import path

from .printing import views
from .urls import KindConverter  # noqa: F401  (registers the "kind" converter)
from .views import art, printed

urlpatterns = [
    path("", views.print_page, name="print_page"),
    path("sheet.pdf", views.print_sheet, name="print_sheet"),
    path("c/<kind:kind>/<uuid:code>/mastercard.pdf", views.mastercard_pdf, name="print_mastercard"),
    path("c/<kind:kind>/<uuid:code>/share.png", views.mastercard_png, name="print_share_png"),
    path("r/<str:code>/", views.render_status, name="print_render"),
    path("r/<str:code>/file", views.render_file, name="print_render_file"),
    path("c/<kind:kind>/<uuid:code>/portrait/", views.portrait_page, name="print_portrait"),
    path("c/<kind:kind>/<uuid:code>/", views.cards_page, name="print_cards"),
    # Where a printed card's QR code leads: is this print still current? (issue 34)
    path(
        "c/<kind:kind>/<uuid:code>/printed/<slug:digest>/",
        printed.printed_card,
        name="print_printed",
    ),
    path("p/<slug:digest>", printed.printed_short, name="print_printed_short"),
    path(
        "c/<kind:kind>/<uuid:code>/printed/<slug:digest>/qr.svg",
        printed.printed_qr,
        name="print_printed_qr",
    ),
    # The cards' pictures, also drawn into every PDF under the same paths (deck.py). A
    # character's is drawn from its name and attributes: the character's own access rule.
    path(
        "art/<kind:kind>/<uuid:code>/<slug:look>.svg", art.character_art, name="print_default_art"
    ),
    path("art/move/<slug:slug>/<slug:category>.svg", art.move_art, name="print_move_art"),
    # A Type's frame: its colour may change, so it is kept a minute (fresh=False).
    path("frame/<slug:slug>.svg", art.frame, name="print_frame"),
    path("frame/archon/<slug:slug>.svg", art.frame, {"archon": True}, name="print_frame_archon"),
    # The foil frames of print-shop mode, served at the paths the PDFs name them by.
    path("frame/foil/<slug:slug>.svg", art.frame, {"foil": True}, name="print_frame_foil"),
    path(
        "frame/archon/foil/<slug:slug>.svg",
        art.frame,
        {"archon": True, "foil": True},
        name="print_frame_archon_foil",
    ),  # fmt: skip
    path("back-<str:style>.svg", views.card_back, name="print_card_back"),
]
