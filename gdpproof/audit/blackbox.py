"""The mechanism under a black-box audit: two samplers of its outputs, checked, and turned into
scores (the caller's score function, a linear projection, or the output itself).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..simulation.samplers import Sampler

OutputSampler = Callable[[np.random.Generator, int], Any]


#: Largest integer magnitude whose float64 is exact: beyond it distinct outputs can become equal.
MAX_EXACT_INTEGER = 2**53


def _as_float64(name: str, out: Any, what: str) -> np.ndarray:
    """``out`` as float64, refused when the conversion could lose information: a leak in what it
    drops (the low bits of 2^60 + 1, an imaginary part) would go unseen by the audit."""
    try:
        arr = np.asarray(out)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.dtype.kind not in "biufcO":
        raise InvalidParameterError(f"{name} returned {type(out).__name__}, not an array of numbers ({what})")
    kind = arr.dtype.kind
    if kind == "c":
        raise InvalidParameterError(
            f"{name} returned complex numbers ({arr.dtype}): the audit reads real float64 outputs and would drop "
            "the imaginary part; map the outputs to float64 yourself (e.g. real and imaginary parts as two "
            "coordinates, np.stack([z.real, z.imag], axis=-1))")
    if kind == "O":
        raise InvalidParameterError(
            f"{name} returned an array of Python objects ({type(out).__name__} of "
            f"{type(arr.flat[0]).__name__ if arr.size else 'nothing'}): the audit reads float64 outputs and a "
            "cast could lose information (big integers, exact fractions, decimals); map the outputs to "
            "float64 yourself")
    if kind in "iu" and arr.size and (int(arr.max()) > MAX_EXACT_INTEGER or int(arr.min()) < -MAX_EXACT_INTEGER):
        big = int(arr.max()) if int(arr.max()) > MAX_EXACT_INTEGER else int(arr.min())
        raise InvalidParameterError(
            f"{name} returned the integer {big}, beyond 2^53 in magnitude: as float64 it would lose its low bits "
            "(2^60 and 2^60 + 1 are the same double), hiding what they tell apart; map the outputs to float64 "
            "yourself (for example subtract an offset, or split high and low bits into two coordinates)")
    if kind == "f" and arr.dtype.itemsize > 8:  # long double: exact in float64 or refused
        wide = arr
        arr = arr.astype(np.float64)
        if not np.array_equal(arr.astype(wide.dtype), wide, equal_nan=True):
            raise InvalidParameterError(
                f"{name} returned {wide.dtype} outputs that float64 cannot hold exactly; map the outputs to "
                "float64 yourself")
        return arr
    return arr.astype(np.float64, copy=False)


def _check_outputs(name: str, out: Any, n: int, dim: int | None) -> np.ndarray:
    arr = _as_float64(name, out, "it must return n outputs: shape (n,) or (n, d)")
    if arr.ndim not in (1, 2) or arr.shape[0] != n or (arr.ndim == 2 and arr.shape[1] < 1):
        raise InvalidParameterError(f"{name} returned shape {arr.shape} for n={n} "
                                    "(it must return n outputs: shape (n,) or (n, d))")
    if dim is not None and (arr.shape[1:] or (0,))[0] != dim:
        raise InvalidParameterError(f"{name} returned shape {arr.shape} for n={n}, but earlier outputs had "
                                    f"{'scalar outputs' if dim == 0 else f'dimension {dim}'}")
    if not np.all(np.isfinite(arr)):
        raise InvalidParameterError(f"{name} returned non-finite outputs (NaN or infinity)")
    return arr


class BlackBox(Sampler):
    """A mechanism given by two samplers, scored by a callable, a direction or the output."""

    exact = False

    def __init__(self, sample_p: OutputSampler, sample_q: OutputSampler, score: Callable[[Any], Any] | None,
                 direction: np.ndarray | None, dim: int | None) -> None:
        self.sample_p, self.sample_q, self.score, self.direction, self.dim = sample_p, sample_q, score, direction, dim
        self.name = "black box"

    def outputs(self, rng: np.random.Generator, n: int, law: str) -> np.ndarray:
        name = "sample_p" if law == "P" else "sample_q"
        return _check_outputs(name, (self.sample_p if law == "P" else self.sample_q)(rng, n), n, self.dim)

    def score_of(self, out: np.ndarray) -> np.ndarray:
        if self.score is not None:
            raw = self.score(out)
            s = _as_float64("score", raw, "one number per output")
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
