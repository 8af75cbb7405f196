"""Monte Carlo throughput and memory: the Gaussian-mechanism simulation against raw numpy, same run.

Measures, in one run:

- the rate of ``gdpproof.simulation.simulate(GaussianMechanism(1, 1), N, seed=1)`` in samples per
  second (N draws under each of the two data sets: 2N samples), against numpy's raw
  ``Generator.standard_normal`` drawing the same 2N normals in blocks of 65536 (the reference:
  the cost of the randomness alone).  Target: ratio >= 0.5.
- peak resident memory of a fresh process simulating 10^6 and 10^8 samples per side (memory
  must be flat in the sample count: it is bounded by the chunk).

Run: ``PYTHONPATH=. python benchmarks/bench_simulation.py [--samples 10000000] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import numpy as np

from gdpproof.simulation import GaussianMechanism, simulate

MEMORY_SCRIPT = """
import resource, sys
from gdpproof.simulation import GaussianMechanism, simulate
simulate(GaussianMechanism(1.0, 1.0), int(sys.argv[1]), seed=1)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _best(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000_000, help="samples per data set (default 1e7)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-memory", action="store_true", help="skip the 1e6 / 1e8 memory runs")
    args = parser.parse_args()
    n = args.samples

    def raw() -> None:
        rng = np.random.default_rng(1)
        for _ in range(0, 2 * n, 1 << 16):
            rng.standard_normal(1 << 16)

    def ours() -> None:
        simulate(GaussianMechanism(1.0, 1.0), n, seed=1)

    raw(), ours()  # warm up
    t_raw, t_ours = _best(raw, args.repeats), _best(ours, args.repeats)
    print(f"numpy standard_normal      {2 * n / t_raw / 1e6:8.1f} M samples/s")
    print(f"gdpproof simulate          {2 * n / t_ours / 1e6:8.1f} M samples/s   "
          f"ratio {t_raw / t_ours:.2f} (target >= 0.5)")
    if not args.no_memory:
        for count in (10**6, 10**8):
            start = time.perf_counter()
            out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, str(count)], check=True,
                                 capture_output=True, text=True).stdout
            print(f"peak memory, {count:.0e} samples per side: {int(out) / 1024:7.1f} MB "
                  f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
