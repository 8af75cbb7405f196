"""Issue 32: the names people already use (--noise-multiplier, float() of a result), the hint
that the proven answer needs a delta or an eps, and --json keeping stderr to one line."""

from __future__ import annotations

import json
from fractions import Fraction

from gdpproof import account
from gdpproof.cli import main
from gdpproof.mechanisms import GDP, GaussianMechanism, LaplaceMechanism, Composed, Repeated


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


DPSGD = ("--sample-rate", "0.01", "--steps", "100")


def test_noise_multiplier_is_sigma(capsys):
    with_sigma = run(capsys, "account", "--sigma", "1.1", *DPSGD, "--json")
    with_alias = run(capsys, "account", "--noise-multiplier", "1.1", *DPSGD, "--json")
    assert with_sigma == with_alias and with_sigma[0] == 0
    code, _, err = run(capsys, "account", "--noise-multiplier", "0", *DPSGD)
    assert code == 2 and err.count("\n") == 1 and err == "gdpproof: error: --noise-multiplier='0' must be > 0\n"
    code, _, err = run(capsys, "account", "--sigma", "0", *DPSGD)
    assert code == 2 and err == "gdpproof: error: --sigma='0' must be > 0\n"
    code, _, err = run(capsys, "account", "--noise-multiplier", "1", "--sigma", "1", *DPSGD)
    assert code == 2 and "twice" in err


def test_calibrate_takes_noise_multiplier(capsys):
    from gdpproof.cli._parser import build_parser

    args = build_parser("calibrate").parse_args(["calibrate", "dpsgd", "--target-eps", "1", "--delta", "1e-5",
                                                 "--noise-multiplier", "1.3", "--sample-rate", "0.01"])
    assert args.sigma == "1.3"


def test_without_delta_or_eps_the_proven_answer_is_asked_for(capsys):
    code, out, err = run(capsys, "account", "--sigma", "1.1", *DPSGD)
    assert code == 0 and "mu_clt" in out and "needs --delta" in err
    code, out, err = run(capsys, "account", "--sigma", "1.1", *DPSGD, "--json")
    obj = json.loads(out)
    assert code == 0 and any("needs --delta" in w for w in obj["warnings"])
    assert err.count("\n") == 1 and "warnings" in err


def test_json_keeps_stderr_to_one_line(capsys):
    code, out, err = run(capsys, "account", "--sigma", "1", *DPSGD, "--delta", "1e-5", "--json")
    assert code == 0 and err.count("\n") <= 1 and json.loads(out)["warnings"]
    code, out, err = run(capsys, "account", "--mechanism", "gdp:mu=1", "--delta", "1e-5", "--json")
    assert code == 0 and err == "" and json.loads(out)["warnings"] == []


def test_float_is_the_proven_upper_end():
    a = account(GDP(1), delta="1e-5", digits=12)
    assert Fraction(float(a.epsilon)) >= a.epsilon.to_fraction()  # rounded up, as the decimal was
    # the double just below the certified decimal is not an upper end: float() never gives it
    assert Fraction(float(a.epsilon)) - a.epsilon.to_fraction() < Fraction(1, 10**14)
    b = account(Composed(Repeated(GaussianMechanism(sigma="10/3"), 10), Repeated(LaplaceMechanism(scale=10), 5)),
                delta="1e-5")
    assert float(b.epsilon) == b.epsilon.upper > b.epsilon.lower  # the bracket stays available
    assert Fraction(float(b.epsilon)) <= Fraction(str(b.eps_upper))
    c = account(GDP(1), epsilon=1, digits=30)
    assert Fraction(float(c.delta)) >= c.delta.to_fraction() and float(c.epsilon) == 1.0


def test_clt_values_keep_the_digits_asked_beside_a_bracket(capsys):
    # issue 32, item 4: the CLT values are closed forms: certified to --digits; the bracket's ends
    # are doubles (at most 17 digits), and the JSON says why
    code, out, _ = run(capsys, "account", "--sigma", "1", *DPSGD, "--delta", "1e-5", "--digits", "30", "--json")
    obj = json.loads(out)
    assert code == 0 and len(obj["mu_clt"].replace("0.", "", 1)) == 30 and len(obj["eps_upper"]) <= 19
    assert "at most 17" in obj["digits_note"] and "30 digits asked" in obj["digits_note"]
    code, out, _ = run(capsys, "account", "--sigma", "1", *DPSGD, "--delta", "1e-5", "--json")
    obj = json.loads(out)
    assert len(obj["mu_clt"].replace("0.", "", 1).lstrip("0")) == 6 and "digits_note" not in obj


def test_an_option_with_several_names_is_named_as_typed(capsys):
    """An error about a value names the option as the user typed it, whichever of its names."""
    base = ("calibrate", "dpsgd", "--delta", "1e-5", "--sample-rate", "0.01", "--steps", "100")
    for name in ("--eps", "--epsilon", "--target-eps"):
        code, _, err = run(capsys, *base, name, "-1")
        assert code == 2 and err == f"gdpproof: error: {name}='-1' must be > 0\n"
    for name in ("--sigma", "--noise-multiplier"):
        code, _, err = run(capsys, "calibrate", "dpsgd", "--eps", "1", "--delta", "1e-5", name, "-2", "--steps", "100")
        assert code == 2 and err == f"gdpproof: error: {name}='-2' must be > 0\n"
    code, _, err = run(capsys, "calibrate", "--epsilon", "-1", "--delta", "1e-5")
    assert code == 2 and err == "gdpproof: error: --epsilon='-1' must be >= 0\n"
    # in a spec, the key as written; from Python, the argument's own name
    for key in ("sigma", "noise-multiplier"):
        code, _, err = run(capsys, "account", "--mechanism", f"dpsgd:{key}=-1,sample-rate=0.01,steps=10", "--delta", "1e-5")
        assert code == 2 and err.endswith(f": {key}='-1' must be > 0\n")
    from gdpproof.errors import InvalidParameterError
    from gdpproof.mechanisms import dpsgd

    try:
        dpsgd(-1, 0.01, 10)
    except InvalidParameterError as exc:
        assert (exc.argument, str(exc)) == ("noise_multiplier", "noise_multiplier=-1 must be > 0")
    else:
        raise AssertionError("dpsgd(-1, ...) was accepted")


def test_calibrate_dpsgd_says_which_options_to_leave_out(capsys):
    code, _, err = run(capsys, "calibrate", "dpsgd", "--eps", "3", "--delta", "1e-5", "--sample-rate", "0.01")
    assert code == 2 and err == ("gdpproof: error: DP-SGD calibration solves for one of --sigma, --steps/--epochs and "
                                 "--sample-rate/--batch-size: leave exactly that one out (unset: --sigma, "
                                 "--steps/--epochs)\n")
    code, _, err = run(capsys, "calibrate", "dpsgd", "--eps", "3", "--delta", "1e-5", "--sample-rate", "0.01",
                       "--noise-multiplier", "1", "--epochs", "2")
    assert code == 2 and err.endswith("leave exactly that one out (all are given)\n")


def test_one_rule_per_option_whichever_side_it_misses(capsys):
    """A trial found --delta 2 refused as 'in [0, 1]' but --delta 0 as 'in (0, 1)', and --steps 1e20
    as 'at most 10^18' but 10^10 as 'at most 10^9': one rule each now."""
    for d in ("2", "1", "0", "-1e-5"):
        code, _, err = run(capsys, "account", "--mechanism", "gaussian:sigma=1", "--delta", d)
        assert code == 2 and err == f"gdpproof: error: --delta='{d}' must be in (0, 1)\n"
    for q in ("1.5", "0", "-1"):
        code, _, err = run(capsys, "account", "--sigma", "1", "--sample-rate", q, "--steps", "10", "--delta", "1e-5")
        assert code == 2 and err == f"gdpproof: error: --sample-rate='{q}' must be in (0, 1]\n"
    for t in ("1e20", "10000000000"):
        code, _, err = run(capsys, "account", "--sigma", "1", "--sample-rate", "0.01", "--steps", t, "--delta", "1e-5")
        assert code == 2 and err == f"gdpproof: error: --steps='{t}' must be at most 10^9\n"


def test_a_negative_number_in_scientific_notation_is_a_value(capsys):
    code, out, _ = run(capsys, "convert", "--mu", "1", "--eps", "-1e-3", "--digits", "5")
    assert code == 0 and out.startswith("delta = 0.38324")  # Phi(0.501) - e^-0.001 Phi(-0.499), rounded up
    code, _, err = run(capsys, "account", "--mechanism", "gaussian:sigma=1", "--delta", "-1e-5")
    assert code == 2 and "must be in (0, 1)" in err


def test_the_schedule_s_rules_name_options_not_python_arguments(capsys):
    cases = [
        (("--sample-rate", "0.01"), "--steps is needed: give --steps, or --epochs"),
        (("--steps", "100"), "--sample-rate is needed: give --sample-rate, or --batch-size and --dataset-size"),
        (("--batch-size", "600", "--dataset-size", "500", "--steps", "10"),
         "--batch-size='600' must be at most --dataset-size=500"),
        (("--sample-rate", "0.01", "--steps", "100", "--epochs", "3"),
         "--epochs='3' cannot be given with --steps='100': give one of them"),
    ]
    for options, message in cases:
        code, _, err = run(capsys, "account", "--sigma", "1", *options, "--delta", "1e-5")
        assert code == 2 and err == f"gdpproof: error: {message}\n"
    # a spec names its own keys; Python its arguments
    code, _, err = run(capsys, "account", "--mechanism", "dpsgd:sigma=1,batch-size=600,dataset-size=500,steps=10",
                       "--delta", "1e-5")
    assert code == 2 and err.endswith(": batch-size='600' must be at most dataset-size=500\n")
    from gdpproof.errors import InvalidParameterError
    from gdpproof.mechanisms import dpsgd

    try:
        dpsgd(1, steps=10, batch_size=600, dataset_size=500)
    except InvalidParameterError as exc:
        assert str(exc) == "batch_size=600 must be at most dataset_size=500"
    else:
        raise AssertionError("a batch above the dataset was accepted")


def test_counts_in_scientific_notation_and_bad_choices(capsys):
    code, out, _ = run(capsys, "simulate", "gaussian", "--sigma", "1", "--samples", "1e4", "--seed", "1", "--json")
    assert code == 0 and json.loads(out)["samples"] == "10000"
    code, _, err = run(capsys, "simulate", "gaussian", "--sigma", "1", "--samples", "1e20", "--seed", "1")
    assert code == 2 and err.startswith("gdpproof: error: --samples=") and "must be an integer in [1, 2^53]" in err
    code, _, err = run(capsys, "calibrate", "gausian", "--eps", "1", "--delta", "1e-5")
    assert code == 2 and err == ("gdpproof: error: gdpproof calibrate: invalid choice: 'gausian' (choose from "
                                 "'gaussian', 'dpsgd')\n")


def test_account_takes_epsilon_as_convert_does(capsys):
    assert run(capsys, "account", "--mechanism", "gdp:mu=1", "--epsilon", "1") == \
        run(capsys, "account", "--mechanism", "gdp:mu=1", "--eps", "1")
    code, _, err = run(capsys, "account", "--mechanism", "gdp:mu=1", "--epsilon", "x")
    assert code == 2 and err.startswith("gdpproof: error: --epsilon='x' is not a number")


def test_review_fixes_on_names_and_notes(capsys):
    """A review's finds: a spec's missing key named as a key; calibrate's batch without a dataset
    size; the notes of a delta of 0 beside an (eps, delta) part and at eps < 0."""
    code, _, err = run(capsys, "account", "--mechanism", "dpsgd:sigma=1,batch-size=10,steps=3", "--delta", "1e-5")
    assert code == 2 and err.endswith(": dataset-size is needed with batch-size (the sampling rate is B/N)\n")
    code, _, err = run(capsys, "calibrate", "dpsgd", "--sigma", "1", "--steps", "100", "--batch-size", "10",
                       "--eps", "1", "--delta", "1e-5")
    assert code == 2 and err == "gdpproof: error: --dataset-size is needed with --batch-size (the sampling rate is B/N)\n"
    code, out, _ = run(capsys, "account", "--mechanism", "rr:epsilon=1,times=3", "--mechanism",
                       "eps-delta:epsilon=0.5,delta=1e-4", "--eps", "3.5", "--route", "bracket", "--json")
    notes = json.loads(out)["notes"]
    assert code == 0 and not any(n.startswith("delta = 0") for n in notes)
    assert any(n.startswith("delta_rest(eps) = 0: eps = 3.5") and n.endswith("so delta = delta_inf") for n in notes)
    code, out, _ = run(capsys, "account", "--mechanism", "laplace:scale=1,times=3", "--eps", "-3", "--json")
    notes = json.loads(out)["notes"]
    assert code == 0 and any(n.startswith("delta(-eps) = 0: -eps = 3 is at least") for n in notes)
    assert not any(n.startswith("delta = 0") for n in notes)
