"""Calibration of DP-SGD with proven answers (gdpproof.calibration) and its command line."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import sympy

from gdpproof import account, calibrate, dpsgd
from gdpproof.calibration import _on_grid, _step
from gdpproof.cli import main
from gdpproof.errors import InvalidParameterError


def test_sigma_is_the_smallest_proven_at_its_digit():
    c = calibrate("2", "1e-5", sample_rate="0.1", steps=100, digits=3)
    # (2.26 while this run took the coupling's bracket; the pairs' narrower one proves 2.25)
    assert (c.parameter, c.text, c.rounding) == ("noise_multiplier", "2.25", "up")
    # the answer meets the target with proof; one unit of the last digit less does not
    assert Fraction(c.account.epsilon.upper) <= 2 < Fraction(c.neighbour_account.epsilon.upper)
    assert c.text_of(c.neighbour) == "2.24"
    # the account is the one door's: the same bracket as account() at the answer
    again = account(dpsgd(c.value, "0.1", 100), delta="1e-5")
    assert again.epsilon == c.account.epsilon
    assert c.evaluations <= 8  # coarse estimates and accounts together: a few, not dozens
    assert c.proven <= 4
    # 2.24's bracket lies above 2, but q = 0.1 is not a double: not a proof that 2.24 fails
    assert "2.25" in c.statement() and "2.24, is not proven to meet the target: its bracket lies above it" in c.statement()


def test_accounts_aim_at_the_boundary_instead_of_walking_to_it():
    # five digits: the coarse estimates land some units of the last digit off (the aimed bracket
    # comes out narrower than asked); walking one unit per account took 41 accounts here, aiming
    # with the slope of log eps against log sigma takes a first guess, the answer and its neighbour
    c = calibrate(2, "1e-5", sample_rate="0.01", steps=1000, digits=5)
    assert (c.text, c.text_of(c.neighbour)) == ("0.95927", "0.95926")  # 0.96091 on the coupling's bracket
    assert Fraction(c.account.epsilon.upper) <= 2 < Fraction(c.neighbour_account.epsilon.upper)
    assert c.proven <= 4
    assert c.to_dict()["proven_accounts"] == c.proven


def test_largest_steps_and_batch_size():
    c = calibrate(2, "1e-5", noise_multiplier=1, steps=1000, dataset_size=1000)
    assert (c.parameter, c.value, c.neighbour, c.rounding) == ("batch_size", 10, 11, "down")
    assert c.account.epsilon.upper <= 2 < c.neighbour_account.epsilon.upper
    assert c.schedule.rule.startswith("sample rate q = B/N = 10/1000")


@pytest.mark.parametrize("value, digits, up, expected, below", [
    (3.20111, 4, True, "3.202", "3.201"),
    (3.20111, 4, False, "3.201", "3.2"),
    (0.99999, 2, True, "1", "0.99"),
    (1.0, 3, True, "1", "0.999"),
])
def test_answer_grid(value, digits, up, expected, below):
    from gdpproof.text import answer_text

    v = _on_grid(value, digits, up)
    assert answer_text(v) == expected
    assert answer_text(_step(v, digits, toward_less=True)) == below


@pytest.mark.parametrize("kwargs, argument", [
    (dict(sample_rate="0.01"), None),                                   # two unknowns
    (dict(noise_multiplier=1, sample_rate="0.01", steps=10), None),     # none unknown
    (dict(sample_rate="0.01", steps=10, digits=0), "digits"),
    (dict(sample_rate="0.01", steps=10, rel_width="abc"), "rel_width"),
    (dict(sample_rate="0.01", steps=10.5), "steps"),
    (dict(batch_size=10, steps=10), "dataset_size"),
    (dict(sample_rate="0.01", steps=10, sampling="shuffled"), "sampling"),
])
def test_bad_requests_are_refused_before_computing(kwargs, argument):
    with pytest.raises(InvalidParameterError) as info:
        calibrate(3, "1e-5", **kwargs)
    assert info.value.argument == argument


@pytest.mark.parametrize("target, delta, argument", [(0, "1e-5", "target_epsilon"), (3, 0, "delta"),
                                                     (3, "1.5", "delta"), ("inf", "1e-5", "target_epsilon")])
def test_bad_targets(target, delta, argument):
    with pytest.raises(InvalidParameterError) as info:
        calibrate(target, delta, sample_rate="0.01", steps=10)
    assert info.value.argument == argument


def test_cli_calibrate_dpsgd_done_when(capsys):
    """The issue's acceptance run: 500 epochs at q = 0.01 (T = 50000), target (3, 1e-5)."""
    code = main(["calibrate", "dpsgd", "--target-eps", "3", "--delta", "1e-5", "--sample-rate", "0.01",
                 "--epochs", "500", "--dataset-size", "60000", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["solved_for"] == "noise_multiplier" and out["rounding"] == "up"
    assert out["steps"] == 50000 and "ceil(500 / 0.01) = 50000" in out["schedule_rule"]
    sigma = Fraction(out["noise_multiplier"])
    assert len(out["noise_multiplier"].replace(".", "").lstrip("0")) <= 4
    assert Fraction(out["eps_upper"]) <= 3
    below = out["neighbour"]
    assert Fraction(below["noise_multiplier"]) == sigma - Fraction(1, 1000)
    # one digit further down breaks the target: its lower end is above 3, or its bracket straddles 3
    assert Fraction(below["eps_upper"]) > 3


def test_cli_calibrate_errors(capsys):
    assert main(["calibrate", "dpsgd", "--eps", "3", "--delta", "1e-5", "--sample-rate", "0.01"]) == 2
    assert "leave exactly that one out (unset: --sigma, --steps/--epochs)" in capsys.readouterr().err
    assert main(["calibrate", "--eps", "1", "--delta", "1e-5", "--steps", "10"]) == 2
    assert "calibrate dpsgd" in capsys.readouterr().err
    assert main(["calibrate", "dpsgd", "--eps", "3", "--delta", "1e-5", "--steps", "x", "--sample-rate", "0.1"]) == 2
    assert "--steps='x'" in capsys.readouterr().err


def test_starting_guess_survives_overflow_and_zero_division():
    """The CLT guess only steers: where its formula overflows (sigma = 0.001) or divides by zero
    (q = 1e-300) the search still starts inside its domain, never an internal error."""
    import math

    from gdpproof.calibration import _guess

    assert _guess(lambda: math.expm1(1 / 0.001**2), 1, 1e9) == 1e9
    assert _guess(lambda: 1 / 0.0, 1e-3, 1e4) == math.sqrt(1e-3 * 1e4)
    assert _guess(lambda: 0.5, 1, 10) == 1


@pytest.mark.parametrize("extra, text", [(["--sigma", "0.001", "--sample-rate", "0.01"], "--sigma="),
                                         (["--sample-rate", "1e-300", "--steps", "10"], "--sample-rate=")])
def test_cli_calibrate_extreme_runs_get_a_clear_error(capsys, extra, text):
    code = main(["calibrate", "dpsgd", "--target-eps", "3", "--delta", "1e-5", *extra])
    err = capsys.readouterr().err
    assert code == 2 and text in err and "internal error" not in err and err.count("\n") == 1


def test_a_closed_form_account_on_the_way_is_read_as_its_value():
    # at q = 1 the account is a certified closed form (no bracket ends); the search read
    # .lower of it and raised AttributeError; now every rate meets the target and it says so
    with pytest.raises(InvalidParameterError, match="meets the target"):
        calibrate(2, "1e-5", noise_multiplier=50, steps=100)


def test_a_rough_upper_end_is_bisected_not_crept_along(monkeypatch):
    # the integers of a long run: the proven upper end wobbles at the scale of one step, so the
    # secant alone creeps; the search bisects once two accounts have not halved the gap, and
    # ends at a value proven to meet the target whose neighbour is not (a stand-in account)
    import math
    from types import SimpleNamespace

    import gdpproof.calibration as cal

    def fake_account(mech, **_):  # convex in log T far from the start, and rough at one step
        rough = 1 + 1e-5 * ((mech * 7919) % 13) / 13
        upper = 2 * math.exp(5 * (mech / 2.5e7 - 1)) * rough
        return SimpleNamespace(epsilon=SimpleNamespace(lower=upper * 0.99, upper=upper))

    monkeypatch.setattr(cal, "account", fake_account)
    problem = cal._Problem("steps", lambda x: (int(x), None), None, False, True, 2.4e7, 1, 1e9)
    c = cal._settle(problem, 1.0e7, 0.5, sympy.Rational(2), sympy.Rational(1, 10**5), 0.01, lambda _: None, 0)
    assert Fraction(c.account.epsilon.upper) <= 2 < Fraction(c.neighbour_account.epsilon.upper)
    assert c.neighbour == c.value + 1
    assert c.proven <= 40  # without the bisection: no boundary within 60 accounts


def test_the_search_stays_in_the_engines_noise_range():
    # the domain is the engine's [0.02, 10000]: past either end the search says so by name
    # (it asked the engine for sigma = 0.0011 or 10010, and was refused as if the user had)
    from gdpproof.accounting import NOISE_MULTIPLIER_RANGE
    from gdpproof.calibration import calibrate
    from gdpproof.errors import InvalidParameterError, PrecisionError

    assert NOISE_MULTIPLIER_RANGE == (0.02, 10_000)
    with pytest.raises(InvalidParameterError, match="every value down to 0.02000 meets the target"):
        calibrate(2, "0.9", sample_rate="0.1", steps=10)
    with pytest.raises(PrecisionError, match=r"no noise_multiplier within \[0.02, 10000\]"):
        calibrate("1e-7", "1e-5", sample_rate="0.5", steps=100)


def test_the_clt_verdict_of_a_tiny_sigma_is_exact():
    # eps_clt is about e^2500 at sigma 0.02: the gap and its share are computed exactly (they
    # overflowed a float)
    from gdpproof import account
    from gdpproof.mechanisms import dpsgd

    a = account(dpsgd("0.02", "0.1", 10), delta="0.9")
    assert a.clt.verdict.startswith("the CLT overstates eps by at least 2.72E+1084"), a.clt.verdict


def test_the_neighbour_is_said_to_fail_only_where_that_is_proven():
    """A trial's case: the neighbour's bracket lay above the target, and the words said its true
    epsilon may still meet it.  Above the target with parameters that are doubles (q = B/65536),
    the neighbour is proven to fail; with sigma = 1.1 (not a double, rounded to the less private
    side) its lower end is not a proof, and the words say why."""
    c = calibrate(2, "1e-5", noise_multiplier=1, dataset_size=65536, epochs=30)
    n = c.neighbour_account
    assert c.parameter == "batch_size" and not n.rounded_parameters and n.pair_tight
    assert n.epsilon.lower > 2 and c.neighbour_refuted
    assert c.neighbour_phrase() == f"proven not to meet the target (its epsilon is at least {n.eps_lower})"
    assert c.to_dict()["neighbour"]["proven_not_to_meet_target"] is True
    c = calibrate(2, "1e-5", noise_multiplier="1.1", dataset_size=60000, epochs=30)
    n = c.neighbour_account
    assert n.rounded_parameters and n.epsilon.lower > 2 and not c.neighbour_refuted
    assert "for the parameters rounded to doubles, so it does not prove that the value fails" in c.neighbour_phrase()
    assert c.to_dict()["neighbour"]["proven_not_to_meet_target"] is False


def test_an_exact_route_neighbour_above_the_target_is_proven_to_fail():
    """A review's find: a neighbour whose account is a closed form (one unsampled step) has no
    bracket object, and was said to straddle the target though its proven lower end is above it."""
    c = calibrate(1, "1e-5", sample_rate=1, steps=1)
    n = c.neighbour_account
    assert n.route == "exact" and Fraction(str(n.eps_lower)) > 1
    assert c.neighbour_refuted and c.neighbour_phrase().startswith("proven not to meet the target")


def test_which_parameter_to_leave_out_is_said_in_python_too():
    """The library says it (the command line renames its arguments to options), and a batch size
    without a dataset size gets the schedule's own rule, not "all are given"."""
    with pytest.raises(InvalidParameterError, match=r"leave exactly that one out \(unset: noise_multiplier, "
                                                    r"steps/epochs\)"):
        calibrate(3, "1e-5", sample_rate="0.01")
    with pytest.raises(InvalidParameterError, match=r"^dataset_size is needed with batch_size"):
        calibrate(3, "1e-5", noise_multiplier=1, steps=100, batch_size=10)
