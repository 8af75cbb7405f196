"""The mechanism under a black-box audit: two samplers of its outputs, checked, and turned into
scores (the caller's score function, a linear projection, or the output itself).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..simulation.mechanisms import Mechanism

Sampler = Callable[[np.random.Generator, int], Any]


def _check_outputs(name: str, out: Any, n: int, dim: int | None) -> np.ndarray:
    try:
        arr = np.asarray(out, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} returned {type(out).__name__}, not an array of numbers "
                                    f"(it must return n outputs: shape (n,) or (n, d))") from None
    if arr.ndim not in (1, 2) or arr.shape[0] != n or (arr.ndim == 2 and arr.shape[1] < 1):
        raise InvalidParameterError(f"{name} returned shape {arr.shape} for n={n} "
                                    "(it must return n outputs: shape (n,) or (n, d))")
    if dim is not None and (arr.shape[1:] or (0,))[0] != dim:
        raise InvalidParameterError(f"{name} returned shape {arr.shape} for n={n}, but earlier outputs had "
                                    f"{'scalar outputs' if dim == 0 else f'dimension {dim}'}")
    if not np.all(np.isfinite(arr)):
        raise InvalidParameterError(f"{name} returned non-finite outputs (NaN or infinity)")
    return arr


class _BlackBox(Mechanism):
    """A mechanism given by two samplers, scored by a callable, a direction or the output."""

    exact = False

    def __init__(self, sample_p: Sampler, sample_q: Sampler, score: Callable[[Any], Any] | None,
                 direction: np.ndarray | None, dim: int | None) -> None:
        self.sample_p, self.sample_q, self.score, self.direction, self.dim = sample_p, sample_q, score, direction, dim
        self.name = "black box"

    def outputs(self, rng: np.random.Generator, n: int, law: str) -> np.ndarray:
        name = "sample_p" if law == "P" else "sample_q"
        return _check_outputs(name, (self.sample_p if law == "P" else self.sample_q)(rng, n), n, self.dim)

    def score_of(self, out: np.ndarray) -> np.ndarray:
        if self.score is not None:
            raw = self.score(out)
            try:
                s = np.asarray(raw, dtype=float)
            except (TypeError, ValueError):
                raise InvalidParameterError(f"score returned {type(raw).__name__}, not an array of numbers") from None
            if s.shape != (len(out),):
                raise InvalidParameterError(f"score returned shape {s.shape} for {len(out)} outputs "
                                            f"(it must return one number per output: shape ({len(out)},))")
            if np.isnan(s).any():
                raise InvalidParameterError("score returned NaN")
            return s
        if out.ndim == 2:
            return out @ self.direction
        return out

    def scores(self, rng: np.random.Generator, n: int, law: str) -> np.ndarray:
        """Scores of n outputs under ``law``."""
        return self.score_of(self.outputs(rng, n, law))
