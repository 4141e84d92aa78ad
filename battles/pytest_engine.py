"""A pytest plugin (pyproject's addopts: -p battles.pytest_engine): the suite runs on the
engine's Python source even where a shell exports MEMEYORI_ENGINE=auto; only "compiled"
(.ci/run's compiled pass) runs it on the build. Loaded before pytest-django sets Django up,
which imports the engine."""

import os

if os.environ.get("MEMEYORI_ENGINE") != "compiled":
    os.environ["MEMEYORI_ENGINE"] = "python"


def pytest_report_header(config):
    from battles.engine import ENGINE_BUILD

    return f"battles.engine: {ENGINE_BUILD}"
