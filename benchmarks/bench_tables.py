"""Reference-table throughput: overhead against the raw certified loop, and speed-up on 2 workers.

Measures, in one run, a 100 x 100 delta(eps) table at 50 certified digits
(mu = log:0.01:30:100, eps = lin:0:50:100):

- the reference: ``gdpproof.delta_from_epsilon(mu, eps, digits=50)`` called in a plain loop
  over the same 10,000 grid points (the raw certified evaluation);
- ``make_table(..., workers=1, out=FILE)``: the same values with grid parsing, certification
  bookkeeping, the journal (flushed and synced per chunk) and the atomic write.
  Target: time per value within 2x of the reference (ratio <= 2);
- ``make_table(..., workers=2, out=FILE)`` on a process pool.  Target: >= 1.7x faster than
  ``workers=1``.

Caches are cleared before each timing (a fresh interpreter state as far as the parsed
arguments go), so no run profits from another's work.  The three are timed in turn, repeatedly,
and the best of each is kept, so that the drift of a shared machine hits all three alike.

Run: ``PYTHONPATH=. python benchmarks/bench_tables.py [--n 100] [--digits 50] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import gdpproof
from gdpproof import _args
from gdpproof.reference import make_table
from gdpproof.reference.grid import parse_grid


def _clear() -> None:
    _args._exact_cached.cache_clear()


def _best(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        _clear()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--digits", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    mu_spec, eps_spec = f"log:0.01:30:{a.n}", f"lin:0:50:{a.n}"
    mus, epss = parse_grid("--mu", mu_spec), parse_grid("--eps", eps_spec)
    values = a.n * a.n

    def raw() -> None:
        for m in mus:
            for e in epss:
                gdpproof.delta_from_epsilon(m, e, digits=a.digits)

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "delta.csv")

        def table(workers: int) -> None:
            make_table("delta", mu=mu_spec, eps=eps_spec, digits=a.digits, out=out, workers=workers)

        # interleaved, best of each: drift of a shared machine hits all three alike
        t_raw = t1 = t2 = float("inf")
        for _ in range(a.repeats):
            t_raw = min(t_raw, _best(raw, 1))
            t1 = min(t1, _best(lambda: table(1), 1))
            t2 = min(t2, _best(lambda: table(2), 1))
    print(f"{a.n} x {a.n} delta(eps) table at {a.digits} digits ({values} values), best of {a.repeats}, "
          f"{os.cpu_count()} CPUs")
    print(f"raw certified loop      {t_raw:7.2f} s   {t_raw / values * 1e6:7.1f} us/value")
    print(f"make_table, 1 worker    {t1:7.2f} s   {t1 / values * 1e6:7.1f} us/value   "
          f"ratio to raw {t1 / t_raw:.2f} (target <= 2)")
    print(f"make_table, 2 workers   {t2:7.2f} s   {t2 / values * 1e6:7.1f} us/value   "
          f"speed-up over 1 worker {t1 / t2:.2f}x (target >= 1.7)")


if __name__ == "__main__":
    main()
