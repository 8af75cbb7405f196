"""Mechanisms for the `gdpproof simulate module --module MOD:FUNC` tests (module-level, picklable)."""

from __future__ import annotations

import numpy as np

from gdpproof.simulation import UserSampler


def _p(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.standard_normal(n)


def _q(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.standard_normal(n) + 1.0


def _identity(y: np.ndarray) -> np.ndarray:
    return y


def shifted_gaussian() -> UserSampler:
    """N(0, 1) against N(1, 1): exactly 1-GDP."""
    return UserSampler(_p, _q, _identity, exact=True, name="shift-1 gaussian")


def not_a_mechanism() -> int:
    return 3


def plain_gaussian():
    """A built-in mechanism returned through --module (picklable for --workers 2)."""
    from gdpproof.simulation import GaussianSampler

    return GaussianSampler(1.0, 1.0)


def raises() -> None:
    raise RuntimeError("broken sampler")
