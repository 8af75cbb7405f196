"""The canonical sympy symbols (re-exported from :mod:`gdpproof.symbolic.symbols`)."""

from .symbolic.symbols import Phi, Phi_inv, alpha, delta, ell, epsilon, epsilon_prime, mu, p, phi, sigma, t, x, y

__all__ = ["alpha", "mu", "epsilon", "epsilon_prime", "delta", "p", "x", "y", "t", "ell", "sigma", "Phi", "phi", "Phi_inv"]
