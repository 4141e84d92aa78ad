"""Real processes for the media and cluster tests: an S3-compatible server (moto's server
mode), the site under gunicorn's asgi worker as `make serve` runs it, and db_worker task
workers, all on loopback and on ports the operating system says are free."""

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[1]
BUCKET = "memeyori-test-media"
S3_KEYS = {"DJANGO_S3_ACCESS_KEY_ID": "testing", "DJANGO_S3_SECRET_ACCESS_KEY": "testing"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, proc: subprocess.Popen | None = None, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the process for {url} exited: {proc.stdout.read()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return  # it answered
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


@contextlib.contextmanager
def s3_server():
    """moto's S3 on a free loopback port, with an empty private bucket: yields the
    settings' environment for it."""
    import boto3
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    try:
        boto3.client(
            "s3", endpoint_url=endpoint, region_name="us-east-1",
            aws_access_key_id="testing", aws_secret_access_key="testing",
        ).create_bucket(Bucket=BUCKET)  # fmt: skip
        yield {
            "DJANGO_MEDIA_STORAGE": "s3",
            "DJANGO_S3_BUCKET": BUCKET,
            "DJANGO_S3_ENDPOINT_URL": endpoint,
            "DJANGO_S3_REGION": "us-east-1",
            **S3_KEYS,
        }
    finally:
        server.stop()


def s3_storages(env: dict[str, str], settings) -> dict:
    """settings.STORAGES for this test process, on the same bucket as `env` says."""
    return {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": env["DJANGO_S3_BUCKET"],
                "endpoint_url": env["DJANGO_S3_ENDPOINT_URL"],
                "region_name": env["DJANGO_S3_REGION"],
                "access_key": env["DJANGO_S3_ACCESS_KEY_ID"],
                "secret_key": env["DJANGO_S3_SECRET_ACCESS_KEY"],
                "default_acl": None,
                "querystring_auth": True,
                "querystring_expire": 300,
                "file_overwrite": False,
                "addressing_style": "path",
                "signature_version": "s3v4",
            },
        },
    }


def database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    return f"postgres://{db['USER']}@{host}:{port}/{db['NAME']}"


def site_env(**extra: str) -> dict[str, str]:
    """A production-like environment (debug off) on this test's database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(
        DATABASE_URL=database_url(), DJANGO_SETTINGS_MODULE="memeyori_site.settings",
        DJANGO_DEBUG="0", DJANGO_SECRET_KEY="cluster-test-secret-key-" + "x" * 40,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost", DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_SECURE_COOKIES="0", DJANGO_HSTS_SECONDS="0", DATABASE_CONN_MAX_AGE="60",
    )  # fmt: skip
    env.update(extra)
    return env


def web_server(env: dict[str, str], port: int) -> subprocess.Popen:
    """The site as `make serve` runs it: gunicorn's asgi worker, no control socket, a
    listening socket per worker."""
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "memeyori_site.asgi",
         "--worker-class", "asgi", "--workers", "1", "--bind", f"127.0.0.1:{port}",
         "--no-control-socket", "--reuse-port", "--timeout", "60"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    wait_for(f"http://127.0.0.1:{port}/battles/protocol/", proc)
    return proc


def task_worker(env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--no-reload", "--no-startup-delay",
         "--interval", "0.1"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def stop(*procs: subprocess.Popen) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def until(check, timeout: float = 60, every: float = 0.2):
    """check()'s first truthy answer within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = check()
        if answer:
            return answer
        time.sleep(every)
    raise AssertionError(f"not within {timeout:.0f} s: {check}")
