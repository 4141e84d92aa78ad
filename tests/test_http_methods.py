"""HEAD and OPTIONS: every page that answers GET answers them too (issue 11.9)."""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.conftest import make_memeyori, make_party


def project_views():
    def walk(patterns):
        for p in patterns:
            if isinstance(p, URLResolver):
                if p.app_name != "admin":
                    yield from walk(p.url_patterns)
            elif isinstance(p, URLPattern):
                yield p

    return list(walk(get_resolver().url_patterns))


def allowed(pattern) -> set[str] | None:
    view = pattern.callback
    if hasattr(view, "view_class"):  # Django's class-based views answer HEAD and OPTIONS
        return {"GET", "HEAD", "OPTIONS"}
    return getattr(view, "allowed_methods", None)


def test_every_view_says_which_methods_it_takes():
    undeclared = sorted(p.name or str(p.pattern) for p in project_views() if allowed(p) is None)
    assert undeclared == []


def test_every_view_that_takes_get_takes_head_and_options():
    for pattern in project_views():
        methods = allowed(pattern)
        if "GET" in methods:
            assert {"HEAD", "OPTIONS"} <= methods, pattern.name


@pytest.fixture
def pages(alice, types):
    pup = make_memeyori(alice, types["Blaze"], visibility="public")
    party = make_party(alice, visibility="public")
    return [
        reverse("home"),
        reverse("character", kwargs={"kind": "memeyori", "code": pup.code}),
        reverse("party", kwargs={"code": party.code}),
        reverse("battle_public"),
        reverse("battle_protocol"),
        reverse("type_chart"),
        reverse("types_css"),
        reverse("login"),
        reverse("signup"),
        reverse("print_page"),
        reverse("builder_new", kwargs={"kind": "memeyori"}),
    ]


def test_head_answers_like_get_without_a_body(client, pages):
    for url in pages:
        get, head = client.get(url), client.head(url)
        assert head.status_code == get.status_code == 200, url
        assert head.content == b"", url


def test_options_answers_with_the_allowed_methods(client, pages):
    for url in pages:
        response = client.options(url)
        assert response.status_code == 200, url
        assert {"GET", "HEAD", "OPTIONS"} <= set(response["Allow"].replace(" ", "").split(","))


def test_a_post_only_url_still_refuses_get(client, alice, types):
    client.force_login(alice)
    pup = make_memeyori(alice, types["Blaze"])
    url = reverse("character_duplicate", kwargs={"kind": "memeyori", "code": pup.code})
    assert client.get(url).status_code == 405
    assert client.head(url).status_code == 405
    assert client.options(url).status_code == 200
