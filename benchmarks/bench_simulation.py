"""Monte Carlo throughput and memory: the Gaussian-mechanism simulation against raw numpy, same run.

Measures, in one run, interleaved (raw, ours, raw, ours, ...; best of ``--repeats`` each, wall
and CPU time side by side):

- the rate of ``gdpproof.simulation.simulate(GaussianSampler(1, 1), N, seed=1)`` in samples per
  second (N draws under each of the two data sets: 2N samples), against numpy's raw
  ``Generator.standard_normal`` drawing the same 2N normals in blocks of 65536 (the limit: the
  cost of the randomness alone).  Target: ratio >= 0.6.
- ``--counting``: per chunk of 32768 scores and 512 thresholds, the exact counts
  #{s <= tau}, #{s < tau} four ways: the runner's (a table over a uniform grid of cells gives
  every draw far from a threshold its count at once; the few percent near one are sorted),
  an in-place sort and ``searchsorted`` of the thresholds (what the runner did before),
  ``searchsorted`` of every draw among the thresholds with bin counts, and a uniform grid refining
  the thresholds with an exact check of every draw.

numpy's sort is a SIMD sort where the CPU has AVX-512 or AVX2 and several times slower where it
has not; the runner no longer sorts whole chunks, so its rate should not depend on it.  To see the
rate on such a machine, run with numpy's dispatch limited to the baseline:
``NPY_DISABLE_CPU_FEATURES="X86_V3 X86_V4 AVX512_ICL AVX512_SPR"`` (the figures print which).
- peak resident memory of a fresh process simulating 10^6 and 10^8 samples per side (memory
  must be flat in the sample count: it is bounded by the chunk).

Run: ``PYTHONPATH=. python benchmarks/bench_simulation.py [--samples 10000000] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import numpy as np

import os

from gdpproof.simulation import GaussianSampler, simulate
from gdpproof.simulation.runner import _make_counter

MEMORY_SCRIPT = """
import resource, sys
import os

from gdpproof.simulation import GaussianSampler, simulate
from gdpproof.simulation.runner import _make_counter
simulate(GaussianSampler(1.0, 1.0), int(sys.argv[1]), seed=1)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _clock(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def interleaved(fns: dict, repeats: int) -> dict:
    """Best (wall, cpu) of each function, the runs interleaved so that load hits all alike."""
    best = {k: (float("inf"), float("inf")) for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            w, c = _clock(fn)
            best[k] = (min(best[k][0], w), min(best[k][1], c))
    return best


def _counting(repeats: int) -> None:
    rng = np.random.default_rng(7)
    n, k = 1 << 15, 512
    taus = np.unique(np.quantile(rng.standard_normal(8192), np.linspace(0, 1, k + 2)[1:-1]))
    k = len(taus)
    draws = [rng.standard_normal(n) for _ in range(repeats)]
    cells = 8 * k
    lo, inv = taus[0], cells / (taus[-1] - taus[0])
    edges = lo + np.arange(cells + 1) / inv
    first = np.concatenate([[0], np.searchsorted(taus, edges, side="left")[:-1], [k]]).astype(np.intp)
    padded = np.concatenate([[-np.inf], taus, [np.inf]])

    def by_sort(s: np.ndarray) -> tuple:
        s = s.copy()
        s.sort()
        return np.searchsorted(s, taus, side="right"), np.searchsorted(s, taus, side="left")

    def by_draw(s: np.ndarray) -> tuple:
        i = np.searchsorted(taus, s, side="left")
        le = np.cumsum(np.bincount(i, minlength=k + 1)[:k])
        j = np.searchsorted(taus, s, side="right")
        return le, np.cumsum(np.bincount(j, minlength=k + 1)[:k])

    def by_grid(s: np.ndarray) -> tuple:
        c = (np.clip((s - lo) * inv, -1.0, cells - 1.0) + 1).astype(np.intp)
        i = first[c]
        i += s > padded[i + 1]
        ok = (padded[i] < s) & (s <= padded[i + 1])  # the exact check: tau_(i-1) < s <= tau_i
        if not ok.all():
            i[~ok] = np.searchsorted(taus, s[~ok], side="left")
        le = np.cumsum(np.bincount(i, minlength=k + 1)[:k])
        tie = s == padded[i + 1]
        return le, le - np.bincount(i[tie], minlength=k + 1)[:k]

    runner = _make_counter(taus)
    ref = by_sort(draws[0])
    for fn in (runner, by_draw, by_grid):
        got = fn(draws[0])
        assert all((a == b).all() for a, b in zip(ref, got)), fn
    it = iter(range(10**9))
    best = interleaved({name: (lambda f=f: f(draws[next(it) % len(draws)]))
                        for name, f in (("sort + searchsorted of the thresholds", by_sort),
                                        ("the runner: cell table, sort of the rest", runner),
                                        ("searchsorted of every draw", by_draw),
                                        ("uniform grid + exact check", by_grid))}, 7)
    base = best["sort + searchsorted of the thresholds"][1]
    for name, (w, c) in best.items():
        print(f"  counting, {name:38s} {w * 1e6:7.0f} us wall {c * 1e6:7.0f} us CPU  ({c / base:.2f} x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000_000, help="samples per data set (default 1e7)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-memory", action="store_true", help="skip the 1e6 / 1e8 memory runs")
    parser.add_argument("--counting", action="store_true", help="also time three exact ways of counting")
    args = parser.parse_args()
    n = args.samples

    def raw() -> None:
        rng = np.random.default_rng(1)
        for _ in range(0, 2 * n, 1 << 16):
            rng.standard_normal(1 << 16)

    def ours() -> None:
        simulate(GaussianSampler(1.0, 1.0), n, seed=1)

    print(f"numpy {np.__version__}, NPY_DISABLE_CPU_FEATURES={os.environ.get('NPY_DISABLE_CPU_FEATURES', '')!r}")
    raw(), ours()  # warm up
    best = interleaved({"raw": raw, "ours": ours}, args.repeats)
    (rw, rc), (ow, oc) = best["raw"], best["ours"]
    print(f"numpy standard_normal      {2 * n / rw / 1e6:8.1f} M samples/s wall {2 * n / rc / 1e6:8.1f} M/s CPU")
    print(f"gdpproof simulate          {2 * n / ow / 1e6:8.1f} M samples/s wall {2 * n / oc / 1e6:8.1f} M/s CPU   "
          f"ratio {rw / ow:.2f} wall, {rc / oc:.2f} CPU (target >= 0.6)")
    if args.counting:
        _counting(args.repeats)
    if not args.no_memory:
        for count in (10**6, 10**8):
            start = time.perf_counter()
            out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, str(count)], check=True,
                                 capture_output=True, text=True).stdout
            print(f"peak memory, {count:.0e} samples per side: {int(out) / 1024:7.1f} MB "
                  f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
