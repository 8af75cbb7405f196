"""Proven composition beyond float64 (issue 17): the exact integer lattice against the float64 FFT.

Ratios in one run (CPU seconds; the machine is shared, so the ratios are the figures to read):

1. the exact-lattice bracket (``route="exact"``) against the float64 FFT bracket (``route="float"``)
   on the same composition, sigma = 1, q = 0.01, T = 1000 (Poisson, add/remove), delta = 1e-5,
   both to a relative width of 1% on epsilon;
2. the exact lattice at delta = 1e-30 (and 1e-50) against delta = 1e-5 (goal <= 5x);
3. the issue's done-when: 1000-fold G_0.05, ``account(Repeated(GDP("0.05"), 1000), delta=...,
   route="bracket")``, at delta = 1e-30 and 1e-50, against the certified closed form
   eps(delta) of G_{sqrt(1000) 0.05} (contained? width?);
4. DP-SGD at delta = 1e-30 against dp_accounting's upper estimates: its PLD accountant returns
   inf there (its float masses are truncated far above 1e-30), its RDP accountant an upper
   bound the proven bracket must lie below;
5. for one Census geolevel, the time to the paper's tolerance: ``benchmarks/bench_census.py``.

The limits in the same run: one ``fmpz_poly`` squaring of the final vector and one arb erfc at
the working precision (as in ``bench_small_delta.py``).

Run: ``PYTHONPATH=. python benchmarks/bench_highprec.py [--skip-peers]`` (about a minute).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Callable
from fractions import Fraction
from typing import TypeVar

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gdpproof  # noqa: E402
from bench_small_delta import _limits  # noqa: E402
from gdpproof.mechanisms import GDP, Repeated, dpsgd  # noqa: E402
from gdpproof.accounting.losses import SubsampledGaussianLoss
from gdpproof.accounting.search import epsilon_bracket  # noqa: E402

R = TypeVar("R")


def _timed(fn: Callable[[], R]) -> tuple[R, float, float]:
    """(result, CPU seconds, wall seconds) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def _bracket_rows(rel_width: float) -> None:
    parts = [(SubsampledGaussianLoss(1.0, 0.01), 1000)]
    print("## sigma = 1, q = 0.01, T = 1000: exact integer lattice against the float64 FFT\n")
    print("| delta | route | eps bracket | rel. width | CPU s | wall s | ratio | limit: 1 product s / 1 erfc us |")
    print("|---|---|---|---|---|---|---|---|")
    base: dict[str, float] = {}
    for delta, route in (("1e-5", "float"), ("1e-5", "exact"), ("1e-30", "exact"), ("1e-50", "exact")):
        (b, comp), cpu, wall = _timed(lambda: epsilon_bracket(parts, delta, rel_width=rel_width, route=route))
        if route == "float":
            base["float"] = cpu
            ratio = "1 (reference)"
        elif delta == "1e-5":
            base["exact"] = cpu
            ratio = f"{cpu / base['float']:.2f}x the float64 FFT"
        else:
            ratio = (f"{cpu / base['exact']:.2f}x the exact lattice at 1e-5, {cpu / base['float']:.2f}x the "
                     "float64 FFT at 1e-5 (route auto there; goal <= 5x)")
        limit = "-"
        if comp.plan is not None:
            mul, erfc = _limits(comp.plan.final_length, 2 * comp.plan.K, comp.plan.K + 40)
            limit = f"{mul:.3f} / {erfc * 1e6:.1f}"
        print(f"| {delta} | {comp.route} | [{b.lower:.6g}, {b.upper:.6g}] | {b.relative_width:.4f} | "
              f"{cpu:.2f} | {wall:.2f} | {ratio} | {limit} |", flush=True)


def _gdp_rows() -> None:
    print("\n## 1000-fold G_0.05 (exactly G_{sqrt(1000) 0.05}) on the bracket route\n")
    print("| delta | eps bracket | rel. width | certified closed form | contained | CPU s |")
    print("|---|---|---|---|---|---|")
    mech = Repeated(GDP("0.05"), 1000)
    for delta in ("1e-30", "1e-50"):
        acc, cpu, _ = _timed(lambda: gdpproof.account(mech, delta=delta, route="bracket"))
        # the exact route: G_{sqrt(1000) 0.05}'s eps(delta) certified to 20 digits, rounded up, so
        # the true value lies in [e (1 - 1e-18), e]
        e = gdpproof.account(mech, delta=delta, route="exact", digits=20).epsilon.to_fraction()
        lo, hi = Fraction(acc.epsilon.lower), Fraction(acc.epsilon.upper)
        inside = lo <= e * (1 - Fraction(1, 10**18)) and e <= hi
        print(f"| {delta} | [{acc.epsilon.lower:.8g}, {acc.epsilon.upper:.8g}] | "
              f"{acc.epsilon.relative_width:.4f} | {float(e):.12g} | {inside} | {cpu:.2f} |", flush=True)


def _dpsgd_rows(skip_peers: bool) -> None:
    print("\n## DP-SGD at delta = 1e-30 against dp_accounting's upper estimates\n")
    print("| sigma, q, T | proven eps bracket | rel. width | CPU s | dp_accounting RDP | dp_accounting PLD |")
    print("|---|---|---|---|---|---|")
    for sigma, q, steps in ((1.0, 0.05, 50), (1.0, 0.01, 1000)):
        acc, cpu, _ = _timed(lambda: gdpproof.account(dpsgd(sigma, q, steps), delta=1e-30))
        rdp = pld = "not installed"
        if not skip_peers:
            try:
                import dp_accounting as dpa
                from dp_accounting.pld import privacy_loss_distribution as pldm
            except ImportError:
                pass
            else:
                event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps)
                accountant = dpa.rdp.RdpAccountant()
                accountant.compose(event)
                rdp_eps = accountant.get_epsilon(1e-30)
                rdp = f"{rdp_eps:.6g} ({'above' if rdp_eps >= acc.epsilon.upper else 'BELOW'} the bracket)"
                loss = pldm.from_gaussian_mechanism(sigma, sampling_prob=q, value_discretization_interval=1e-4,
                                                    use_connect_dots=True).self_compose(steps)
                pld = f"{loss.get_epsilon_for_delta(1e-30):.6g}"
        print(f"| {sigma}, {q}, {steps} | [{acc.epsilon.lower:.6g}, {acc.epsilon.upper:.6g}] | "
              f"{acc.epsilon.relative_width:.4f} | {cpu:.2f} | {rdp} | {pld} |", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rel-width", type=float, default=0.01)
    parser.add_argument("--skip-peers", action="store_true")
    args = parser.parse_args(argv)
    _bracket_rows(args.rel_width)
    _gdp_rows()
    _dpsgd_rows(args.skip_peers)


if __name__ == "__main__":
    main()
