"""The process pools gdpproof makes for itself, whose workers die with their parent.

A :class:`concurrent.futures.ProcessPoolExecutor`'s workers wait on their task queue for good
when the parent is killed (SIGKILL, or SIGTERM, whose default action skips every cleanup): they
would stay alive, each holding its memory, until someone kills them.  The workers of
:func:`process_pool` watch their parent from a daemon thread and leave (``os._exit``) within
:data:`WATCH_SECONDS` of its death: a dead parent's child is re-parented, so its ``getppid()``
changes.  Stdlib only: tables (reference) and Monte Carlo (simulation) both use it.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

__all__ = ["WATCH_SECONDS", "process_pool"]

#: How often a worker checks that its parent is alive.
WATCH_SECONDS = 0.25


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool of ``workers`` processes that end when this process ends, however it ends."""
    return ProcessPoolExecutor(workers, initializer=_watch_parent, initargs=(os.getpid(),))


def _watch_parent(parent: int) -> None:
    """Worker initializer: leave at once if ``parent`` is gone already, else watch it."""
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="gdpproof-parent-watch", daemon=True).start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)  # the parent died: no cleanup is owed to anyone
