"""A one-line progress bar on stderr (items done, rate and time remaining), and a ticker for work
of unknown length."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

__all__ = ["DELAY", "Progress", "Ticker"]

#: Seconds of work before a command draws its progress on a terminal (quick work stays silent).
DELAY = 2.0


class Progress:
    """Redraws ``label [#####-----] done/total unit  rate unit/s  ETA`` at most ten times a second.

    ``done`` items already finished (a resumed run) count towards the bar but not the rate.
    ``eta=False`` leaves the estimate out (items of very different durations: the rate says nothing).
    With ``delay`` nothing is drawn before that many seconds have passed (quick work stays silent).

    Examples:
        >>> import io
        >>> out = io.StringIO()
        >>> bar = Progress(4, "table", unit="rows", stream=out, clock=iter(range(100)).__next__)
        >>> bar.advance(2); bar.close()
        >>> out.getvalue().splitlines()[-1].strip()
        'table [##########          ] 2/4 rows  1.0 rows/s  ETA 2s'
    """

    def __init__(self, total: int, label: str, *, unit: str = "items", enabled: bool = True, done: int = 0,
                 stream: TextIO | None = None, clock: object = None, eta: bool = True, delay: float = 0.0) -> None:
        self.total, self.label, self.unit, self.enabled, self.eta = total, label, unit, enabled, eta
        self.delay = delay
        self._drawn = False
        self.done = self._start_done = done
        self.stream = stream if stream is not None else sys.stderr
        self._clock = clock if callable(clock) else time.monotonic
        self._start = self._clock()
        self._last = -1.0
        self._note = ""

    def advance(self, n: int = 1, *, note: str = "") -> None:
        """Count ``n`` more items done; ``note`` (for example the item's name) follows the bar."""
        self.done += n
        self._note = note
        now = self._clock()
        if self.enabled and now - self._start >= self.delay and (now - self._last >= 0.1 or self.done >= self.total):
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        width = 20
        frac = self.done / self.total if self.total else 1.0
        bar = "#" * int(round(width * frac))
        elapsed = max(now - self._start, 1e-9)
        rate = (self.done - self._start_done) / elapsed
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        eta = "" if not self.eta else "  ETA ?" if left == float("inf") else f"  ETA {_duration(left)}"
        note = f"  {self._note[:40]:<40}" if self._note else ""
        self._drawn = True
        print(f"\r{self.label} [{bar:<{width}}] {self.done}/{self.total} {self.unit}  "
              f"{_rate(rate)} {self.unit}/s{eta}{note}   ", end="", file=self.stream, flush=True)

    def close(self) -> None:
        """Draw the final state and end the line."""
        if self.enabled and (self._drawn or self.delay == 0):
            self._draw(self._clock())
            print(file=self.stream, flush=True)


def _rate(r: float) -> str:
    return f"{r:,.0f}" if r >= 100 else f"{r:.1f}"


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class Ticker:
    """``label: working, 5 s`` on one line of stderr, redrawn each second, for work of unknown
    length that has run longer than ``delay`` seconds (:data:`DELAY` by default); only where the
    stream is a terminal.  The
    line is erased when the work ends (a context manager).

    Examples:
        >>> import io
        >>> with Ticker("account", stream=io.StringIO()) as t:  # not a terminal: silent
        ...     pass
        >>> t.drawn
        False
    """

    def __init__(self, label: str, *, delay: float | None = None, stream: TextIO | None = None,
                 enabled: bool | None = None) -> None:
        self.label, self.delay = label, DELAY if delay is None else delay
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty()) if enabled is None else enabled
        self.drawn = False
        self._stop: Any = None
        self._thread: Any = None
        self._width = 0

    def __enter__(self) -> "Ticker":
        if self.enabled:
            import threading

            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._run, name="gdpproof-ticker", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        start = time.monotonic()
        if self._stop.wait(self.delay):
            return
        while True:
            text = f"\r{self.label}: working, {_duration(time.monotonic() - start)}"
            self._width = max(self._width, len(text))
            print(text, end="", file=self.stream, flush=True)
            self.drawn = True
            if self._stop.wait(1.0):
                return

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            if self.drawn:
                print("\r" + " " * self._width + "\r", end="", file=self.stream, flush=True)
