"""The report's checks: each a named function that runs one verification and returns a :class:`CheckResult`.

A check holds no mathematics of its own: every value comes from the library (the modules named
in the imports below), and a check only compares what two routes, a theorem or a table say.
:func:`report_checks` lists them in the order the report shows them; ``quick=True`` leaves out the
derivations and the peer audits.

A failed comparison is returned as ``Outcome.FAILED`` with the offending values in ``detail``;
nothing here uses ``assert`` (``python -O`` would strip it and turn every failure into a pass).
"""

from __future__ import annotations

import contextlib
import enum
import importlib.util
import io
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import sympy
from hypothesis import HealthCheck, given, settings

from ..accounting import account, composition, dpsgd_mu
from ..audit import PEERS, PeerNotInstalledError, audit_accountant
from ..mechanisms import (GDP, Composed, EpsDelta, GaussianMechanism, LaplaceMechanism, PureDP, RandomizedResponse,
                          Repeated)
from ..mechanisms import dpsgd as dpsgd_run
from ..numeric.tradeoff.clt import berry_esseen
from ..numeric.tradeoff.duality import tradeoff_from_delta
from ..numeric.tradeoff.solve import delta_from_epsilon, epsilon_from_delta, mu_from_epsilon_delta, sigma_from_epsilon_delta
from ..text import cell_text
from ..reference import SHIPPED, census2020, check_shipped, verify_table
from ..audit.theory import sampler_of, theory_of
from ..simulation import GaussianSampler, simulate
from ..strategies import epsilon_delta_pairs, gdp_guarantees, tradeoff_functions
from ..symbolic.composition import compose, rr_composition, subsample
from ..symbolic.tradeoff import TradeOff, eps_delta, gaussian, laplace, randomized_response

__all__ = ["Check", "CheckResult", "Outcome", "SECTIONS", "families", "report_checks"]


class Outcome(enum.Enum):
    """What a check found.  ``RAN`` is for a peer audit: its findings are results about the peer."""

    PASSED = "pass"
    FAILED = "FAIL"
    RAN = "ran"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check, a one-line ``detail`` for the table and ``data`` for summary.json."""

    outcome: Outcome
    detail: str
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """False only for a failure: a peer audit that ran, or was skipped, is not a failure of gdpproof."""
        return self.outcome is not Outcome.FAILED

    @classmethod
    def judged(cls, ok: bool, detail: str, data: dict[str, Any] | None = None) -> CheckResult:
        """``PASSED`` if ``ok``, else ``FAILED``."""
        return cls(Outcome.PASSED if ok else Outcome.FAILED, detail, {} if data is None else data)


#: The report's sections, in the order of :func:`report_checks`.
VALUES = "Trade-off functions, conversions and certified values"
COMPOSITION = "Composition, CLT, subsampling, DP-SGD and Monte Carlo"
TABLES = "Reference tables"
PROPERTIES = "Property checks (hypothesis, fixed seed)"
PEER_AUDITS = "Peer audits (quick grids; findings are about the peers)"
DERIVATIONS = "Derivations"
SECTIONS = (VALUES, COMPOSITION, TABLES, PROPERTIES, PEER_AUDITS, DERIVATIONS)


@dataclass(frozen=True)
class Check:
    """A named check: ``run()`` computes its result; ``quick`` says whether ``--quick`` keeps it."""

    name: str
    section: str
    run: Callable[[], CheckResult]
    quick: bool = True


def families() -> list[TradeOff]:
    """The trade-off functions every per-family check (and the first figure) visits."""
    return [gaussian("0.5"), gaussian(1), gaussian(3), eps_delta(1, "1e-5"), randomized_response(1), laplace(1)]


# --- certified values -------------------------------------------------------------------------


def headline() -> CheckResult:
    """G_1(0.05) and delta_1(1) at 40 digits; delta_1(1) against its known value."""
    v = gaussian(1).evaluate("0.05", digits=40)
    d = gaussian(1).delta(1, digits=40)
    expected = "0.1269367375066439458008296247577668804151"
    return CheckResult.judged(str(d) == expected,
                              f"G_1(0.05) = {v}; delta_1(1) = {d} (expected {expected}, rounded up)",
                              {"G_1(0.05)": str(v), "delta_1(1)": str(d)})


def family_validity(f: TradeOff) -> CheckResult:
    """f is a trade-off function: no property (convexity, monotonicity, f <= Id, ...) refuted."""
    r = f.check()
    refuted = [v.property for v in r.verdicts if v.status == "refuted"]
    return CheckResult.judged(r.ok, "no property refuted" if r.ok else f"refuted: {', '.join(refuted)}",
                              {v.property: v.status for v in r.verdicts})


def family_routes(f: TradeOff, digits: int) -> CheckResult:
    """The ball-arithmetic value and the lambdified mpmath value (20 more digits) agree to ``digits``."""
    alphas = ["1e-12", "0.001", "0.05", "0.3", "0.5", "0.9", "0.999999"]
    worst = Decimal(0)
    values = {}
    for a in alphas:
        c = f.evaluate(a, digits=digits, rounding="nearest")
        man, exp = f.evaluate_mpmath(a, dps=digits + 20).man_exp
        m = Fraction(man) * Fraction(2) ** exp
        ref = c.to_fraction()
        err = abs(m - ref) / max(abs(ref), Fraction(1, 10**300))
        worst = max(worst, Decimal(err.numerator) / Decimal(err.denominator))
        values[a] = str(c)
    return CheckResult.judged(worst <= Decimal(10) ** (-digits + 1),
                              f"ball vs lambdified mpmath: worst relative difference {float(worst):.2e}", values)


def family_fast(f: TradeOff) -> CheckResult:
    """The float64 path is within 1e-10 relative of the certified value on 30 points across (0, 1)."""
    alphas = np.concatenate([np.logspace(-12, -1, 12), np.linspace(0.1, 0.9, 9), 1 - np.logspace(-1, -9, 9)])
    got = f.evaluate_fast(alphas)
    worst = 0.0
    for a, v in zip(alphas, got):
        ref = float(f.evaluate(float(a), digits=20, rounding="nearest"))
        if ref != 0:
            worst = max(worst, abs(v - ref) / abs(ref))
    return CheckResult.judged(worst <= 1e-10, f"float64 path: worst relative error {worst:.2e} on 30 points",
                              {"worst_relative_error": f"{worst:.3e}"})


def family_dual(f: TradeOff, digits: int) -> CheckResult:
    """delta(eps) at eps = 0, 0.5, 1, 3 is certified and non-negative."""
    vals = {e: str(f.delta(e, digits=digits)) for e in ("0", "0.5", "1", "3")}
    ok = all(Decimal(v) >= 0 for v in vals.values())
    shown = ", ".join(f"{k}: {cell_text(v)}" for k, v in vals.items())
    return CheckResult.judged(ok, f"delta(eps) at 0, 0.5, 1, 3: {shown}", vals)


def family_tightest_mu(f: TradeOff) -> CheckResult:
    """The tightest GDP guarantee is certified (a value, shown; failing to certify raises)."""
    m = f.tightest_mu(digits=15)
    return CheckResult.judged(True, f"tightest mu = {m} (rounded up)", {"mu": str(m)})


def gaussian_dual_routes(digits: int) -> CheckResult:
    """delta_1(2) by the closed form (Cor. 2.13) equals the certified conjugate route."""
    base = gaussian(1)
    generic = TradeOff(base.template, base.params, "gaussian-via-conjugate", True)
    a, b = base.delta(2, digits=digits), generic.delta(2, digits=digits)
    return CheckResult.judged(a == b, f"closed form {a} vs certified conjugate {b}",
                              {"closed": str(a), "conjugate": str(b)})


def gaussian_envelope() -> CheckResult:
    """The trade-off envelope of G_1's delta(eps) curve, at alpha = 0.2, equals G_1(0.2)."""
    f = gaussian(1)
    a = tradeoff_from_delta(f.delta_expression(), "0.2", digits=20)
    b = f.evaluate("0.2", digits=20)
    return CheckResult.judged(a == b, f"envelope of delta(eps) at 0.2: {a}; G_1(0.2) = {b}",
                              {"envelope": str(a), "direct": str(b)})


def conversions(digits: int) -> CheckResult:
    """eps(delta), mu(eps, delta), sigma(eps, delta) at (1, 1e-5); delta at the returned eps and mu stays <= 1e-5."""
    eps = epsilon_from_delta(1, "1e-5", digits=digits)
    back = delta_from_epsilon(1, eps, digits=digits)
    mu = mu_from_epsilon_delta(1, "1e-5", digits=digits)
    sigma = sigma_from_epsilon_delta(1, "1e-5", digits=digits)
    ok = back <= Decimal("1e-5") and delta_from_epsilon(mu, 1, digits=digits) <= Decimal("1e-5")
    return CheckResult.judged(ok, f"mu=1: eps(1e-5) = {eps}; (1, 1e-5)-DP: mu <= {mu}, sigma >= {sigma}", {
        "eps": str(eps), "mu": str(mu), "sigma": str(sigma), "delta_at_eps": str(back)})


# --- composition, CLT, subsampling, DP-SGD, Monte Carlo -------------------------------------------


def gdp_composition() -> CheckResult:
    """G_1 (x) G_2 is exactly G_sqrt(5), symbolically."""
    c = compose(gaussian(1), gaussian(2))
    mu = c.parameters["mu"]
    ok = c.name == "gaussian" and sympy.simplify(mu - sympy.sqrt(5)) == 0
    return CheckResult.judged(ok, f"G_1 (x) G_2 = {c!r}, exactly (a theorem, not a limit)", {"composition": repr(c)})


def clt_band() -> CheckResult:
    """The exact 100-fold randomized response (eps = 0.1) lies in the Berry-Esseen band at 11 points."""
    be = berry_esseen(randomized_response("0.1"), n=100, digits=15)
    f = rr_composition("0.1", 100)
    inside = all(be.lower(a, digits=15) <= f.evaluate(a, digits=15, rounding="up")
                 and f.evaluate(a, digits=15, rounding="down") <= be.upper(a, digits=15)
                 for a in ("0", "0.01", "0.05", "0.1", "0.2", "0.3", "0.5", "0.7", "0.9", "0.99", "1"))
    # the band is a theorem only for symmetric curves (DRS Thm 3.5): randomized response is one
    return CheckResult.judged(
        inside and not be.approximation,
        f"exact 100-fold randomized response (eps = 0.1) inside the proven band: mu = {be.mu}, gamma = {be.gamma}",
        {"mu": str(be.mu), "gamma": str(be.gamma)})


def subsampled_gaussian() -> CheckResult:
    """C_0.1(G_1) is a valid trade-off function and lies above G_1."""
    c = subsample(gaussian(1), "0.1")
    r = c.check(points=24, digits=15)
    between = all(gaussian(1).evaluate(a, digits=15, rounding="down") <= c.evaluate(a, digits=15, rounding="up")
                  for a in ("0.01", "0.2", "0.5", "0.8"))
    return CheckResult.judged(r.ok and between,
                              f"C_0.1(G_1) is a trade-off function above G_1; tightest mu {c.tightest_mu(digits=8)}",
                              {"check": {v.property: v.status for v in r.verdicts}})


def dpsgd_clt_and_bracket() -> CheckResult:
    """DP-SGD (sigma 1.1, p 256/60000, T 14062): the CLT, labelled, beside a proven eps bracket <= 1% wide."""
    acc = dpsgd_mu("1.1", "256/60000", 14062, delta="1e-5", digits=10)
    ok = (acc.approximation and acc.eps_lower is not None and acc.eps_upper is not None
          and acc.eps_lower <= acc.eps_upper and acc.exact.eps.relative_width <= 0.01)
    return CheckResult.judged(ok, (
        f"sigma = 1.1, p = 256/60000, T = 14062: mu_clt = {acc.mu_clt}, eps_clt(1e-5) = "
        f"{acc.eps_clt}, gamma = {acc.gamma} ({acc.gamma_note}) (CLT APPROXIMATION: can understate the loss); proven "
        f"eps in [{acc.eps_lower}, {acc.eps_upper}]: {acc.verdict}"), {
        "mu_clt": str(acc.mu_clt), "eps_clt": str(acc.eps_clt), "gamma": str(acc.gamma), "approximation": True,
        "gamma_approximation": acc.gamma_approximation,
        "eps_lower": str(acc.eps_lower), "eps_upper": str(acc.eps_upper), "verdict": acc.verdict})


def pld_gaussian() -> CheckResult:
    """The PLD bracket of 16-fold G_0.5 (= G_2 exactly) holds the certified delta_2(eps) at five eps."""
    c = composition(Repeated(GDP("0.5"), 16), grid_step=2e-4)
    rows, ok = {}, True
    for e in ("0", "0.5", "1", "2", "4"):
        exact = delta_from_epsilon(2, e, digits=20)
        b = c.delta(float(e))
        # exact is rounded up by < 1e-19 relative; the bracket must contain the true value
        inside = Fraction(b.lower) <= exact.to_fraction() and \
            Fraction(b.upper) >= exact.to_fraction() * (1 - Fraction(1, 10**18))
        ok = ok and inside
        rows[e] = {"lower": repr(b.lower), "upper": repr(b.upper), "exact": str(exact)}
    return CheckResult.judged(
        ok, "16-fold G_0.5 = G_2: the PLD bracket on delta(eps) holds the exact value at eps = 0, 0.5, 1, 2, 4", rows)


def account_routes(digits: int) -> CheckResult:
    """The one door's routes check each other: exact (closed form) inside the bracket for 10-fold
    G_0.3, exact = exact-finite for 100-fold randomized response, and the bracket of a Gaussian and
    Laplace mix holds a finer bracket of the same number."""
    rows: dict[str, Any] = {}
    gdp = Repeated(GaussianMechanism("10/3"), 10)
    exact = account(gdp, delta="1e-5", digits=digits)
    br = account(gdp, delta="1e-5", route="bracket")
    ok_gdp = exact.route == "exact" and Fraction(br.epsilon.lower) <= exact.epsilon.to_fraction() \
        <= Fraction(br.epsilon.upper)
    rows["10 Gaussian mechanisms, sigma 10/3"] = {"exact": str(exact.epsilon), "bracket": str(br.epsilon)}
    rr = Repeated(RandomizedResponse("0.1"), 100)
    a, b = account(rr, delta="1e-5", digits=digits), account(rr, delta="1e-5", digits=digits, route="exact-finite")
    ok_rr = a.route == "exact" and b.route == "exact-finite" and a.epsilon == b.epsilon
    rows["100 randomized responses, eps 0.1"] = {"exact": str(a.epsilon), "exact-finite": str(b.epsilon)}
    mix = Composed(gdp, Repeated(LaplaceMechanism(10), 5), PureDP("0.05"), EpsDelta("0.1", "1e-7"))
    coarse, fine = account(mix, delta="1e-5"), account(mix, delta="1e-5", rel_width=0.002)
    ok_mix = coarse.route == "bracket" and max(coarse.epsilon.lower, fine.epsilon.lower) <= \
        min(coarse.epsilon.upper, fine.epsilon.upper)
    rows["Gaussian, Laplace, pure and (eps, delta) mix"] = {"1%": str(coarse.epsilon), "0.2%": str(fine.epsilon)}
    return CheckResult.judged(
        ok_gdp and ok_rr and ok_mix,
        f"gdpproof.account: exact eps {cell_text(str(exact.epsilon))} inside the bracket {br.epsilon}; exact = "
        f"exact-finite for 100-fold randomized response ({cell_text(str(a.epsilon))}); a mixed composition's 1% and "
        f"0.2% brackets agree ({coarse.epsilon}, {fine.epsilon})", rows)



#: Su, Su & Wang (arXiv:2410.09296), abstract: the unused share of each level's epsilon and the
#: noise-variance reduction that keeps it, over the eight levels they study (percent).
PAPER_UNUSED = (Fraction("8.50"), Fraction("13.76"))
PAPER_VARIANCE = (Fraction("15.08"), Fraction("24.82"))


def census_2020() -> CheckResult:
    """The 2020 Census redistricting persons file (the Bureau's production allocations), per level,
    against the published epsilon at delta = 1e-10: continuous Gaussians of the production sigmas
    (exactly G_mu) at all six levels, and the discrete Gaussians themselves (a 2% proven bracket)
    at the two extreme levels (US: the smallest rho and the largest unused share; State: the
    largest rho).  Against the classical zCDP conversion the continuous unused shares and variance
    reductions must fall inside the paper's ranges and the discrete intervals must meet them, each
    discrete bracket holding the continuous epsilon; against the Bureau's own (CKS) conversion the
    shares are smaller, and the detail says so (every level's discrete Gaussians: notebook 06)."""
    rows = census2020.reaccount(discrete=False)
    discrete = {r.level.name: r for r in census2020.reaccount(["US", "State"], rel_width=0.02, variance=False)}
    data: dict[str, Any] = {r.level.name: r.to_dict() for r in rows}
    data.update({f"{name} (discrete)": r.to_dict() for name, r in discrete.items()})

    def spans(conv: str) -> tuple[list[Fraction], list[Fraction]]:
        unused = [Fraction(x) for r in rows for x in r.comparisons[conv].to_dict()["continuous_unused_percent"]]
        var = [Fraction(r.comparisons[conv].to_dict()["continuous_variance_reduction_percent"]) for r in rows]
        return unused, var

    bs_unused, bs_var = spans("bun-steinke")
    cks_unused, cks_var = spans("cks")
    inside = all(PAPER_UNUSED[0] <= u <= PAPER_UNUSED[1] for u in bs_unused) and \
        all(PAPER_VARIANCE[0] <= v <= PAPER_VARIANCE[1] for v in bs_var)
    tighter = all(r.comparisons["cks"].published[1] < r.comparisons["bun-steinke"].published[0] for r in rows)
    agree = True
    for r in discrete.values():
        lo, hi = (Fraction(x) for x in r.comparisons["bun-steinke"].to_dict()["unused_percent"])
        agree = agree and lo <= PAPER_UNUSED[1] and hi >= PAPER_UNUSED[0] and \
            r.account.eps_lower <= r.continuous.eps_upper and r.continuous.eps_lower <= r.account.eps_upper

    def pct(values: list[Fraction]) -> str:
        return f"{float(min(values)):.2f}%-{float(max(values)):.2f}%"

    shown = "; ".join(f"{name} discrete eps in [{r.account.eps_lower}, {r.account.eps_upper}]"
                      for name, r in discrete.items())
    return CheckResult.judged(
        inside and tighter and agree,
        f"6 levels (US ... Block), production rho: against the classical conversion rho + 2 sqrt(rho log(1/delta)) "
        f"{pct(bs_unused)} of eps unused and {pct(bs_var)} variance reduction, inside the paper's "
        f"{float(PAPER_UNUSED[0]):.2f}%-{float(PAPER_UNUSED[1]):.2f}% and {float(PAPER_VARIANCE[0]):.2f}%-"
        f"{float(PAPER_VARIANCE[1]):.2f}%; against the Bureau's own conversion (CKS Cor. 13, the DAS code) only "
        f"{pct(cks_unused)} and {pct(cks_var)}: the paper's ranges match the classical conversion ({shown}, "
        "holding the continuous eps; notebook 06)",
        data)


def monte_carlo() -> CheckResult:
    """Simulated mechanisms (numpy only) inside the theory's curves: the Gaussian mechanism against G_1, and
    50 DP-SGD steps against the proven bracket, each with band confidence 1 - 1e-6."""
    sampler = GaussianSampler(1.0, 1.0, dim=3)
    gauss = simulate(sampler, 200_000, seed=2026).check(theory_of(sampler).lower)
    sampler = sampler_of(dpsgd_run(1.0, 0.1, 50))
    theory = theory_of(sampler)
    dpsgd = simulate(sampler, 200_000, seed=2027).check(theory.lower, upper=theory.upper)
    return CheckResult.judged(gauss.inside and dpsgd.inside, (
        f"3-d Gaussian mechanism (sensitivity 1, sigma 1) against G_1: deviation {gauss.max_deviation:.2g} "
        f"within +-{gauss.half_width[0]:.2g}; 50 DP-SGD steps (sigma 1, p 0.1) against the proven bracket: "
        f"{'inside' if dpsgd.inside else 'OUTSIDE'} (band confidence 1 - 1e-6 each)"), {
        "gaussian_inside": gauss.inside, "gaussian_max_deviation": f"{gauss.max_deviation:.4g}",
        "dpsgd_inside": dpsgd.inside, "half_width": f"{gauss.half_width[0]:.4g}"})


# --- reference tables ---------------------------------------------------------------------------


def reference_tables() -> CheckResult:
    """Every shipped table: its first 3 rows regenerate identically; 5 random rows verify at 10 more digits."""
    slices = check_shipped(rows=3)
    verified = {name: verify_table(name, sample=5, seed=0) for name in SHIPPED}
    wrong = [str(m) for v in verified.values() for m in v.mismatches]
    changed = [f"{n}: {d[0]}" for n, d in slices.items() if d]
    ok = not wrong and not changed
    values = sum(v.values_checked for v in verified.values())
    detail = (f"{len(SHIPPED)} shipped tables: the first 3 rows of each recomputed identically, and "
              f"{values} values in 5 random rows each (seed 0) verified at 10 more digits"
              if ok else "; ".join(changed + wrong))
    return CheckResult.judged(ok, detail, {n: {"rows": str(v.rows), "checked": [str(i) for i in v.checked], "ok": v.ok}
                                           for n, v in verified.items()})


# --- properties on hypothesis-drawn inputs ---------------------------------------------------------

#: Drawn examples per property; derandomized, so the same examples every run.
EXAMPLES = 25


class _Counterexample(Exception):
    """Raised inside a property on a violating example; hypothesis shrinks it and the check reports it."""


def _property(test: Callable[[], None], what: str) -> CheckResult:
    """Run a hypothesis property (derandomized); a failure reports hypothesis's shrunk counterexample.

    The library raising on a drawn input (not a ``_Counterexample``) fails the property too: it is
    reported with the exception and hypothesis's falsifying example, not left to stop the report.
    """
    runs = settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))
    try:
        runs(test)()
    except _Counterexample as exc:
        return CheckResult(Outcome.FAILED, f"counterexample: {exc}")
    except Exception as exc:  # noqa: BLE001 - any exception on a drawn input is a found failure
        example = " ".join(str(getattr(exc, "__notes__", [""])[0]).split())  # hypothesis's "Falsifying example: ..."
        return CheckResult(Outcome.FAILED, f"raised {type(exc).__name__}: {str(exc)[:300]}"
                           + (f" ({example})" if example else ""))
    return CheckResult(Outcome.PASSED, f"{what}: held on {EXAMPLES} drawn examples (derandomized)",
                       {"examples": str(EXAMPLES)})


def property_round_trip(digits: int) -> CheckResult:
    """delta(eps(delta)) <= delta for drawn mu in [0.01, 20] and delta in [1e-100, 0.5], to the certified digits."""
    @given(gdp_guarantees(min_mu=0.01, max_mu=20.0), epsilon_delta_pairs(min_delta=1e-100, max_delta=0.5))
    def test(mu: float, pair: Any) -> None:
        delta = Fraction(pair[1])  # the float's exact binary value, as gdpproof reads a float
        if delta_from_epsilon(mu, 0, digits=digits).to_fraction() <= delta:
            return  # no positive eps is needed
        eps = epsilon_from_delta(mu, pair[1], digits=digits)
        back = delta_from_epsilon(mu, eps, digits=digits).to_fraction()
        # eps is rounded up, so delta(eps) <= delta, up to delta(eps)'s own rounding up (one unit)
        if not back <= delta * (1 + Fraction(1, 10 ** (digits - 1))):
            raise _Counterexample((mu, pair[1], str(eps), float(back)))

    return _property(test, "delta(eps(delta)) <= delta, to the certified digits")


def property_symmetry(digits: int) -> CheckResult:
    """G_mu(G_mu(alpha)) = alpha for drawn mu in [0.01, 10] and alpha."""
    @given(gdp_guarantees(min_mu=0.01, max_mu=10.0), epsilon_delta_pairs(max_epsilon=5.0))
    def test(mu: float, pair: Any) -> None:
        f = gaussian(repr(mu))
        a = Decimal(repr(min(pair[1], 0.999)))
        b = f.evaluate(a, digits=digits, rounding="nearest")
        back = f.evaluate(b, digits=digits, rounding="nearest")
        if not abs(back - a) <= Decimal(10) ** (3 - digits) * max(a, Decimal("1e-300")) + Decimal(10) ** -digits:
            raise _Counterexample((mu, a, back))

    return _property(test, "G_mu(G_mu(alpha)) = alpha (symmetry)")


def property_composition(digits: int) -> CheckResult:
    """compose(G_mu1, G_mu2) evaluates as G_sqrt(mu1^2 + mu2^2) and lies below G_mu1, for drawn mu1, mu2, alpha."""
    @given(gdp_guarantees(max_mu=10.0), gdp_guarantees(max_mu=10.0), epsilon_delta_pairs(max_epsilon=1.0))
    def test(m1: float, m2: float, pair: Any) -> None:
        a = repr(min(max(pair[1], 1e-12), 0.999))
        c = compose(gaussian(repr(m1)), gaussian(repr(m2)))
        rule = gaussian(sympy.sqrt(sympy.Rational(repr(m1)) ** 2 + sympy.Rational(repr(m2)) ** 2))
        v = c.evaluate(a, digits=digits)
        if v != rule.evaluate(a, digits=digits):
            raise _Counterexample(("composition rule", m1, m2, a))
        if not v <= gaussian(repr(m1)).evaluate(a, digits=digits, rounding="up"):
            raise _Counterexample(("not below the first factor", m1, m2, a))

    return _property(test, "G_mu1 (x) G_mu2 = G_sqrt(mu1^2 + mu2^2), below each factor")


def property_valid_families() -> CheckResult:
    """Trade-off functions drawn by gdpproof.strategies.tradeoff_functions() pass their validity check."""
    @given(tradeoff_functions())
    def test(f: Any) -> None:
        r = f.check()
        if not r.ok:
            raise _Counterexample((repr(f), [v.property for v in r.verdicts if v.status == "refuted"]))

    return _property(test, "drawn trade-off functions are valid (convex, non-increasing, f <= 1 - alpha)")


# --- peer audits and derivations ------------------------------------------------------------------


def peer_audit(peer: str) -> CheckResult:
    """The quick audit grid of an installed peer library (``SKIPPED`` when it is not installed).

    A peer's unsafe finding is a result about the peer, not a failure of gdpproof: the outcome is ``RAN``.
    """
    try:
        report = audit_accountant(peer, quick=True, seed=0)
    except PeerNotInstalledError as exc:
        return CheckResult(Outcome.SKIPPED, f"not audited: {exc}", {"installed": False})
    counts = {k: len(report.of_kind(k)) for k in ("agrees", "unsafe", "conservative", "error")}
    text = (f"{report.version}: {counts['agrees']} agree, {counts['unsafe']} unsafe, "
            f"{counts['conservative']} conservative, {counts['error']} errors on the quick grid")
    worst = report.worst("unsafe")
    if worst is not None:
        rel = "" if worst.relative_error is None else f" (relative {worst.relative_error:+.2e})"
        text += f"; {report.worst_label('unsafe')}: {worst.call()} = {worst.value!r}, reference {worst.reference}{rel}"
    error = report.worst("error")
    if error is not None:
        text += f"; an error: {error.call()}: {error.detail or error.value!r}"
    return CheckResult(Outcome.RAN, text, {"installed": True, "report": json.loads(report.to_json())})


def _assertions_stripped() -> bool:
    return sys.flags.optimize > 0


def derivation_files() -> list[Path]:
    """derivations/d*.py of a source checkout (absent from an installed wheel: then none)."""
    root = Path(__file__).resolve().parents[2] / "derivations"
    return sorted(root.glob("d[0-9][0-9]_*.py")) if root.is_dir() else []


def derivation(path: Path) -> CheckResult:
    """Run a derivation's ``main()``: it passes when its own assertions hold; ``detail`` is what it printed.

    A derivation ends in ``assert simplify(lhs - rhs) == 0`` (tests/test_derivations.py): under ``python -O`` those
    assertions are stripped, so the derivation is ``SKIPPED`` there rather than passed unchecked.
    """
    if _assertions_stripped():
        return CheckResult(Outcome.SKIPPED, "not run: python -O strips the assertions a derivation consists of")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        return CheckResult(Outcome.FAILED, f"{path} cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # a derivation may import its neighbours (derivations/_check.py)
    buf = io.StringIO()
    try:
        spec.loader.exec_module(module)
        with contextlib.redirect_stdout(buf):
            module.main()
    except AssertionError as exc:
        return CheckResult(Outcome.FAILED, f"assertion failed: {exc}")
    finally:
        sys.path.remove(str(path.parent))
    return CheckResult(Outcome.PASSED, buf.getvalue().strip())


# --- the list -----------------------------------------------------------------------------------


def report_checks(digits: int, *, quick: bool = False) -> list[Check]:
    """Every check of the report, in the order it shows them; ``quick`` leaves out the slow ones (derivations, peer audits, the Census re-accounting).

    Building the list computes nothing: each check runs when its ``run()`` is called.
    """
    out = [Check("headline values at 40 digits", VALUES, headline)]
    for f in families():
        name = repr(f)
        out += [Check(f"{name}: trade-off function", VALUES, partial(family_validity, f)),
                Check(f"{name}: two certified routes agree", VALUES, partial(family_routes, f, digits)),
                Check(f"{name}: float64 path", VALUES, partial(family_fast, f)),
                Check(f"{name}: delta(epsilon)", VALUES, partial(family_dual, f, digits)),
                Check(f"{name}: tightest GDP", VALUES, partial(family_tightest_mu, f))]
    out += [
        Check("Gaussian delta: closed form (Cor. 2.13) = conjugate route", VALUES,
              partial(gaussian_dual_routes, digits)),
        Check("trade-off envelope of the Gaussian delta(eps) is G_mu", VALUES, gaussian_envelope),
        Check("conversions: eps(delta), mu(eps, delta), sigma round trip", VALUES, partial(conversions, digits)),
        Check("composition: G_1 (x) G_2 = G_sqrt(5) (exact)", COMPOSITION, gdp_composition),
        Check("CLT: exact n-fold randomized response lies in the Berry-Esseen band", COMPOSITION, clt_band),
        Check("subsampling: C_p(G_mu) valid and between G_mu and Id", COMPOSITION, subsampled_gaussian),
        Check("DP-SGD: the CLT (an approximation, labelled as one) beside the proven bracket", COMPOSITION,
              dpsgd_clt_and_bracket),
        Check("numerical composition: the proven bracket holds exact Gaussian composition", COMPOSITION, pld_gaussian),
        Check("one door: account's routes (exact, exact-finite, bracket) check each other", COMPOSITION,
              partial(account_routes, digits)),
        Check("Monte Carlo: simulated mechanisms agree with the theory", COMPOSITION, monte_carlo),
        Check("2020 Census redistricting persons: unused budget per level against the paper's ranges", COMPOSITION,
              census_2020, quick=False),
        Check("reference tables: shipped tables recomputed and spot-checked", TABLES, reference_tables),
    ]
    prop = "property (hypothesis, fixed seed): "
    out += [Check(prop + "GDP <-> (eps, delta) round trip", PROPERTIES, partial(property_round_trip, digits)),
            Check(prop + "symmetry of G_mu", PROPERTIES, partial(property_symmetry, digits)),
            Check(prop + "composition of Gaussian trade-offs", PROPERTIES, partial(property_composition, digits)),
            Check(prop + "validity of the families", PROPERTIES, property_valid_families)]
    out += [Check(f"peer audit (quick grid): {peer}", PEER_AUDITS, partial(peer_audit, peer), quick=False)
            for peer in PEERS]
    out += [Check(f"derivation {path.stem}", DERIVATIONS, partial(derivation, path), quick=False)
            for path in derivation_files()]
    return [c for c in out if c.quick] if quick else out
