"""A cluster on one machine (issue 20.2): two web servers on two ports, each with its own
empty media folder, and a db_worker with a third, sharing only PostgreSQL, Redis and an
S3-compatible object store, as N web machines and M workers would.

It runs on PostgreSQL (the suite's second pass in .ci/run), with Redis at TEST_REDIS_URL
(default redis://127.0.0.1:6379/6; its keys carry a prefix of their own, so nothing else
in that database is touched).
"""

import os
import secrets

import pytest
import requests
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from battles.models import BattleVisibility
from cards.printing.store import Render

from . import servers
from .conftest import make_card, make_memeyori
from .test_battle_pages import make_team, run
from .test_portraits import image_bytes

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/6")


def _redis_is_up() -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping())
    except redis.RedisError:
        return False


pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        django_settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"),
        reason="the cluster shares one PostgreSQL: .ci/run's PostgreSQL pass runs it",
    ),
]


@pytest.fixture
def cluster(settings, tmp_path):
    if not _redis_is_up():
        pytest.fail(f"Redis is not answering at {REDIS_URL} (.ci/run starts it)")
    with servers.s3_server() as s3:
        settings.STORAGES = servers.s3_storages(s3, settings)
        common = {
            **s3,
            "REDIS_URL": REDIS_URL,
            "DJANGO_CACHE_KEY_PREFIX": f"cluster-{secrets.token_hex(4)}",
            # The test's own key, so a session made here is good on both servers.
            "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        }
        folders = [tmp_path / name for name in ("web1-media", "web2-media", "worker-media")]
        envs = [servers.site_env(**common, DJANGO_MEDIA_ROOT=str(f)) for f in folders]
        ports = [servers.free_port(), servers.free_port()]
        procs = []
        try:
            procs.append(servers.task_worker(envs[2]))
            for env, port in zip(envs, ports, strict=False):
                procs.append(servers.web_server(env, port))
            yield {"web": [f"http://127.0.0.1:{p}" for p in ports], "folders": folders}
        finally:
            servers.stop(*procs)
        for folder in folders:  # nothing went to any machine's own disk
            assert not folder.exists() or not any(p.is_file() for p in folder.rglob("*"))


def _session_for(user, base: str) -> requests.Session:
    """A browser's cookies for `user`: a session stored in the shared database, and the
    CSRF cookie the site hands out."""
    client = Client()
    client.force_login(user)
    browser = requests.Session()
    browser.cookies.set("sessionid", client.cookies["sessionid"].value)
    browser.get(f"{base}/accounts/login/", timeout=30)
    browser.headers["X-CSRFToken"] = browser.cookies["csrftoken"]
    return browser


def test_two_web_servers_and_a_worker_share_only_the_database_redis_and_the_store(
    cluster, alice, types
):
    one, two = cluster["web"]
    pup = make_memeyori(alice, types["Blaze"], name="Cluster Pup")
    make_card(pup, types["Blaze"], name="Cinder Nip")
    browser = _session_for(alice, one)
    anonymous = requests.Session()

    # A portrait uploaded through server 1 is processed by the worker, served by server 2.
    page = reverse("print_portrait", kwargs={"kind": "memeyori", "code": pup.code})
    png = image_bytes((300, 400), fmt="PNG")
    answer = browser.post(
        one + page, data={"focus_x": "0.5", "focus_y": "0.5"},
        files={"portrait": ("p.png", png, "image/png")}, allow_redirects=False, timeout=30,
    )  # fmt: skip
    assert answer.status_code == 302, answer.text[:500]
    servers.until(lambda: pup.refresh_from_db() or pup.portrait_thumb, timeout=90)
    thumb = browser.get(two + pup.portrait_url("thumb"), timeout=30)
    assert thumb.status_code == 200 and thumb.content[:2] == b"\xff\xd8"
    assert anonymous.get(two + pup.portrait_url("thumb"), timeout=30).status_code == 404

    # A PDF asked for on server 2 is rendered by the worker and served by server 1.
    pdf = reverse("print_mastercard", kwargs={"kind": "memeyori", "code": pup.code})
    assert browser.get(two + pdf, timeout=30).status_code == 202
    servers.until(lambda: Render.objects.filter(status=Render.Status.DONE).exists(), timeout=120)
    served = browser.get(one + pdf, timeout=30)
    assert served.status_code == 200 and served.content.startswith(b"%PDF-")

    # Rate-limit counts are shared: sign-up allows 5 a minute from one address, wherever
    # they land.
    visitor = requests.Session()
    visitor.get(f"{one}/accounts/signup/", timeout=30)
    token = visitor.cookies["csrftoken"]
    statuses = [
        visitor.post(
            f"{(one, two)[n % 2]}/accounts/signup/", data={"csrfmiddlewaretoken": token},
            allow_redirects=False, timeout=30,
        ).status_code
        for n in range(6)
    ]  # fmt: skip
    assert 429 not in statuses[:5] and statuses[5] == 429, statuses

    # A presenter stepping on server 1 reaches a follower streaming from server 2.
    a = make_team(alice, types, "Sunrise", visibility="public")
    b = make_team(alice, types, "Night", visibility="public")
    battle = run(alice, a, b, visibility=BattleVisibility.PUBLIC)
    present = f"{one}{battle.get_absolute_url()}present/"
    start = {"action": "start", "round": 1, "step": 1}
    assert browser.post(present, data=start, allow_redirects=False, timeout=30).status_code == 302
    follow = anonymous.get(f"{two}{battle.get_absolute_url()}follow/", timeout=30).json()
    with anonymous.get(two + follow["stream"], stream=True, timeout=30) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        lines = stream.iter_lines(chunk_size=1, decode_unicode=True)
        assert 'data-step="1"' in _next_event(lines)
        step = {"action": "step", "round": 1, "step": 2}
        moved = browser.post(present, data=step, headers={"HX-Request": "true"}, timeout=30)
        assert moved.status_code == 204
        assert 'data-round="1" data-step="2"' in _next_event(lines)


def _next_event(lines) -> str:
    """The next `update` event's data from a Server-Sent Events stream."""
    name, data = None, []
    for line in lines:
        if line.startswith("event:"):
            name = line.partition(":")[2].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif line == "" and name:
            if name == "update":
                return "\n".join(data)
            name, data = None, []
    raise AssertionError("the stream ended")
