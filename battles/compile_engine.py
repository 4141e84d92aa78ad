"""Compile the engine's hot modules with mypyc, from their own source, beside the source.

`python -m battles.compile_engine` (`make compile-engine`) builds battles.engine.COMPILED
into build/engine-<tag>/ and writes the digest of the source it was made from last, so
battles/engine/__init__.py loads a build only while the source is what it was made from.
Without mypyc or a C compiler it says so and exits 0: the engine runs from its source, and
`manage.py check` says which engine runs (battles.checks). The source tree is never
written to: the plain engine stays the default of the test suite.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    from battles import engine

    if engine._build_state() == "fresh":
        print(f"compile-engine: {engine.BUILD} is fresh")
        return 0
    try:
        import mypyc  # noqa: F401
    except ImportError:
        print("compile-engine: no mypyc (pip install mypy); the engine runs from its source")
        return 0
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        print("compile-engine: no C compiler; the engine runs from its source")
        return 0
    digest = engine.source_digest()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memeyori-engine-") as tmp:
        out = Path(tmp) / "out"
        # A child process: setuptools and mypy read sys.argv and the working folder.
        code = (
            "import sys; from setuptools import setup; from mypyc.build import mypycify\n"
            "setup(name='memeyori-engine', script_args=['build_ext', '--build-lib', sys.argv[1],"
            " '--build-temp', sys.argv[2]],"
            " ext_modules=mypycify(sys.argv[4:], opt_level='3', target_dir=sys.argv[3]))"
        )
        # The modules they import (the policies' older versions, odds) are read for their
        # types, but their own errors are not this build's: only the compiled must check.
        paths = [
            "--follow-imports=silent",
            # A note, which mypyc counts as an error: annotated locals in untyped methods.
            "--disable-error-code=annotation-unchecked",
            *(f"battles/engine/{name}.py" for name in engine.COMPILED),
        ]
        env = {**os.environ, "MYPY_CACHE_DIR": str(Path(tmp) / "mypy-cache")}
        done = subprocess.run(
            [sys.executable, "-c", code, str(out), f"{tmp}/temp", f"{tmp}/c", *paths],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            print(done.stdout[-4000:], done.stderr[-4000:], sep="\n", file=sys.stderr)
            print("compile-engine: mypyc failed; the engine runs from its source", file=sys.stderr)
            return 1
        (out / "SOURCE").write_text(digest + "\n", encoding="utf-8")
        if engine.BUILD.exists():
            shutil.rmtree(engine.BUILD)
        engine.BUILD.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(out, engine.BUILD)
    print(
        f"compile-engine: {len(engine.COMPILED)} modules compiled into {engine.BUILD}"
        f" in {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
