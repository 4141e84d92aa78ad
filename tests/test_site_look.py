"""One visual language: tokens, a dark set, icons that exist."""

import re
from pathlib import Path

from django.contrib.staticfiles import finders

STATIC = Path(__file__).resolve().parent.parent / "static"


def test_favicon_ico_redirects_to_a_static_file_that_exists(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert finders.find(response["Location"].removeprefix("/static/"))


def test_every_page_links_the_icons_and_the_manifest(client, db):
    html = client.get("/").content.decode()
    for name in ("icons/icon.svg", "icons/apple-touch-icon.png", "icons/site.webmanifest"):
        assert name in html
        assert finders.find(name)


def test_the_dark_set_redefines_every_colour_token():
    css = (STATIC / "css" / "site.css").read_text()
    light_block, dark_block = css.split("@media (prefers-color-scheme: dark)", 1)
    light = set(re.findall(r"(--color-[a-z0-9-]+):", light_block))
    dark = set(re.findall(r"(--color-[a-z0-9-]+):", dark_block.split("\n}\n", 1)[0]))
    assert light and light == dark


def test_screen_stylesheets_use_tokens_not_hard_coded_greys():
    # Type colours and white-on-Type-colour placeholders are the only literals allowed.
    for name in ("builder.css", "viewer.css"):
        css = (STATIC / "css" / name).read_text()
        literals = set(re.findall(r"#[0-9a-fA-F]{3,6}\b", css)) - {"#888", "#fff"}
        assert not literals, f"{name} has {literals}"
