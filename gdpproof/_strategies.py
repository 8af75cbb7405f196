"""The hypothesis strategies of :mod:`gdpproof.strategies` (import them from there).

They live in a module of their own because the accountant audit draws its inputs from them
(:mod:`gdpproof.audit.inputs`) while :func:`gdpproof.strategies.assert_accountant` is built on
the audit: with both in one module the two would import each other.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import SearchStrategy

__all__ = [
    "DPSGDConfiguration",
    "tradeoff_functions",
    "gdp_guarantees",
    "epsilon_delta_pairs",
    "dpsgd_configurations",
]

FAMILIES = ("gaussian", "laplace", "randomized_response", "eps_delta")


class _Built(SearchStrategy):  # type: ignore[type-arg]
    """A strategy whose repr shows the call that built it."""

    def __init__(self, inner: SearchStrategy, call: str) -> None:  # type: ignore[type-arg]
        super().__init__()
        self._inner = inner
        self._call = call

    def do_draw(self, data: Any) -> Any:
        return data.draw(self._inner)

    def __repr__(self) -> str:
        return self._call


def _call_text(name: str, given: dict[str, Any], defaults: dict[str, Any]) -> str:
    args = [f"{k}={v!r}" for k, v in given.items() if v != defaults[k] or type(v) is not type(defaults[k])]
    return f"{name}({', '.join(args)})"


def _number(name: str, value: Any, *, allow_none: bool = True) -> float | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgument(f"{name}={value!r} must be a number")
    v = float(value)
    if math.isnan(v) or math.isinf(v):
        raise InvalidArgument(f"{name}={value!r} must be finite")
    return v


def _bounds(lo_name: str, lo: Any, hi_name: str, hi: Any, *, floor: float, ceiling: float | None) -> tuple[
        float, float | None]:
    a = _number(lo_name, lo, allow_none=False)
    b = _number(hi_name, hi)
    assert a is not None
    if a < floor:
        raise InvalidArgument(f"{lo_name}={lo!r} must be >= {floor!r}")
    if b is not None and ceiling is not None and b > ceiling:
        raise InvalidArgument(f"{hi_name}={hi!r} must be <= {ceiling!r}")
    if b is not None and a > b:
        raise InvalidArgument(f"{lo_name}={lo!r} must be <= {hi_name}={hi!r}")
    return a, b


def _floats(lo: float, hi: float | None, *, exclude_min: bool = False) -> SearchStrategy:  # type: ignore[type-arg]
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False, exclude_min=exclude_min)


#: The largest double <= 10^100 (the double 1e100 is a little above it).
_TOP = math.nextafter(1e100, 0.0)


def _parameters(lo_name: str, lo_value: Any, hi_name: str, hi_value: Any) -> SearchStrategy:  # type: ignore[type-arg]
    """Floats in [lo, hi] that the trade-off families take: 0 or [1e-100, 1e100] (a float drawn
    below 1e-100 stands for 0, or for 1e-100 when lo > 0)."""
    lo, hi = _bounds(lo_name, lo_value, hi_name, hi_value, floor=0.0, ceiling=1e100)
    top = min(_TOP, 1e100 if hi is None else hi)
    if 0 < lo and top < 1e-100:
        raise InvalidArgument(f"[{lo_name}, {hi_name}] = [{lo_value!r}, {hi_value!r}] holds no parameter of the "
                              "trade-off families (0 or [1e-100, 1e100])")
    low = 0.0 if lo == 0 else 1e-100
    return _floats(lo, top).map(lambda v: v if v == 0 or v >= 1e-100 else low)


def gdp_guarantees(*, min_mu: float = 0.0, max_mu: float | None = None) -> SearchStrategy[float]:
    """The mu of a mu-GDP guarantee: finite floats in [min_mu, max_mu] (default all mu >= 0), and
    values :func:`gdpproof.gaussian` takes: 0 or [1e-100, 1e100] (one drawn below 1e-100 is 0).

    Examples:
        >>> from hypothesis import given
        >>> from gdpproof.strategies import gdp_guarantees
        >>> @given(gdp_guarantees(min_mu=0.1, max_mu=2.0))
        ... def test(mu):
        ...     assert 0.1 <= mu <= 2.0
        >>> test()
    """
    mus = _parameters("min_mu", min_mu, "max_mu", max_mu)
    text = _call_text("gdp_guarantees", {"min_mu": min_mu, "max_mu": max_mu}, {"min_mu": 0.0, "max_mu": None})
    return _Built(mus, text)


def epsilon_delta_pairs(*, min_epsilon: float = 0.0, max_epsilon: float | None = None, min_delta: float = 0.0,
                        max_delta: float = 1.0) -> SearchStrategy[tuple[float, float]]:
    """(epsilon, delta) of an (epsilon, delta)-DP guarantee: epsilon >= 0 finite, delta in [0, 1];
    epsilon as :func:`gdpproof.eps_delta` takes it, 0 or [1e-100, 1e100] (as in :func:`gdp_guarantees`).

    Examples:
        >>> from hypothesis import given
        >>> from gdpproof.strategies import epsilon_delta_pairs
        >>> @given(epsilon_delta_pairs(max_epsilon=10.0, min_delta=1e-300, max_delta=0.5))
        ... def test(pair):
        ...     eps, delta = pair
        ...     assert 0 <= eps <= 10 and 1e-300 <= delta <= 0.5
        >>> test()
    """
    epsilons = _parameters("min_epsilon", min_epsilon, "max_epsilon", max_epsilon)
    d_lo, d_hi = _bounds("min_delta", min_delta, "max_delta", max_delta, floor=0.0, ceiling=1.0)
    text = _call_text("epsilon_delta_pairs", {"min_epsilon": min_epsilon, "max_epsilon": max_epsilon,
                                              "min_delta": min_delta, "max_delta": max_delta},
                      {"min_epsilon": 0.0, "max_epsilon": None, "min_delta": 0.0, "max_delta": 1.0})
    return _Built(st.tuples(epsilons, _floats(d_lo, d_hi)), text)


class DPSGDConfiguration(NamedTuple):
    """T steps of DP-SGD with Poisson sampling rate p and noise multiplier sigma (clipping norm 1)."""

    noise_multiplier: float
    sample_rate: float
    steps: int


def dpsgd_configurations(*, min_noise_multiplier: float = 0.0, max_noise_multiplier: float | None = None,
                         min_sample_rate: float = 0.0, max_sample_rate: float = 1.0, min_steps: int = 1,
                         max_steps: int | None = None) -> SearchStrategy[DPSGDConfiguration]:
    """DP-SGD configurations: noise_multiplier > 0, sample_rate in (0, 1], steps >= 1.

    A lower bound of 0 on the noise multiplier or the sample rate excludes 0 itself (neither
    describes DP-SGD).

    Examples:
        >>> from hypothesis import given
        >>> from gdpproof.strategies import dpsgd_configurations
        >>> @given(dpsgd_configurations(min_noise_multiplier=0.5, max_steps=1000))
        ... def test(c):
        ...     assert c.noise_multiplier >= 0.5 and 0 < c.sample_rate <= 1 and 1 <= c.steps <= 1000
        >>> test()
    """
    s_lo, s_hi = _bounds("min_noise_multiplier", min_noise_multiplier, "max_noise_multiplier", max_noise_multiplier,
                         floor=0.0, ceiling=None)
    p_lo, p_hi = _bounds("min_sample_rate", min_sample_rate, "max_sample_rate", max_sample_rate, floor=0.0,
                         ceiling=1.0)
    if p_hi == 0.0:
        raise InvalidArgument(f"max_sample_rate={max_sample_rate!r} must be > 0")
    if s_hi == 0.0:
        raise InvalidArgument(f"max_noise_multiplier={max_noise_multiplier!r} must be > 0")
    for name, value in (("min_steps", min_steps), ("max_steps", max_steps)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise InvalidArgument(f"{name}={value!r} must be an int")
    if min_steps < 1:
        raise InvalidArgument(f"min_steps={min_steps!r} must be >= 1")
    if max_steps is not None and max_steps < min_steps:
        raise InvalidArgument(f"min_steps={min_steps!r} must be <= max_steps={max_steps!r}")
    text = _call_text("dpsgd_configurations",
                      {"min_noise_multiplier": min_noise_multiplier, "max_noise_multiplier": max_noise_multiplier,
                       "min_sample_rate": min_sample_rate, "max_sample_rate": max_sample_rate,
                       "min_steps": min_steps, "max_steps": max_steps},
                      {"min_noise_multiplier": 0.0, "max_noise_multiplier": None, "min_sample_rate": 0.0,
                       "max_sample_rate": 1.0, "min_steps": 1, "max_steps": None})
    inner = st.builds(DPSGDConfiguration, _floats(s_lo, s_hi, exclude_min=s_lo == 0.0),
                      _floats(p_lo, p_hi, exclude_min=p_lo == 0.0), st.integers(min_steps, max_steps))
    return _Built(inner, text)


def tradeoff_functions(*, families: Sequence[str] = FAMILIES, min_parameter: float = 0.0,
                       max_parameter: float | None = None) -> SearchStrategy[Any]:
    """Trade-off functions of the standard families, as :class:`gdpproof.TradeOff` values.

    ``families`` from "gaussian" (G_mu), "laplace" (the Laplace location family, shift mu),
    "randomized_response" (epsilon) and "eps_delta" (f_{epsilon,delta}, delta in [0, 1]);
    the parameter (mu or epsilon) lies in [min_parameter, max_parameter] (at most 1e100; a value
    drawn below 1e-100 is taken as 0, or as 1e-100 when min_parameter > 0: the families take 0 or
    [1e-100, 1e100]).

    Examples:
        >>> from hypothesis import given, settings
        >>> from gdpproof.strategies import tradeoff_functions
        >>> @settings(max_examples=5)
        ... @given(tradeoff_functions(families=["gaussian"], max_parameter=3.0))
        ... def test(f):
        ...     assert f.evaluate("0.5", digits=5) <= 0.5
        >>> test()
        >>> tradeoff_functions(families=["laplace"])
        tradeoff_functions(families=['laplace'])
    """
    from .symbolic.tradeoff import eps_delta, gaussian, laplace, randomized_response

    if isinstance(families, str) or not isinstance(families, Sequence) or not families:
        raise InvalidArgument(f"families={families!r} must be a non-empty sequence of {', '.join(FAMILIES)}")
    for fam in families:
        if fam not in FAMILIES:
            raise InvalidArgument(f"families={families!r}: {fam!r} is not one of {', '.join(FAMILIES)}")
    param = _parameters("min_parameter", min_parameter, "max_parameter", max_parameter)
    makers: dict[str, SearchStrategy] = {  # type: ignore[type-arg]
        "gaussian": param.map(gaussian),
        "laplace": param.map(laplace),
        "randomized_response": param.map(randomized_response),
        "eps_delta": st.builds(eps_delta, param, _floats(0.0, 1.0)),
    }
    text = _call_text("tradeoff_functions", {"families": list(families), "min_parameter": min_parameter,
                                             "max_parameter": max_parameter},
                      {"families": list(FAMILIES), "min_parameter": 0.0, "max_parameter": None})
    return _Built(st.one_of([makers[f] for f in dict.fromkeys(families)]), text)
