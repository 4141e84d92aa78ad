"""Settings read from the environment: loud on bad values, secure with debug off."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "x" * 20 + "a-real-looking-secret-key-0123456789-abcdefghij",
    "DJANGO_ALLOWED_HOSTS": "memeyori.example",
}


def manage(*args, **env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_deploy_check_passes_with_the_production_environment():
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    output = result.stderr + result.stdout
    assert result.returncode == 0, output
    # Not one warning. django-ratelimit's W001 is silenced in settings, for the reason the
    # next test shows: the project's cache counts atomically across processes (18.11).
    assert re.findall(r"\(([a-z_.]+\.[EW]\d+)\)", output) == [], output


COUNT = """
import sys
from django.core.cache import cache
for _ in range(int(sys.argv[1])):
    cache.incr("rl:atomic-test")
"""


def test_the_cache_counts_atomically_across_processes(transactional_db):
    """Four processes add 150 each to one count at once, through the project's own cache
    (the database cache here; Redis when REDIS_URL is set): not one is lost."""
    from django.core.cache import cache
    from django.db import connection

    cache.set("rl:atomic-test", 0, 600)
    database = connection.settings_dict
    if database["ENGINE"].endswith("sqlite3"):
        url = f"sqlite:///{database['NAME']}"
    else:
        url = (f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/"
               f"{database['NAME']}")  # fmt: skip
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env = {**clean, "DATABASE_URL": url, "DJANGO_CACHE_KEY_PREFIX": cache.key_prefix,
           "DJANGO_SETTINGS_MODULE": "memeyori_site.settings"}  # fmt: skip
    workers = [
        subprocess.Popen([sys.executable, "-c", "import django, sys; django.setup();"
                          "exec(sys.argv[2])", "150", COUNT],
                         cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]  # fmt: skip
    for worker in workers:
        assert worker.wait(timeout=120) == 0, url + worker.stderr.read()[-600:]
    assert cache.get("rl:atomic-test") == 600, url


def test_a_bad_trusted_proxy_is_refused_by_name():
    result = manage("check", DJANGO_TRUSTED_PROXIES="10.0.0.1,my-proxy")
    assert result.returncode != 0
    assert "DJANGO_TRUSTED_PROXIES must list IP addresses" in result.stderr


def test_debug_off_without_a_secret_key_refuses_to_start():
    env = {**PRODUCTION, "DJANGO_SECRET_KEY": ""}
    result = manage("check", **env)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is required" in result.stderr


def test_debug_off_without_allowed_hosts_refuses_to_start():
    result = manage("check", **{**PRODUCTION, "DJANGO_ALLOWED_HOSTS": ""})
    assert "DJANGO_ALLOWED_HOSTS is required" in result.stderr


def test_a_bad_boolean_is_refused_by_name():
    result = manage("check", DJANGO_DEBUG="maybe")
    assert result.returncode != 0
    assert "DJANGO_DEBUG must be one of" in result.stderr


def test_email_url_builds_django_mailers(monkeypatch):
    from memeyori_site.settings import envmailer

    monkeypatch.setenv("EMAIL_URL", "smtp://ann%40x.org:p%2Fss@mail.example.org:587/?tls=1")
    mailer = envmailer("EMAIL_URL", "console://")
    assert mailer["BACKEND"].endswith("smtp.EmailBackend")
    assert mailer["OPTIONS"] | {"timeout": 0} == {
        "host": "mail.example.org", "port": 587, "username": "ann@x.org", "password": "p/ss",
        "use_ssl": False, "use_tls": True, "timeout": 0,
    }  # fmt: skip
    monkeypatch.setenv("EMAIL_URL", "file:///tmp/mail")
    assert envmailer("EMAIL_URL", "console://")["OPTIONS"] == {"file_path": "/tmp/mail"}
    monkeypatch.delenv("EMAIL_URL")
    assert envmailer("EMAIL_URL", "console://")["BACKEND"].endswith("console.EmailBackend")


def test_a_bad_email_url_refuses_to_start():
    result = manage("check", EMAIL_URL="smpt://typo.example.org")
    assert result.returncode != 0
    assert "EMAIL_URL must start with one of" in result.stderr


def test_media_storage_settings_are_refused_by_name_when_wrong():
    assert (
        "DJANGO_MEDIA_STORAGE must be filesystem or s3"
        in manage("check", DJANGO_MEDIA_STORAGE="ftp").stderr
    )
    assert (
        "DJANGO_MEDIA_STORAGE=s3 needs DJANGO_S3_BUCKET"
        in manage("check", DJANGO_MEDIA_STORAGE="s3").stderr
    )
    assert (
        "DJANGO_MEDIA_SERVE=signed needs DJANGO_MEDIA_STORAGE=s3"
        in manage("check", DJANGO_MEDIA_SERVE="signed").stderr
    )


def test_the_deploy_check_passes_with_media_in_an_object_store():
    s3 = {
        "DJANGO_MEDIA_STORAGE": "s3", "DJANGO_S3_BUCKET": "memeyori-media",
        "DJANGO_S3_ENDPOINT_URL": "https://store.example:9000", "DJANGO_MEDIA_SERVE": "signed",
    }  # fmt: skip
    result = manage("check", "--deploy", "--fail-level", "ERROR", **PRODUCTION, **s3)
    assert result.returncode == 0, result.stderr + result.stdout
    probe = manage(
        "shell", "-c",
        "from django.conf import settings; from django.core.files.storage import storages; "
        "print(type(storages['default']).__name__, settings.SECURE_CSP['img-src'][-1])",
        **PRODUCTION, **s3,
    )  # fmt: skip
    assert probe.stdout.split()[-2:] == ["S3Storage", "https://store.example:9000"], probe.stderr
