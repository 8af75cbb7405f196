"""Bad arguments raise InvalidParameterError naming the argument and the value ("name=value rule").

One table: each row is (id, call, argument name, text of the value as the message shows it).
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
import sympy

import gdpproof
from gdpproof import audit
from gdpproof import InvalidParameterError
from gdpproof.symbols import x as X

G = gdpproof.gaussian(1)
NON_SYMMETRIC = gdpproof.TradeOff((1 - gdpproof.symbols.alpha) ** 2, name="square")

def _audit(sample_p=lambda rng, n: rng.standard_normal(n), **kwargs):
    args = {"samples": 1000, "seed": 1, "claimed_mu": 1, **kwargs}
    return gdpproof.audit_mechanism(sample_p, lambda rng, n: rng.standard_normal(n) + 1, **args)


BAD = [
    # family parameters
    ("mu=-1", lambda: gdpproof.gaussian(-1), "mu", "-1"),
    ("mu=nan float", lambda: gdpproof.gaussian(float("nan")), "mu", "nan"),
    ("mu=nan str", lambda: gdpproof.gaussian("nan"), "mu", "nan"),
    ("mu=inf", lambda: gdpproof.gaussian(float("inf")), "mu", "inf"),
    ("mu=abc", lambda: gdpproof.gaussian("abc"), "mu", "abc"),
    ("mu=True", lambda: gdpproof.gaussian(True), "mu", "True"),
    ("laplace mu=-1", lambda: gdpproof.laplace(-1), "mu", "-1"),
    ("laplace mu=nan", lambda: gdpproof.laplace(float("nan")), "mu", "nan"),
    ("epsilon=-0.5", lambda: gdpproof.eps_delta(-0.5), "epsilon", "-0.5"),
    ("rr epsilon=-0.5", lambda: gdpproof.randomized_response(-0.5), "epsilon", "-0.5"),
    ("epsilon=inf", lambda: gdpproof.eps_delta(float("inf"), 0), "epsilon", "inf"),
    ("delta=1.5", lambda: gdpproof.eps_delta(1, 1.5), "delta", "1.5"),
    ("delta=-0.1", lambda: gdpproof.eps_delta(1, -0.1), "delta", "-0.1"),
    ("delta=nan", lambda: gdpproof.eps_delta(1, float("nan")), "delta", "nan"),
    ("substitute mu=-1", lambda: G.substitute(mu=-1), "mu", "-1"),
    # alpha
    ("evaluate alpha=-0.1", lambda: G.evaluate(-0.1), "alpha", "-0.1"),
    ("evaluate alpha=1.5", lambda: G.evaluate(1.5), "alpha", "1.5"),
    ("evaluate alpha=nan", lambda: G.evaluate(float("nan")), "alpha", "nan"),
    ("evaluate alpha='nan'", lambda: G.evaluate("nan"), "alpha", "nan"),
    ("inverse_at alpha=-0.1", lambda: G.inverse_at(-0.1), "alpha", "-0.1"),
    ("inverse_at alpha=1.5", lambda: G.inverse_at(1.5), "alpha", "1.5"),
    ("inverse_at alpha=nan", lambda: G.inverse_at(float("nan")), "alpha", "nan"),
    ("inverse_at non-symmetric alpha=1.5", lambda: NON_SYMMETRIC.inverse_at(1.5), "alpha", "1.5"),
    ("evaluate_fast alpha=-0.1", lambda: G.evaluate_fast(np.array([0.5, -0.1])), "alpha", "-0.1"),
    ("evaluate_fast alpha=1.5", lambda: G.evaluate_fast(np.array([1.5, 0.5])), "alpha", "1.5"),
    ("evaluate_fast alpha=nan", lambda: G.evaluate_fast(np.array([0.5, np.nan])), "alpha", "nan"),
    ("evaluate_fast scalar alpha=1.5", lambda: G.evaluate_fast(1.5), "alpha", "1.5"),
    ("evaluate_mpmath alpha=1.5", lambda: G.evaluate_mpmath(1.5), "alpha", "1.5"),
    # digits / rounding
    ("digits=0", lambda: G.evaluate(0.5, digits=0), "digits", "0"),
    ("digits=1.5", lambda: G.evaluate(0.5, digits=1.5), "digits", "1.5"),
    ("digits=True", lambda: G.evaluate(0.5, digits=True), "digits", "True"),
    ("delta digits=0", lambda: G.delta(1, digits=0), "digits", "0"),
    ("inverse_at digits=1.5", lambda: G.inverse_at(0.5, digits=1.5), "digits", "1.5"),
    ("tightest_mu digits=0", lambda: gdpproof.tightest_mu(G, digits=0), "digits", "0"),
    ("rounding=sideways", lambda: G.evaluate(0.5, rounding="sideways"), "rounding", "sideways"),
    ("inverse_at rounding=sideways", lambda: G.inverse_at(0.5, rounding="sideways"), "rounding", "sideways"),
    # delta(epsilon)
    ("delta() epsilon=nan", lambda: G.delta(float("nan")), "epsilon", "nan"),
    ("laplace delta() epsilon=inf", lambda: gdpproof.laplace(1).delta(float("inf")), "epsilon", "inf"),
    ("delta() epsilon=nan", lambda: G.delta(float("nan")), "epsilon", "nan"),
    # mu_from_points
    ("points=[]", lambda: gdpproof.mu_from_points([]), "points", "[]"),
    ("points=[(0.5,)]", lambda: gdpproof.mu_from_points([(0.5,)]), "points[0]", "(0.5,)"),
    ("points beta=1.5", lambda: gdpproof.mu_from_points([(0.5, 1.5)]), "points[0][1]", "1.5"),
    # location_family
    (
        "density integrates to 2",
        lambda: gdpproof.location_family(sympy.exp(-abs(X)), X, mu=1),
        "density",
        "exp(",
    ),
    ("location_family mu=-1", lambda: gdpproof.location_family(sympy.exp(-abs(X)) / 2, X, mu=-1), "mu", "-1"),
    # composition, subsampling, CLT
    ("rr_composition n=0", lambda: gdpproof.rr_composition(1, 0), "n", "0"),
    ("rr_composition n=2.5", lambda: gdpproof.rr_composition(1, 2.5), "n", "2.5"),
    ("rr_composition n='x'", lambda: gdpproof.rr_composition(1, "x"), "n", "x"),
    ("rr_composition n=True", lambda: gdpproof.rr_composition(1, True), "n", "True"),
    ("rr_composition epsilon=-1", lambda: gdpproof.rr_composition(-1, 3), "epsilon", "-1"),
    ("self_compose n=-2", lambda: gdpproof.self_compose(G, -2), "n", "-2"),
    ("compose f=3", lambda: gdpproof.compose(G, 3), "f", "3"),
    ("with_delta delta=2", lambda: gdpproof.with_delta(G, 2), "delta", "2"),
    ("subsample p=-0.1", lambda: gdpproof.subsample(G, -0.1), "p", "-0.1"),
    ("subsample p=nan", lambda: gdpproof.subsample(G, float("nan")), "p", "nan"),
    ("subsample f=1", lambda: gdpproof.subsample(1, 0.5), "f", "1"),
    ("subsample non-symmetric p=1.5", lambda: gdpproof.subsample(NON_SYMMETRIC, 1.5), "p", "1.5"),
    ("envelope alpha=-0.1", lambda: gdpproof.subsample(NON_SYMMETRIC, "0.5").evaluate(-0.1), "alpha", "-0.1"),
    ("envelope delta epsilon=nan", lambda: gdpproof.subsample(NON_SYMMETRIC, "0.5").delta(float("nan")), "epsilon",
     "nan"),
    ("berry_esseen n=0", lambda: gdpproof.berry_esseen(G, n=0), "n", "0"),
    ("berry_esseen fs=[]", lambda: gdpproof.berry_esseen([]), "fs", "[]"),
    ("functionals digits=0", lambda: gdpproof.functionals(G, digits=0), "digits", "0"),
    ("dpsgd_mu noise_multiplier=-1", lambda: gdpproof.dpsgd_mu(-1, 0.1, 10), "noise_multiplier", "-1"),
    ("dpsgd_mu sample_rate=2", lambda: gdpproof.dpsgd_mu(1, 2, 10), "sample_rate", "2"),
    ("dpsgd_mu steps=0", lambda: gdpproof.dpsgd_mu(1, 0.1, 0), "steps", "0"),
    ("dpsgd_mu sampling='x'", lambda: gdpproof.dpsgd_mu(1, 0.1, 10, sampling="x"), "sampling", "'x'"),
    # reference tables (grid errors name the option: see tests/reference/test_tables.py)
    ("make_table kind='x'", lambda: gdpproof.make_table("x", mu="1"), "kind", "'x'"),
    ("make_table digits=0", lambda: gdpproof.make_table("delta", mu="1", eps="1", digits=0), "digits", "0"),
    ("make_table workers=0", lambda: gdpproof.make_table("delta", mu="1", eps="1", workers=0), "workers", "0"),
    ("make_table format='xls'", lambda: gdpproof.make_table("delta", mu="1", eps="1", format="xls"), "format",
     "'xls'"),
    ("verify_table sample=0", lambda: gdpproof.verify_table("gdp_delta", sample=0), "sample", "0"),
    ("verify_table extra_digits=0", lambda: gdpproof.verify_table("gdp_delta", extra_digits=0), "extra_digits", "0"),
    ("read_table source=missing", lambda: gdpproof.read_table("/nonexistent/t.csv"), "source",
     "/nonexistent/t.csv"),
    # black-box audits (the samplers are never called: arguments are checked first)
    ("audit samples=10", lambda: _audit(samples=10), "samples", "10"),
    ("audit samples=1.5e4", lambda: _audit(samples=1.5e4), "samples", "15000.0"),
    ("audit seed=None", lambda: _audit(seed=None), "seed", "None"),
    ("audit seed=-1", lambda: _audit(seed=-1), "seed", "-1"),
    ("audit confidence=1", lambda: _audit(confidence=1), "confidence", "1"),
    ("audit confidence=nan", lambda: _audit(confidence=float("nan")), "confidence", "nan"),
    ("audit claimed_mu=-1", lambda: _audit(claimed_mu=-1), "claimed_mu", "-1"),
    ("audit claimed_mu=inf", lambda: _audit(claimed_mu=float("inf")), "claimed_mu", "inf"),
    ("audit no claim", lambda: _audit(claimed_mu=None), "claimed_epsilon", "None"),
    ("audit two claims", lambda: _audit(claimed_epsilon=1, claimed_delta=0), "claimed_mu", "1"),
    ("audit claimed_epsilon=-1", lambda: _audit(claimed_mu=None, claimed_epsilon=-1, claimed_delta=0),
     "claimed_epsilon", "-1"),
    ("audit claimed_delta=1.5", lambda: _audit(claimed_mu=None, claimed_epsilon=1, claimed_delta=1.5),
     "claimed_delta", "1.5"),
    ("audit sample_p=3", lambda: _audit(sample_p=3), "sample_p", "3"),
    ("audit score=3", lambda: _audit(score=3), "score", "3"),
    ("audit thresholds=1", lambda: _audit(thresholds=1), "thresholds", "1"),
    ("audit digits=0", lambda: _audit(digits=0), "digits", "0"),
    ("audit workers=0", lambda: _audit(workers=0), "workers", "0"),
    # the accountant audit
    ("audit_function quantity='x'", lambda: audit.audit_function(abs, "x"), "quantity", "'x'"),
    ("audit_function fn=3", lambda: audit.audit_function(3, "delta_from_epsilon"), "fn", "3"),
    ("audit_function rtol=-1", lambda: audit.audit_function(abs, "delta_from_epsilon", rtol=-1), "rtol", "-1"),
    ("audit_function rtol=nan", lambda: audit.audit_function(abs, "delta_from_epsilon", rtol=float("nan")),
     "rtol", "nan"),
    ("audit_function seed=-1", lambda: audit.audit_function(abs, "delta_from_epsilon", seed=-1), "seed", "-1"),
    ("audit_function examples=-2", lambda: audit.audit_function(abs, "delta_from_epsilon", examples=-2),
     "examples", "-2"),
    ("audit_accountant peer='x'", lambda: audit.audit_accountant("x"), "peer", "'x'"),
    ("grid quantity='x'", lambda: audit.grid("x"), "quantity", "'x'"),
    ("AuditReport.of_kind kind='x'", lambda: audit.AuditReport("p", ()).of_kind("x"), "kind", "'x'"),
    # hostile values (issue 19): each a clear error naming the argument, never a TypeError/OverflowError
    ("audit samples=2**1024", lambda: _audit(samples=2**1024), "samples", "e+308"),
    ("audit seed='abc'", lambda: _audit(seed="abc"), "seed", "'abc'"),
    ("simulate samples=2**1024", lambda: _simulate(2**1024, 1), "samples", "e+308"),
    ("simulate seed='abc'", lambda: _simulate(100, "abc"), "seed", "'abc'"),
    ("fast delta mu='abc'", lambda: _fast().delta_from_epsilon("abc", 1), "mu", "'abc'"),
    ("fast delta mu=2**1024", lambda: _fast().delta_from_epsilon(2**1024, 1), "mu", "e+308"),
    ("fast eps delta=sNaN", lambda: _fast().epsilon_from_delta(1, Decimal("sNaN")), "delta", "snan"),
    ("gaussian mu=sNaN", lambda: gdpproof.gaussian(Decimal("sNaN")), "mu", "snan"),
    ("account rel_width='abc'", lambda: gdpproof.account(gdpproof.GDP(1), delta="1e-5", rel_width="abc"),
     "rel_width", "'abc'"),
]


def _fast():
    import gdpproof.fast

    return gdpproof.fast


def _simulate(samples, seed):
    from gdpproof.simulation import GaussianSampler, simulate

    return simulate(GaussianSampler(1, 1), samples, seed=seed)


def test_tiny_delta_is_refused_before_computing():
    """delta = 1e-999999 would need 3.3 million bits per lattice mass: refused at once (it took 35 s)."""
    import time

    start = time.process_time()
    with pytest.raises(gdpproof.PrecisionError, match="below 1e-1000"):
        gdpproof.dpsgd_epsilon(1, 0.01, 100, "1e-999999")
    assert time.process_time() - start < 5


def _row(r):
    if hasattr(r, "marks"):  # a pytest.param row (a namedtuple itself, so test this first)
        return pytest.param(*r.values[1:], id=r.values[0], marks=r.marks)
    return pytest.param(*r[1:], id=r[0])


@pytest.mark.parametrize(("call", "name", "shown"), [_row(r) for r in BAD])
def test_bad_argument_raises(call, name: str, shown: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert isinstance(info.value, ValueError)
    msg = str(info.value)
    assert f"{name}=" in msg, f"message does not name {name!r}: {msg}"
    assert shown.lower() in msg.lower(), f"message does not show the value {shown!r}: {msg}"


# ---------------------------------------------------------------------------------------------
# Symbolic parameters: accepted unless provably invalid; numeric methods refuse them
# ---------------------------------------------------------------------------------------------


def test_symbolic_parameter_without_assumptions_is_accepted() -> None:
    m = sympy.Symbol("m")
    g = gdpproof.gaussian(m)
    assert g.parameters["mu"] == m


def test_symbolic_positive_parameter_is_accepted() -> None:
    m = sympy.Symbol("m", positive=True)
    assert gdpproof.gaussian(m).parameters["mu"] == m
    assert gdpproof.laplace(m + 1).parameters["mu"] == m + 1


def test_provably_negative_symbolic_parameter_is_rejected() -> None:
    m = sympy.Symbol("m", positive=True)
    with pytest.raises(InvalidParameterError, match="mu=-m"):
        gdpproof.gaussian(-m)
    with pytest.raises(InvalidParameterError, match="epsilon=-m"):
        gdpproof.eps_delta(-m)
    with pytest.raises(InvalidParameterError, match="delta=m \\+ 1"):
        gdpproof.eps_delta(1, m + 1)


@pytest.mark.parametrize(
    "method",
    [
        lambda f: f.evaluate("0.5"),
        lambda f: f.evaluate_fast(np.array([0.5])),
        lambda f: f.evaluate_mpmath("0.5"),
        lambda f: f.delta(1),
        lambda f: f.inverse_at("0.5"),
    ],
    ids=["evaluate", "evaluate_fast", "evaluate_mpmath", "delta", "inverse_at"],
)
def test_numeric_methods_refuse_symbolic_parameters(method) -> None:
    f = gdpproof.gaussian(sympy.Symbol("m", positive=True))
    with pytest.raises(InvalidParameterError, match="mu=m"):
        method(f)


def test_substituting_a_symbolic_parameter_makes_it_numeric() -> None:
    f = gdpproof.gaussian(sympy.Symbol("m", positive=True)).substitute(mu=1)
    assert f.evaluate("0.05", digits=12) == G.evaluate("0.05", digits=12)


# ---------------------------------------------------------------------------------------------
# Irrational sympy numbers are enclosed in balls (once a bare TypeError: kept as a regression)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: gdpproof.gaussian(sympy.sqrt(2)).evaluate("0.3", digits=20),
        lambda: G.evaluate(sympy.sqrt(2) / 2, digits=20),
        lambda: gdpproof.gaussian(sympy.pi).delta(1, digits=20),
    ],
    ids=["mu=sqrt(2)", "alpha=sqrt(2)/2", "mu=pi delta"],
)
def test_irrational_sympy_numbers(call) -> None:
    value = call()
    assert isinstance(value, gdpproof.Certified) and value.method == "arb"
