r"""Exact composition of finitely supported privacy losses: randomized response, pure eps-DP and
(eps, delta)-DP, with different parameters, in ball arithmetic.

The worst pair of (eps_i, delta_i)-DP reveals the data with probability delta_i and is randomized
response with parameter eps_i otherwise (Kairouz, Oh & Viswanath 2015; DRS Prop 2.5), so the
privacy loss of one such step is +infinity with probability delta_i and +-eps_i otherwise, with
the atoms of :data:`gdpproof.symbolic.losses.RANDOMIZED_RESPONSE`.  For n_i copies of each:

    delta(eps) = delta_inf + (1 - delta_inf) sum_k P(k) (1 - e^{eps - s(k)})_+,

with delta_inf = 1 - prod (1 - delta_i)^{n_i}, k = (k_1, ...) the numbers of +eps_i outcomes,
s(k) = sum (2 k_i - n_i) eps_i and P(k) the product of binomial probabilities.  The pair is
symmetric (swapping P and Q maps L to -L with the same law), so both orderings have this delta.
Every term is evaluated in ball arithmetic, so the sum is an enclosure and
:func:`certify_enclosure` certifies its digits; no float enters.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import flint
import sympy

from .._args import _bad
from ..errors import NotSupportedError, show
from ..symbolic import losses as sl
from ..symbolic.symbols import epsilon as EPS
from ._mp import arb_endpoints, arb_from_exact, arb_precision
from .certify import Certified, arb_function, certify_enclosure

__all__ = ["FiniteGroup", "MAX_ATOMS", "finite_delta", "atom_count", "infinite_mass_lower", "infinite_mass_bounds"]

#: The largest number of atoms of the composed law composed exactly here.
MAX_ATOMS = 200_000

#: (eps, delta, count): count copies of an (eps, delta)-DP worst pair (delta = 0: randomized response).
FiniteGroup = tuple[sympy.Expr, sympy.Expr, int]


def atom_count(groups: Sequence[FiniteGroup]) -> int:
    """The number of finite atoms of the composed law (the product of count + 1)."""
    total = 1
    for e, _, n in groups:
        total *= (n + 1) if e != 0 else 1
    return total


def infinite_mass_bounds(groups: Sequence[FiniteGroup]) -> tuple[Fraction, Fraction]:
    """Proven bounds on delta_inf = 1 - prod (1 - delta_i)^{n_i}, the probability that the loss is
    infinite (the mechanism reveals the data): delta(eps) >= delta_inf at every eps."""
    with arb_precision(128):
        keep = flint.arb(1)
        for _, d, n in groups:
            if d != 0:
                keep *= (1 - arb_from_exact(d)) ** n
        ends = arb_endpoints(1 - keep)
    if ends is None:  # pragma: no cover - a finite ball always has ends
        return Fraction(0), Fraction(1)
    return max(Fraction(0), ends[0]), min(Fraction(1), ends[1])


def infinite_mass_lower(groups: Sequence[FiniteGroup]) -> Fraction:
    """A proven lower bound on delta_inf (:func:`infinite_mass_bounds`)."""
    return infinite_mass_bounds(groups)[0]


@functools.lru_cache(maxsize=None)
def _atom_probabilities() -> tuple[Any, Any]:
    """arb functions of eps for P(L = +eps) and P(L = -eps) under P (from the symbolic atoms)."""
    atoms = sl.RANDOMIZED_RESPONSE.atoms
    assert atoms is not None
    (plus, q), (minus, qc) = atoms["P"]
    return arb_function(q, (EPS,)), arb_function(qc, (EPS,))


@functools.lru_cache(maxsize=64)
def _group_terms(e_exact: sympy.Expr, n: int, bits: int) -> tuple[tuple[flint.arb, flint.arb], ...]:
    """(loss, probability) of the n-fold randomized response, k = 0..n outcomes +eps, as balls
    computed at ``bits`` (cached: the eps search asks for the same law many times)."""
    q_fn, qc_fn = _atom_probabilities()
    e = arb_from_exact(e_exact)
    lq, lqc = q_fn(e).log(), qc_fn(e).log()
    lg = [flint.arb(k + 1).lgamma() for k in range(n + 1)]
    return tuple(((2 * k - n) * e, (lg[n] - lg[k] - lg[n - k] + k * lq + (n - k) * lqc).exp()) for k in range(n + 1))


def _enclosure(groups: Sequence[FiniteGroup], eps: sympy.Expr) -> Any:
    def enclose(bits: int) -> flint.arb | tuple[Fraction, Fraction]:
        x = arb_from_exact(eps)
        keep = flint.arb(1)
        per_group = []
        for e, d, n in groups:
            if d != 0:
                keep *= (1 - arb_from_exact(d)) ** n
            if e != 0:
                per_group.append(_group_terms(e, n, bits))
        total = flint.arb(0)
        zero = flint.arb(0)
        if not per_group:  # no finite loss but 0: one atom at 0, with gain (1 - e^eps)_+
            per_group.append(((flint.arb(0), flint.arb(1)),))
        for combo in itertools.product(*per_group):
            s, pr = combo[0]
            for c in combo[1:]:
                s, pr = s + c[0], pr * c[1]
            if s < x:  # the term is 0 (decided); an undecided term keeps its ball
                continue
            total += pr * (1 - (x - s).exp()).max(zero)
        out = (1 - keep) + keep * total
        if out.is_finite() and not out <= 1:  # a probability: near 1 the ball is clipped to [lo, 1]
            ends = arb_endpoints(out)
            if ends is not None and ends[0] <= 1:
                return ends[0], Fraction(1)
        return out

    return enclose


def finite_delta(groups: Sequence[FiniteGroup], epsilon: sympy.Expr, *, digits: int) -> Certified:
    """delta(eps) of the composition of the groups, certified to ``digits`` digits, rounded up.

    Parameters
    ----------
    groups : sequence of (eps_i, delta_i, n_i)
        Exact eps_i >= 0, delta_i in [0, 1], counts n_i >= 1.
    epsilon : exact sympy number
        The epsilon at which delta is wanted (any real: the profile is defined for eps < 0 too).

    Examples
    --------
    >>> import sympy
    >>> finite_delta([(sympy.Integer(1), sympy.Integer(0), 1)], sympy.Integer(0), digits=10)
    Certified('0.4621171573', digits=10, rounding='up')
    """
    if not groups:
        raise _bad("groups", groups, "must name at least one mechanism")
    if atom_count(groups) > MAX_ATOMS:
        raise NotSupportedError(f"the exact composition has {atom_count(groups)} atoms, more than "
                                f"{MAX_ATOMS}: use the bracket route")
    def exact() -> sympy.Expr | None:
        # beyond the largest finite loss only the revealing outcome is left: delta = delta_inf,
        # an exact number that a ball straddles at every precision when it is a short decimal
        if sympy.sympify(sum(n * e for e, _, n in groups) <= epsilon) is not sympy.true:
            return None
        if sum(n * int(sympy.Rational(d).q).bit_length() for _, d, n in groups if d.is_Rational) > 10**6:
            return None  # the exact power would have millions of digits; the balls must decide
        keep = sympy.Integer(1)
        for _, d, n in groups:
            keep *= (1 - d) ** n
        value = 1 - keep
        return value if value.is_Rational else None

    return certify_enclosure(_enclosure(groups, epsilon), digits=digits, rounding="up", exact=exact,
                             what=f"delta at epsilon={show(epsilon)} of the finite composition")
