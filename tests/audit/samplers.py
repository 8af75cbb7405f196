"""Functions for the `gdpproof audit mechanism --module MOD:FUNC` tests (module level, picklable)."""

from __future__ import annotations

import numpy as np


def _s(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.standard_normal(n)


def _s_prime(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.standard_normal(n) + 1.0


def _short(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.standard_normal(n - 1)


def _broken(rng: np.random.Generator, n: int) -> np.ndarray:
    raise RuntimeError("broken sampler")


def _absolute(outputs: np.ndarray) -> np.ndarray:
    return np.abs(outputs)


def with_score():
    """N(0, 1) against N(1, 1), scored by |x|."""
    return _s, _s_prime, _absolute


def not_a_pair():
    return _s


def wrong_shape():
    return _s, _short


def broken_sampler():
    return _broken, _s_prime


def broken_factory():
    raise ValueError("no mechanism today")
