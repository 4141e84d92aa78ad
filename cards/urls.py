from django.contrib.auth import views as auth_views
from django.urls import include, path, register_converter

from memeyori_site import login

from .views import accounts, builder, cards_editor, characters, exchange, parties, rules, typechart


class KindConverter:
    regex = "memeyori|archon"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(KindConverter, "kind")

character = "c/<kind:kind>/<uuid:code>/"
card = character + "cards/<uuid:card>/"

urlpatterns = [
    path("", characters.home, name="home"),
    path("rules/", rules.rules, name="rules"),
    path("types/", typechart.type_chart_page, name="type_chart"),
    path("types/save/", typechart.type_chart_save, name="type_chart_save"),
    path("types.css", typechart.types_css, name="types_css"),
    # Characters
    path("my/", characters.my_characters, name="my_characters"),
    path("build/<kind:kind>/", builder.builder_new, name="builder_new"),
    path("build/<kind:kind>/stats/", builder.builder_stats, name="builder_stats"),
    path(character, characters.character_page, name="character"),
    path(character + "edit/", builder.character_edit, name="character_edit"),
    path(character + "stats/", builder.builder_stats, name="character_stats"),
    path(character + "duplicate/", characters.character_copy, name="character_duplicate"),
    path(character + "delete/", characters.character_remove, name="character_delete"),
    path(character + "copy/", characters.character_borrow, name="character_borrow"),
    path(character + "export.json", exchange.character_export, name="character_export"),
    path(
        character + "portrait/<str:size>.jpg",
        characters.character_portrait,
        name="character_portrait",
    ),
    # Cards
    path(character + "cards/", cards_editor.card_editor, name="card_editor"),
    path(character + "cards/add/", cards_editor.card_add, name="card_add"),
    path(card + "edit/", cards_editor.card_edit, name="card_edit"),
    path(card + "move/", cards_editor.card_reorder, name="card_reorder"),
    path(card + "delete/", cards_editor.card_remove, name="card_remove"),
    # Parties
    path("parties/", parties.party_list, name="party_list"),
    path("parties/new/", parties.party_new, name="party_new"),
    path("parties/totals/", parties.party_totals, name="party_totals"),
    path("parties/<uuid:code>/", parties.party_page, name="party"),
    path("parties/<uuid:code>/edit/", parties.party_edit, name="party_edit"),
    path("parties/<uuid:code>/delete/", parties.party_remove, name="party_remove"),
    path("parties/<uuid:code>/copy/", parties.party_borrow, name="party_borrow"),
    path("parties/<uuid:code>/share/", parties.party_share, name="party_share"),
    path("parties/<uuid:code>/export.json", exchange.party_export, name="party_export"),
    # Tables: a group and its GM (cards/tables/)
    path("tables/", include("cards.tables.urls")),
    # Import
    path("import/", exchange.import_preview, name="import"),
    path("import/confirm/", exchange.import_confirm, name="import_confirm"),
    # Accounts: Django's views; login rotates the session key, logout is POST only.
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/login/", login.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    # Password reset: Django's views and tokens, the site's templates; mail per EMAIL_URL.
    path(
        "accounts/reset/",
        auth_views.PasswordResetView.as_view(form_class=accounts.PasswordResetForm),
        name="password_reset",
    ),
    path(
        "accounts/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]
