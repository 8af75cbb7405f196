"""Issue 32, item 7: eps (at a delta) and delta (at an eps) fitted to observed (alpha, beta)
points, like mu_from_points, against the closed forms in floats and the curves themselves."""

from __future__ import annotations

import math

import pytest

import gdpproof
from gdpproof.errors import InvalidParameterError

POINTS = [("0.05", "0.5"), ("0.2", "0.3"), ("0.01", "0.9")]


def test_epsilon_from_points_is_the_smallest_eps_below_every_point():
    eps = gdpproof.epsilon_from_points(POINTS, "1e-5", digits=20)
    want = max(max(0.0, math.log(max((1 - 1e-5 - b) / a, (1 - 1e-5 - a) / b))) for a, b in
               ((float(a), float(b)) for a, b in POINTS))
    assert eps.rounding == "up" and float(eps) == pytest.approx(want, rel=1e-14)
    # at that eps the curve f_{eps,delta} passes below every point (and touches one)
    f = gdpproof.eps_delta(eps, "1e-5")
    gaps = [float(b) - float(f.evaluate(a, digits=15)) for a, b in POINTS]
    assert min(gaps) >= -1e-15 and min(gaps) < 1e-12
    assert gdpproof.epsilon_from_points([("0.5", "0.4")], "0.2") == 0
    assert str(gdpproof.epsilon_from_points([("0", "0.5")], "1e-5")) == "Infinity"


def test_delta_from_points_is_the_smallest_delta_below_every_point():
    d = gdpproof.delta_from_points(POINTS, 1, digits=20)
    want = max(max(0.0, 1 - b - math.e * a, 1 - a - math.e * b) for a, b in
               ((float(a), float(b)) for a, b in POINTS))
    assert d.rounding == "up" and float(d) == pytest.approx(want, rel=1e-14)
    assert gdpproof.delta_from_points([("0.5", "0.5")], 0) == 0


@pytest.mark.parametrize("call", [
    lambda: gdpproof.epsilon_from_points([], "1e-5"),
    lambda: gdpproof.epsilon_from_points([("0.1", "2")], "1e-5"),
    lambda: gdpproof.epsilon_from_points(POINTS, "1.5"),
    lambda: gdpproof.delta_from_points(POINTS, -1),
    lambda: gdpproof.delta_from_points([("0.1",)], 1),
])
def test_points_fits_refuse_bad_input(call):
    with pytest.raises(InvalidParameterError):
        call()
