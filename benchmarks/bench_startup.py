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
every start would otherwise be most of what is measured.  The whole-process table also gives the
first run of a clone or an editable install, before Python has cached gdpproof's bytecode (a copy
of the package without ``__pycache__``, run with ``PYTHONDONTWRITEBYTECODE=1``): what a user
meets once, or at every start where bytecode is not written.

Each round runs every command once, in turn (interleaved), after one warm-up round; the medians
of wall time and of CPU time (user + system of the child, from ``os.wait4``) are compared, so
that the drift of a shared machine hits all commands alike.

Whole processes (``--only processes``, or by default after the start-up table): what a user meets
is a process, imports and all.  Each command below runs in a fresh interpreter, every round runs
them all in turn (interleaved), after one warm-up round, ``--process-repeats`` rounds (default 5),
medians compared; each peer's set-up is printed beside its figure, and each command's answer:

- ``gdpproof account --mechanism gaussian:sigma=2 --delta 1e-5`` (a closed form) against
  ``python -c "import numpy, flint"`` (target <= 1.5) and dp_accounting's PLD accountant on a
  ``GaussianDpEvent(2)`` at its default ``value_discretization_interval`` 1e-4, and Opacus's PRV
  accountant on one unsampled step of noise 2;
- the MNIST DP-SGD account ``gdpproof account --sigma 1.1 --batch-size 256 --dataset-size 60000
  --epochs 60 --delta 1e-5`` (Poisson, T = 14063, 1 % proven bracket) against dp_accounting's PLD
  accountant for the same run at interval 1e-4 (target <= 1) and Opacus's PRV accountant
  (``create_accountant("prv")``, the run as its history, ``get_epsilon(1e-5)`` at its default
  ``eps_error`` 0.01);
- ``gdpproof calibrate dpsgd --target-eps 3 --delta 1e-5 --sample-rate 0.01 --epochs 500`` (sigma
  to 4 digits, proven) against dp_accounting's ``calibrate_dp_mechanism`` with its documented
  neutral start (no bracket: it searches from [0, 1]), PLD at 1e-4, ``tol`` 1e-3 (a unit of
  sigma's fourth digit in [1, 10)) (target <= 1), and Opacus's ``get_noise_multiplier(accountant=
  "prv", epsilon_tolerance=0.01)``.

Run: ``python benchmarks/bench_startup.py [--repeats 21] [--process-repeats 5] [--only startup|processes]
[--via module entry script] [--markdown]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
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


def _run(cmd: list[str], env: dict[str, str], cwd: str | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``cmd`` (which must succeed), in ``cwd`` (``python -c``
    puts it first on ``sys.path``: a package there is imported before ``PYTHONPATH``'s)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"bench_startup: {' '.join(cmd)} exited {proc.returncode}: {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime


def _answer(cmd: list[str], env: dict[str, str], cwd: str | None = None) -> str:
    """What a command answers: gdpproof's eps or sigma line, a peer's number; shortened."""
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True,
                         cwd=cwd).stdout.strip().splitlines()
    line = next((x for x in out if x.startswith(("eps", "sigma"))), out[0] if out else "-")
    return " ".join(line.split())[:80]


_PLD = "from dp_accounting.pld import pld_privacy_accountant as p; import dp_accounting as d; "
_DPSGD = "d.SelfComposedDpEvent(d.PoissonSampledDpEvent(256 / 60000, d.GaussianDpEvent(1.1)), 14063)"
_CALIBRATE = ("from dp_accounting import mechanism_calibration as mc; "
              "print(mc.calibrate_dp_mechanism(lambda: p.PLDAccountant(value_discretization_interval=1e-4), "
              "lambda s: d.SelfComposedDpEvent(d.PoissonSampledDpEvent(0.01, d.GaussianDpEvent(s)), 50000), "
              "3, 1e-5, tol=1e-3))")

#: The Gaussian account's first run (its row name): gdpproof's sources compiled in the process.
COLD = "the same, first run (no .pyc)"

#: (job, command name, set-up, the python code or gdpproof arguments, is the reference of the job, target)
PROCESSES = [
    ("gaussian", "python -c 'import numpy, flint'", "the two libraries a certified answer needs",
     "import numpy, flint", True, 1.5),
    ("gaussian", "gdpproof account --mechanism gaussian:sigma=2 --delta 1e-5", "closed form, certified",
     ["account", "--mechanism", "gaussian:sigma=2", "--delta", "1e-5"], False, None),
    ("gaussian", "python -c 'from gdpproof import account; account(GaussianMechanism(2), delta=1e-5)'",
     "the Python door, closed form, certified (sympy not loaded)",
     "from gdpproof import account; from gdpproof.mechanisms import GaussianMechanism; "
     "print(account(GaussianMechanism(2), delta=1e-5).eps_upper)", False, None),
    ("gaussian", "dp_accounting PLD, GaussianDpEvent(2)", "PLDAccountant(value_discretization_interval=1e-4)",
     _PLD + "a = p.PLDAccountant(value_discretization_interval=1e-4); a.compose(d.GaussianDpEvent(2)); "
     "print(a.get_epsilon(1e-5))", False, None),
    ("gaussian", "Opacus PRV, Gaussian sigma = 2", "create_accountant('prv'), history [(2, 1.0, 1)] (one "
     "unsampled step), get_epsilon(1e-5) (eps_error 0.01)",
     "from opacus.accountants import create_accountant; a = create_accountant('prv'); "
     "a.history = [(2.0, 1.0, 1)]; print(a.get_epsilon(1e-5))", False, None),
    ("mnist", "dp_accounting PLD, MNIST", "PLDAccountant(value_discretization_interval=1e-4), Poisson, T = 14063",
     _PLD + f"a = p.PLDAccountant(value_discretization_interval=1e-4); a.compose({_DPSGD}); "
     "print(a.get_epsilon(1e-5))", True, 1.0),
    ("mnist", "gdpproof account --sigma 1.1 --batch-size 256 --dataset-size 60000 --epochs 60 --delta 1e-5",
     "proven bracket, 1% wide (default)",
     ["account", "--sigma", "1.1", "--batch-size", "256", "--dataset-size", "60000", "--epochs", "60",
      "--delta", "1e-5"], False, None),
    ("mnist", "Opacus PRV, MNIST", "create_accountant('prv'), history [(1.1, 256/60000, 14063)], "
     "get_epsilon(1e-5) (eps_error 0.01)",
     "from opacus.accountants import create_accountant; a = create_accountant('prv'); "
     "a.history = [(1.1, 256 / 60000, 14063)]; print(a.get_epsilon(1e-5))", False, None),
    ("calibrate", "dp_accounting calibrate_dp_mechanism", "neutral start (bracket None: from [0, 1]), PLD 1e-4, "
     "tol 1e-3", _PLD + _CALIBRATE, True, 1.0),
    ("calibrate", "gdpproof calibrate dpsgd --target-eps 3 --delta 1e-5 --sample-rate 0.01 --epochs 500",
     "sigma to 4 digits, proven, rel_width 0.01",
     ["calibrate", "dpsgd", "--target-eps", "3", "--delta", "1e-5", "--sample-rate", "0.01", "--epochs", "500"],
     False, None),
    ("calibrate", "Opacus get_noise_multiplier(accountant='prv')", "epsilon_tolerance 0.01, T = 50000",
     "from opacus.accountants.utils import get_noise_multiplier; print(get_noise_multiplier(target_epsilon=3, "
     "target_delta=1e-5, sample_rate=0.01, steps=50000, accountant='prv', epsilon_tolerance=0.01))", False, None),
]


def processes(repeats: int, env: dict[str, str], markdown: bool) -> None:
    """The whole-process table (module docstring)."""
    console = _console("entry")
    commands = {name: ([*console, *code] if isinstance(code, list) else [sys.executable, "-c", code])
                for _, name, _, code, _, _ in PROCESSES}
    envs = {name: env for name in commands}
    # a first run: gdpproof's sources not yet compiled (a copy without __pycache__, nothing written)
    cold_tree = tempfile.mkdtemp(prefix="gdpproof-cold-")
    shutil.copytree(ROOT / "gdpproof", Path(cold_tree) / "gdpproof", ignore=shutil.ignore_patterns("__pycache__"))
    cold_env = {**env, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": cold_tree}
    commands[COLD] = commands["gdpproof account --mechanism gaussian:sigma=2 --delta 1e-5"]
    envs[COLD] = cold_env
    cwds = {name: cold_tree if name == COLD else None for name in commands}
    answers = {name: _answer(cmd, envs[name], cwds[name]) for name, cmd in commands.items()}  # the warm-up round
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    try:
        for _ in range(repeats):
            for name, cmd in commands.items():
                times[name].append(_run(cmd, envs[name], cwds[name]))
    finally:
        shutil.rmtree(cold_tree, ignore_errors=True)
    med = {name: (statistics.median(t[0] for t in ts), statistics.median(t[1] for t in ts))
           for name, ts in times.items()}
    print(f"\nwhole processes, {repeats} interleaved rounds, medians; load average {os.getloadavg()[0]:.2f} "
          f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} at the end ({os.cpu_count()} cores)")
    if markdown:
        print("\n| job | command | set-up | answer | wall (s) | CPU (s) | gdpproof / it (wall, CPU) |")
        print("| --- | --- | --- | --- | ---: | ---: | --- |")
    for job in dict.fromkeys(j for j, *_ in PROCESSES):
        rows = [r for r in PROCESSES if r[0] == job]
        if job == "gaussian":  # the first run beside the steady one, against the same reference
            rows.insert(2, (job, COLD, "a first run: gdpproof's .pyc not yet written (Python compiles its "
                            "sources once, then caches them)", None, False, None))
        ours = next(r[1] for r in rows if r[1].startswith("gdpproof"))  # the command line is each job's figure
        for _, name, setup, _, is_ref, target in rows:
            w, c = med[name]
            ratio = "" if name == ours else f"{med[ours][0] / w:.2f} x, {med[ours][1] / c:.2f} x"
            if name == COLD:  # against the reference, as the steady run is
                rw, rc = med[next(r[1] for r in rows if r[4])]
                ratio = f"{w / rw:.2f} x, {c / rc:.2f} x of the reference"
            if is_ref and target is not None:
                ok = "within" if max(med[ours][0] / w, med[ours][1] / c) <= target else "OVER"
                ratio += f" (target <= {target:g}: {ok})"
            if markdown:
                print(f"| {job} | `{name}` | {setup} | {answers[name]} | {w:.2f} | {c:.2f} | {ratio} |")
            else:
                print(f"{job:<10} {name[:60]:<60} {w:6.2f} s wall {c:6.2f} s CPU  {ratio}\n"
                      f"{'':<10}   set-up: {setup}; answer: {answers[name]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=21, help="interleaved rounds (default 21)")
    parser.add_argument("--via", nargs="+", choices=("module", "entry", "script"), default=["module", "entry"],
                        help="how to start the console (default: module entry)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--process-repeats", type=int, default=5, help="rounds of the whole processes (default 5)")
    parser.add_argument("--only", choices=("startup", "processes"), help="one of the two tables")
    args = parser.parse_args(argv)

    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    if args.only == "processes":
        processes(args.process_repeats, env, args.markdown)
        return 0
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
    if args.only is None:
        processes(args.process_repeats, env, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
