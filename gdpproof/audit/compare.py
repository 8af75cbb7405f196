"""A peer's value against gdpproof's reference, classified in exact arithmetic.

The reference of a quantity is either certified (:func:`certified`: a decimal proven to its
last digit, recomputed with more digits whenever the comparison needs them) or a proven bracket
(:func:`_bracket`, the DP-SGD quantities).  :func:`_compare` classifies a value as agreeing
(within one float64 rounding of the answer, or inside the bracket), unsafe, conservative or an
error; :func:`evaluate` calls the peer and compares.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

from ..errors import PrecisionError, bad
from .findings import Finding
from .peers import PeerFunction, call
from .quantities import Quantity


#: Digits of the first reference evaluation; more are requested when a comparison needs them.
DIGITS = 30
_MAX_DIGITS = 240


def certified(quantity: str, args: tuple[Any, ...], digits: int) -> Any:
    from ..accounting import dpsgd_mu
    from ..numeric.tradeoff.solve import (beta_from_mu, delta_from_epsilon, epsilon_from_delta, mu_from_epsilon_delta,
                                 sigma_from_epsilon_delta)

    if quantity == "delta_from_epsilon":
        return delta_from_epsilon(args[0], args[1], digits=digits)
    if quantity == "epsilon_from_delta":
        return epsilon_from_delta(args[0], args[1], digits=digits)
    if quantity == "mu_from_epsilon_delta":
        return mu_from_epsilon_delta(args[0], args[1], digits=digits)
    if quantity == "sigma_from_epsilon_delta":
        return sigma_from_epsilon_delta(args[0], args[1], digits=digits)
    if quantity == "beta_from_mu":
        return beta_from_mu(args[0], args[1], digits=digits)
    if quantity == "dpsgd_mu_clt":
        return dpsgd_mu(args[0], args[1], int(args[2]), digits=digits, gamma=False, exact=False).mu_clt
    raise bad("quantity", quantity, "has no certified reference")  # pragma: no cover


@functools.lru_cache(maxsize=16)
def _composition(sigma: float, p: float, steps: int) -> Any:
    from ..accounting import composition
    from ..mechanisms import dpsgd

    return composition(dpsgd(sigma, p, steps), grid_step=1e-4)


@functools.lru_cache(maxsize=16)
def _honest(sigma: float, p: float, steps: int) -> Any:
    return _composition(sigma, p, steps).honest_mu()


@functools.lru_cache(maxsize=64)
def _bracket(quantity: str, args: tuple[Any, ...], rel_width: float) -> Any:
    from ..accounting import dpsgd_epsilon

    sigma, p, steps = float(args[0]), float(args[1]), int(args[2])
    if quantity == "dpsgd_epsilon":
        # near the float floor of delta a narrow bracket may be out of reach: accept a wider one
        for width in (rel_width, 0.01, 0.03, 0.1):
            try:
                return dpsgd_epsilon(sigma, p, steps, float(args[3]), rel_width=max(width, rel_width)).eps
            except PrecisionError:
                if width == 0.1:
                    raise
    if quantity == "dpsgd_mu":
        from ..numeric.engine.bound import Bound

        honest = _honest(sigma, p, steps)
        # mu_tail is a proven lower bound on the tightest mu over every delta, which the bracket
        # (for delta >= delta_min only) may not reach: a claim below it is provably unsafe
        low = max(honest.mu.lower, honest.mu_tail)
        return Bound(low, max(honest.mu.upper, low))
    if quantity == "dpsgd_beta":
        return _composition(sigma, p, steps).tradeoff(float(args[3]))
    raise bad("quantity", quantity, "has no bracket reference")  # pragma: no cover


def _bracket_text(quantity: str, args: tuple[Any, ...], rel_width: float) -> str:
    """The bracket reference as printed: its ends, and for dpsgd_mu where they come from.

    When ``mu_tail`` (a proven lower bound on the mu over every delta) is the comparison's lower
    end, the text says so; when it exceeds the ranged bracket's upper end the reference is only a
    lower bound (nothing bounds that mu from above), and the ranged bracket is printed beside it
    with its delta range, so the comparison's one-point "bracket" never reads as an exact value.
    """
    b = _bracket(quantity, args, rel_width)
    if quantity != "dpsgd_mu":
        return f"[{b.lower!r}, {b.upper!r}]"
    honest = _honest(float(args[0]), float(args[1]), int(args[2]))
    ranged = f"for delta >= {honest.delta_min!r} mu is in [{honest.mu.lower!r}, {honest.mu.upper!r}]"
    if honest.mu_tail <= honest.mu.lower:
        return f"[{b.lower!r}, {b.upper!r}]"
    if honest.mu_tail <= honest.mu.upper:
        return f"[{b.lower!r}, {b.upper!r}] (lower end mu_tail, a lower bound proven over every delta; {ranged})"
    return (f"mu >= {b.lower!r} (mu_tail, a lower bound proven over every delta, with no upper bound there; "
            f"{ranged}, so a value above mu_tail is conservative there)")


def _float_neighbours(v: float) -> tuple[Fraction, Fraction]:
    """The interval of reals that round to v in float64 (half-way to each neighbour)."""
    lo, hi = math.nextafter(v, -math.inf), math.nextafter(v, math.inf)
    fv = Fraction(v)
    return (fv + Fraction(lo)) / 2 if math.isfinite(lo) else fv, (fv + Fraction(hi)) / 2 if math.isfinite(hi) else fv


def _direction_kind(q: Quantity, too_low: bool) -> str:
    return "unsafe" if too_low == (q.unsafe_when == "low") else "conservative"


def _probability_result(q: Quantity) -> bool:
    return q.result in ("delta", "beta")


def _check_value(q: Quantity, value: Any) -> tuple[float | None, str]:
    """(value as float, '') or (value or None, reason it is an error)."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        return None, f"returned {type(value).__name__} {value!r}, not a number"
    if math.isnan(v):
        return v, "NaN"
    if v < 0:
        return v, "negative value"
    if _probability_result(q) and 1 < v < math.inf:
        return v, f"{q.result} above 1"
    return v, ""


def _compare(q: Quantity, label: str, inputs: tuple[Any, ...], ref_inputs: tuple[Any, ...], value: Any,
             rtol: float, source: str, rel_width: float) -> Finding:
    names = tuple(zip(q.args, inputs))
    v, problem = _check_value(q, value)
    if q.reference == "bracket":
        b = _bracket(q.name, tuple(ref_inputs), rel_width)
        ref_text = _bracket_text(q.name, tuple(ref_inputs), rel_width)
        if problem or v is None:
            return Finding(label, q.name, names, v, ref_text, "error", None, False, source, problem)
        if math.isinf(v):
            if q.unsafe_when == "low":  # an infinite loss is trivially safe, and useless
                return Finding(label, q.name, names, v, ref_text, "conservative", math.inf, False, source,
                               "infinite")
            return Finding(label, q.name, names, v, ref_text, "error", None, False, source, "infinite")
        if v < b.lower:
            rel = (v - b.lower) / b.lower if b.lower else None
            kind = _direction_kind(q, True)
        elif v > b.upper:
            rel = (v - b.upper) / b.upper if b.upper else None
            kind = _direction_kind(q, False)
        else:
            return Finding(label, q.name, names, v, ref_text, "agrees", 0.0, True, source, "inside the bracket")
        within = rel is not None and abs(rel) <= rtol
        return Finding(label, q.name, names, v, ref_text, kind, rel, within, source)
    digits = DIGITS
    while True:
        c = certified(q.name, tuple(ref_inputs), digits)
        ref_text = str(c)
        if problem or v is None:
            return Finding(label, q.name, names, v, ref_text, "error", None, False, source, problem)
        if c.is_infinite():
            if math.isinf(v):
                return Finding(label, q.name, names, v, ref_text, "agrees", None, True, source)
            return Finding(label, q.name, names, v, ref_text, _direction_kind(q, True), None, False, source,
                           "finite where the answer is infinite")
        if math.isinf(v):
            return Finding(label, q.name, names, v, ref_text, "error", None, False, source,
                           "infinite where the answer is finite")
        lo, hi = c.enclosure()
        fv = Fraction(v)
        near_lo, near_hi = _float_neighbours(v)
        if near_lo <= lo and hi <= near_hi:
            return Finding(label, q.name, names, v, ref_text, "agrees", _relative(fv, lo, hi), True, source)
        if fv < lo or fv > hi:
            if not (near_lo <= hi and lo <= near_hi):  # the rounding interval of v misses the answer
                rel = _relative(fv, lo, hi)
                kind = _direction_kind(q, fv < lo)
                within = rel is not None and abs(rel) <= rtol
                return Finding(label, q.name, names, v, ref_text, kind, rel, within, source)
        if digits >= _MAX_DIGITS:  # pragma: no cover - the exact answer sits on a float rounding boundary
            raise PrecisionError(f"could not decide {label} at {names} with {digits} digits")
        digits *= 2


def _relative(v: Fraction, lo: Fraction, hi: Fraction) -> float | None:
    mid = (lo + hi) / 2
    if mid == 0:
        return None if v != 0 else 0.0
    return float((v - mid) / mid)


def evaluate(q: Quantity, pf: PeerFunction, inputs: tuple[Any, ...], rtol: float, source: str,
              rel_width: float) -> Finding | str:
    """The finding, or a note (str) when gdpproof itself could not bound the reference there."""
    value, err = call(pf.fn, inputs)
    ref_inputs = pf.exact_inputs(inputs) if pf.exact_inputs is not None else inputs
    try:
        if err:
            names = tuple(zip(q.args, inputs))
            ref = _reference_text(q, ref_inputs, rel_width)
            return Finding(pf.label, q.name, names, None, ref, "error", None, False, source, err)
        return _compare(q, pf.label, inputs, ref_inputs, value, rtol, source, rel_width)
    except PrecisionError as exc:
        return f"{pf.label} at {dict(zip(q.args, inputs))} not audited: gdpproof could not bound the reference ({exc})"


def _reference_text(q: Quantity, ref_inputs: tuple[Any, ...], rel_width: float) -> str:
    if q.reference == "bracket":
        return _bracket_text(q.name, tuple(ref_inputs), rel_width)
    return str(certified(q.name, tuple(ref_inputs), DIGITS))
