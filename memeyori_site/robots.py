"""/robots.txt (issue 21.10): which paths crawlers leave alone.

Patterns follow RFC 9309: `$` ends a path, `*` matches anything. Link previews (chat apps,
social sites) fetch a share link someone posted for its title and image, so they may read
share links; they never index what they fetch.
"""

from django.shortcuts import render
from django.views.decorators.cache import cache_control

from .http import require_safe

# Only their owner, a table's members, or a form: nothing here is for a search index.
PRIVATE = [
    "/accounts/",
    "/admin/",
    "/my/",
    "/import/",
    "/tables/",
    "/build/*/stats/",
    "/parties/$",
    "/parties/new/",
    "/parties/totals/",
    "/parties/*/edit/",
    "/parties/*/delete/",
    "/c/*/edit/",
    "/c/*/stats/",
    "/c/*/cards/",
    "/c/*/duplicate/",
    "/c/*/delete/",
    "/*/export.json$",
    "/battles/$",
    "/battles/new/",
    "/labs/$",
    "/labs/new/",
    "/print/r/",
]
# Links that work for whoever holds them, and the polls behind them.
SHARE_LINKS = ["/battles/s/", "/battles/p/", "/labs/s/"]
LINK_PREVIEWS = [
    "Twitterbot",
    "facebookexternalhit",
    "Slackbot-LinkExpanding",
    "Discordbot",
    "LinkedInBot",
    "TelegramBot",
    "WhatsApp",
]


@require_safe
@cache_control(max_age=86400, public=True)
def robots_txt(request):
    groups = [(["*"], PRIVATE + SHARE_LINKS), (LINK_PREVIEWS, PRIVATE)]
    return render(request, "robots.txt", {"groups": groups}, content_type="text/plain")
