"""The one compiler at run time: what a compiled expression costs against its generated kernel.

``gdpproof.numeric.engine.compiler.arb_function`` compiles an expression known only at run time
(``certify()`` of an arbitrary curve, the discrete families, the finite routes) into the text the
kernel generator writes for the expressions known ahead of time.  Ratios in one run (CPU):

1. a call of the run-time compilation against a call of the generated kernel of the same
   expression (``numeric/engine/_kernels.py``), at 132 bits: the generated one caches its
   symbol-free subexpressions per precision, the run-time one computes them (target <= 1.5x);
2. a compilation (cache cleared) against ``sympy.lambdify`` of the same expression for mpmath,
   the run-time compiler sympy itself offers (target <= 1x: compiling is once per expression).

Run: ``PYTHONPATH=. python benchmarks/bench_compiler.py [--rounds 5]`` (a few seconds).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import flint
import sympy

from gdpproof.numeric.engine import _kernels, codegen
from gdpproof.numeric.engine._mp import arb_precision
from gdpproof.numeric.engine.compiler import arb_function


def _best(fn: Callable[[], object], calls: int, rounds: int) -> float:
    """The best round's CPU seconds per call."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - start) / calls)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    args = (flint.arb("0.3"), flint.arb("1.5"))
    print(f"{'kernel':24s} {'compiled':>10s} {'generated':>10s} {'ratio':>6s}   "
          f"{'compile':>9s} {'lambdify':>9s} {'ratio':>6s}")
    for name, _, expr, symbols in codegen.kernels()[:4]:
        compiled, generated = arb_function(expr, symbols), getattr(_kernels, name)
        with arb_precision(132):
            run = _best(lambda: compiled(*args), 2000, rounds)
            gen = _best(lambda: generated(*args), 2000, rounds)

        def compile_once() -> None:
            arb_function.cache_clear()
            arb_function(expr, symbols)

        make = _best(compile_once, 20, rounds)
        lam = _best(lambda: sympy.lambdify(symbols, expr, modules=["mpmath"]), 20, rounds)
        print(f"{name:24s} {run * 1e6:8.2f}us {gen * 1e6:8.2f}us {run / gen:5.2f}x   "
              f"{make * 1e3:7.2f}ms {lam * 1e3:7.2f}ms {make / lam:5.2f}x")


if __name__ == "__main__":
    main()
