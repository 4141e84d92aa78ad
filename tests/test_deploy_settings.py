"""Settings a deployment leans on (issue 33): connections that heal after a database
restart, and a deploy check that accepts every mail URL the README offers."""

import json
import os
import re
import subprocess
import sys

import pytest
from django.db import close_old_connections, connection, connections

from .test_settings import PRODUCTION, ROOT, manage


def _settings(expression: str, **env) -> object:
    """What `expression` (on `settings`) is in a fresh process with this environment."""
    probe = (
        "import json, django; django.setup(); from django.conf import settings; "
        f"print(json.dumps({expression}))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**clean, "DJANGO_SETTINGS_MODULE": "memeyori_site.settings", **env},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_persistent_connections_are_checked_before_reuse():
    database = _settings('settings.DATABASES["default"]', DATABASE_CONN_MAX_AGE="600")
    assert database["CONN_MAX_AGE"] == 600
    assert database["CONN_HEALTH_CHECKS"] is True


@pytest.mark.django_db(transaction=True)
def test_a_connection_dropped_by_a_database_restart_is_opened_again():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has no server to drop a connection (is_usable is always true)")
    assert connection.settings_dict["CONN_HEALTH_CHECKS"]
    kept = connection.settings_dict["CONN_MAX_AGE"]
    connection.close()
    connection.settings_dict["CONN_MAX_AGE"] = 600  # kept open, as make serve keeps them
    try:
        connection.ensure_connection()
        pid = connection.connection.info.backend_pid
        other = connections.create_connection("default")
        try:
            with other.cursor() as cursor:  # what a restart does to every connection
                cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        finally:
            other.close()
        close_old_connections()  # what every request starts with: not too old to keep
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            assert cursor.fetchone() == (1,)
        assert connection.connection.info.backend_pid != pid
    finally:
        connection.settings_dict["CONN_MAX_AGE"] = kept
        connection.close()


@pytest.mark.parametrize(
    "url",
    ["smtp://user:pw@mail.example.org:587/?tls=1", "smtps://mail.example.org:465",
     "console://", "file:///tmp/memeyori-mail", "memory://", "dummy://"],
)  # fmt: skip
def test_the_deploy_check_accepts_every_mail_url_the_readme_offers(url):
    readme = (ROOT / "README.md").read_text()
    assert url.split("://")[0] + "://" in readme
    result = manage("check", "--deploy", "--fail-level", "WARNING", EMAIL_URL=url, **PRODUCTION)
    output = result.stderr + result.stdout
    assert result.returncode == 0, output
    assert re.findall(r"\(([a-z_.]+\.[EW]\d+)\)", output) == [], output
