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


def test_dp_accounting_findings_ranked_by_size_and_json_has_decimal_strings(capsys):
    # issue 32: five severities; the quick run's one large unsafe finding is at eps = 0, a
    # degenerate input reported apart, so no material unsafe finding: exit 0
    pytest.importorskip("dp_accounting", reason="the peers extra (dp-accounting) is not installed")
    from gdpproof.audit.findings import SEVERITIES

    code, out, _ = run(capsys, "audit", "accountant", "dp_accounting", "--quick", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["ok"] is True and obj["peer"] == "dp_accounting" and obj["severities"] == list(SEVERITIES)
    assert obj["digits"] == 30 and obj["certified"]
    unsafe = [f for f in obj["findings"] if f["kind"] == "unsafe"]
    assert unsafe and all(isinstance(f["value"], str) and isinstance(f["relative_error"], str) for f in unsafe)
    assert all(isinstance(v, str) for f in unsafe for v in f["inputs"].values())
    ranks = [SEVERITIES.index(f["severity"]) for f in obj["findings"]]
    assert ranks == sorted(ranks) and {"minor", "negligible", "float-level", "degenerate"} <= set(obj["severities"])
    worst = next(f for f in unsafe if f["severity"] == "degenerate" and f["inputs"]["epsilon"] == "0.0"
                 and f["inputs"]["delta"] == "1e-300")
    assert float(worst["relative_error"]) == pytest.approx(-1.0)
    counts = {k: {s: int(n) for s, n in c.items()} for k, c in obj["counts"].items()}
    assert counts["unsafe"]["material"] == 0 and counts["unsafe"]["degenerate"] >= 1
    assert sum(counts["unsafe"].values()) == len(unsafe)
    code, out, _ = run(capsys, "audit", "accountant", "dp_accounting", "--quick")
    apart = out.split("at degenerate inputs (eps = 0, mu = 0, delta >= 1), reported apart")[1]
    assert code == 0 and "get_sigma_gaussian(epsilon=0.0, delta=1e-300)" in apart
    assert "minor, negligible or float-level unsafe finding(s) not listed" in out


def test_only_material_unsafe_findings_exit_1(capsys, monkeypatch):
    import gdpproof.audit as audit

    exact = 0.12693673750664394  # delta of 1-GDP at eps = 1, the double nearest

    def run_peer(peer, *, quick, rtol, seed, progress):
        return audit.audit_function(lambda mu, eps: exact * factor, "delta_from_epsilon", label="stand-in",
                                    inputs=[(1.0, 1.0)], properties=False, rtol=rtol)

    monkeypatch.setattr(audit, "audit_accountant", run_peer)
    for factor, code_wanted, severity in ((0.98, 1, "material"), (0.995, 0, "minor"), (1 - 1e-11, 0, "negligible")):
        code, out, _ = run(capsys, "audit", "accountant", "opendp", "--json")
        obj = json.loads(out)
        assert code == code_wanted and obj["findings"][0]["severity"] == severity, factor


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


@pytest.mark.parametrize(("spec", "needle"), [
    ("tests.audit.samplers:low_bit_leak", "beyond 2^53 in magnitude"),
    ("tests.audit.samplers:imaginary_leak", "returned complex numbers"),
])
def test_leaks_a_float64_cast_would_hide_exit_2(capsys, spec, needle):
    # the attack's samplers (issue 33): a total leak in the low bit of an int64, or in an imaginary
    # part, gave "no evidence of violation" once the outputs were cast to float64
    code, out, err = run(capsys, "audit", "mechanism", "--module", spec, "--claimed-mu", "1", "--samples", "2000",
                         "--seed", "1")
    assert code == 2 and out == "" and needle in err and "map the outputs to float64 yourself" in err
    assert err.count("\n") == 1 and "Traceback" not in err
