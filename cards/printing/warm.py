"""Imported by the render fork server (pdf._get_context): WeasyPrint, the fonts and the
cards' stylesheets load once there, and every render child forked from it starts warm.

Here too the fork server and each render child are tied to their parent (issue 33.3): on
Linux the kernel sends each SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG), so a
task worker killed mid-render leaves nothing rendering past its limit, unseen.
"""

import os
import signal
import sys
from pathlib import Path

# The site's own static folder (settings.STATICFILES_DIRS), found without Django, which
# the fork server does not load; a render reads the same files through its roots.
STATIC_CSS = Path(__file__).resolve().parents[2] / "static" / "css"
PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """SIGKILL this process when its parent `parent` dies (at once if it has already)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return  # not Linux after all: the fork server's own end-of-parent check remains
    if os.getppid() != parent:  # it died before the line above could see it go
        os._exit(1)


def _in_fork_server() -> bool:
    # multiprocessing starts its fork server as `python -c 'from multiprocessing.forkserver
    # import main; main(...)'`; this module is also imported by tests and by nothing else.
    return sys.argv[:1] == ["-c"] and "multiprocessing.forkserver" in sys.modules


if sys.platform.startswith("linux") and _in_fork_server():
    die_with_parent(os.getppid())
    _server = os.getpid()
    os.register_at_fork(after_in_child=lambda: die_with_parent(_server))

try:
    from .pdf import warm_up

    warm_up((STATIC_CSS / "card.css", STATIC_CSS / "print.css"))
except Exception:  # a failed warm-up only makes the first render slower
    pass
