"""Ctrl-C: exit 130 and one line on stderr, also with worker processes (issue 18 item 5)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import gdpproof.simulation
from gdpproof.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_ctrl_c_is_exit_130_with_one_line(capsys, monkeypatch):
    """A KeyboardInterrupt during a long computation ends with status 130 and one line on stderr."""
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(gdpproof.simulation, "simulate", interrupted)
    code = main(["simulate", "gaussian", "--sigma", "1", "--samples", "100000000", "--seed", "1"])
    out, err = capsys.readouterr()
    assert code == 130 and out == "" and err.strip() == "gdpproof: interrupted"


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups are POSIX")
def test_ctrl_c_with_workers_ends_at_once():
    """A terminal's Ctrl-C interrupts the whole process group, workers included.  Regression: the
    workers took the interrupt too, and the command printed "interrupted" and then hung in the
    process pool's exit (a table waited for every queued chunk)."""
    cmd = [sys.executable, "-m", "gdpproof.cli", "simulate", "gaussian", "--sigma", "1", "--samples", str(10**8),
           "--seed", "1", "--workers", "2"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        seen = b""
        while b" chunks, " not in seen:  # the first progress report ("\r"-ended): the workers run
            byte = proc.stderr.read(1)
            assert byte, seen
            seen += byte
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        err = seen + err
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    lines = [x for x in err.decode().replace("\r", "\n").splitlines() if x and not x.startswith("simulate: ")]
    assert proc.returncode == 130 and out == b"" and lines == ["gdpproof: interrupted"], err[-500:]


def test_a_table_whose_reader_closes_the_pipe_exits_141():
    """``gdpproof table ... | head -1`` (issue 33): a buffered write of the table (here 120 kB, more
    than a pipe holds) returned after the first 64 kB when the reader went away, the rest was
    dropped without a word and the status was 0; now the rest is written again and fails: 141."""
    cmd = [sys.executable, "-m", "gdpproof.cli", "table", "delta", "--mu", "lin:0.1:5:300", "--eps", "1",
           "--digits", "400", "--workers", "1", "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout.readline().startswith(b"# table: delta")
    proc.stdout.close()  # what head -1 does
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141 and err == b""
