"""Background tasks: where they wait, who runs them."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tasks_backend(**env) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    code = (
        "import django; django.setup(); from django.tasks import task_backends;"
        "b = task_backends['default']; print(type(b).__module__ + '.' + type(b).__name__)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "memeyori_site.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return result.stdout.strip()


def test_tasks_wait_in_the_projects_database_by_default():
    assert _tasks_backend() == "django_tasks_db.backend.DatabaseBackend"


def test_tasks_can_run_inside_the_request_without_a_worker():
    backend = _tasks_backend(DJANGO_TASKS_IMMEDIATE="1")
    assert backend == "django.tasks.backends.immediate.ImmediateBackend"
