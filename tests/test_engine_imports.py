"""battles/engine imports cleanly: each module alone, no import circle, and no Django."""

import ast
import importlib
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "battles" / "engine"
MODULES = sorted(p.stem for p in ENGINE.glob("*.py") if p.stem != "__init__")


def _imports(module: str) -> set[str]:
    """The engine modules this one imports (relative imports, at any depth in the file)."""
    tree = ast.parse((ENGINE / f"{module}.py").read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(alias.name for alias in node.names)
    return out & set(MODULES)


def test_the_engine_has_no_import_circle():
    graph = {m: _imports(m) for m in MODULES}
    done, stack = set(), []

    def visit(module):
        if module in stack:
            cycle = stack[stack.index(module) :] + [module]
            raise AssertionError("import circle: " + " -> ".join(cycle))
        if module in done:
            return
        stack.append(module)
        for other in sorted(graph[module]):
            visit(other)
        stack.pop()
        done.add(module)

    for module in MODULES:
        visit(module)


def test_each_engine_module_imports_alone_without_django():
    code = (
        "import importlib, sys\n"
        "importlib.import_module('battles.engine.' + sys.argv[1])\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'django'], sys.argv[1]\n"
    )
    for module in MODULES:
        done = subprocess.run(
            [sys.executable, "-c", code, module],
            cwd=ENGINE.parent.parent,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"{module}: {done.stderr}"
    assert importlib.import_module("battles.engine.battle")
