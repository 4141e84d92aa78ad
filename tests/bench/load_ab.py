"""`python -m tests.bench.load_ab REV [RUNS]`: `make load` on this tree and on commit REV,
side by side, as issue 20.4 measures: REV is checked out in a temporary worktree (sharing
this tree's .venv), and the two run in turns, RUNS times each (2), so that both see the
same machine. It prints each run's whole-mix rate and live stats p99, then their ranges
and the ratio of the rates. Both runs use this shell's LOAD_* settings, and skip the
PDFs-beside phase unless LOAD_BESIDE=1. `make load-ab REV=1c7d5f3` runs it.

Older commits kept the load test in tests/load.py; either is found.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALL = re.compile(r"^all\s+\d+\s+([\d.]+)", re.M)
LIVE = re.compile(r"^live stats \(htmx\)\s+\d+\s+[\d.]+\s+[\d.]+\s+([\d.]+)", re.M)


def one_run(tree: Path) -> tuple[float, float]:
    """(requests/s over the whole mix, live stats p99 ms) of one load test in `tree`."""
    module = "tests.bench.load" if (tree / "tests/bench/load.py").exists() else "tests.load"
    out = subprocess.run(
        [sys.executable, "-m", module], cwd=tree, capture_output=True, text=True, check=False
    )
    rate, live = ALL.search(out.stdout), LIVE.search(out.stdout)
    if out.returncode or rate is None or live is None:
        tail = out.stdout[-2000:] + out.stderr[-2000:]
        raise SystemExit(f"the load test in {tree} failed:\n{tail}")
    return float(rate.group(1)), float(live.group(1))


def spread(values: list[float], digits: int = 1) -> str:
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return low if low == high else f"{low}-{high}"


def main(rev: str, runs: int) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="load-ab-"))
    base = scratch / "tree"
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--quiet", str(base), rev], cwd=ROOT, check=True
    )
    try:
        (base / ".venv").symlink_to(ROOT / ".venv")
        results = {"this tree": [], rev: []}
        for n in range(1, runs + 1):
            for name, tree in ((rev, base), ("this tree", ROOT)):
                rate, p99 = one_run(tree)
                results[name].append((rate, p99))
                print(f"load_ab: run {n}, {name}: {rate:.1f} requests/s, live p99 {p99:.1f} ms")
        ours, theirs = results["this tree"], results[rev]
        ratios = [a[0] / b[0] for a, b in zip(ours, theirs, strict=True)]
        print(
            f"load_ab: this tree {spread([r for r, _ in ours])} requests/s against {rev}'s "
            f"{spread([r for r, _ in theirs])}: {spread(ratios, 2)}x, run by run; live stats p99 "
            f"{spread([p for _, p in ours])} ms against {spread([p for _, p in theirs])} ms"
        )
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    os.environ.setdefault("LOAD_BESIDE", "0")
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2)
