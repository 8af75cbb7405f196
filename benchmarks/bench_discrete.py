"""Discrete mechanisms: the cost of their accounting, and gdpproof against dp_accounting's PLD.

One run, CPU seconds per call (the first call of a kind includes compiling its kernels):

- one discrete Gaussian, certified delta(eps) at 30 digits (route exact) and eps(delta) by the
  certified monotone solve;
- ``account(Repeated(DiscreteGaussianMechanism(5), 10), delta=1e-10)`` (the brief's figure), at
  delta = 1e-30, and a mixed composition of ten discrete Gaussians (sigma 2.5 to 100) at 1e-10;
- the discrete Laplace mechanism composed five times: exact (exact-finite) and bracket, and
  dp_accounting's PLD accountant on ``DiscreteLaplaceDpEvent`` where it is installed.

Run: ``PYTHONPATH=. python benchmarks/bench_discrete.py`` (about half a minute).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


def main() -> None:
    from gdpproof import Composed, Repeated, account
    from gdpproof.mechanisms import DiscreteGaussianMechanism as DG
    from gdpproof.mechanisms import DiscreteLaplaceMechanism as DL

    rows = [
        ("DG(5): delta(1), 30 digits", lambda: account(DG(5), epsilon=1).delta),
        ("DG(5): eps(1e-10), 30 digits", lambda: account(DG(5), delta="1e-10").epsilon),
        ("10 x DG(5), delta 1e-10 (first call)", lambda: account(Repeated(DG(5), 10), delta="1e-10").epsilon),
        ("10 x DG(5), delta 1e-10", lambda: account(Repeated(DG(5), 10), delta="1e-10").epsilon),
        ("10 x DG(5), delta 1e-30", lambda: account(Repeated(DG(5), 10), delta="1e-30").epsilon),
        ("DG(2.5..100) mixed, delta 1e-10", lambda: account(Composed(*[DG(s) for s in (
            "2.5", "3.7", "5", "8.1", "12", "20", "33", "50", "71", "100")]), delta="1e-10").epsilon),
        ("5 x DL(2, 3) exact, delta(1)", lambda: account(Repeated(DL(2, 3), 5), epsilon=1).delta),
        ("5 x DL(2, 3) bracket, delta(1)", lambda: account(Repeated(DL(2, 3), 5), epsilon=1, route="bracket").delta),
    ]
    try:
        import dp_accounting as dpa

        event = dpa.dp_event.SelfComposedDpEvent(dpa.dp_event.DiscreteLaplaceDpEvent(0.5, 3), 5)
        rows.append(("5 x DL(2, 3), dp_accounting PLD", lambda: dpa.pld.PLDAccountant().compose(event).get_delta(1.0)))
    except ImportError:
        pass
    for name, fn in rows:
        value, seconds = timed(fn)
        print(f"{name:42s} {seconds:8.3f} s   {value}")


if __name__ == "__main__":
    main()
