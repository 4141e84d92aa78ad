"""The compiled engine (battles/engine/__init__.py, battles/compile_engine.py) is loaded only
from a build made from the source as it is now; otherwise the source runs, and says so."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from battles import engine
from battles.checks import engine_build_check

ROOT = Path(__file__).resolve().parent.parent
SHOW = (
    "import battles.engine as e, battles.engine.dice as d;"
    "print(e.ENGINE_BUILD, d.__file__.endswith('.py'))"
)


def _engine_in_child(mode: str, build: Path | None = None):
    env = {**os.environ, "MEMEYORI_ENGINE": mode}
    if build is not None:
        env["MEMEYORI_ENGINE_BUILD"] = str(build)
    return subprocess.run(
        [sys.executable, "-c", SHOW], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_it_runs_the_source_when_the_build_was_made_from_other_source(tmp_path):
    (tmp_path / "battles" / "engine").mkdir(parents=True)
    (tmp_path / "SOURCE").write_text("0" * 64 + "\n")
    done = _engine_in_child("auto", tmp_path)
    assert done.stdout.strip() == "python (compiled build stale) True", done.stderr
    # And the default is the source, whatever the build.
    assert _engine_in_child("python", tmp_path).stdout.strip() == "python True"


def test_it_runs_the_source_without_a_build(tmp_path):
    done = _engine_in_child("auto", tmp_path / "nothing")
    assert done.stdout.strip() == "python (compiled build missing) True", done.stderr


def test_it_refuses_to_start_compiled_from_a_stale_build(tmp_path):
    (tmp_path / "SOURCE").write_text("0" * 64 + "\n")
    done = _engine_in_child("compiled", tmp_path)
    assert done.returncode != 0
    assert "MEMEYORI_ENGINE=compiled, but the build" in done.stderr


def test_the_suite_runs_the_plain_engine_and_the_check_is_quiet_about_it():
    assert engine.ENGINE_BUILD == "python"
    assert engine.dice.__file__.endswith(".py")
    # Quiet, or saying only why no build can be made here (no compiler, or no mypyc: make
    # test installs the test extra, not the compile one).
    said = engine_build_check()
    assert said == [] or ("no C compiler" in said[0].msg or "no mypyc" in said[0].msg)


def test_the_check_says_when_the_asked_for_build_cannot_run(monkeypatch, tmp_path):
    monkeypatch.setenv("MEMEYORI_ENGINE", "auto")
    monkeypatch.setattr(engine, "BUILD", tmp_path / "nothing")
    [info] = engine_build_check()
    assert info.id == "battles.I001"
    assert "runs from its Python source" in info.msg


def test_the_check_says_when_no_compiler_is_present(monkeypatch):
    monkeypatch.setenv("PATH", "")
    [info] = engine_build_check()
    assert info.id == "battles.I001"
    assert "no C compiler" in info.msg


@pytest.mark.skipif(engine._build_state() != "fresh", reason="no fresh compiled build here")
def test_a_fresh_build_runs_compiled():
    done = _engine_in_child("compiled")
    assert done.stdout.strip() == "compiled False", done.stderr


def test_the_compiled_modules_never_sum_a_generator():
    """mypyc compiles sum(generator) to plain additions, while Python's sum adds floats with
    compensation: greedy's expected damage once differed in the last place on the compiled
    engine, and one golden battle in 600 chose another target. sum() of a list is Python's
    own in both."""
    found = []
    for name in engine.COMPILED:
        path = ROOT / "battles" / "engine" / f"{name}.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "sum"
                and node.args
                and isinstance(node.args[0], ast.GeneratorExp)
            ):
                found.append(f"{name}.py:{node.lineno}")
    assert found == []
