"""Canonical sympy symbols, defined once with their assumptions.

sympy treats ``Symbol("mu")`` and ``Symbol("mu", nonnegative=True)`` as different symbols, so
every module builds expressions from these and never from ad-hoc symbols (see symbols.py).
"""

from __future__ import annotations

import sympy
from sympy import Rational, erfc, erfcinv, sqrt

__all__ = ["alpha", "mu", "epsilon", "epsilon_prime", "delta", "p", "n", "k", "x", "y", "t", "ell", "sigma", "Delta", "z", "Phi",
           "phi", "Phi_inv"]

#: Type I error, the argument of every trade-off function; 0 <= alpha <= 1.
alpha = sympy.Symbol("alpha", nonnegative=True)
#: The GDP parameter (also the shift of a location family); mu >= 0.
mu = sympy.Symbol("mu", nonnegative=True)
#: The epsilon of (epsilon, delta)-DP; epsilon >= 0.
epsilon = sympy.Symbol("epsilon", nonnegative=True)
#: The argument of a privacy profile delta(epsilon') when epsilon is already a parameter (as for
#: f_{epsilon,delta}); profiles are stored in it and shown in ``epsilon``.
epsilon_prime = sympy.Symbol("epsilon'", nonnegative=True)
#: The delta of (epsilon, delta)-DP; 0 <= delta <= 1.
delta = sympy.Symbol("delta", nonnegative=True)
#: A sampling probability; 0 <= p <= 1.
p = sympy.Symbol("p", nonnegative=True)
#: A number of compositions (mechanism runs); a positive integer.
n = sympy.Symbol("n", positive=True, integer=True)
#: The number of outputs of k-ary randomized response.
k = sympy.Symbol("k", positive=True, integer=True)
#: The variable of a density (location families).
x = sympy.Symbol("x", real=True)
#: The argument of a convex conjugate f*(y).
y = sympy.Symbol("y", real=True)
#: A threshold or auxiliary real variable.
t = sympy.Symbol("t", real=True)
#: A value of the privacy loss L = log(dP/dQ) (the argument of its CDF).
ell = sympy.Symbol("ell", real=True)
#: A noise multiplier or scale (Gaussian standard deviation over the sensitivity); sigma > 0.
sigma = sympy.Symbol("sigma", positive=True)
#: The sensitivity of an integer-valued query (discrete mechanisms); a positive integer.
Delta = sympy.Symbol("Delta", positive=True, integer=True)
#: An integer output (the support of a discrete noise law).
z = sympy.Symbol("z", integer=True)


def Phi(z: sympy.Expr) -> sympy.Expr:
    """The standard normal CDF, written through ``erfc`` so the lower tail never cancels."""
    return erfc(-z / sqrt(2)) * Rational(1, 2)


def phi(z: sympy.Expr) -> sympy.Expr:
    """The standard normal density."""
    return sympy.exp(-z**2 / 2) / sqrt(2 * sympy.pi)


def Phi_inv(q: sympy.Expr) -> sympy.Expr:
    """The standard normal quantile, written through ``erfcinv`` (exact in both tails)."""
    return -sqrt(2) * erfcinv(2 * q)


#: What sympy's solve, solveset and simplification raise when they cannot finish (an unsolvable
#: condition, a polynomial they cannot handle, e^(1e19) during nsimplify); every caller that falls
#: back to a numeric or weaker route catches this one tuple.
SYMPY_GAVE_UP: tuple[type[BaseException], ...] = (
    NotImplementedError, ValueError, TypeError, OverflowError, MemoryError, RecursionError,
    sympy.PolynomialError)

#: A zero-concentrated DP parameter (rho-zCDP); rho > 0.
rho = sympy.Symbol("rho", positive=True)
#: A Renyi divergence order; order > 1.
order = sympy.Symbol("order", positive=True)
__all__ += ["rho", "order"]
