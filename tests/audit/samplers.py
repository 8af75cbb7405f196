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


def _big_int(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.full(n, 2**60, dtype=np.int64)


def _big_int_plus_one(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.full(n, 2**60 + 1, dtype=np.int64)


def _complex(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.standard_normal(n) + 0j


def _complex_shifted(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.standard_normal(n) + 100j


def low_bit_leak():
    """int64 outputs 2^60 against 2^60 + 1: a total leak in the low bit, which float64 drops."""
    return _big_int, _big_int_plus_one


def imaginary_leak():
    """N(0, 1) + 0j against N(0, 1) + 100j: a total leak in the imaginary part."""
    return _complex, _complex_shifted
