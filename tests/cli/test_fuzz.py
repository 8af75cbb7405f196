"""Issue 33: every subcommand, driven with the attack's classes of hostile values, ends within a
CPU-time limit with a documented exit code, and with one line on stderr (no traceback) when it
refuses.

Each call runs ``gdpproof.cli.main`` in a fork of this process (the command modules are imported
once, before the forks) under ``RLIMIT_CPU``: a call that loops in C (a ball at millions of bits,
sympy factoring an integer) is stopped by the kernel, where an alarm signal would wait for the C
call to return.  The cases are a fixed list: every subcommand meets every value class, in two of
its options where it has two, the classes spread round-robin over the command's options.
"""

from __future__ import annotations

import io
import os
import resource
import sys
import traceback

import pytest

#: The documented exit codes (README): 0 ok, 1 violation, 2 bad input, 3 the digits could not be
#: certified (or the computation ran out of memory), 4 a bracket wider than asked.  5 is a bug.
DOCUMENTED = {0, 1, 2, 3, 4}
#: CPU seconds a call may take (a fork is killed by SIGXCPU beyond it).
LIMIT = 10

#: The attack's value classes (issue 33): huge and tiny exponents, zero, negative, NaN and
#: infinities, a long digit string, empty, non-ASCII digits, hex, underscores, a zero divisor.
VALUES = {
    "huge-exponent": "1e999999",
    "tiny-exponent": "1e-999999",
    "beyond-double": "1e400",
    "below-double": "1e-400",
    "large": "1e60",
    "zero": "0",
    "negative": "-1",
    "nan": "nan",
    "inf": "inf",
    "empty": "",
    "long-digits": "7" * 5000,
    "arabic-digit": "\u0661",
    "fullwidth-digit": "\uff12",
    "hex": "0x10",
    "underscore": "1_0",
    "zero-divisor": "1/0",
}

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "audit_gaussian_mechanism.py")

#: command -> option lists with one slot "@" for the hostile value (the other values are valid and
#: cheap); "{dir}" is the call's own empty folder, "{row}" a one-row table whose cell is the value.
TEMPLATES = {
    "tradeoff": [["tradeoff", "gaussian", "--mu", "@", "--alpha", "0.05"],
                 ["tradeoff", "laplace", "--mu", "1", "--alpha", "@"],
                 ["tradeoff", "subsampled-gaussian", "--mu", "@", "--sample-rate", "0.1", "--alpha", "0.1",
                  "--digits", "10"],
                 ["tradeoff", "rr-composition", "--eps", "1", "--n", "@", "--alpha", "0.1"]],
    "convert": [["convert", "--mu", "@", "--eps", "1"],
                ["convert", "--eps", "@", "--delta", "1e-5"],
                ["convert", "--mu", "1", "--delta", "@"],
                ["convert", "--mu", "1", "--eps", "1", "--digits", "@"]],
    "calibrate": [["calibrate", "--eps", "@", "--delta", "1e-5"],
                  ["calibrate", "--eps", "1", "--delta", "1e-5", "--sensitivity", "@"],
                  ["calibrate", "dpsgd", "--target-eps", "3", "--delta", "1e-5", "--sample-rate", "0.01",
                   "--epochs", "@", "--digits", "2"],
                  ["calibrate", "dpsgd", "--target-eps", "@", "--delta", "1e-5", "--sample-rate", "0.01",
                   "--steps", "100", "--digits", "2"]],
    "delta": [["delta", "gaussian", "--mu", "1", "--at", "@"],
              ["delta", "subsampled-gaussian", "--mu", "1", "--sample-rate", "0.1", "--at", "@", "--digits", "10"],
              ["delta", "rr-composition", "--eps", "@", "--n", "5", "--at", "1"],
              ["delta", "laplace", "--mu", "@", "--at", "0.5"]],
    "tightest-mu": [["tightest-mu", "laplace", "--mu", "@", "--digits", "10"],
                    ["tightest-mu", "randomized-response", "--eps", "@"],
                    ["tightest-mu", "rr-composition", "--eps", "1", "--n", "@", "--digits", "10"]],
    "check": [["check", "laplace", "--mu", "@", "--points", "16"],
              ["check", "gaussian", "--mu", "1", "--points", "@"]],
    "compose": [["compose", "gdp", "--mu", "1", "--mu", "@"],
                ["compose", "clt", "gaussian", "--mu", "1", "--n", "@"],
                ["compose", "functionals", "laplace", "--mu", "@", "--digits", "10"]],
    "account": [["account", "--mechanism", "gaussian:sigma=@", "--delta", "1e-5"],
                ["account", "--sigma", "1", "--sample-rate", "0.01", "--steps", "@", "--delta", "1e-5"],
                ["account", "--mechanism", "laplace:scale=1,times=@", "--delta", "1e-5"],
                ["account", "--sigma", "1", "--batch-size", "256", "--dataset-size", "@", "--epochs", "1",
                 "--delta", "1e-5"],
                ["account", "--mechanism", "gaussian:sigma=1", "--delta", "@"],
                ["account", "--mechanism", "gaussian:sigma=1", "--eps", "@"]],
    "simulate": [["simulate", "gaussian", "--sigma", "@", "--samples", "1000", "--seed", "1"],
                 ["simulate", "laplace", "--scale", "1", "--samples", "@", "--seed", "1"],
                 ["simulate", "randomized-response", "--eps", "@", "--samples", "1000", "--seed", "1"],
                 ["simulate", "gaussian", "--sigma", "1", "--samples", "1000", "--seed", "1", "--confidence", "@"]],
    "table": [["table", "delta", "--mu", "@", "--eps", "1", "--digits", "5", "--workers", "1", "--no-progress"],
              ["table", "--verify", "{row}", "--no-progress"],
              ["table", "--verify", "{dir}/ok.csv", "--rtol", "@", "--no-progress"],
              ["table", "dpsgd", "--sigma", "1", "--sample-rate", "0.01", "--steps", "@", "--delta", "1e-5",
               "--digits", "5", "--workers", "1", "--no-progress"]],
    "tables": [["tables", "--check", "--rows", "@"]],
    "audit": [["audit", "mechanism", "--module", f"{EXAMPLE}:correct", "--claimed-mu", "@", "--seed", "1",
               "--samples", "1000"],
              ["audit", "mechanism", "--module", f"{EXAMPLE}:correct", "--claimed-mu", "1", "--seed", "1",
               "--samples", "@"],
              ["audit", "accountant", "no-such-peer", "--quick", "--rtol", "@"]],
    "report": [["report", "--quick", "--quiet", "--no-notebooks", "--out", "{dir}/file/sub", "--digits", "@"]],
}

# every subcommand meets every class twice where it has two option lists or more: class i goes to
# the command's option lists i and i + 1 mod n
CASES = [(command, options[j], cls)
         for command, options in TEMPLATES.items()
         for i, cls in enumerate(VALUES)
         for j in sorted({i % len(options), (i + 1) % len(options)})]


def test_every_subcommand_is_driven():
    from gdpproof.cli._parser import COMMANDS

    assert set(TEMPLATES) == set(COMMANDS)
    assert {(c, cls) for c, _, cls in CASES} == {(c, cls) for c in COMMANDS for cls in VALUES}
    assert {(c, TEMPLATES[c].index(o)) for c, o, _ in CASES} == {(c, i) for c in TEMPLATES for i in range(len(TEMPLATES[c]))}


@pytest.fixture(scope="module")
def warm():
    """Import what the commands import, once, before the forks (each fork would import it again)."""
    from gdpproof.cli._parser import COMMANDS

    for module in set(COMMANDS.values()):
        __import__(f"gdpproof.cli.{module}")
    import gdpproof.accounting  # noqa: F401
    import gdpproof.calibration  # noqa: F401
    import gdpproof.reference.verify  # noqa: F401


def _run(argv: list[str], folder: str) -> tuple[int | None, float, str, str]:
    """main(argv) in a fork limited to LIMIT CPU seconds: (exit code or None if killed, CPU
    seconds, stdout, stderr)."""
    out_path, err_path = os.path.join(folder, ".stdout"), os.path.join(folder, ".stderr")
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 99
        try:
            resource.setrlimit(resource.RLIMIT_CPU, (LIMIT, LIMIT + 1))
            os.chdir(folder)
            with open(out_path, "w", encoding="utf-8") as out, open(err_path, "w", encoding="utf-8") as err:
                sys.stdout, sys.stderr, sys.stdin = out, err, io.StringIO()
                try:
                    from gdpproof.cli import main

                    code = main(argv)
                except BaseException:  # noqa: BLE001 - reported to the parent as a traceback
                    traceback.print_exc(file=err)
                    code = 98
                out.flush()
                err.flush()
        finally:
            os._exit(code)
    _, status, usage = os.wait4(pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    with open(out_path, encoding="utf-8", errors="replace") as f:
        out = f.read()
    with open(err_path, encoding="utf-8", errors="replace") as f:
        err = f.read()
    return (os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else None), cpu, out, err


@pytest.mark.parametrize(("command", "options", "cls"), CASES,
                         ids=[f"{c}-{TEMPLATES[c].index(o)}-{cls}" for c, o, cls in CASES])
def test_hostile_value(command, options, cls, tmp_path, warm):
    value = VALUES[cls]
    folder = str(tmp_path)
    with open(os.path.join(folder, "ok.csv"), "w", encoding="utf-8") as f:
        f.write("mu,eps,delta\n1,1,0.2\n")
    row = os.path.join(folder, "row.csv")
    with open(row, "w", encoding="utf-8") as f:
        f.write(f"eps,delta,mu\n{value},0.00001,1\n")
    with open(os.path.join(folder, "file"), "w", encoding="utf-8") as f:
        f.write("a file, so that no report folder can be made below it\n")
    argv = [w.replace("@", value).replace("{dir}", folder).replace("{row}", row) for w in options]
    code, cpu, out, err = _run(argv, folder)
    shown = " ".join(options).replace("@", f"<{cls}>")
    assert code is not None, f"{shown}: killed after {cpu:.1f} s of CPU (the limit is {LIMIT} s)"
    assert "Traceback" not in err and "Traceback" not in out, (shown, err[-2000:])
    assert code in DOCUMENTED, (shown, code, err[-500:])
    # a refusal is one line on stderr (table --verify reports the rows it could not check on stdout)
    if code == 2 or (code == 3 and err):
        assert err.startswith("gdpproof: error: ") and err.count("\n") == 1, (shown, err[-500:])
