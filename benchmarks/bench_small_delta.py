"""DP-SGD epsilon at small delta: the tilted pairs (and the exact integer lattice), with their
limits measured in the same run.

For each configuration (Poisson-subsampled Gaussian, add/remove neighbours) and delta in
{1e-9, 1e-12, 1e-30} it runs ``epsilon_bracket(..., rel_width=0.01)`` (``route="auto"``, which
below 1e-7 takes the tilted pairs of :mod:`gdpproof.accounting.tilt`, and the exact integer
lattice of :mod:`gdpproof.accounting.exact_lattice` where they do not reach the width) and prints
the proven bracket, its relative width, whether the width was met, the route and discretization,
wall and CPU time, the grid step h, and the exact route's plan where it ran (scale bits K,
per-step bins, final vector length).  ``--exact`` adds each delta below 1e-7 on the exact lattice
(``route="exact"``), for the ratio between the two; ``--delta-at`` adds delta(eps) at an eps
where it is near 1e-30 (``delta_bracket``, and with ``--exact`` on the exact lattice too).

The limits, in the same run, so that the times can be read as ratios on a shared machine:

- one ``fmpz_poly`` product of the final vector's length and bits (the cost of one squaring;
  a composition makes about 2 log2(T) of them per ordering);
- one arb ``erfc`` at the working precision K + 40 (the per-step masses cost one to three per
  bin edge and law).

Each row's CPU time is also given as a ratio to the same configuration's bracket at delta = 1e-5
(``--reference-delta``, the float route's pairs there; best of ``--repeats``, it is short), the
target at 1e-30 being <= 10.  The load average is printed first.

Run: ``PYTHONPATH=. python benchmarks/bench_small_delta.py [--configs sigma1,mnist]
[--deltas 1e-9,1e-12,1e-30] [--exact] [--delta-at]`` (seconds; a few minutes with --exact,
whose MNIST rows dominate).
"""

from __future__ import annotations

import argparse
import os
import random
import time
import warnings

import flint

from gdpproof.numeric.engine._mp import arb_precision
from gdpproof.accounting.losses import SubsampledGaussianLoss
from gdpproof.accounting.search import delta_bracket, epsilon_bracket

CONFIGS = {
    "sigma1": (1.0, 0.01, 1000),
    "mnist": (1.1, 256 / 60000, 14063),
}


def _limits(length: int, bits: int, prec: int) -> tuple[float, float]:
    """(seconds per fmpz_poly product of two vectors of ``length`` entries of ``bits`` bits,
    seconds per arb erfc at ``prec`` bits)."""
    rnd = random.Random(1)
    p = flint.fmpz_poly([rnd.getrandbits(bits) for _ in range(length)])
    start = time.perf_counter()
    _ = p * p
    mul = time.perf_counter() - start
    with arb_precision(prec):
        xs = [flint.arb(1 + k / 100) for k in range(200)]
        start = time.perf_counter()
        for x in xs:
            x.erfc()
        erfc = (time.perf_counter() - start) / len(xs)
    return mul, erfc


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="sigma1,mnist")
    parser.add_argument("--deltas", default="1e-9,1e-12,1e-30")
    parser.add_argument("--rel-width", type=float, default=0.01)
    parser.add_argument("--reference-delta", default="1e-5", help="the delta the ratios are to (default 1e-5)")
    parser.add_argument("--repeats", type=int, default=3, help="best of N at the reference delta (default 3)")
    parser.add_argument("--exact", action="store_true", help="also run each delta below 1e-7 on the exact lattice")
    parser.add_argument("--delta-at", action="store_true", help="also delta(eps) where it is near 1e-30")
    args = parser.parse_args(argv)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| config | delta | eps bracket | rel. width | met | route | wall s | CPU s | CPU / CPU at the reference "
          "| h | K | step bins | final length | 1 product s | 1 erfc us |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    epsilon_bracket([(SubsampledGaussianLoss(1.0, 0.01), 100)], args.reference_delta, rel_width=args.rel_width)
    for name in args.configs.split(","):
        sigma, q, steps = CONFIGS[name]
        ref = None
        runs = [(d, "auto") for d in [args.reference_delta] + args.deltas.split(",")]
        if args.exact:
            runs += [(d, "exact") for d in args.deltas.split(",") if float(d) < 1e-7]
        for delta, route in runs:
            best_cpu = best_wall = float("inf")
            for _ in range(args.repeats if ref is None else 1):
                wall, cpu = time.perf_counter(), time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    b, comp = epsilon_bracket([(SubsampledGaussianLoss(sigma, q), steps)], delta,
                                              rel_width=args.rel_width, route=route)
                best_wall = min(best_wall, time.perf_counter() - wall)
                best_cpu = min(best_cpu, time.process_time() - cpu)
            wall, cpu = best_wall, best_cpu
            ref = cpu if ref is None else ref
            plan = comp.plan
            if plan is not None:
                mul, erfc = _limits(plan.final_length, 2 * plan.K, plan.K + 40)
                extra = (f"{plan.h:.3g} | {plan.K} | {plan.step_bins} | {plan.final_length} | {mul:.2f} | "
                         f"{erfc * 1e6:.1f}")
            else:
                extra = f"{comp.h:.3g} | - | - | - | - | -"
            how = comp.route if comp.plan is not None else f"{comp.route}, {comp.discretization}"
            print(f"| {name} | {delta} | [{b.lower:.6g}, {b.upper:.6g}] | {comp.rel_width_reached:.4f} | "
                  f"{comp.target_met} | {how} | {wall:.2f} | {cpu:.2f} | {cpu / ref:.1f} x | {extra} |",
                  flush=True)
    if args.delta_at:
        _delta_rows(args)


#: --delta-at: the eps of each configuration where delta is near 1e-30 (delta(eps) to a relative width).
DELTA_AT = {"sigma1": 9.33, "mnist": 7.77}


def _delta_rows(args: argparse.Namespace) -> None:
    """delta_bracket at DELTA_AT's eps (route auto, and with --exact the exact lattice)."""
    print("\n| config | eps | delta bracket | rel. width | met | route | CPU s |\n|---|---|---|---|---|---|---|")
    for name in args.configs.split(","):
        sigma, q, steps = CONFIGS[name]
        for route in ("auto", "exact") if args.exact else ("auto",):
            cpu = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                b, comp = delta_bracket([(SubsampledGaussianLoss(sigma, q), steps)], DELTA_AT[name],
                                        rel_width=args.rel_width, route=route)
            how = comp.route if comp.plan is not None else f"{comp.route}, {comp.discretization}"
            print(f"| {name} | {DELTA_AT[name]} | [{b.lower:.6g}, {b.upper:.6g}] | {comp.rel_width_reached:.4f} | "
                  f"{comp.target_met} | {how} | {time.process_time() - cpu:.2f} |", flush=True)


if __name__ == "__main__":
    main()
