"""Start-up time of the ``gdpproof`` command line, as ratios against what Python itself costs.

Measures, in one run, fresh interpreters (nothing cached but the file system and ``.pyc``):

- ``gdpproof --help`` against ``python -c pass``.  Target: ratio <= 3 (``--help`` and
  ``--version`` import neither sympy nor scipy; ``gdpproof/__init__`` loads its names lazily);
- ``gdpproof convert --mu 1 --eps 1`` against ``python -c "import flint, numpy"`` (the two
  libraries a certified conversion cannot do without).  Target: ratio <= 2.  ``convert``
  imports only ``gdpproof.numeric.tradeoff.solve``, so this budget holds once that module no longer
  needs sympy (a certified path without sympy in ``gdpproof/numeric``).

How the console is started: ``--via module`` runs ``python -m gdpproof.cli`` (runpy adds a
little: it imports ``runpy``, ``importlib.util`` and finds the package's spec); ``--via entry``
runs ``python -c "import sys; from gdpproof.cli import main; sys.exit(main())"``, which is what
the installed console script does (pip's script adds ``import re``, already loaded by argparse);
``--via script`` runs the installed ``gdpproof`` script beside ``sys.executable``.  The default
measures ``module`` and ``entry``.  Every child gets ``PYTHONPATH`` = this checkout, so an
installed script also imports the code of this tree.

The children run without ``PYTHONDONTWRITEBYTECODE``, so the warm-up round writes the ``.pyc``
files an installed package has (pip compiles them at install); compiling gdpproof's sources at
every start would otherwise be most of what is measured.

Each round runs every command once, in turn (interleaved), after one warm-up round; the medians
of wall time and of CPU time (user + system of the child, from ``os.wait4``) are compared, so
that the drift of a shared machine hits all commands alike.

Run: ``python benchmarks/bench_startup.py [--repeats 21] [--via module entry script] [--markdown]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TARGETS = {"help": 3.0, "convert": 2.0}


def _console(via: str) -> list[str]:
    if via == "module":
        return [sys.executable, "-m", "gdpproof.cli"]
    if via == "entry":
        return [sys.executable, "-c", "import sys; from gdpproof.cli import main; sys.exit(main())"]
    script = shutil.which("gdpproof", path=str(Path(sys.executable).parent))
    if script is None:
        raise SystemExit("bench_startup: no installed gdpproof script beside sys.executable (use --via module)")
    return [script]


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``cmd`` (which must succeed)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"bench_startup: {' '.join(cmd)} exited {proc.returncode}: {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=21, help="interleaved rounds (default 21)")
    parser.add_argument("--via", nargs="+", choices=("module", "entry", "script"), default=["module", "entry"],
                        help="how to start the console (default: module entry)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)

    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    commands: dict[str, list[str]] = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import flint, numpy'": [sys.executable, "-c", "import flint, numpy"],
    }
    for via in args.via:
        console = _console(via)
        commands[f"gdpproof --help ({via})"] = [*console, "--help"]
        commands[f"gdpproof convert --mu 1 --eps 1 ({via})"] = [*console, "convert", "--mu", "1", "--eps", "1"]

    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for rnd in range(args.repeats + 1):
        for name, cmd in commands.items():
            measured = _run(cmd, env)
            if rnd:  # round 0 warms the file system cache and writes .pyc files
                times[name].append(measured)

    def median(name: str, i: int) -> float:
        return statistics.median(t[i] for t in times[name])

    rows = []
    for via in args.via:
        for what, ref in (("help", "python -c pass"), ("convert", "python -c 'import flint, numpy'")):
            name = next(n for n in commands if n.startswith(f"gdpproof {what if what == 'convert' else '--help'}")
                        and n.endswith(f"({via})"))
            wall, cpu = median(name, 0) / median(ref, 0), median(name, 1) / median(ref, 1)
            rows.append((name, ref, median(name, 0), median(ref, 0), wall, cpu, TARGETS[what]))

    print(f"gdpproof start-up, {args.repeats} interleaved rounds, medians ({sys.version.split()[0]})")
    if args.markdown:
        print("\n| command | reference | wall (ms) | reference wall (ms) | wall ratio | CPU ratio | target |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
        for name, ref, w, rw, wall, cpu, target in rows:
            print(f"| `{name}` | `{ref}` | {w * 1e3:.0f} | {rw * 1e3:.0f} | {wall:.2f} | {cpu:.2f} | <= {target:g} |")
    else:
        for name, ref, w, rw, wall, cpu, target in rows:
            verdict = "within" if max(wall, cpu) <= target else "OVER"
            print(f"{name:<44} {w * 1e3:7.1f} ms  vs {ref:<32} {rw * 1e3:6.1f} ms   "
                  f"wall x{wall:.2f}  cpu x{cpu:.2f}   target <= {target:g}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
