"""Issue 32, item 3: progress on a terminal after about 2 s, silence elsewhere and before."""

from __future__ import annotations

import io
import time

from gdpproof._progress import Progress, Ticker


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_ticker_draws_on_a_terminal_after_its_delay_and_erases_itself():
    out = Terminal()
    with Ticker("gdpproof account", delay=0.05, stream=out) as t:
        time.sleep(0.3)
    text = out.getvalue()
    assert t.drawn and "gdpproof account: working, 0s" in text and text.endswith("\r")
    assert text.rstrip("\r").split("\r")[-1].strip() == ""  # the last thing drawn is the erasure


def test_ticker_is_silent_off_a_terminal_and_on_quick_work():
    out = io.StringIO()
    with Ticker("x", delay=0.0, stream=out) as t:
        time.sleep(0.05)
    assert out.getvalue() == "" and not t.drawn
    term = Terminal()
    with Ticker("x", delay=5.0, stream=term) as t:
        pass
    assert term.getvalue() == "" and not t.drawn


def test_progress_waits_for_its_delay():
    ticks = iter([0.0, 0.5, 1.0, 2.5, 3.0, 3.5])
    out = io.StringIO()
    bar = Progress(3, "account", unit="points", stream=out, clock=ticks.__next__, delay=2.0)
    bar.advance()  # at 0.5 s: nothing yet
    assert out.getvalue() == ""
    bar.advance()  # at 1.0 s
    bar.advance()  # at 2.5 s: drawn
    bar.close()
    assert "3/3 points" in out.getvalue()
    quiet = io.StringIO()
    bar = Progress(1, "x", stream=quiet, clock=iter([0.0, 0.1, 0.2]).__next__, delay=2.0)
    bar.advance()
    bar.close()
    assert quiet.getvalue() == ""
