"""Renders as tasks: stored by content, waited for on a page, limited per person."""

import os
import re
import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from cards.printing import store
from cards.printing.store import Render
from cards.printing.tasks import render_task
from memeyori_site.ratelimit import client_ip, requester

from .conftest import make_archon, make_card, make_memeyori

ROOT = Path(__file__).resolve().parent.parent


def mastercard_url(character, paper="a4") -> str:
    code = character.code
    return reverse("print_mastercard", kwargs={"kind": character.kind, "code": code}) + (
        f"?paper={paper}"
    )


@pytest.fixture
def pup(alice, types):
    m = make_memeyori(alice, types["Blaze"], name="Emberpup")
    make_card(m, types["Blaze"], name="Cinder Nip")
    return m


def status_url(response) -> str:
    """The waiting page's own refresh target (the no-JavaScript path)."""
    html = response.content.decode()
    return re.search(r'http-equiv="refresh" content="1;url=([^"]+)"', html).group(1)


# --- Stored renders ------------------------------------------------------------------


def test_the_same_pdf_again_is_served_from_the_store_without_rendering(client, alice, pup):
    client.force_login(alice)
    first = client.get(mastercard_url(pup))
    second = client.get(mastercard_url(pup))
    assert first.status_code == second.status_code == 200
    assert first["Content-Type"] == "application/pdf"
    assert second.content == first.content
    render = Render.objects.get()
    assert render.runs == 1 and render.status == Render.Status.DONE
    assert 'filename="emberpup-mastercard.pdf"' in second["Content-Disposition"]


def test_a_change_to_the_card_or_its_css_is_a_new_render(client, alice, pup, settings, tmp_path):
    client.force_login(alice)
    client.get(mastercard_url(pup))
    pup.name = "Emberpup the Second"
    pup.save()
    client.get(mastercard_url(pup))
    assert Render.objects.count() == 2
    static = tmp_path / "static"
    shutil.copytree(ROOT / "static", static)
    settings.STATICFILES_DIRS = [static]
    client.get(mastercard_url(pup))
    assert Render.objects.count() == 2  # the same CSS, copied: the same render
    css = static / "css" / "card.css"
    css.write_text(css.read_text() + "\n.mastercard { letter-spacing: 0.01em; }\n")
    client.get(mastercard_url(pup))
    assert Render.objects.count() == 3


def test_each_paper_and_output_is_its_own_render(client, alice, pup):
    client.force_login(alice)
    for paper in ("a4", "letter", "card"):
        assert client.get(mastercard_url(pup, paper)).status_code == 200
    png = client.get(reverse("print_share_png", kwargs={"kind": "memeyori", "code": pup.code}))
    assert png["Content-Type"] == "image/png" and png.content.startswith(b"\x89PNG")
    assert Render.objects.count() == 4


def test_a_render_past_its_time_limit_fails_with_the_reason_and_asking_again_works(
    client, alice, pup, settings
):
    client.force_login(alice)
    settings.PRINT_RENDER_TIMEOUT = 0.001
    response = client.get(mastercard_url(pup))
    assert response.status_code == 500
    page = response.content.decode()
    assert "The render failed: rendering took longer than 0.001 s and was stopped" in page
    render = Render.objects.get()
    assert render.status == Render.Status.FAILED and render.spec is None
    settings.PRINT_RENDER_TIMEOUT = 30
    # The failure stays on show for a minute rather than re-rendering on every refresh...
    assert client.get(mastercard_url(pup)).status_code == 500
    # ...and "Try again" renders it once more.
    again = re.search(r'href="([^"]+again=1)"', page).group(1).replace("&amp;", "&")
    response = client.get(again)
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert Render.objects.get().runs == 2


# --- What a person sees while a worker is busy ---------------------------------------


def test_a_queued_pdf_answers_at_once_with_a_page_that_waits_for_it(
    client, alice, pup, queued_tasks
):
    client.force_login(alice)
    response = client.get(mastercard_url(pup))
    assert response.status_code == 202
    html = response.content.decode()
    assert "Queued: yours is next." in html
    assert 'hx-trigger="every 1s"' in html
    assert '<noscript><meta http-equiv="refresh" content="1;url=' in html
    page = client.get(status_url(response))
    assert page.status_code == 200 and "Queued" in page.content.decode()
    # The worker renders it: the waiting page now offers the download, and without
    # JavaScript goes straight to it; the PDF link itself answers with the file.
    render_task.call(Render.objects.get().pk)
    page = client.get(status_url(response)).content.decode()
    assert "Download emberpup-mastercard.pdf" in page
    file_url = reverse("print_render_file", kwargs={"code": Render.objects.get().code})
    assert f'content="0;url={file_url}"' in page
    assert client.get(file_url)["Content-Type"] == "application/pdf"
    assert client.get(mastercard_url(pup))["Content-Type"] == "application/pdf"


def test_htmx_polls_the_status_partial_alone(client, alice, pup, queued_tasks):
    client.force_login(alice)
    url = status_url(client.get(mastercard_url(pup)))
    partial = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert partial.lstrip().startswith('<div id="render-status"')
    assert "<html" not in partial


def test_the_waiting_page_says_how_many_renders_are_ahead(
    client, alice, bob, pup, types, queued_tasks
):
    client.force_login(alice)
    client.get(mastercard_url(pup))
    theirs = make_archon(bob, types["Lumen"], name="Vela")
    client.force_login(bob)
    response = client.get(mastercard_url(theirs))
    assert "Queued: 1 render ahead of yours." in response.content.decode()
    render = Render.objects.get(requester=f"user:{bob.pk}")
    Render.objects.filter(pk=render.pk).update(
        status=Render.Status.RENDERING, started_at=timezone.now()
    )
    assert "Rendering your Mastercard PDF" in client.get(status_url(response)).content.decode()


def test_the_print_preview_waits_the_same_way(client, alice, pup, queued_tasks):
    client.force_login(alice)
    query = f"?characters={pup.kind}:{pup.code}&paper=a4"
    response = client.get(reverse("print_page") + query, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert "Queued: yours is next." in html and 'hx-trigger="every 1s"' in html
    page = client.get(reverse("print_page") + query)
    wait = status_url(page)
    render_task.call(Render.objects.get().pk)
    # Without JavaScript the waiting page returns to the print page, now with the preview.
    back = client.get(wait)
    assert back.status_code == 302 and back.url.startswith(reverse("print_page") + "?")
    done = client.get(back.url).content.decode()
    assert "Preflight" in done and "data:image/png;base64," in done
    # With htmx the status partial loads the print page's result in place.
    partial = client.get(wait, headers={"HX-Request": "true"}).content.decode()
    assert 'hx-trigger="load"' in partial and 'hx-target="#print-result"' in partial


def test_a_worker_that_died_mid_render_shows_as_failed_and_frees_its_requester(
    client, alice, pup, queued_tasks
):
    client.force_login(alice)
    response = client.get(mastercard_url(pup))
    Render.objects.update(
        status=Render.Status.RENDERING, started_at=timezone.now() - timedelta(minutes=5)
    )
    page = client.get(status_url(response)).content.decode()
    assert "the render worker stopped before it finished" in page
    # The page only says so (a GET writes nothing, issue 18.1); the worker's prune, or the
    # requester's next request, records it and frees them.
    assert Render.objects.get().status == Render.Status.RENDERING
    store.prune()
    assert Render.objects.get().status == Render.Status.FAILED


# --- Limits --------------------------------------------------------------------------


def test_one_render_in_flight_per_person(client, alice, pup, types, queued_tasks):
    other = make_memeyori(alice, types["Tide"], name="Frog")
    client.force_login(alice)
    assert client.get(mastercard_url(pup)).status_code == 202
    refused = client.get(mastercard_url(other))
    assert refused.status_code == 429
    assert refused["Retry-After"] == "5"
    assert "You already have a render in progress" in refused.content.decode()
    # Asking again for the one in flight is waiting for it, not a second render.
    assert client.get(mastercard_url(pup)).status_code == 202
    assert Render.objects.count() == 1


def test_visitors_are_limited_per_address(client, types, alice, queued_tasks):
    public = [
        make_memeyori(alice, types["Blaze"], name=f"Open {n}", visibility="public")
        for n in range(2)
    ]
    assert client.get(mastercard_url(public[0]), REMOTE_ADDR="192.0.2.1").status_code == 202
    assert client.get(mastercard_url(public[1]), REMOTE_ADDR="192.0.2.1").status_code == 429
    assert client.get(mastercard_url(public[1]), REMOTE_ADDR="192.0.2.2").status_code == 202


def test_the_queue_is_bounded(client, alice, bob, pup, types, queued_tasks, settings):
    settings.RENDER_QUEUE_MAX = 1
    client.force_login(alice)
    assert client.get(mastercard_url(pup)).status_code == 202
    theirs = make_archon(bob, types["Lumen"], name="Vela")
    client.force_login(bob)
    refused = client.get(mastercard_url(theirs))
    assert refused.status_code == 503
    assert refused["Retry-After"] == "15"
    assert "The print queue is full (1 render waiting or rendering)" in refused.content.decode()
    # A stored render is still served while the queue is full.
    render_task.call(Render.objects.get().pk)
    client.force_login(alice)
    assert client.get(mastercard_url(pup))["Content-Type"] == "application/pdf"


def test_head_is_counted_like_get(client, alice, pup, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "print_mastercard": ("2/m", {"GET", "HEAD"})}
    client.force_login(alice)
    assert client.head(mastercard_url(pup)).status_code == 200
    assert client.head(mastercard_url(pup)).status_code == 200
    assert client.get(mastercard_url(pup)).status_code == 429


def test_the_print_preview_is_rate_limited(client, alice, pup, settings):
    rate, methods = settings.RATE_LIMITS["print_page"]
    assert {"GET", "HEAD"} <= methods
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "print_page": ("1/m", methods)}
    client.force_login(alice)
    query = f"?characters={pup.kind}:{pup.code}&paper=a4"
    assert client.get(reverse("print_page") + query).status_code == 200
    assert client.get(reverse("print_page") + query).status_code == 429


# --- The client's address ------------------------------------------------------------


@pytest.mark.parametrize(
    ("proxies", "remote", "forwarded", "expected"),
    [
        ([], "203.0.113.9", "198.51.100.1", "203.0.113.9"),  # no proxy trusted: ignored
        (["10.0.0.0/8"], "203.0.113.9", "198.51.100.1", "203.0.113.9"),  # not from a proxy
        (["10.0.0.0/8"], "10.0.0.2", "198.51.100.1", "198.51.100.1"),
        # The client wrote "1.2.3.4" itself; the proxy appended what it saw.
        (["10.0.0.0/8"], "10.0.0.2", "1.2.3.4, 198.51.100.1", "198.51.100.1"),
        (["10.0.0.2", "10.0.0.3"], "10.0.0.2", "198.51.100.1, 10.0.0.3", "198.51.100.1"),
        (["10.0.0.0/8"], "10.0.0.2", "not-an-address", "10.0.0.2"),
        (["10.0.0.0/8"], "10.0.0.2", "", "10.0.0.2"),
    ],
)
def test_x_forwarded_for_counts_only_from_trusted_proxies(
    settings, proxies, remote, forwarded, expected
):
    settings.TRUSTED_PROXIES = proxies
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected


def test_visitors_on_one_ipv6_network_are_one_requester(rf):
    from django.contrib.auth.models import AnonymousUser

    request = rf.get("/", REMOTE_ADDR="2001:db8:1:2:aaaa::1")
    request.user = AnonymousUser()
    other = rf.get("/", REMOTE_ADDR="2001:db8:1:2:bbbb::7")
    other.user = AnonymousUser()
    assert requester(request) == requester(other) == "ip:2001:db8:1:2::"


# --- Clean-up ------------------------------------------------------------------------


def _stored(key: str, size: int, used_days_ago: int) -> Render:
    return Render.objects.create(
        key=key, kind="mastercard", status=Render.Status.DONE, requester="user:0",
        filename="x.pdf", data=b"x" * size, size=size,
        used_at=timezone.now() - timedelta(days=used_days_ago),
    )  # fmt: skip


def test_the_clean_up_keeps_the_store_under_its_cap_least_recently_served_first(db):
    _stored("a" * 64, 400, used_days_ago=3)
    _stored("b" * 64, 400, used_days_ago=1)
    _stored("c" * 64, 400, used_days_ago=2)
    assert store.prune(max_bytes=1200) == 0
    assert store.prune(max_bytes=500) == 2
    assert list(Render.objects.values_list("key", flat=True)) == ["b" * 64]


def test_the_clean_up_forgets_old_failures_and_finished_task_records(db):
    old = timezone.now() - timedelta(days=2)
    Render.objects.create(
        key="f" * 64, kind="mastercard", status=Render.Status.FAILED, requester="user:0",
        filename="x.pdf", error="took too long", finished_at=old,
    )  # fmt: skip
    store.prune()
    assert not Render.objects.exists()


# --- Real worker processes -----------------------------------------------------------


def _subprocess_env() -> dict[str, str]:
    """This test's database, for a manage.py command in another process."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        url = f"sqlite:///{db['NAME']}"
    else:
        url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/"
        url += db["NAME"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return {
        **env,
        "DATABASE_URL": url,
        "DJANGO_MEDIA_ROOT": str(django_settings.MEDIA_ROOT),
        "DJANGO_SETTINGS_MODULE": "memeyori_site.settings",
    }


def db_worker(*args: str, worker_id: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--batch", "--no-reload",
         "--no-startup-delay", "--interval", "0.1", "--worker-id", worker_id, *args],
        cwd=ROOT, env=_subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_a_db_worker_process_renders_a_queued_pdf(client, alice, pup, queued_tasks):
    client.force_login(alice)
    assert client.get(mastercard_url(pup)).status_code == 202
    worker = db_worker(worker_id="solo")
    output, _ = worker.communicate(timeout=120)
    assert worker.returncode == 0, output
    response = client.get(mastercard_url(pup))
    assert response.status_code == 200 and response.content.startswith(b"%PDF-")
    assert DBTaskResult.objects.get().worker_ids == ["solo"]


@pytest.mark.skipif(
    django_settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"),
    reason="the multi-worker check runs on PostgreSQL (.ci/run), where workers share a queue "
    "across machines with SELECT ... FOR UPDATE SKIP LOCKED",
)
@pytest.mark.django_db(transaction=True)
def test_two_workers_share_fifty_jobs_and_run_each_exactly_once(queued_tasks):
    jobs = 50
    for n in range(jobs):
        spec = {
            "jobs": [{"html": f"<p>job {n}</p>", "zones": {}, "generated": {}, "png_dpi": None}],
            "zones": {},
            "png_only": False,
        }
        render = Render.objects.create(
            key=f"{n:064d}", kind="mastercard", spec=spec, requester=f"job:{n}", filename="x.pdf"
        )
        render_task.enqueue(render.pk)
    workers = [db_worker(worker_id=f"worker-{n}") for n in (1, 2)]
    for worker in workers:
        output, _ = worker.communicate(timeout=300)
        assert worker.returncode == 0, output
    renders = Render.objects.all()
    assert [r.runs for r in renders] == [1] * jobs
    assert {r.status for r in renders} == {Render.Status.DONE}
    results = DBTaskResult.objects.all()
    assert len(results) == jobs
    assert all(len(r.worker_ids) == 1 and r.status == "SUCCESSFUL" for r in results)
    assert {r.worker_ids[0] for r in results} == {"worker-1", "worker-2"}


# --- Shared rate-limit counts --------------------------------------------------------

COUNTER = """
import django
django.setup()
from django.test import RequestFactory
from django_ratelimit.core import is_ratelimited
request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.50")
for _ in range({n}):
    is_ratelimited(request, group="shared-test", key="ip", rate="1000/h", increment=True)
"""


@pytest.mark.django_db(transaction=True)
def test_rate_limit_counts_are_shared_by_processes_and_none_is_lost():
    from django_ratelimit.core import get_usage

    per_process = 25
    counters = [
        subprocess.Popen(
            [sys.executable, "-c", COUNTER.format(n=per_process)],
            cwd=ROOT,
            env=_subprocess_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )  # fmt: skip
        for _ in range(2)
    ]
    for counter in counters:
        output, _ = counter.communicate(timeout=120)
        assert counter.returncode == 0, output
    request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.50")
    usage = get_usage(request, group="shared-test", key="ip", rate="1000/h", increment=False)
    assert usage["count"] == 2 * per_process


# --- Battle preview images -----------------------------------------------------------


@pytest.fixture
def battle(alice, pup, types):
    from battles import services as battle_services
    from cards.services import party_set_memeyori

    from .conftest import make_party

    # A public battle shows only public parties (issue 18.6).
    pup.visibility = "public"
    pup.save()
    party = make_party(alice, name="Solo", visibility="public")
    party_set_memeyori(party=party, memeyori=[pup])
    ran = battle_services.battle_run(owner=alice, party_a=party, party_b=party, seed=3)
    return battle_services.battle_set_visibility(battle=ran, visibility="public")


def test_a_battle_picture_is_drawn_once_by_a_worker_and_then_served(client, battle):
    url = reverse("battle_og", kwargs={"code": battle.code})
    first, second = client.get(url), client.get(url)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content and first.content.startswith(b"\x89PNG")
    assert Render.objects.get(kind=Render.Kind.BATTLE_IMAGE).runs == 1


def test_a_battle_picture_not_drawn_yet_says_when_to_come_back(client, battle, queued_tasks):
    response = client.get(reverse("battle_og", kwargs={"code": battle.code}))
    assert response.status_code == 503 and response["Retry-After"] == "2"
    render_task.call(Render.objects.get().pk)
    response = client.get(reverse("battle_og", kwargs={"code": battle.code}))
    assert response.status_code == 200 and response["Content-Type"] == "image/png"


def test_the_clean_up_command_applies_a_cap(db):
    from django.core.management import call_command

    _stored("d" * 64, 2 * 1024 * 1024, used_days_ago=1)
    call_command("prune_renders", "--max-mb", "1")
    assert not Render.objects.exists()
