"""The delta(eps) table kinds over every real eps (issue 17 item 6): ``delta`` of G_mu at eps < 0,
``rr-delta`` (k-ary randomized response) and ``dp-delta`` (the (eps0, delta0)-DP curve), each
against the hockey-stick divergence written out in mpmath, and --verify on them."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import mpmath
import pytest

from gdpproof.cli import main
from gdpproof.errors import InvalidParameterError
from gdpproof.reference import make_table, read_table, verify_table


def _hockey(pairs, eps) -> mpmath.mpf:
    """sum over outcomes of (P(o) - e^eps Q(o))_+: delta(eps) of the pair, for every real eps."""
    x = mpmath.exp(eps)
    return mpmath.fsum(max(mpmath.mpf(0), p - x * q) for p, q in pairs)


def _k_rr(eps0, k):
    e, z = mpmath.exp(eps0), mpmath.exp(eps0) + k - 1
    return [(e / z, 1 / z), (1 / z, e / z), ((k - 2) / z, (k - 2) / z)]


def _dp(eps0, delta0):
    # the worst pair of (eps0, delta0)-DP: reveal with probability delta0, randomized response otherwise
    e, d = mpmath.exp(eps0), delta0
    return [(d, 0), (0, d), ((1 - d) * e / (1 + e), (1 - d) / (1 + e)), ((1 - d) / (1 + e), (1 - d) * e / (1 + e))]


def _rounded_up(value: str, exact: mpmath.mpf) -> bool:
    v = mpmath.mpf(value)
    if v == 0:  # an exact 0 (the oracle's sum carries rounding of about 1e-60)
        return abs(exact) < mpmath.mpf(10) ** -50
    return v - mpmath.mpf(10) ** Decimal(value).as_tuple().exponent < exact <= v


def test_delta_kinds_over_every_real_eps_match_the_hockey_stick_divergence():
    with mpmath.workdps(60):
        t = make_table("rr-delta", eps0="1", k="2,5", eps="-2,-1,-0.5,0,0.5,1,3", digits=25)
        assert len(t.rows) == 14 and t.rounding == {"delta": "up"}
        for eps0, k, eps, delta in t.rows:
            assert _rounded_up(delta, _hockey(_k_rr(mpmath.mpf(eps0), int(k)), mpmath.mpf(eps))), (k, eps, delta)
        # at eps <= -eps0 every outcome counts: delta = 1 - e^eps, the floor of every curve
        assert t.rows[0][3] == t.rows[7][3] == "0.8646647167633873081060006"
        t = make_table("dp-delta", eps0="0.5", delta0="0,0.001", eps="-1,-0.25,0,0.5,2", digits=25)
        for eps0, delta0, eps, delta in t.rows:
            exact = _hockey(_dp(mpmath.mpf(eps0), mpmath.mpf(delta0)), mpmath.mpf(eps))
            assert _rounded_up(delta, exact), (delta0, eps, delta)
        assert [r[3] for r in t.rows if r[2] == "2"] == ["0", "0.001000000000000000000000000"]
        t = make_table("delta", mu="0.5,3", eps="-3,-0.01", digits=30)
        for mu, eps, delta in t.rows:
            m, e = mpmath.mpf(mu), mpmath.mpf(eps)
            exact = mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
            assert exact > 1 - mpmath.exp(e) and _rounded_up(delta, exact), (mu, eps, delta)


def test_verify_recomputes_the_new_kinds_and_catches_a_changed_digit(tmp_path, capsys):
    t = make_table("rr-delta", eps0="2", k="3", eps="-1,0.5", digits=20)
    assert verify_table(t, sample=None).ok
    row = t.rows[1]
    bad = row[:3] + (row[3][:-1] + str((int(row[3][-1]) + 1) % 10),)
    report = verify_table(replace(t, rows=(t.rows[0], bad)), sample=None)
    assert not report.ok and report.mismatches[0].row == 2
    out = tmp_path / "dp.csv"
    assert main(["table", "dp-delta", "--eps0", "1", "--delta0", "1e-6", "--eps=-0.5,0", "--digits", "15",
                 "--workers", "1", "--out", str(out)]) == 0
    assert read_table(out).kind == "dp-delta"
    assert main(["table", "--verify", str(out)]) == 0
    assert "every checked value is right" in capsys.readouterr().out


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(kind="rr-delta", eps0="1", k="1", eps="0"), "--k='1' must be an integer >= 2"),
    (dict(kind="rr-delta", eps0="-1", k="2", eps="0"), "--eps0='-1' must be >= 0"),
    (dict(kind="dp-delta", eps0="1", delta0="2", eps="0"), "--delta0='2' must be in"),
    (dict(kind="mu", eps="-1", delta="0.1"), "--eps='-1' must be >= 0"),  # only the delta(eps) kinds take eps < 0
])
def test_bad_specs_of_the_new_kinds(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        make_table(**kwargs)
