"""The command line: outputs, JSON contract, exit codes, one-line errors."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from gdpproof.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def labelled(out: str, name: str, rounding: str) -> str:
    """The value of the one result line ``name = VALUE   (certified, rounded ROUNDING...)`` in ``out``."""
    how = "rounded to nearest" if rounding == "nearest" else f"rounded {rounding}"
    lines = [line for line in out.splitlines() if re.fullmatch(rf"{name} *= \S+   \(certified, {how}(; .*)?\)", line)]
    assert len(lines) == 1, out
    return lines[0].split("=", 1)[1].split()[0]


def test_tradeoff_text_and_json(capsys):
    code, out, err = run(capsys, "tradeoff", "gaussian", "--mu", "1", "--alpha", "0.05", "--digits", "40")
    assert code == 0 and labelled(out, "beta", "down") == "0.7404889771585559293516965237010599664806"
    assert out.count("\n") == 1 and "gaussian(mu=1) at alpha = 0.05" in out
    code, out, _ = run(capsys, "tradeoff", "eps-delta", "--eps", "1", "--delta", "0.01", "--alpha", "0.1", "--json")
    obj = json.loads(out)
    # 1 - 0.01 - e/10 = 0.99 - 0.271828182845904523536028747135266... rounded down to 30 digits
    assert code == 0 and obj["beta"] == "0.718171817154095476463971252864" and obj["digits"] == 30
    assert obj["certified"] == "arb" and obj["rounding"] == "down"
    assert all(isinstance(v, (str, int, bool)) for v in obj.values())


def test_convert_headline(capsys):
    code, out, _ = run(capsys, "convert", "--mu", "1", "--eps", "1", "--digits", "40", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["delta"] == "0.1269367375066439458008296247577668804151" and obj["rounding"] == "up"


def test_convert_all_modes_and_calibrate(capsys):
    code, out, _ = run(capsys, "convert", "--mu", "1", "--delta", "1e-5", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["eps"] == "4.37717809568122462765011629325" and obj["rounding"] == "up"
    code, out, _ = run(capsys, "convert", "--eps", "1", "--delta", "1e-5", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["mu"] == "0.268051123211294217903035572370" and obj["rounding"] == "down"
    assert obj["certified"] == "arb" and obj["digits"] == 30
    code, out, _ = run(capsys, "calibrate", "--eps", "1", "--delta", "1e-5", "--sensitivity", "2", "--json",
                       "--digits", "12")
    obj = json.loads(out)
    assert code == 0 and obj["sigma"] == "7.46126326964" and obj["rounding"] == {"sigma": "up", "mu": "down"}
    code, out, _ = run(capsys, "convert", "--mu", "1", "--delta", "0")
    assert code == 0 and labelled(out, "eps", "up") == "Infinity"


def test_delta_and_tightest_mu(capsys):
    code, out, _ = run(capsys, "delta", "laplace", "--mu", "2", "--at", "2", "--digits", "10")
    assert code == 0 and labelled(out, "delta", "up") == "0"
    code, out, _ = run(capsys, "tightest-mu", "randomized-response", "--eps", "1", "--digits", "15")
    assert code == 0 and labelled(out, "mu", "up") == "1.23203538534491"


def test_convert_prints_the_full_request_labelled(capsys):
    """Issue 18: convert prints every requested digit with the quantity, its rounding and 'certified'."""
    code, out, _ = run(capsys, "convert", "--mu", "1", "--delta", "1e-5")
    assert code == 0 and out == ("eps = 4.37717809568122462765011629325   (certified, rounded up; the smallest, "
                                 "of 1-GDP at delta = 1e-5)\n")
    code, out, _ = run(capsys, "convert", "--eps", "1", "--delta", "1e-5", "--digits", "12")
    assert code == 0 and labelled(out, "mu", "down") == "0.268051123211"
    code, out, _ = run(capsys, "compose", "gdp", "--mu", "3", "--mu", "4", "--digits", "6")
    assert code == 0 and labelled(out, "mu", "up") == "5.00000"
    code, out, _ = run(capsys, "compose", "clt", "randomized-response", "--eps", "0.1", "--n", "400", "--digits", "10")
    assert labelled(out, "mu", "up") == "2.000833438" and labelled(out, "gamma", "up") == "0.02810497817"
    assert "not a bound" in out
    code, out, _ = run(capsys, "compose", "functionals", "gaussian", "--mu", "1", "--digits", "8")
    assert labelled(out, "kl", "nearest") == "0.50000000" and labelled(out, "bar_kappa3", "nearest") == "1.5957691"


def test_check_exit_codes(capsys):
    code, out, _ = run(capsys, "check", "laplace", "--mu", "1", "--json")
    assert code == 0 and json.loads(out)["ok"] is True


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["tradeoff", "gaussian", "--mu", "-1", "--alpha", "0.1"], "--mu='-1' must be >= 0"),
        (["tradeoff", "gaussian", "--mu", "1", "--alpha", "1.5"], "--alpha='1.5' must be in [0, 1]"),
        (["tradeoff", "gaussian", "--mu", "abc", "--alpha", "0.5"], "--mu='abc' is not a number"),
        (["tradeoff", "gaussian", "--alpha", "0.5"], "--mu is required"),
        (["tradeoff", "nope", "--alpha", "0.5"], "invalid choice"),
        (["convert", "--mu", "1", "--eps", "nan"], "must not be NaN"),
        (["convert", "--mu", "1", "--eps", "1", "--digits", "0"], "--digits=0 must be between 1 and 4000"),
        (["check", "laplace", "--mu", "1", "--points", "1"], "--points=1 must be an integer in [2, 100,000]"),
        (["tradeoff", "eps-delta", "--eps", "1", "--delta", "2", "--alpha", "0.1"], "--delta='2' must be in [0, 1]"),
        (["convert", "--mu", "1"], "exactly two of --mu, --eps, --delta"),
        (["convert", "--mu", "1", "--eps", "1", "--delta", "0.1"], "exactly two of --mu, --eps, --delta"),
        (["convert", "--mu", "1", "--delta", "1.5"], "--delta='1.5' must be in [0, 1]"),
        (["convert", "--eps", "-1", "--delta", "1e-5"], "--eps='-1' must be >= 0"),
        (["convert", "--mu", "inf", "--eps", "1"], "--mu='inf' must be finite"),
        (["convert", "--mu", "1", "--delta", "1e-2000000"], "--delta='1e-2000000' has a decimal exponent"),
        (["calibrate", "--eps", "1", "--delta", "1e-5", "--sensitivity", "-2"], "--sensitivity='-2' must be >= 0"),
        (["calibrate", "--eps", "x", "--delta", "1e-5"], "--eps='x' is not a number"),
        (["calibrate", "--eps", "1"], "the following arguments are required: --delta"),
        (["tradeoff", "laplace", "--mu", "1", "--alpha", "0.1", "--digits", "9000"], "--digits=9000 must be between"),
        (["convert", "--mu", "1", "--eps", "1", "--digits", "4500"], "--digits=4500 must be between 1 and 4000"),
        (["tradeoff", "gaussian", "--mu", "1", "--eps", "1", "--alpha", "0.1"], "--eps=1 does not apply to kind gaussian"),
        (["report", "--digits", "0"], "--digits=0 must be between 1 and 4000"),
        (["report", "--out", "/proc/no/such/folder"], "out='/proc/no/such/folder' cannot be created"),
        (["compose", "gdp", "--mu", "1", "--mu", "-2"], "--mu='-2' must be >= 0"),
        (["compose", "gdp"], "the following arguments are required: --mu"),
        (["compose", "clt", "gaussian", "--mu", "1", "--n", "0"], "--n='0' must be a positive integer"),
        (["compose", "clt", "gaussian", "--mu", "1", "--n", "2.5"], "--n='2.5' must be a positive integer"),
        (["compose", "clt", "rr-composition", "--eps", "1"], "invalid choice"),
        (["compose", "functionals", "eps-delta", "--eps", "1", "--delta", "0.1"], "kl(f) is infinite"),
        (["tradeoff", "rr-composition", "--eps", "1", "--alpha", "0.1"], "--n is required for kind rr-composition"),
        (["tradeoff", "rr-composition", "--eps", "1", "--n", "-3", "--alpha", "0.1"], "--n='-3' must be a positive integer"),
        (["tradeoff", "subsampled-gaussian", "--mu", "1", "--alpha", "0.1"], "--sample-rate is required"),
        (["tradeoff", "subsampled-gaussian", "--mu", "1", "--sample-rate", "1.2", "--alpha", "0.1"],
         "--sample-rate='1.2' must be in [0, 1]"),
        (["tradeoff", "gaussian", "--mu", "1", "--sample-rate", "0.5", "--alpha", "0.1"],
         "--sample-rate=0.5 does not apply to kind gaussian"),
        (["account", "--sigma", "0", "--sample-rate", "0.1", "--steps", "3"], "--sigma='0' must be > 0"),
        (["account", "--sigma", "1", "--sample-rate", "0", "--steps", "3"], "--sample-rate='0' must be in (0, 1]"),
        (["account", "--sigma", "1", "--sample-rate", "0.1", "--steps", "-3"], "--steps='-3' must be a positive integer"),
        (["account", "--sigma", "1", "--sample-rate", "0.1", "--steps", "3", "--delta", "0"], "--delta='0' must be in (0, 1)"),
        (["account", "--sigma", "1", "--sample-rate", "0.1", "--steps", "3", "--sampling", "shuffled"], "invalid choice"),
        (["account", "--sigma", "1", "--sample-rate", "0.1", "--steps", "3", "--delta", "1e-5", "--rel-width", "-1"],
         "--rel-width='-1' must be > 0"),
        (["tradeoff", "rr-composition", "--eps", "1", "--n", "1e20", "--alpha", "0.5"], "--n='1e20' must be at most 10^12"),
        (["simulate", "gaussian", "--samples", "10", "--seed", "1"], "--sigma is required for gaussian"),
        (["account", "--sigma", "1", "--sample-rate", "0.1", "--steps", "3", "--rel-width", "0.05"],
         "--rel-width=0.05 applies only with --delta or --eps"),
        (["simulate", "gaussian", "--sigma", "0", "--samples", "10", "--seed", "1"], "--sigma='0' must be > 0"),
        (["simulate", "gaussian", "--sigma", "1", "--samples", "-5", "--seed", "1"], "--samples='-5' must be an integer >= 1"),
        (["simulate", "gaussian", "--sigma", "1", "--samples", "10", "--seed", "x"], "--seed='x' must be an integer >= 0"),
        (["simulate", "laplace", "--samples", "10", "--seed", "1"], "--scale is required for laplace"),
        (["simulate", "laplace", "--scale", "1", "--sigma", "1", "--samples", "10", "--seed", "1"],
         "--sigma=1 does not apply to mechanism laplace"),
        (["simulate", "randomized-response", "--eps", "1", "--dim", "3", "--samples", "10", "--seed", "1"],
         "--dim=3 does not apply to mechanism randomized-response"),
        (["simulate", "gaussian", "--sigma", "1", "--sample-rate", "2", "--samples", "10", "--seed", "1"],
         "--sample-rate='2' must be in (0, 1]"),
        (["simulate", "gaussian", "--sigma", "1", "--confidence", "1", "--samples", "10", "--seed", "1"],
         "--confidence='1' must be in (0, 1)"),
        (["table", "delta", "--mu", "1"], "--eps is required for table delta"),
        (["table", "delta", "--mu", "log:0:1:3", "--eps", "1"], "a log range needs START > 0"),
        (["table", "delta", "--mu", "1", "--eps", "1", "--steps", "3"], "--steps='3' does not apply to table delta"),
        (["table", "delta", "--mu", "1", "--eps", "1", "--workers", "0"], "--workers='0' must be an integer >= 1"),
        (["table", "delta", "--mu", "1", "--eps", "1", "--resume"], "--resume needs --out"),
        (["table"], "give a table KIND (or --verify FILE)"),
        (["table", "--verify", "x.csv", "--mu", "1"], "--verify takes a file, KIND and --sample/--seed/--ulps/--rtol "
                                                      "only; --mu does not apply"),
        (["table", "delta", "--mu", "1", "--eps", "1", "--ulps", "2"], "--ulps goes with --verify FILE"),
        (["table", "--verify", "x.csv", "--ulps", "0"], "--ulps='0' must be an integer >= 1"),
        (["table", "--verify", "/nonexistent/x.csv"], "--verify='/nonexistent/x.csv' cannot be read"),
        (["table", "--verify", "x.csv", "--sample", "-1"], "--sample='-1' must be an integer >= 1"),
        (["tables", "--regenerate", "--rows", "3"], "--rows=3 applies to --check only"),
        # the library's argument named as the option that gave it (InvalidParameterError.argument)
        (["delta", "gaussian", "--mu", "1", "--at", "nan"], "error: --at='nan' must not be NaN"),
        (["delta", "eps-delta", "--eps", "-1", "--at", "1"], "error: --eps='-1' must be >= 0"),
        (["calibrate", "--eps", "1", "--delta", "2"], "error: --delta='2' must be in [0, 1]"),
        (["tightest-mu", "gaussian", "--mu", "1", "--digits", "0"], "error: --digits=0 must be between 1 and 4000"),
        (["compose", "clt", "gaussian", "--mu", "1", "--digits", "0"], "error: --digits=0 must be between"),
        (["account", "--sigma", "1", "--sample-rate", "0.1", "--steps", "3", "--digits", "0"],
         "error: --digits=0 must be between 1 and 4000"),
        (["simulate", "laplace", "--scale", "-1", "--samples", "10", "--seed", "1"],
         "error: --scale='-1' must be > 0"),
        (["simulate", "randomized-response", "--eps", "0", "--samples", "10", "--seed", "1"],
         "error: --eps='0' must be a finite number > 0"),
        (["simulate", "randomized-response", "--eps", "800", "--samples", "10", "--seed", "1"],
         "error: --eps='800' must be a finite number > 0 at most 700"),
        # once a ZeroDivisionError traceback
        (["simulate", "gaussian", "--sigma", "1", "--sensitivity", "0", "--sample-rate", "0.1", "--samples", "10",
          "--seed", "1"], "error: --sensitivity='0' must be > 0"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_installed_console_script():
    exe = shutil.which("gdpproof") or str(__import__("pathlib").Path(sys.executable).with_name("gdpproof"))
    if not __import__("os").path.exists(exe):
        pytest.skip("the gdpproof console script is not installed in this environment")
    res = subprocess.run([exe, "convert", "--mu", "1", "--eps", "1", "--digits", "12"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and labelled(res.stdout, "delta", "up") == "0.126936737507"
    res = subprocess.run([exe, "convert", "--mu", "-2", "--eps", "1"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and res.stderr.strip() == "gdpproof: error: --mu='-2' must be >= 0"


def test_uncertifiable_is_exit_3_with_nothing_on_stdout(capsys):
    # delta = 10^(-2.2e17) is beyond a Decimal: refused, not printed wrong
    code, out, err = run(capsys, "convert", "--mu", "1e-9", "--eps", "1")
    assert code == 3 and out == "" and "log_delta_from_epsilon" in err and err.count("\n") == 1


def test_tightest_mu_of_laplace_zero_is_zero(capsys):
    code, out, _ = run(capsys, "tightest-mu", "laplace", "--mu", "0", "--digits", "5")
    assert code == 0 and labelled(out, "mu", "up") == "0"


def test_digits_4000_works(capsys):
    code, out, _ = run(capsys, "convert", "--mu", "1", "--eps", "1", "--digits", "4000")
    value = labelled(out, "delta", "up")
    assert code == 0 and value.startswith("0.12693673750664394580082962475776688041508065011") and len(value) == 4002


def test_compose_commands(capsys):
    code, out, _ = run(capsys, "compose", "gdp", "--mu", "3", "--mu", "4", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["mu"].startswith("5.0000") and obj["exact"] is True and obj["certified"] == "arb"
    code, out, _ = run(capsys, "compose", "functionals", "gaussian", "--mu", "1", "--json", "--digits", "25")
    obj = json.loads(out)
    # the acceptance check: kl = 0.5, kappa2 = 1.25, bar_kappa3 = 2 sqrt(2/pi)
    assert obj["kl"] == "0.5000000000000000000000000" and obj["kappa2"] == "1.250000000000000000000000"
    assert obj["bar_kappa3"] == "1.595769121605730711759784"
    assert obj["digits"] == 25 and obj["certified"] == "arb"
    code, out, _ = run(capsys, "compose", "clt", "randomized-response", "--eps", "0.1", "--n", "400", "--json",
                       "--digits", "10")
    obj = json.loads(out)
    assert code == 0 and obj["mu"] == "2.000833438" and obj["gamma"] == "0.02810497817" and obj["approximation"] is True


def test_new_tradeoff_kinds(capsys):
    code, out, _ = run(capsys, "tradeoff", "rr-composition", "--eps", "0.1", "--n", "100", "--alpha", "0.05",
                       "--json", "--digits", "15")
    assert code == 0 and json.loads(out)["beta"] == "0.741215622710327"
    code, out, _ = run(capsys, "tradeoff", "subsampled-gaussian", "--mu", "1", "--sample-rate", "0.1",
                       "--alpha", "0.5", "--digits", "15")
    assert code == 0 and labelled(out, "beta", "down") == "0.461707507745197"


def test_account_is_labelled_an_approximation(capsys):
    code, out, err = run(capsys, "account", "--sigma", "1", "--sample-rate", "0.01", "--steps", "1000",
                         "--delta", "1e-5", "--digits", "8", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["clt"]["approximation"] is True and obj["route"] == "bracket"
    assert obj["mu_clt"] == "0.41452164" and float(obj["eps_clt"]) > 0 and 0 < float(obj["gamma"]) < 0.1
    # with --json the warning is in the JSON, and stderr has one line saying so
    assert any("understate" in w for w in obj["warnings"]) and err.count("\n") == 1 and "warnings" in err
    # the acceptance command: the proven bracket beside the CLT, <= 1% wide
    lo, hi = float(obj["eps_lower"]), float(obj["eps_upper"])
    assert lo <= hi <= lo * 1.01 and float(obj["eps_clt"]) < lo
    assert obj["rounding"]["eps_lower"] == "down" and obj["rounding"]["eps_upper"] == "up"
    assert obj["verdict"].startswith("the CLT understates eps by at least")
    code, out, err = run(capsys, "account", "--sigma", "1", "--sample-rate", "0.01", "--steps", "1000",
                         "--sampling", "uniform")
    assert code == 0 and "CLT approximation, not a bound" in out and "understate" in err


@pytest.mark.parametrize("argv", [
    ["compose", "gdp", "--mu", "0", "--mu", "0"],
    ["compose", "clt", "laplace", "--mu", "0", "--n", "10"],
    ["compose", "clt", "randomized-response", "--eps", "0"],
    ["compose", "clt", "subsampled-gaussian", "--mu", "0", "--sample-rate", "0.5", "--n", "10"],
])
def test_zero_privacy_loss_composes_to_mu_zero(capsys, argv):
    """Id composes to Id = G_0 exactly (these once raised KeyError, ZeroDivisionError or exit 3)."""
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 0 and json.loads(out)["mu"] == "0"


def test_simulate_gaussian_agrees_with_g1_and_writes_a_plot(capsys, tmp_path):
    # the acceptance command (10^7 samples per side, a few seconds); the band holds with
    # probability 1 - 1e-6, so this fails falsely at most once in a million runs
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    out_png = tmp_path / "out.png"
    code, out, err = run(capsys, "simulate", "gaussian", "--sensitivity", "1", "--sigma", "1", "--samples",
                         "10000000", "--seed", "1", "--plot", str(out_png), "--json")
    obj = json.loads(out)
    assert code == 0 and obj["inside"] is True and float(obj["half_width"]) < 1e-3
    assert "G_mu" in obj["theory"] and obj["certified"].startswith("monte-carlo")
    assert out_png.stat().st_size > 10_000


def test_simulate_dpsgd_against_the_proven_bracket(capsys):
    # false failure <= 1e-6 (the bracket is proven, the band holds with probability 1 - 1e-6)
    code, out, _ = run(capsys, "simulate", "gaussian", "--sigma", "1", "--sample-rate", "0.1", "--steps", "50",
                       "--samples", "50000", "--seed", "2")
    assert code == 0 and "proven bracket of the 50-fold curve" in out and "inside the band" in out


def test_simulate_module_checks_a_gdp_claim(capsys):
    # a 1-GDP mechanism: the claim mu = 1 stands, the claim mu = 0.8 is refuted (exit 1); each
    # verdict is wrong with probability <= 1e-6
    spec = "tests.simulation.sample_mechanisms:shifted_gaussian"
    code, out, _ = run(capsys, "simulate", "module", "--module", spec, "--mu", "1", "--samples", "100000", "--seed", "1")
    assert code == 0 and "claim not refuted" in out
    code, out, _ = run(capsys, "simulate", "module", "--module", spec, "--mu", "0.8", "--samples", "100000", "--seed", "1")
    assert code == 1 and "claim REFUTED" in out


@pytest.mark.parametrize(("spec", "needle"), [
    ("nocolon", "must be MOD:FUNC"),
    ("no_such_module_xyz:f", "cannot import no_such_module_xyz"),
    ("tests.simulation.sample_mechanisms:nope", "has no function nope"),
    ("tests.simulation.sample_mechanisms:not_a_mechanism", "returned int, not a gdpproof.simulation.Sampler"),
])
def test_simulate_module_bad_specs(capsys, spec, needle):
    code, _, err = run(capsys, "simulate", "module", "--module", spec, "--mu", "1", "--samples", "10", "--seed", "1")
    assert code == 2 and needle in err and "Traceback" not in err


def test_simulate_module_with_workers_and_user_errors(capsys):
    code, out, _ = run(capsys, "simulate", "module", "--module", "tests.simulation.sample_mechanisms:plain_gaussian",
                       "--mu", "1", "--samples", "20000", "--seed", "1", "--workers", "2")
    assert code == 0 and "claim not refuted" in out  # false failure <= 1e-6
    code, _, err = run(capsys, "simulate", "module", "--module", "tests.simulation.sample_mechanisms:raises",
                       "--mu", "1", "--samples", "10", "--seed", "1")
    assert code == 2 and "raised RuntimeError: broken sampler" in err
    code, _, err = run(capsys, "simulate", "randomized-response", "--eps", "1", "--sensitivity", "5",
                       "--samples", "10", "--seed", "1")
    assert code == 2 and "--sensitivity=5 does not apply" in err


EXAMPLE = "examples/audit_gaussian_mechanism.py"


def test_audit_mechanism_example(capsys):
    # the correct mechanism (1-GDP) passes: a false violation has probability <= 1e-6 (the audit's
    # confidence).  The buggy one is the clip-after-noise mechanism of
    # tests/audit/test_mechanisms.py::test_clipping_after_noise_is_caught at the same sample size,
    # whose computed bound puts a miss at probability <= 1e-7 for any seed.
    code, out, _ = run(capsys, "audit", "mechanism", "--module", f"{EXAMPLE}:correct", "--claimed-mu", "1",
                       "--samples", "40000", "--seed", "1")
    assert code == 0 and "no evidence of violation at this sample size" in out and "mu_low" in out
    code, out, _ = run(capsys, "audit", "mechanism", "--module", f"{EXAMPLE}:buggy", "--claimed-mu", "1",
                       "--samples", "40000", "--seed", "1", "--json")
    obj = json.loads(out)
    assert code == 1 and obj["verdict"] == "violation" and obj["violation"] is True
    assert obj["module"] == f"{EXAMPLE}:buggy" and float(obj["mu_low"]) > 1 and obj["rounding"]["mu_low"] == "down"
    assert obj["digits"] == 6 and obj["certified"]["mu_low"] == "arb"
    assert all(isinstance(v, (str, bool, dict, int, type(None))) for v in obj.values())
    assert not any(isinstance(v, float) for v in obj.values())


def test_audit_mechanism_eps_delta_workers_and_score(capsys):
    # an (eps, delta) claim the 1-GDP mechanism satisfies (delta_1(1) = 0.1269..): passes, false
    # violation <= 1e-6; the same run on two workers gives the same JSON
    argv = ["audit", "mechanism", "--module", "tests.audit.samplers:with_score", "--claimed-eps", "1",
            "--claimed-delta", "0.127", "--samples", "70000", "--seed", "4", "--json"]
    code, out, _ = run(capsys, *argv)
    code2, out2, _ = run(capsys, *argv, "--workers", "2")
    obj = json.loads(out)
    assert code == 0 == code2 and out == out2 and obj["score"] == "the caller's score function"
    assert obj["claimed_delta"] == "0.127" and obj["delta_low"] is not None


@pytest.mark.parametrize(("argv", "needle"), [
    ([], "give a claim"),
    (["--claimed-mu", "1", "--claimed-eps", "1"], "cannot be combined"),
    (["--claimed-eps", "1"], "go together"),
    (["--claimed-mu", "-1"], "--claimed-mu='-1' must be >= 0"),
    (["--claimed-mu", "abc"], "--claimed-mu='abc' is not a number"),
    (["--claimed-eps", "1", "--claimed-delta", "2"], "--claimed-delta='2' must be in [0, 1]"),
    (["--claimed-mu", "1", "--samples", "10"], "--samples='10' must be an integer >= 1000"),
    (["--claimed-mu", "1", "--confidence", "1"], "--confidence='1' must be in (0, 1)"),
    (["--claimed-mu", "1", "--digits", "0"], "--digits=0 must be an integer from 1 to 30"),
    (["--claimed-mu", "1", "--seed", "-3"], "--seed='-3' must be an integer >= 0"),
    (["--claimed-mu", "1", "--workers", "0"], "--workers='0' must be an integer >= 1"),
])
def test_audit_mechanism_bad_options(capsys, argv, needle):
    argv = ["audit", "mechanism", "--module", f"{EXAMPLE}:correct", *argv]
    if "--seed" not in argv:
        argv += ["--seed", "1"]
    code, _, err = run(capsys, *argv)
    assert code == 2 and needle in err and "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize(("spec", "needle"), [
    ("examples/no_such_file.py:f", "no such file"),
    (f"{EXAMPLE}:nope", "has no function nope"),
    ("tests.audit.samplers:not_a_pair", "must return (sample_p, sample_q) or (sample_p, sample_q, score)"),
    ("tests.audit.samplers:wrong_shape", "sample_q returned shape (19999,) for n=20000"),
    ("tests.audit.samplers:broken_sampler", "failed: RuntimeError: broken sampler"),
    ("tests.audit.samplers:broken_factory", "broken_factory() raised ValueError: no mechanism today"),
])
def test_audit_mechanism_bad_modules(capsys, spec, needle):
    code, _, err = run(capsys, "audit", "mechanism", "--module", spec, "--claimed-mu", "1", "--samples", "40000",
                       "--seed", "1")
    assert code == 2 and needle in err and "Traceback" not in err and err.count("\n") == 1


def test_audit_mechanism_module_that_fails_to_import(capsys, tmp_path):
    bad = tmp_path / "bad_mechanism_module.py"
    bad.write_text("import numpy\nraise ImportError('missing dependency xyz')\n")
    code, _, err = run(capsys, "audit", "mechanism", "--module", f"{bad}:f", "--claimed-mu", "1", "--seed", "1")
    assert code == 2 and "cannot import" in err and "missing dependency xyz" in err and "Traceback" not in err
    clash = tmp_path / "json.py"
    clash.write_text("def f():\n    pass\n")
    code, _, err = run(capsys, "audit", "mechanism", "--module", f"{clash}:f", "--claimed-mu", "1", "--seed", "1")
    assert code == 2 and "already taken" in err


def test_account_composes_any_mechanism(capsys, tmp_path):
    # the done-when of the one-model issue: the CLI gives the library's answer, with route and bracket
    from gdpproof import account
    from gdpproof.mechanisms import Composed, GaussianMechanism, LaplaceMechanism, Repeated

    argv = ["account", "--mechanism", "gaussian:sigma=10/3,times=10", "--mechanism", "laplace:scale=10,times=5",
            "--delta", "1e-5", "--json"]
    code, out, _ = run(capsys, *argv)
    obj = json.loads(out)
    lib = account(Composed(Repeated(GaussianMechanism(sigma="10/3"), 10), Repeated(LaplaceMechanism(scale=10), 5)),
                  delta="1e-5")
    assert code == 0 and obj["route"] == "bracket"
    assert (obj["eps_lower"], obj["eps_upper"]) == (str(lib.eps_lower), str(lib.eps_upper))
    assert float(obj["eps_upper"]) <= 1.01 * float(obj["eps_lower"])
    spec = tmp_path / "m.toml"
    spec.write_text('[[mechanisms]]\nkind = "gaussian"\nsigma = "10/3"\ntimes = 10\n\n'
                    '[[mechanisms]]\nkind = "laplace"\nscale = 10\ntimes = 5\n', encoding="utf-8")
    code, out2, _ = run(capsys, "account", "--spec", str(spec), "--delta", "1e-5", "--json")
    assert code == 0 and json.loads(out2)["eps_upper"] == obj["eps_upper"]
    code, out, _ = run(capsys, "account", "--mechanism", "gdp:mu=0.3,times=10", "--eps", "1", "--digits", "12",
                       "--json")
    obj = json.loads(out)
    assert code == 0 and obj["route"] == "exact" and obj["delta_upper"] == "0.109239412607"
    code, out, _ = run(capsys, "account", "--mechanism", "rr:eps=0.1,times=100", "--delta", "1e-5",
                       "--route", "exact-finite", "--digits", "10")
    assert code == 0 and "route     : exact-finite" in out and "4.306791373" in out


@pytest.mark.parametrize(("argv", "text"), [
    (["account", "--mechanism", "gausian:sigma=1", "--delta", "1e-5"], "kind='gausian' must be one of"),
    (["account", "--mechanism", "gaussian:sigma=-1", "--delta", "1e-5"], "sigma=-1"),
    (["account", "--mechanism", "gaussian:sigma=1,foo=2", "--delta", "1e-5"], "foo='2' is not a parameter of gaussian"),
    (["account", "--mechanism", "gaussian:sigma=1", "--sigma", "1", "--delta", "1e-5"], "give the mechanism one way"),
    (["account", "--mechanism", "gaussian:sigma=1"], "give --delta"),
    (["account", "--mechanism", "gaussian:sigma=1", "--delta", "1e-5", "--eps", "1"], "give one"),
    (["account", "--mechanism", "gaussian:sigma=1", "--eps", "nan"], "--eps='nan'"),
    (["account", "--mechanism", "gaussian:sigma=1", "--delta", "2"], "--delta='2'"),
    (["account", "--mechanism", "laplace:scale=1,times=3", "--delta", "1e-5", "--route", "exact-finite"],
     "no route accounts"),
    (["account", "--spec", "/nonexistent/m.toml", "--delta", "1e-5"], "spec file '/nonexistent/m.toml'"),
    (["account", "--sigma", "1", "--steps", "3", "--delta", "1e-5"], "--sample-rate is needed"),
    (["account", "--sigma", "1", "--batch-size", "3", "--epochs", "2", "--delta", "1e-5"], "--dataset-size is needed"),
    (["account", "--sigma", "1", "--sample-rate", "0.1", "--steps", "3.5", "--delta", "1e-5"], "--steps='3.5'"),
    (["account", "--mechanism", "gdp:mu=1", "--sampling", "uniform", "--delta", "1e-5"], "applies only to DP-SGD"),
])
def test_account_bad_input_names_the_part(capsys, argv, text):
    code, out, err = run(capsys, *argv)
    assert code == 2 and text in err and "Traceback" not in err and err.count("\n") == 1, err


def test_account_honest_mu_on_request(capsys):
    code, out, _ = run(capsys, "account", "--mechanism", "gaussian:sigma=10/3,times=10",
                       "--mechanism", "laplace:scale=10,times=5", "--delta", "1e-5", "--honest-mu", "--json")
    obj = json.loads(out)
    # the honest mu lies between the Gaussian part's mu = 0.3 sqrt(10) (composing more only adds
    # privacy loss) and sqrt(0.9 + 5 m^2), m = tightest_mu(laplace(0.1)) = 0.12232593 (each Laplace
    # is m-GDP): the bracket must meet [0.94868, 0.98733]
    lo, hi = float(obj["honest_mu_lower"]), float(obj["honest_mu_upper"])
    assert code == 0 and lo <= hi and hi >= 0.948683 and lo <= 0.987329
    assert obj["rounding"]["honest_mu_lower"] == "down" and float(obj["honest_mu_delta_min"]) < 1e-6


def test_account_fixed_batch_and_neighbours(capsys):
    # fixed-size batches now have a proven route; the JSON names the scheme and what is proven
    code, out, err = run(capsys, "account", "--sigma", "1", "--sample-rate", "600/60000", "--steps", "100",
                         "--sampling", "fixed-batch", "--delta", "1e-5", "--rel-width", "0.05", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["route"] == "bracket" and any("understate" in w for w in obj["warnings"])
    assert (obj["sampling"], obj["neighbours"], obj["pair_tight"]) == ("fixed-batch", "replace-one", False)
    # only the dominating pair's lower end is proven: the JSON and the headline say so
    assert "eps_lower" not in obj and float(obj["pair_eps_lower"]) <= float(obj["eps_upper"])
    assert "not for the mechanism" in obj["statement"] and obj["sensitivity"] == "2C"
    assert obj["rounding"]["pair_eps_lower"] == "down"
    code, out, _ = run(capsys, "account", "--sigma", "1", "--sample-rate", "600/60000", "--steps", "100",
                       "--sampling", "fixed-batch", "--delta", "1e-5", "--rel-width", "0.05")
    assert code == 0 and f"eps       <= " in out and "a lower bound for the pair, not for the mechanism" in out
    assert "proven (lower rounded down" not in out and "sensitivity 2C" in out
    code, out, _ = run(capsys, "account", "--sigma", "1", "--sample-rate", "0.01", "--steps", "100",
                       "--neighbours", "replace-one", "--json")
    obj = json.loads(out)
    assert code == 0 and (obj["sampling"], obj["neighbours"], obj["clt_formula"]) == ("poisson", "replace-one", "uniform")
    code, _, err = run(capsys, "account", "--mechanism", "gdp:mu=1", "--neighbours", "replace-one", "--delta", "1e-5")
    assert code == 2 and "--neighbours=replace-one applies only to DP-SGD" in err


def test_best_effort_bracket_is_printed_with_exit_4(capsys):
    """A width that cannot be reached: the proven bracket is printed, a warning says how wide, exit 4."""
    # delta(3 - 1e-7) is about 1.25e-8 (the largest loss is 3): the bracket stays [0, upper]
    code, out, err = run(capsys, "account", "--mechanism", "laplace:scale=1,times=3", "--eps", "2.9999999",
                         "--rel-width", "0.0001", "--json")
    obj = json.loads(out)
    assert code == 4 and obj["target_met"] is False and obj["delta_lower"] == "0"
    assert 1.2e-8 < float(obj["delta_upper"]) < 1e-5
    # with --json the warning is in the JSON; stderr has one line saying so
    assert any("asked 0.0001" in w for w in obj["warnings"]) and err.count("\n") == 1 and "Traceback" not in err
    code, out, err = run(capsys, "account", "--mechanism", "laplace:scale=1,times=3", "--eps", "2.9999999",
                         "--rel-width", "0.0001")
    assert code == 4 and err.startswith("gdpproof: warning: ") and "asked 0.0001" in err


def test_closed_stdout_ends_quietly(monkeypatch):
    """``gdpproof ... | head``: the reader goes away, so writing raises BrokenPipeError; gdpproof
    stops with SIGPIPE's status (141) and no error line (in process: this machine's pipes do not
    always refuse a write after the reader closes, so the failing write is made here)."""
    import io

    class ClosedPipe(io.TextIOBase):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    err = io.StringIO()
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["convert", "--mu", "1", "--eps", "1"]) == 141
    assert err.getvalue() == ""


@pytest.mark.parametrize("mu", ["105", "1000", "1e6", "1e60"])
def test_tightest_mu_of_laplace_beyond_the_search_refuses_with_one_fitting_line(capsys, mu):
    """Issue 32: at mu = 1e60 an internal OverflowError (exit 5); at 1e6 "nearly Gaussian"; at
    1000 a value below the supremum (the peak, near alpha = e^(-mu/2) / 2, lies past alpha =
    Phi(-10)).  Now exit 3 with one line naming where the peak is and the pure-DP bound."""
    code, out, err = run(capsys, "tightest-mu", "laplace", "--mu", mu, "--digits", "8")
    assert code == 3 and out == "" and err.count("\n") == 1
    assert "peaks near alpha = e^(-mu/2) / 2" in err and "nearly Gaussian" not in err and "randomized-response" in err


def test_tightest_mu_of_laplace_at_the_peak_inside_the_search(capsys):
    # mu = 100: the peak alpha = e^-50 / 2 = 9.6e-23 lies in the range; the value is
    # -2 Phi^-1(e^-50 / 2) there (f(alpha) = alpha), 19.4909497...
    code, out, _ = run(capsys, "tightest-mu", "laplace", "--mu", "100", "--digits", "8")
    assert code == 0 and labelled(out, "mu", "up") == "19.490950"
