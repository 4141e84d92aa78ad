"""Import: every bad file gets a clear message and writes nothing, never a 500 (issue 11.3).

Each imported object goes through the same forms the site's pages use."""

import copy
import json

import pytest
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from cards import exchange
from cards.models import Archon, Card, Memeyori, Party

from .test_exchange import ember, party, upload  # noqa: F401  (fixtures)


def counts():
    return tuple(m.objects.count() for m in (Memeyori, Archon, Card, Party))


def post_raw(client, raw: bytes):
    return client.post(reverse("import"), {"file": upload(raw)})


def refused_with(client, data, message: str) -> None:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    before = counts()
    response = post_raw(client, raw)
    assert response.status_code == 400  # as the confirmation answers (issue 40.5)
    html = response.content.decode()
    assert "Create all of this" not in html
    assert message in html, html[html.find("errorlist") :][:400]
    # The confirmation step refuses the same text as plainly.
    confirm = client.post(reverse("import_confirm"), {"payload": raw.decode("utf-8", "replace")})
    assert confirm.status_code == 400
    assert counts() == before


@pytest.fixture
def export(client, bob, ember):  # noqa: F811
    client.force_login(bob)
    return exchange.export_character(ember)


def test_a_5000_digit_integer_is_refused(client, export):
    raw = json.dumps(export).replace('"strength": 5', '"strength": ' + "9" * 5000)
    assert "9" * 5000 in raw
    refused_with(client, raw.encode(), "number with too many digits")


@pytest.mark.parametrize("members", [[{}], [["m1"]], [None], [1]])
def test_party_members_that_are_not_refs_are_refused(client, bob, party, members):  # noqa: F811
    client.force_login(bob)
    data = exchange.export_party(party)
    data["parties"][0]["memeyori"] = members
    refused_with(client, data, "parties[0].memeyori must list refs")


def test_a_lone_surrogate_is_refused(client, export):
    raw = json.dumps(export).replace('"Ember"', '"Em\\ud800ber"', 1).encode()
    refused_with(client, raw, "invisible or control character")


def test_a_lone_surrogate_in_a_field_name_is_refused_without_a_500(client, export):
    raw = json.dumps(export).replace('"flavour"', '"\\udfff"', 1).encode()
    refused_with(client, raw, "unknown fields")


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_a_focal_point_that_is_not_a_number_is_refused(client, export, value):
    raw = json.dumps(export).replace('"portrait_focus_x": 0.5', f'"portrait_focus_x": {value}')
    refused_with(client, raw.encode(), value)


def test_nul_in_a_name_is_refused(client, export):
    export["memeyori"][0]["name"] = "Em\x00ber"
    refused_with(client, export, "memeyori[0].name")


def test_a_party_beyond_the_forms_limits_is_refused(client, bob, party):  # noqa: F811
    client.force_login(bob)
    data = exchange.export_party(party)
    data["parties"][0].update(level=10000, dp_sp=9999, dp_mp=0, dp_draw=0)
    refused_with(client, data, "Party Level must be a whole number from 1 to 100.")


def test_a_public_party_with_a_private_member_is_refused_by_name(client, bob, party):  # noqa: F811
    client.force_login(bob)
    data = exchange.export_party(party)
    data["parties"][0]["visibility"] = "public"
    data["memeyori"][0]["visibility"] = "private"
    refused_with(client, data, data["memeyori"][0]["name"])


# --- any file at all --------------------------------------------------------------------

# json.dumps cannot write a 5,000-digit integer either; the marker is swapped in as text.
HUGE = "<5000 digits>"
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.just(HUGE)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
    | st.sampled_from(["\x00", "\u202e", "\ud800", "", "m1", "a1", "Blaze", "public", "x" * 70])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _paths(value, (*prefix, i))


def _replace(data, path, value):
    if not path:
        return value
    data = copy.deepcopy(data)
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return data


@st.composite
def files(draw, base):
    """A real export with a few parts swapped for anything JSON can hold."""
    data = base
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = list(_paths(data))
        path = draw(st.sampled_from(paths))
        data = _replace(data, path, draw(VALUES))
    return json.dumps(data, allow_nan=True).replace(f'"{HUGE}"', "9" * 5000).encode()


@pytest.fixture
def base_export(alice, types, ember, party):  # noqa: F811
    data = exchange.export_party(party)
    data["archons"][0]["cards"][0]["tier2_power"] = 5
    return data


def test_no_file_gives_a_500_or_writes_anything_it_refuses(client, settings, bob, base_export):
    settings.RATELIMIT_ENABLE = False  # sixty files a minute is the point here
    client.force_login(bob)

    @hypothesis_settings(
        max_examples=60,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(raw=files(base_export) | st.binary(max_size=64))
    def check(raw):
        with transaction.atomic():
            before = counts()
            preview = post_raw(client, raw)
            assert preview.status_code in (200, 400)
            refused = "Create all of this" not in preview.content.decode()
            assert preview.status_code == (400 if refused else 200)
            assert counts() == before
            payload = raw.decode("utf-8", "replace")
            confirm = client.post(reverse("import_confirm"), {"payload": payload})
            assert confirm.status_code in (302, 400)
            if confirm.status_code == 400:
                assert counts() == before
            transaction.set_rollback(True)

    check()
