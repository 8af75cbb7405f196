"""Issue 32, item 4: exact irrational parameters (log 3, sqrt 2, 3 sqrt 2) in mechanism specs, read
by the safe formula parser: certified on the exact routes, rounded with a note on the bracket."""

from __future__ import annotations

import json
import math

import mpmath

import pytest

from gdpproof.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_closed_forms_on_the_exact_route_are_certified(capsys):
    code, out, _ = run(capsys, "account", "--mechanism", "laplace:scale=1,sensitivity=3*sqrt(2)", "--delta", "1e-5",
                       "--digits", "20", "--json")
    obj = json.loads(out)
    # a Laplace mechanism of mu = 3 sqrt(2): eps(1e-5) just below 3 sqrt(2) (its pure-DP epsilon),
    # certified to 20 digits from the exact parameter
    eps = float(obj["eps_upper"])
    assert code == 0 and obj["route"] == "exact" and obj["eps_upper"] == "4.2426206870192844798"
    assert 4.24 < eps < 3 * math.sqrt(2)
    code, out, _ = run(capsys, "account", "--mechanism", "gdp:mu=sqrt(2)", "--eps", "log(3)", "--digits", "20",
                       "--json")
    obj = json.loads(out)  # --eps is read by the same parser, and certified on the exact route
    assert code == 0 and obj["route"] == "exact" and obj["epsilon"] == "log(3)"
    with mpmath.workdps(40):
        e, m = mpmath.log(3), mpmath.sqrt(2)
        want = mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
        got = mpmath.mpf(obj["delta_upper"])
        assert want <= got <= want * (1 + mpmath.mpf(10) ** -19)
    code, out, _ = run(capsys, "account", "--mechanism", "rr:epsilon=log(3)", "--eps", "1.0986123", "--digits", "6",
                       "--json")
    assert code == 0 and float(json.loads(out)["delta_upper"]) < 1e-6  # eps just above log 3 = 1.09861229


def test_closed_forms_on_the_bracket_route_are_rounded_with_a_note(capsys):
    code, out, _ = run(capsys, "account", "--mechanism", "gaussian:sigma=sqrt(2),times=3",
                       "--mechanism", "laplace:scale=10", "--delta", "1e-5", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["route"] == "bracket"
    assert any("rounded to the neighbouring double on the less private side" in n for n in obj["notes"])


@pytest.mark.parametrize("spec, text", [
    ("gdp:mu=sqrt(x)", "without variables"),
    ("gdp:mu=__import__('os')", "is not an allowed formula"),
    ("gdp:mu=sqrt(-2)", "must be a real number"),
])
def test_bad_closed_forms_get_one_line(capsys, spec, text):
    code, out, err = run(capsys, "account", "--mechanism", spec, "--delta", "1e-5")
    assert code == 2 and out == "" and err.count("\n") == 1 and text in err, err


def test_closed_forms_in_plain_options(capsys):
    # convert: --mu sqrt(2) and --eps log(3) certified (against mpmath at 40 digits)
    code, out, _ = run(capsys, "convert", "--mu", "sqrt(2)", "--eps", "log(3)", "--digits", "25", "--json")
    obj = json.loads(out)
    with mpmath.workdps(40):
        e, m = mpmath.log(3), mpmath.sqrt(2)
        want = mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
        assert code == 0 and want <= mpmath.mpf(obj["delta"]) <= want * (1 + mpmath.mpf(10) ** -24)
    # the bracket route: between rationals around log(3), so the bracket holds for the exact value
    argv = ["account", "--mechanism", "gaussian:sigma=2,times=3", "--mechanism", "laplace:scale=10", "--json"]
    code, out, _ = run(capsys, *argv, "--eps", "log(3)")
    obj = json.loads(out)
    assert code == 0 and obj["route"] == "bracket" and any("log(3) is irrational" in n for n in obj["notes"])
    lo, hi = float(obj["delta_lower"]), float(obj["delta_upper"])
    _, below, _ = run(capsys, *argv, "--eps", "1.0986122886")  # just below log 3 = 1.09861228866811...
    _, above, _ = run(capsys, *argv, "--eps", "1.0986122887")
    assert lo <= float(json.loads(below)["delta_upper"]) and float(json.loads(above)["delta_lower"]) <= hi
    # a curve at a closed-form epsilon (one value, not a list)
    code, out, _ = run(capsys, "account", "--sigma", "1", "--sample-rate", "0.02", "--steps", "20:40:20", "--eps",
                       "log(3)", "--json")
    assert code == 0 and [p["steps"] for p in json.loads(out)["points"]] == [20, 40]
    # a route that sums at a rational epsilon: rounded down, delta an upper bound, said in a note
    code, out, _ = run(capsys, "account", "--mechanism", "discrete-gaussian:sigma=1", "--eps", "log(3)", "--json")
    obj = json.loads(out)
    assert code == 0 and any("an upper bound for the exact value" in n for n in obj["notes"])


@pytest.mark.parametrize("argv, text", [
    (["convert", "--mu", "sqrt(x)", "--eps", "1"], "without variables"),
    (["convert", "--mu", "__import__('os').getcwd()", "--eps", "1"], "is not an allowed formula"),
    (["convert", "--mu", "1", "--eps", "log(-1)"], "--eps"),
    (["account", "--mechanism", "gdp:mu=1", "--delta", "exp(-10)"], "must be a rational number"),
])
def test_bad_closed_forms_in_plain_options_get_one_line(capsys, argv, text):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and text in err, err


def test_solvers_round_an_irrational_argument_outward_with_a_note(capsys):
    # mu at eps = log(3): the solver bisects in rationals, so log(3) is taken just below it (a smaller
    # mu, the safe side), said in a note; between the answers at decimals either side of log(3)
    code, out, _ = run(capsys, "convert", "--eps", "log(3)", "--delta", "1e-5", "--digits", "20", "--json")
    obj = json.loads(out)
    _, below, _ = run(capsys, "convert", "--eps", "1.0986122886681096", "--delta", "1e-5", "--digits", "20", "--json")
    _, above, _ = run(capsys, "convert", "--eps", "1.0986122886681099", "--delta", "1e-5", "--digits", "20", "--json")
    with mpmath.workdps(30):
        mu = mpmath.mpf(obj["mu"])
        assert code == 0 and mpmath.mpf(json.loads(below)["mu"]) <= mu <= mpmath.mpf(json.loads(above)["mu"])
    assert len(obj["notes"]) == 1 and "epsilon=log(3) is irrational" in obj["notes"][0] and "below" in obj["notes"][0]
    # sigma for a sensitivity 3 sqrt(2): taken just above it (a larger sigma), noted in the text
    code, out, _ = run(capsys, "calibrate", "gaussian", "--eps", "1", "--delta", "1e-5", "--sensitivity", "3*sqrt(2)",
                       "--digits", "20")
    _, one, _ = run(capsys, "calibrate", "gaussian", "--eps", "1", "--delta", "1e-5", "--digits", "40", "--json")
    with mpmath.workdps(50):
        sigma = mpmath.mpf(out.split()[2])
        exact_hi = 3 * mpmath.sqrt(2) * mpmath.mpf(json.loads(one)["sigma"])  # sigma is linear in the sensitivity
        assert code == 0 and exact_hi * (1 - mpmath.mpf(10) ** -38) <= sigma <= exact_hi * (1 + mpmath.mpf(10) ** -19)
    assert "note: sensitivity=3*sqrt(2) is irrational" in out
