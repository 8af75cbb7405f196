"""The process pools gdpproof makes for itself, whose workers die with their parent.

A :class:`concurrent.futures.ProcessPoolExecutor`'s workers wait on their task queue for good
when the parent is killed (SIGKILL, or SIGTERM, whose default action skips every cleanup): they
would stay alive, each holding its memory, until someone kills them.  The workers of
:func:`process_pool` watch their parent from a daemon thread and leave (``os._exit``) within
:data:`WATCH_SECONDS` of its death: a dead parent's child is re-parented, so its ``getppid()``
changes.  The workers ignore SIGINT; the parent takes Ctrl-C and calls :func:`stop` (why, beside
the code).  Stdlib only: tables (reference) and Monte Carlo (simulation) both use it.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor

__all__ = ["WATCH_SECONDS", "process_pool", "stop"]

#: How often a worker checks that its parent is alive.
WATCH_SECONDS = 0.25


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool of ``workers`` processes that end when this process ends, however it ends."""
    return ProcessPoolExecutor(workers, initializer=_watch_parent, initargs=(os.getpid(),))


def stop(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` on Ctrl-C or an error: cancel what has not started, without waiting."""
    # The workers end after the few chunks already handed to them.  Ending them at once is not
    # safe: a worker killed while it writes a result leaves the pool's manager thread reading a
    # half message for good.  (The command line, whose process ends anyway, leaves without
    # waiting: gdpproof.cli.main.)
    pool.shutdown(wait=False, cancel_futures=True)


def _watch_parent(parent: int) -> None:
    """Worker initializer: leave at once if ``parent`` is gone already, else watch it."""
    if os.getppid() != parent:
        os._exit(1)
    # Ctrl-C at a terminal interrupts the whole foreground process group, and a worker interrupted
    # in the middle of its queue traffic could leave the pool's manager thread waiting for good:
    # Ctrl-C is the parent's alone to handle (it calls stop()).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch, args=(parent,), name="gdpproof-parent-watch", daemon=True).start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)  # the parent died: no cleanup is owed to anyone
