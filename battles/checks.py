"""`manage.py check` says which engine this process runs: the compiled build of the engine's
hot modules (`make compile-engine`), or its Python source, and why (battles/engine/__init__)."""

import importlib.util
import os
import shutil

from django.core.checks import Info, register


@register()
def engine_build_check(app_configs=None, **kwargs):
    """Info when this process runs the source where the compiled engine was asked for
    (MEMEYORI_ENGINE=auto) or cannot be built here (no C compiler, no mypyc)."""
    from battles import engine

    if engine.ENGINE_BUILD == "compiled":
        return []
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        why = "no C compiler on this machine to build the compiled engine"
    elif importlib.util.find_spec("mypyc") is None:
        why = "no mypyc to build the compiled engine (the compile extra: pip install mypy)"
    elif os.environ.get("MEMEYORI_ENGINE", "python") != "python":
        why = f"the compiled build is {engine._build_state()}"
    else:
        return []  # the source, as asked (the default)
    return [
        Info(
            f"The battle engine runs from its Python source ({why}); the same rules.",
            hint="make compile-engine builds its hot modules with mypyc; MEMEYORI_ENGINE=auto"
            " loads the build while it is fresh.",
            id="battles.I001",
        )
    ]
