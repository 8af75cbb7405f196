"""Start-up: ``--help``, ``--version`` and every command's ``--help`` load neither sympy nor scipy
(nor numpy), and every command's help works.  (Timings: benchmarks/bench_startup.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gdpproof.cli import main
from gdpproof.cli._parser import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("sympy", "scipy", "numpy", "mpmath", "flint")

#: every command and sub-command, as typed.
EVERY_COMMAND = [[c] for c in COMMANDS if c not in ("compose", "audit")] + [
    ["compose"], ["compose", "gdp"], ["compose", "clt"], ["compose", "functionals"],
    ["audit"], ["audit", "accountant"], ["audit", "mechanism"],
]

_PROBE = """
import contextlib, io, json, sys
from gdpproof.cli import main
codes = []
for argv in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()):
        codes.append(main(argv))
print(json.dumps({"codes": codes, "loaded": sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[2:]))}))
"""


def _probe(argvs: list[list[str]]) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    res = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(argvs), *HEAVY], capture_output=True,
                         text=True, timeout=120, env=env, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["-h"]])
def test_help_and_version_load_no_heavy_module(argv):
    got = _probe([argv])
    assert got == {"codes": [0], "loaded": []}


def test_every_commands_help_loads_no_heavy_module():
    argvs = [[*c, "--help"] for c in EVERY_COMMAND]
    got = _probe(argvs)
    assert got == {"codes": [0] * len(argvs), "loaded": []}


def test_python_dash_m_runs_the_console():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    res = subprocess.run([sys.executable, "-m", "gdpproof.cli", "--version"], capture_output=True, text=True,
                         timeout=120, env=env, cwd=ROOT)
    assert res.returncode == 0 and res.stdout.strip() == "gdpproof 0.1.0"


@pytest.mark.parametrize("argv", EVERY_COMMAND, ids=" ".join)
def test_every_commands_help_works(capsys, argv):
    assert main([*argv, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: gdpproof {' '.join(argv)}") and "--help" in out


def test_every_command_has_a_module_that_runs_it():
    import importlib

    parser = build_parser()  # every command with every option
    listed = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(listed) == set(COMMANDS)
    for command, module in COMMANDS.items():
        assert callable(importlib.import_module(f"gdpproof.cli.{module}").run), command


def test_a_command_s_options_are_built_only_when_it_runs():
    choices = build_parser("convert")._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert "--mu" in choices["convert"]._option_string_actions
    assert not choices["calibrate"]._option_string_actions  # listed, not built
    everything = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert all(p._option_string_actions for p in everything.values())


def test_unknown_command_is_a_usage_error(capsys):
    assert main(["nosuchcommand"]) == 2
    err = capsys.readouterr().err
    assert "gdpproof: error: invalid choice of command: 'nosuchcommand' (choose from 'tradeoff'," in err and err.count("\n") == 1
