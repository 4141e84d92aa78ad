"""QR codes and absolute links follow the address the site is served on (issue 41.9):
`make run RUN_PORT=8123` (its server and the worker that prints the cards) and `make serve
SERVE_PORT=...` give DJANGO_SITE_URL that port unless it is set already."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def recipe(target: str, *variables: str) -> list[str]:
    """The lines `make -n` would run for the server and the task worker(s)."""
    out = subprocess.run(
        ["make", "-n", target, *variables], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.replace("\\\n", " ")
    commands = re.split(r"(?<=[;&])\s|\n", out)
    return [c for c in commands if re.search(r"manage.py (runserver|\w+_worker)|gunicorn", c)]


def site_url(line: str, **env) -> str:
    """DJANGO_SITE_URL as that line's shell would set it, in an environment `env`."""
    assignment = re.findall(r'DJANGO_SITE_URL="[^"]*"', line)[-1]
    clean = {k: v for k, v in os.environ.items() if k != "DJANGO_SITE_URL"} | env
    return subprocess.run(
        ["bash", "-c", f'{assignment}; printf %s "$DJANGO_SITE_URL"'],
        env=clean, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


@pytest.mark.parametrize(
    "target,variable,port", [("run", "RUN_PORT", 8123), ("serve", "SERVE_PORT", 8124)]
)
def test_the_served_port_is_the_qr_codes_port(target, variable, port):
    lines = recipe(target, f"{variable}={port}")
    assert len(lines) >= 2  # the server and the worker that prints
    for line in lines:
        assert site_url(line) == f"http://127.0.0.1:{port}"
        # An address given by whoever runs it wins.
        assert site_url(line, DJANGO_SITE_URL="https://cards.example") == "https://cards.example"


def test_the_settings_carry_the_address_given():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    out = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.conf import settings; "
         "print(settings.SITE_URL)"],
        cwd=ROOT, capture_output=True, text=True, check=True,
        env=env | {"DJANGO_SETTINGS_MODULE": "memeyori_site.settings",
                   "DJANGO_SITE_URL": "http://127.0.0.1:8123/"},
    ).stdout  # fmt: skip
    assert out.strip() == "http://127.0.0.1:8123"
