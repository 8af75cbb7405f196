"""Issue 32, item 3: the commands draw their progress on stderr when it is a terminal (account,
calibrate, a curve of accounts, the report's notebooks), and nothing when it is not.  The 2 s
delay (``gdpproof._progress.DELAY``) is set to 0 so that quick runs show what a slow one does."""

from __future__ import annotations

import io
import sys

import pytest

from gdpproof import _progress
from gdpproof.cli import main


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(monkeypatch, argv, *, terminal=True):
    err, out = (Terminal() if terminal else io.StringIO()), io.StringIO()
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(sys, "stdout", out)
    code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv, label", [
    (["account", "--mechanism", "gaussian:sigma=2,times=3", "--mechanism", "laplace:scale=10", "--delta", "1e-5"],
     "gdpproof account: working"),
    (["calibrate", "dpsgd", "--target-eps", "3", "--delta", "1e-5", "--sample-rate", "0.1", "--steps", "10"],
     "gdpproof calibrate: working"),
    (["account", "--sigma", "1", "--sample-rate", "0.02", "--steps", "20:40:20", "--delta", "1e-5"],
     "account [##########"),
])
def test_a_terminal_sees_progress_and_a_pipe_does_not(monkeypatch, argv, label):
    code, out, err = _run(monkeypatch, argv)
    assert code == 0 and label in err and label not in out
    code, out, err = _run(monkeypatch, argv, terminal=False)
    assert code == 0 and label not in err


def test_the_report_notebooks_draw_a_bar_on_a_terminal(monkeypatch, tmp_path):
    from gdpproof.report import runner
    from gdpproof.report.notebooks import NOTEBOOKS

    names = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
    assert names  # the report runs its notebooks

    def render(folder, progress):  # the notebooks' run stood in for (minutes): each reported done
        for name in names:
            progress(name)
        return [{"name": name, "status": "rendered"} for name in names]

    monkeypatch.setattr(runner, "render_notebooks", render)
    term = Terminal()
    runner._notebooks(tmp_path, True, term)
    assert f"notebooks [####################] {len(names)}/{len(names)} notebooks" in term.getvalue()
    log = io.StringIO()
    runner._notebooks(tmp_path, True, log)  # not a terminal: a line each, no bar
    assert "notebooks [" not in log.getvalue() and f"[ 1/{len(names)}] notebook {names[0]}" in log.getvalue()
