"""The 2020 Census re-accounting (gdpproof.reference.census2020) against independent computations.

The shipped allocation is checked against what it claims of itself; the published conversions
against float re-implementations of the two formulas (the DAS code's bisection on the CKS bound);
a level's discrete Gaussian composition against a brute-force convolution of its exact privacy
loss.  The six real levels run in notebook 06 and in the report check ``census_2020``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy

from gdpproof import account
from gdpproof.calibration import calibrate_variance
from gdpproof.errors import InvalidParameterError
from gdpproof.mechanisms import LaplaceMechanism
from gdpproof.numeric.tradeoff.zcdp import epsilon_from_zcdp
from gdpproof.reference import census2020 as census


def test_the_allocation_is_the_production_one_and_adds_up():
    a = census.load_allocation()
    assert a.provenance["commit"] == "289ee463936a6f0efcf2e378abe410ec01d0e140"
    assert a.global_rho == Fraction(542, 339) ** 2 and a.delta == Fraction(1, 10**10) and a.neighbours == "replace-one"
    assert [lv.name for lv in a.levels] == ["US", "State", "County", "Tract", "Block_Group", "Block"]
    assert sum(q.rho for lv in a.levels for q in lv.queries) == a.global_rho
    # the US level measures no total (the population of the US is invariant); every other level does
    assert [len(lv.queries) for lv in a.levels] == [10, 11, 11, 11, 11, 11]
    assert a.level("State").queries[0] == census.Query("total", Fraction(3773, 4097), a.global_rho * Fraction(1440, 4099)
                                                       * Fraction(3773, 4097))


def test_level_mechanism_follows_the_das_convention():
    lv = census.load_allocation().level("Block")
    leaves = dict(census.level_mechanism(lv).leaves())  # equal mechanisms are merged, counts added
    expected: dict[Fraction, int] = {}
    for q in lv.queries:  # two unit-sensitivity coordinates per marginal query, sigma^2 = 1/rho_q
        expected[1 / q.rho] = expected.get(1 / q.rho, 0) + 2
    assert sum(leaves.values()) == 22 and len(leaves) == len(expected)
    for m, n in leaves.items():
        sq = m.sigma ** 2  # exact: sigma is the square root of a rational
        s2 = Fraction(int(sq.p), int(sq.q))
        assert m.sensitivity == 1 and expected[s2] == n
    mu = census.level_mechanism(lv, variance_factor="0.81", continuous=True).gdp_mu()
    assert sympy.simplify(mu**2 - 2 * sympy.Rational(lv.rho.numerator, lv.rho.denominator) / sympy.Rational("0.81")) == 0


def _cks_delta(eps: float, rho: float) -> float:
    """The DAS code's delta for rho-zCDP at eps (programs/engine/curve.py, get_zcdp_delta): CKS Cor. 13
    minimised over the order by bisection on its derivative, in floats (an independent oracle)."""
    def g(a):
        return (a - 1) * (a * rho - eps) + a * math.log1p(-1 / a) - math.log(a - 1)

    def gprime(a):
        return (2 * a - 1) * rho - eps + math.log1p(-1 / a)

    lo, hi = max((eps + rho) / (2 * rho), 1 + 1e-12), max((eps + rho + 1) / (2 * rho), 2)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gprime(mid) < 0 else (lo, mid)
    return math.exp(g((lo + hi) / 2))


@pytest.mark.parametrize("rho", ["293764/114921", "30551456/471061179"])  # the persons file; its US level
def test_published_conversions_against_float_oracles(rho):
    r = float(Fraction(rho))
    bs = epsilon_from_zcdp(rho, "1e-10", conversion="bun-steinke", digits=12)
    assert abs(float(bs) - (r + 2 * math.sqrt(r * math.log(1e10)))) < 1e-12 * float(bs)
    cks = epsilon_from_zcdp(rho, "1e-10", digits=12, rounding="up")
    assert cks.method == "mpmath-2prec" and float(cks) < float(bs)  # the Bureau's conversion is the tighter one
    # the certified epsilon meets delta = 1e-10 by the DAS code's own formula, and 1e-6 less does not
    assert _cks_delta(float(cks), r) <= 1e-10 * (1 + 1e-9) and _cks_delta(float(cks) * (1 - 1e-6), r) > 1e-10


def test_the_cks_conversion_compares_two_precisions_with_the_engines_guard(monkeypatch):
    """digits and 2 digits, each plus the engine's GUARD_DIGITS (the mpmath-2prec rule)."""
    from gdpproof.numeric.engine.certified import GUARD_DIGITS
    from gdpproof.numeric.tradeoff import zcdp

    seen = []
    inner = zcdp._cks
    monkeypatch.setattr(zcdp, "_cks", lambda r, d, dps: seen.append(dps) or inner(r, d, dps))
    epsilon_from_zcdp("1/2", "1e-10", digits=8)
    assert seen == [8 + GUARD_DIGITS, 16 + GUARD_DIGITS]


def _brute_force_epsilon(sigmas: list[int], delta: float) -> float:
    """eps(delta) of discrete Gaussians N_Z(0, s^2) against N_Z(1, s^2), one per sigma, by convolving
    the exact law of the privacy loss L = (1 - 2z)/(2 s^2) on its lattice (numpy floats)."""
    unit = 2 * math.lcm(*(s * s for s in sigmas))  # L = k / unit with k an integer
    total = np.array([1.0])
    offset = 0
    for s in sigmas:
        z = np.arange(-40 * s, 40 * s + 1)
        pmf = np.exp(-z.astype(float) ** 2 / (2 * s * s))
        pmf /= pmf.sum()
        k = (1 - 2 * z) * (unit // (2 * s * s))  # decreasing in z
        dense = np.zeros(k.max() - k.min() + 1)
        dense[k - k.min()] = pmf
        total = np.convolve(total, dense)
        offset += int(k.min())
    losses = (np.arange(len(total)) + offset) / unit

    def delta_at(eps: float) -> float:
        keep = losses > eps
        return float(np.sum(total[keep] * -np.expm1(eps - losses[keep])))

    lo, hi = 0.0, float(losses.max())
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if delta_at(mid) > delta else (lo, mid)
    return hi


def test_a_small_level_against_brute_force_convolution():
    # a level of two queries with rho 1/4 and 1: discrete Gaussians of scale 2, 2, 1, 1
    rho = Fraction(5, 4)
    lv = census.Level("toy", Fraction(1), rho, (census.Query("a", Fraction(1, 5), Fraction(1, 4)),
                                                census.Query("b", Fraction(4, 5), Fraction(1))))
    m = census.level_mechanism(lv)
    assert [(leaf.sigma, n) for leaf, n in m.leaves()] == [(2, 2), (1, 2)]
    a = account(m, delta="1e-6", route="bracket", rel_width=1e-2)
    exact = _brute_force_epsilon([2, 2, 1, 1], 1e-6)
    assert a.epsilon.lower <= exact <= a.epsilon.upper
    # the continuous Gaussians of the same scales (G_mu, mu^2 = 2 rho = 5/2) are close but not equal
    cont = account(census.level_mechanism(lv, continuous=True), delta="1e-6")
    assert abs(float(cont.epsilon) - exact) < 0.05 * exact


def test_bad_input_is_refused_with_argument_value_and_rule():
    a = census.load_allocation()
    with pytest.raises(InvalidParameterError, match="level='Nation' must be one of US, State"):
        a.level("Nation")
    with pytest.raises(InvalidParameterError, match="variance_factor=0 must be > 0"):
        census.level_mechanism(a.level("US"), variance_factor=0)
    with pytest.raises(InvalidParameterError, match="variance_factor='most' must be an exact real number"):
        census.level_mechanism(a.level("US"), variance_factor="most")
    with pytest.raises(InvalidParameterError, match=r"delta=2 must be in \(0, 1\)"):
        census.account_level(a.level("US"), delta=2)
    with pytest.raises(InvalidParameterError, match="conversions='rdp' must be among cks, bun-steinke"):
        census.account_level(a.level("US"), conversions="rdp")
    with pytest.raises(InvalidParameterError, match=r"delta='1/2' must be in \(0, 1/e\)"):
        epsilon_from_zcdp(1, "1/2")
    with pytest.raises(InvalidParameterError, match="rho=0 must be > 0"):
        epsilon_from_zcdp(0, "1e-10")
    with pytest.raises(InvalidParameterError, match="conversion='x' must be one of"):
        epsilon_from_zcdp(1, "1e-10", conversion="x")
    with pytest.raises(InvalidParameterError, match="guess=5 must lie in"):
        calibrate_variance(lambda c: LaplaceMechanism(sympy.sqrt(c)), 1, "1e-5", guess=5, highest=2)
