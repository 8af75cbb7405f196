"""Chunked, seeded, executor-parallel simulation: the same answer whatever the workers.

The sample count is split into chunks of ``chunk_size``; chunk i draws from a generator seeded
by the i-th child of ``numpy.random.SeedSequence(seed)`` (child 0 is the pilot that fixes the
thresholds), and returns integer counts per threshold.  Sums of counts do not depend on the
order or the worker, so any ``concurrent.futures.Executor`` (a process pool, a
``dask.distributed`` client's executor) gives the same curve.  Memory is bounded by the chunk.
"""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import Executor
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._args import count
from ..errors import bad

from .curves import EmpiricalCurve
from .samplers import Sampler

PILOT_SAMPLES = 4096


def _thresholds(mechanism: Sampler, seed: np.random.SeedSequence, count: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pilot = np.concatenate([mechanism.scores(rng, PILOT_SAMPLES, "P"), mechanism.scores(rng, PILOT_SAMPLES, "Q")])
    values = np.unique(pilot)
    if len(values) <= count:  # a discrete statistic: every atom seen is a threshold
        return values
    return np.unique(np.quantile(pilot, np.linspace(0, 1, count + 2)[1:-1]))


def _chunk(mechanism: Sampler, seed: np.random.SeedSequence, n: int, thresholds: np.ndarray) -> np.ndarray:
    """Counts #{s_P <= tau}, #{s_P < tau}, #{s_Q <= tau}, #{s_Q < tau} for one chunk of n samples
    under each law (rows of a (4, K) array)."""
    rng = np.random.default_rng(seed)
    counter = _counter(thresholds)
    out = np.empty((4, len(thresholds)), dtype=np.int64)
    out[0], out[1] = counter(np.asarray(mechanism.scores(rng, n, "P"), dtype=np.float64))
    out[2], out[3] = counter(np.asarray(mechanism.scores(rng, n, "Q"), dtype=np.float64))
    return out


#: Cells of the counting grid per threshold, and at most in all (the table stays in cache).
_CELLS_PER_THRESHOLD, _MAX_CELLS = 256, 1 << 17

_COUNTERS: dict[bytes, Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]] = {}


def _counter(thresholds: np.ndarray) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The exact counts #{s <= tau}, #{s < tau} of a chunk, by the cheapest exact way for these
    thresholds (made once per process and thresholds)."""
    key = thresholds.tobytes()
    counter = _COUNTERS.get(key)
    if counter is None:
        if len(_COUNTERS) > 8:
            _COUNTERS.clear()
        counter = _COUNTERS[key] = _make_counter(np.array(thresholds, dtype=np.float64))
    return counter


def _make_counter(taus: np.ndarray) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    k = len(taus)
    if k <= 4:  # a comparison per threshold is one pass over the chunk
        def direct(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return (np.array([np.count_nonzero(s <= t) for t in taus], dtype=np.int64),
                    np.array([np.count_nonzero(s < t) for t in taus], dtype=np.int64))
        return direct
    lo, hi = float(taus[0]), float(taus[-1])
    cells = min(_MAX_CELLS, _CELLS_PER_THRESHOLD * k)
    span = hi - lo
    # the grid needs cells far wider than a rounding error of the scores' magnitude (then a draw's
    # computed cell is its true cell or a neighbour); otherwise, and for non-finite thresholds,
    # every draw is counted by sorting
    if not (np.isfinite(taus).all() and span > 0 and np.all(np.diff(taus) > 0)
            and span / cells > 1e-10 * max(abs(lo), abs(hi))):
        return _by_sort(taus)
    # cells 1..cells tile [lo - w, hi + w) (w = one cell); cell 0 and cells + 1 take the rest,
    # and anything a float-to-int cast does not map into the table
    width = (span / (cells - 2))
    lo -= width
    inv = 1.0 / width
    left = lo + (np.arange(cells + 3) - 1) * width   # left[c]: the left edge of cell c
    below = np.searchsorted(taus, left, side="left")  # #{tau < left edge}
    table = below[:cells + 2].astype(np.intp)
    # a cell is clean when no threshold lies in it or in either neighbour: every draw whose
    # computed cell is c then has exactly below[c] thresholds under it.  Draws in other cells
    # (near a threshold, outside the grid, NaN) go to the trash bin k + 1 and are counted exactly
    # by sorting them, a few percent of the chunk
    clean = np.zeros(cells + 2, dtype=bool)
    clean[2:cells] = below[1:cells - 1] == below[4:cells + 2]
    table[~clean] = k + 1
    shift = 1.0 - lo * inv
    exact = _by_sort(taus)
    # work arrays reused from chunk to chunk (one set per thread): fresh ones cost a page fault
    # per 4 KiB, as much as the arithmetic
    local = threading.local()

    def grid(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(s)
        if getattr(local, "size", -1) < n:
            local.size = n
            local.t, local.c, local.i = np.empty(n), np.empty(n, dtype=np.intp), np.empty(n, dtype=np.intp)
            local.m = np.empty(n, dtype=bool)
        t, c, i, m = local.t[:n], local.c[:n], local.i[:n], local.m[:n]
        np.multiply(s, inv, out=t)
        t += shift
        with np.errstate(invalid="ignore"):  # NaN and huge draws cast to some integer: clipped
            np.copyto(c, t, casting="unsafe")
        table.take(c, mode="clip", out=i)
        le = np.cumsum(np.bincount(i, minlength=k + 2)[:k])  # clean draws: s <= tau_j iff #{tau < s} <= j
        np.equal(i, k + 1, out=m)
        rest = s[m]
        if not len(rest):
            return le, le.copy()
        le_r, lt_r = exact(rest)
        return le + le_r, le + lt_r

    return grid


def _by_sort(taus: np.ndarray) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    def count(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = np.sort(s)
        return _le_lt(s, taus)
    return count


def _le_lt(s: np.ndarray, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """#{s <= tau} and #{s < tau} for the sorted s: one search, and a second only for the
    thresholds that some draw equals (the next draw after the first count is then tau)."""
    lt = np.searchsorted(s, thresholds, side="left")
    le = lt.copy()
    if len(s):
        tied = s[np.minimum(lt, len(s) - 1)] == thresholds
        tied &= lt < len(s)
        if tied.any():
            le[tied] = np.searchsorted(s, thresholds[tied], side="right")
    return le, lt


def count_chunks(mechanism: Sampler, seeds: Sequence[np.random.SeedSequence], sizes: Sequence[int],
                 thresholds: np.ndarray, *, executor: Executor | None = None, workers: int | None = None,
                 progress: bool = False, label: str = "simulate") -> np.ndarray:
    """Summed counts of the statistic against ``thresholds`` over chunks (one seed and size each).

    Returns a (4, K) int64 array: #{s_P <= tau}, #{s_P < tau}, #{s_Q <= tau}, #{s_Q < tau}.
    Chunk i draws ``sizes[i]`` samples under each law from ``default_rng(seeds[i])``, in this
    process (``executor`` None and ``workers`` None or 1), on ``executor``, or on a process pool of
    ``workers`` processes made for the call.  Sums do not depend on where the chunks ran.
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise bad("workers", workers, "must be a positive integer")
    total = np.zeros((4, len(thresholds)), dtype=np.int64)
    n_chunks = len(seeds)
    start = time.perf_counter()
    own = None
    if executor is None and workers not in (None, 1) and n_chunks > 1:
        from .._pool import process_pool

        own = executor = process_pool(workers)
    try:
        if executor is None:
            results: Any = (_chunk(mechanism, s, n, thresholds) for s, n in zip(seeds, sizes))
        else:
            results = executor.map(_chunk, [mechanism] * n_chunks, seeds, sizes, [thresholds] * n_chunks)
        for i, counts in enumerate(results, 1):
            total += counts
            if progress:
                rate = sum(sizes[:i]) * 2 / max(time.perf_counter() - start, 1e-9)
                print(f"\r{label}: {i}/{n_chunks} chunks, {rate:,.0f} samples/s", end="", file=sys.stderr)
    except BaseException:  # Ctrl-C or a failing chunk: no chunk is waited for
        if own is not None:
            from .._pool import stop

            stop(own)
            own = None
        raise
    finally:
        if own is not None:
            own.shutdown()
        if progress and n_chunks:
            print(file=sys.stderr)
    return total


def simulate(mechanism: Sampler, samples: int, *, seed: Any, chunk_size: int = 1 << 15,
             thresholds: int = 512, confidence: float = 1 - 1e-6, executor: Executor | None = None,
             workers: int | None = None, progress: bool = False) -> EmpiricalCurve:
    """The empirical trade-off curve of ``mechanism`` from ``samples`` draws under each data set.

    Args:
        mechanism (Sampler): What to simulate (``gdpproof.simulation.GaussianSampler`` and the others, or
            a ``UserSampler``).
        samples (int): Draws under each of P and Q.
        seed (int or SeedSequence entropy): The whole run is a function of it (and of ``chunk_size`` and
            ``thresholds``).
        confidence (float): Probability that the band holds (default 1 - 1e-6).
        executor (concurrent.futures.Executor, optional): Where the chunks run; by default a process pool of
            ``workers`` processes, or in this process when ``workers`` is None or 1.
        progress (bool): A progress line on stderr (chunks done, samples per second).
        chunk_size: Draws per chunk (the unit of work and of seeding).
        thresholds: How many thresholds the curve is estimated at.
        workers: The size of the default process pool; None runs in this process.

    Examples:
        >>> from gdpproof.simulation import GaussianSampler, simulate
        >>> curve = simulate(GaussianSampler(1.0, 1.0, dim=3), 20000, seed=1)
        >>> import numpy as np
        >>> from scipy.special import ndtr, ndtri
        >>> curve.check(lambda a: ndtr(ndtri(1 - a) - 1.0)).inside
        True
    """
    if seed is None:
        raise bad("seed", seed, "must be given (an int or SeedSequence entropy): runs are reproducible")
    if not isinstance(mechanism, Sampler):
        raise bad("mechanism", mechanism, "must be a gdpproof.simulation.Sampler")
    samples = count("samples", samples)
    chunk_size = count("chunk_size", chunk_size)
    try:
        np.random.SeedSequence(seed)
    except (TypeError, ValueError):
        raise bad("seed", seed, "must be an integer >= 0 or a sequence of them (SeedSequence entropy)") from None
    if not 0 < confidence < 1:
        raise bad("confidence", confidence, "must be in (0, 1)")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise bad("workers", workers, "must be a positive integer")
    samples, chunk_size = int(samples), int(chunk_size)
    n_chunks = -(-samples // chunk_size)
    root = np.random.SeedSequence(seed)
    pilot, *children = root.spawn(1 + n_chunks)
    taus = _thresholds(mechanism, pilot, thresholds)
    sizes = [chunk_size] * (n_chunks - 1) + [samples - chunk_size * (n_chunks - 1)]
    counts = count_chunks(mechanism, children, sizes, taus, executor=executor, workers=workers, progress=progress)
    above, below = samples - counts[0], counts[2]   # #{s_P > tau}, #{s_Q <= tau}
    return EmpiricalCurve(mechanism.name, taus, above / samples, below / samples, samples, samples,
                          float(confidence), bool(mechanism.exact))
