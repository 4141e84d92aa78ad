"""`manage.py check` says which engine this process runs: the compiled build of the engine's
hot modules (`make compile-engine`), or its Python source, and why (battles/engine/__init__)."""

import os
import shutil

from django.core.checks import Info, register


@register()
def engine_build_check(app_configs=None, **kwargs):
    from battles import engine

    if engine.ENGINE_BUILD == "compiled":
        return []
    if engine.ENGINE_BUILD == "python" and os.environ.get("MEMEYORI_ENGINE") == "python":
        why = "MEMEYORI_ENGINE=python asks for it"
    elif shutil.which("gcc") is None and shutil.which("cc") is None:
        why = "no C compiler on this machine to build the compiled engine"
    else:
        why = f"the compiled build is {engine._build_state()}"
    return [
        Info(
            f"The battle engine runs from its Python source ({why}); the same rules, slower.",
            hint="make compile-engine builds its hot modules with mypyc (pip install mypy).",
            id="battles.I001",
        )
    ]
