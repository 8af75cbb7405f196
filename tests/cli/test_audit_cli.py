"""`gdpproof audit accountant PEER`: table, JSON, exit codes 0/1/2."""

from __future__ import annotations

import json
import sys

import pytest

from gdpproof.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_peer_that_is_right_exits_0(capsys):
    pytest.importorskip("opendp", reason="the peers extra (opendp) is not installed")
    code, out, _ = run(capsys, "audit", "accountant", "opendp", "--quick")
    assert code == 0
    assert out.startswith("Audit of opendp") and "conservative" in out and "unsafe and error findings" not in out


def test_unsafe_findings_exit_1_and_json_has_decimal_strings(capsys):
    pytest.importorskip("dp_accounting", reason="the peers extra (dp-accounting) is not installed")
    code, out, _ = run(capsys, "audit", "accountant", "dp_accounting", "--quick", "--json")
    obj = json.loads(out)
    assert code == 1 and obj["ok"] is False and obj["peer"] == "dp_accounting"
    assert obj["digits"] == 30 and obj["certified"]
    unsafe = [f for f in obj["findings"] if f["kind"] == "unsafe"]
    assert unsafe and all(isinstance(f["value"], str) and isinstance(f["relative_error"], str) for f in unsafe)
    assert all(isinstance(v, str) for f in unsafe for v in f["inputs"].values())
    assert any(abs(float(f["relative_error"])) < 1e-12 for f in unsafe)  # strict: float-level differences count


@pytest.mark.parametrize(("argv", "needle"), [
    (["audit", "accountant", "nosuchlib"], "PEER='nosuchlib' is not a known peer"),
    (["audit", "accountant", "opendp", "--rtol", "-1"], "--rtol='-1'"),
    (["audit", "accountant", "opendp", "--rtol", "x"], "--rtol='x'"),
    (["audit", "accountant", "opendp", "--seed", "-3"], "--seed='-3'"),
    (["audit"], "error:"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and needle in err and err.count("\n") == 1


def test_peer_not_installed_exits_2_naming_the_install(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "opacus", None)
    monkeypatch.setitem(sys.modules, "opacus.accountants.analysis.gdp", None)
    code, out, err = run(capsys, "audit", "accountant", "opacus")
    assert code == 2 and out == "" and "pip install opacus" in err and err.count("\n") == 1
