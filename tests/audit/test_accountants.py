"""The accountant audit: classification in exact arithmetic, the report, grids, properties, curves.

Deliberately wrong accountants (written here as independent oracles of what peers do) must be
caught; a correct wrapper of the certified values must pass.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import optimize
from scipy.stats import norm

import gdpproof
from gdpproof.audit import AuditReport, PeerCurve, PeerFunction, audit_accountant, audit_curve, audit_function, grid
from gdpproof.errors import InvalidParameterError
from gdpproof.strategies import assert_accountant


# the GDP dual as float64 code usually writes it (DRS Cor. 2.13): cancels for large eps
def float_dual(mu, eps):
    return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)


# inverting it with brentq on the fixed bracket [0, 500] (fails beyond eps = 500)
def fixed_bracket_epsilon(mu, delta):
    f = lambda x: float_dual(mu, x) - delta  # noqa: E731
    if f(0) <= 0:
        return 0.0
    return optimize.brentq(f, 0, 500)


def certified_delta(mu, eps):
    return float(gdpproof.delta_from_epsilon(mu, eps, digits=40))


def test_float_dual_is_caught_and_certified_wrapper_passes():
    with pytest.raises(AssertionError, match="float_dual is unsafe on") as info:
        assert_accountant(float_dual, "delta_from_epsilon", examples=3)
    assert "error" in str(info.value)  # negative or NaN values at large eps are listed too
    report = assert_accountant(certified_delta, "delta_from_epsilon", examples=3)
    assert report.ok and all(f.kind == "agrees" for f in report.results)
    assert report.summary()[0]["verdict"].startswith("agrees on all")


def test_fixed_bracket_is_caught():
    with pytest.raises(AssertionError, match="ValueError"):
        assert_accountant(fixed_bracket_epsilon, "epsilon_from_delta", inputs=[(50.0, 1e-300), (1.0, 1e-5)])


def test_one_ulp_either_way_agrees_and_more_is_classified():
    x = gdpproof.epsilon_from_delta(1, 1e-5, digits=40)
    v = float(x)  # the float nearest to the exact value (x has 40 digits: no tie within reach)
    f = audit_function(lambda mu, d: v, "epsilon_from_delta", inputs=[(1.0, 1e-5)]).results[0]
    assert f.kind == "agrees" and abs(f.relative_error) < 2**-53
    low = math.nextafter(math.nextafter(v, 0), 0)
    f = audit_function(lambda mu, d: low, "epsilon_from_delta", inputs=[(1.0, 1e-5)]).results[0]
    assert f.kind == "unsafe" and -1e-15 < f.relative_error < 0 and not f.within_tolerance
    f = audit_function(lambda mu, d: low, "epsilon_from_delta", inputs=[(1.0, 1e-5)], rtol=1e-14).results[0]
    assert f.kind == "unsafe" and f.within_tolerance
    assert audit_function(lambda mu, d: low, "epsilon_from_delta", inputs=[(1.0, 1e-5)], rtol=1e-14).ok


def test_severity_float_level_within_four_ulps_or_rtol_material_beyond():
    x = gdpproof.epsilon_from_delta(1, 1e-5, digits=40)
    v = float(x)

    def below(k: int) -> float:
        w = v
        for _ in range(k):
            w = math.nextafter(w, 0)
        return w

    def audit(value: float, rtol: float = 0.0):
        return audit_function(lambda mu, d: value, "epsilon_from_delta", inputs=[(1.0, 1e-5)], rtol=rtol)

    # issue 32: five severities by size; only material unsafe findings fail
    for value, severity in ((below(2), "float-level"), (below(3), "float-level"), (below(6), "negligible"),
                            (below(100), "negligible"), (v * (1 - 2e-9), "minor"), (v * 0.9901, "minor"),
                            (v * 0.99, "material"), (v * 0.5, "material"), (0.0, "material")):
        r = audit(value)
        assert r.results[0].kind == "unsafe" and r.results[0].severity == severity, (value, severity)
        assert r.ok is (severity != "material") and r.counts()["unsafe"][severity] == 1
    assert audit(below(100), rtol=1e-12).results[0].severity == "float-level"
    r = audit(math.nan)
    assert r.results[0].kind == "error" and r.results[0].severity == "material" and r.ok  # errors list, never fail
    assert audit(v).results[0].severity == "" and audit(v).of_severity("material") == ()
    with pytest.raises(InvalidParameterError, match="severity='tiny' must be one of material, minor, negligible"):
        r.of_severity("tiny")
    text = audit(below(2)).text(every=True)
    assert "(float-level)" in text and "every finding" in text
    assert "float-level" in audit(below(2)).to_json()


def test_degenerate_inputs_are_reported_apart_and_findings_sorted_by_severity_then_size():
    def fn(mu, eps):
        exact = float(gdpproof.delta_from_epsilon(mu, eps, digits=30))
        return 0.5 * exact if eps in (0.0, 2.0) else exact * (1 - 1e-3) if eps == 1.0 else exact * (1 - 1e-11)

    r = audit_function(fn, "delta_from_epsilon", inputs=[(1.0, 0.5), (1.0, 1.0), (1.0, 0.0), (1.0, 2.0)],
                       properties=False)
    severities = {dict(f.inputs)["epsilon"]: f.severity for f in r.results}
    assert severities == {0.5: "negligible", 1.0: "minor", 0.0: "degenerate", 2.0: "material"}
    assert [f.severity for f in r.findings] == ["material", "minor", "negligible", "degenerate"]
    assert not r.ok and len(r.material_unsafe) == 1  # the degenerate -50% does not fail, the material one does
    text = r.text()
    assert "reported apart" in text and "(mu=1.0, epsilon=0.0) = " in text.split("reported apart")[1]
    ok = audit_function(fn, "delta_from_epsilon", inputs=[(1.0, 0.0), (1.0, 1.0)], properties=False)
    assert ok.ok and ok.counts()["unsafe"] == {"material": 0, "minor": 1, "negligible": 0, "float-level": 0,
                                               "degenerate": 1}


def test_direction_of_a_budget_is_reversed():
    mu = float(gdpproof.mu_from_epsilon_delta(1, 1e-5, digits=40))
    big, small = mu * (1 + 1e-9), mu * (1 - 1e-9)
    kinds = [audit_function(lambda e, d, v=v: v, "mu_from_epsilon_delta", inputs=[(1.0, 1e-5)]).results[0].kind
             for v in (big, small)]
    assert kinds == ["unsafe", "conservative"]
    beta = float(gdpproof.beta_from_mu(1, 0.05, digits=40))
    r = audit_function(lambda m, a: beta * (1 + 1e-9), "beta_from_mu", inputs=[(1.0, 0.05)])
    assert r.results[0].kind == "unsafe"


@pytest.mark.parametrize(("value", "detail"), [(float("nan"), "NaN"), (-1e-300, "negative value"),
                                               (math.inf, "infinite where the answer is finite"),
                                               (1.5, "delta above 1"), ("x", "not a number")])
def test_errors(value, detail):
    f = audit_function(lambda mu, e: value, "delta_from_epsilon", inputs=[(1.0, 1.0)]).results[0]
    assert f.kind == "error" and detail in f.detail


def test_exception_is_an_error_not_a_crash():
    def boom(mu, eps):
        raise ZeroDivisionError("no")

    f = audit_function(boom, "delta_from_epsilon", inputs=[(1.0, 1.0)]).results[0]
    assert f.kind == "error" and f.detail == "raised ZeroDivisionError: no" and f.value is None


def test_monotonicity_is_checked():
    def wobbly(mu, delta):  # right except that it moves the wrong way between delta = 1e-10 and 1e-20
        return 1.0 if delta == 1e-20 else float(gdpproof.epsilon_from_delta(mu, delta, digits=20)) * 1.001

    r = audit_function(wobbly, "epsilon_from_delta", inputs=[(1.0, d) for d in (1e-5, 1e-10, 1e-20)])
    assert [f.kind for f in r.results if f.source == "property"] == ["error"]
    assert "not decreasing in delta" in r.results[-1].detail


def test_report_table_and_json():
    r = audit_function(float_dual, "delta_from_epsilon", label="float dual", quick=True, examples=0)
    text = str(r)
    assert "float dual" in text and "unsafe and error findings" in text and "worst unsafe" in text
    obj = json.loads(r.to_json())
    # its unsafe values are at most 1e-11 off (negligible): no material unsafe finding; its NaNs
    # are material errors, listed first (issue 32: by severity, then size)
    assert obj["peer"] == "float dual" and obj["ok"] is True
    assert [f["severity"] for f in obj["findings"]][:4] == ["material"] * 4 and obj["findings"][0]["kind"] == "error"
    for f in obj["findings"]:
        assert all(isinstance(v, str) for v in f["inputs"].values())
        assert f["value"] is None or float(f["value"]) == float(f["value"]) or f["value"] == "nan"
    # worst(kind): the finding of that kind with the largest |relative error|; the first one for
    # errors, which have no size.  float64's dual has every kind on the quick grid (measured: 8
    # unsafe, 10 conservative, 4 errors, 3 agreements)
    for kind in ("unsafe", "conservative", "agrees"):
        worst, found = r.worst(kind), r.of_kind(kind)
        found = [f for f in found if f.severity != "degenerate"] or found  # reported apart
        assert found and worst.kind == kind
        assert abs(worst.relative_error) == max(abs(f.relative_error) for f in found), kind
    assert r.of_kind("error") and r.worst("error") == r.of_kind("error")[0]
    assert obj["worst"]["unsafe"] == r.worst("unsafe").to_dict()
    assert f"{r.worst('unsafe').call()} = " in text.split("worst unsafe", 1)[1].splitlines()[0]
    with pytest.raises(gdpproof.InvalidParameterError):
        r.of_kind("bad")


def test_clt_quantity_is_labelled():
    r = audit_function(lambda s, p, t: p * math.sqrt(t * math.expm1(1 / s**2)), "dpsgd_mu_clt", quick=True,
                       examples=3, rtol=1e-14)  # float64 rounding: a few units in the last place
    assert r.ok and all(f.kind == "agrees" or f.within_tolerance for f in r.results), str(r)
    assert "not a privacy guarantee" in r.summary()[0]["verdict"] and any("approximation" in n for n in r.notes)


def test_grids_reach_the_hard_regions():
    assert min(d for _, d in grid("epsilon_from_delta")) == 1e-300
    assert max(e for e, _ in grid("mu_from_epsilon_delta")) == 300.0
    assert {m for m, _ in grid("delta_from_epsilon")} >= {1e-4, 50.0}
    assert max(t for *_, t in grid("dpsgd_mu_clt")) == 100_000
    assert len(grid("dpsgd_epsilon", quick=True)) == 1 and len(grid("dpsgd_epsilon")) == 6


def test_dpsgd_bracket_classification():
    b = gdpproof.dpsgd_epsilon(1.0, 0.01, 1000, 1e-5, rel_width=0.01).eps  # the audit's quick bracket
    funcs = [PeerFunction("below", "dpsgd_epsilon", lambda s, p, t, d: b.lower * 0.98),
             PeerFunction("inside", "dpsgd_epsilon", lambda s, p, t, d: b.mid),
             PeerFunction("above", "dpsgd_epsilon", lambda s, p, t, d: b.upper * 1.5)]
    r = audit_accountant(funcs, quick=True, examples=0)
    assert [f.kind for f in r.results] == ["unsafe", "agrees", "conservative"]
    assert r.results[0].relative_error == pytest.approx(-0.02) and not r.ok


def test_dpsgd_mu_reference_says_when_it_is_only_mu_tail():
    # at (1, 0.001, 1000) mu_tail, a lower bound over every delta, is above the bracket for
    # delta >= delta_min: the comparison's one-point [mu_tail, mu_tail] must not print as exact
    from gdpproof.accounting import composition
    from gdpproof.mechanisms import dpsgd

    h = composition(dpsgd(1.0, 0.001, 1000), grid_step=1e-4).honest_mu()
    assert h.mu_tail > h.mu.upper
    below, above = (audit_function(lambda s, p, t, v=v: v, "dpsgd_mu", inputs=[(1.0, 0.001, 1000)],
                                   properties=False).results[0] for v in (0.9 * h.mu_tail, 1.1 * h.mu_tail))
    assert (below.kind, above.kind) == ("unsafe", "conservative")
    assert below.relative_error == pytest.approx(-0.1) and above.relative_error == pytest.approx(0.1)
    for f in (below, above):
        assert f.reference.startswith(f"mu >= {h.mu_tail!r} (mu_tail, a lower bound proven over every delta")
        assert f"for delta >= {h.delta_min!r} mu is in [{h.mu.lower!r}, {h.mu.upper!r}]" in f.reference
        assert f"[{h.mu_tail!r}, {h.mu_tail!r}]" not in f.reference


def test_curve_audit():
    def concave(s, p, t, a):  # not convex, and above the true curve
        return 1 - np.asarray(a) ** 2

    def gaussian_lower(s, p, t, a):  # G_mu far below the true curve: valid and conservative
        return norm.cdf(norm.isf(np.asarray(a)) - 3.0)

    bad = audit_curve(PeerCurve("concave", concave, lambda s, p, t, e: 0.0), quick=True)
    details = " ".join(f.detail for f in bad.results if f.kind == "error")
    assert "not convex" in details and "less private than the delta its library reports" not in details
    assert any(f.kind == "unsafe" for f in bad.results)
    good = audit_curve(PeerCurve("g3", gaussian_lower, lambda s, p, t, e: 1e-9), quick=True)
    kinds = {f.detail: f.kind for f in good.results if f.source == "curve"}
    assert any("valid trade-off function" in d for d in kinds)
    # G_3 implies a delta far above 1e-9: inconsistent with the delta the "library" reports
    assert any(k == "error" for d, k in kinds.items() if "less private" in d)
    assert all(f.kind == "conservative" for f in good.results if f.source == "grid")


def test_curve_audit_sees_a_nan_delta_and_a_short_curve():
    # found by review: "implied > nan" is False, so a NaN delta passed as consistent; and zip()
    # silently dropped the alphas a short curve did not answer
    def gaussian_lower(s, p, t, a):
        return norm.cdf(norm.isf(np.asarray(a)) - 3.0)

    nan_delta = audit_curve(PeerCurve("nan", gaussian_lower, lambda s, p, t, e: float("nan")), quick=True)
    assert any(f.kind == "error" and "is not a probability" in f.detail for f in nan_delta.results)

    def short(s, p, t, a):
        return gaussian_lower(s, p, t, a)[:-1] if np.size(a) > 1 else gaussian_lower(s, p, t, a)

    cut = audit_curve(PeerCurve("short", short, lambda s, p, t, e: 1.0), quick=True)
    assert any(f.kind == "error" and "values for" in f.detail for f in cut.results)


def test_report_merging_keeps_every_result():
    funcs = [PeerFunction("a", "sigma_from_epsilon_delta", lambda e, d: 1e9),
             PeerFunction("b", "mu_from_epsilon_delta", lambda e, d: 0.0)]
    r = audit_accountant(funcs, quick=True, examples=0)
    assert isinstance(r, AuditReport) and r.ok
    # 15 quick-grid points each; a sigma of 1e9 is too small at eps = 0 with delta 1e-100 and 1e-300
    # (degenerate inputs, reported apart: the report stays ok)
    assert {row["function"]: row["conservative"] for row in r.summary()} == {"a": 13, "b": 15}


def test_drawn_inputs_are_seeded():
    from gdpproof.audit.inputs import _drawn

    a, b, c = (_drawn("epsilon_from_delta", 5, seed) for seed in (1, 1, 2))
    assert a == b and a != c and len(a) >= 3
    assert all(1e-4 <= mu <= 50 and 1e-300 <= d <= 0.5 for mu, d in a)


def test_the_worst_finding_leaves_degenerate_inputs_apart():
    """A trial found "worst unsafe -1.00e+00" at eps = 0 above "no material unsafe finding": the
    degenerate inputs are reported apart, so the worst is taken among the others while there are."""
    def low_at_zero(mu, eps, tiny=False):
        d = math.nextafter(float(gdpproof.delta_from_epsilon(mu, eps, digits=20)), math.inf)  # above the exact
        return 0.0 if eps == 0 else d * (1 - 1e-12) if tiny else d

    r = audit_function(lambda mu, eps: low_at_zero(mu, eps, tiny=True), "delta_from_epsilon", quick=True, examples=0)
    assert any(f.severity == "degenerate" and f.kind == "unsafe" for f in r.findings)
    assert r.worst("unsafe").severity != "degenerate" and abs(r.worst("unsafe").relative_error) < 1e-11
    assert "worst unsafe " in str(r) and "(degenerate input)" not in str(r)
    r = audit_function(low_at_zero, "delta_from_epsilon", quick=True, examples=0)
    assert r.of_kind("unsafe") and all(f.severity == "degenerate" for f in r.of_kind("unsafe"))  # only at eps = 0
    assert r.worst("unsafe").severity == "degenerate" and "worst unsafe (degenerate input)" in str(r)
