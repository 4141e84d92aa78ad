"""A pytest plugin (pyproject's addopts: -p battles.pytest_engine): the suite runs on the
engine's Python source unless MEMEYORI_ENGINE says otherwise (.ci/run's compiled pass sets
it to "compiled"). Loaded before pytest-django sets Django up, which imports the engine."""

import os

os.environ.setdefault("MEMEYORI_ENGINE", "python")


def pytest_report_header(config):
    from battles.engine import ENGINE_BUILD

    return f"battles.engine: {ENGINE_BUILD}"
