"""The web server as `make serve` runs it (issue 18.12): it names no software or version,
and two instances on one machine share no control socket (they have none)."""

import re
import subprocess
import sys
import urllib.request
from pathlib import Path

from . import servers

ROOT = Path(__file__).resolve().parents[1]


def test_two_served_sites_say_memeyori_and_open_no_control_socket(db, tmp_path):
    env = servers.site_env(HOME=str(tmp_path), DJANGO_MEDIA_ROOT=str(tmp_path / "media"))
    ports = [servers.free_port(), servers.free_port()]
    procs = [servers.web_server(env, port) for port in ports]
    try:
        for port in ports:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/battles/protocol/") as answer:
                assert answer.headers.get_all("Server") == ["Memeyori"]
                assert "gunicorn" not in str(answer.headers).lower()
        assert not (tmp_path / ".gunicorn").exists()  # gunicorn's default control socket
    finally:
        servers.stop(*procs)


def test_make_serve_runs_the_same_server():
    serve = (ROOT / "Makefile").read_text().partition("\nserve:")[2].partition("\nload:")[0]
    assert re.search(r"gunicorn memeyori_site\.asgi --worker-class asgi", serve)
    assert "--no-control-socket" in serve
    # A socket per worker, so that keep-alive clients spread over the workers.
    assert "--reuse-port" in serve
    assert '"--reuse-port"' in (ROOT / "tests" / "bench" / "load.py").read_text()


def test_a_served_site_freezes_what_it_loaded_so_full_collections_skip_it(tmp_path):
    # Without the freeze, each full collection walks Django and the apps again (a 65 ms
    # pause, GIL held, once in some 600 requests, timed in process).
    env = servers.site_env(HOME=str(tmp_path))
    probe = "import gc, memeyori_site.asgi; print(gc.get_freeze_count())"
    frozen = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert frozen.returncode == 0, frozen.stderr
    assert int(frozen.stdout) > 50_000
