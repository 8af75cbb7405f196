"""The canonical sympy symbols (re-exported from :mod:`gdpproof.symbolic.symbols`)."""

from .symbolic.symbols import Phi, Phi_inv, alpha, delta, epsilon, epsilon_prime, mu, p, t, x, y

__all__ = ["alpha", "mu", "epsilon", "epsilon_prime", "delta", "p", "x", "y", "t", "Phi", "Phi_inv"]
