"""Calibrating DP-SGD's noise multiplier: gdpproof's proven calibration against what users run.

One run, interleaved (``--repeats`` rounds, each running every method once in turn; medians), wall
and CPU time side by side, with the machine's load.  Target (eps, delta) = (3, 1e-5), Poisson
sampling at q = 0.01 over 500 epochs (T = 50000 steps), and a small configuration (2, 1e-5),
q = 0.01, T = 1000:

- gdpproof ``calibrate(eps, delta, sample_rate=q, steps=T, digits=4, rel_width=w)`` for w = 0.01
  and 0.003: the smallest 4-digit sigma whose *proven* eps upper end meets the target, with the
  bracket at the answer (its relative width is printed) and the number of compositions run;
- the limit, measured in the same run: one composition (one FFT pass) at the grid of the final
  bracket, ``compose_losses(...).epsilon(delta)``;
- dp_accounting's ``calibrate_dp_mechanism`` with its PLD accountant (``value_discretization_
  interval`` 1e-4 as in bench_pld, pessimistic estimate; Brent's method on sigma), started as
  its documentation describes for no prior knowledge: ``bracket_interval`` None, so it searches
  for a bracket from [0, 1], doubling.  Its ``tol`` is a unit of sigma's fourth significant digit
  in the answer's decade (1e-3 in [1, 10), 1e-4 in [0.1, 1)), the resolution of gdpproof's
  4 digits.  (An earlier version started it at sigma = 0.3 with gdpproof's answer as the guess:
  an evaluation at 0.3 costs dp_accounting seconds, which flattered gdpproof);
- Opacus's ``get_noise_multiplier(accountant="prv", epsilon_tolerance=0.01)`` where Opacus is
  installed (0.01 absolute at eps = 3 is 0.33 % relative, between gdpproof's two widths).

Peers answer an *estimate* of the boundary; gdpproof answers a sigma that meets the target with
proof, so its sigma is at least the true boundary and exceeds it by about the bracket's half
width.  Ratios are gdpproof's time over each peer's.

Then the fixed-batch bracket against the Poisson bracket of the same run (sigma, B/N, T), both at
1 % width through ``gdpproof.account``: fixed-size batches under replace-one (a symmetric pair:
one composition serves both orderings) and under add/remove, against Poisson add/remove.

Run: ``PYTHONPATH=. python benchmarks/bench_calibrate.py [--configs 1,2] [--repeats 3]`` (a few minutes).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

#: (label, eps, delta, q, T, dp_accounting's tol: a unit of sigma's fourth digit in its decade)
CONFIGS = [("eps=3, delta=1e-5, q=0.01, 500 epochs (T=50000)", 3.0, 1e-5, 0.01, 50000, 1e-3),
           ("eps=2, delta=1e-5, q=0.01, T=1000", 2.0, 1e-5, 0.01, 1000, 1e-4)]


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def gdpproof_run(eps: float, delta: float, q: float, steps: int, width: float) -> tuple[str, str]:
    from gdpproof import calibrate

    c = calibrate(eps, delta, sample_rate=q, steps=steps, digits=4, rel_width=width)
    b = c.account.epsilon
    return c.text, (f"eps in [{b.lower:.5f}, {b.upper:.5f}] ({b.relative_width:.2%} wide), {c.evaluations} "
                    f"compositions ({c.proven} proven accounts)")


def limit_run(eps: float, delta: float, q: float, steps: int, sigma: float) -> tuple[str, float, float]:
    from gdpproof.accounting.losses import SubsampledGaussianLoss
    from gdpproof.accounting.compose import compose_losses
    from gdpproof.accounting.search import epsilon_bracket

    parts = [(SubsampledGaussianLoss(sigma, q), steps)]
    _, comp = epsilon_bracket(parts, delta, rel_width=0.01)
    h = comp.h
    # the same discretization as the final bracket (the pairs carry no eta)
    how = {"discretization": comp.discretization, **({"eta": comp.eta} if comp.eta else {})}
    _, wall, cpu = timed(lambda: compose_losses(parts, grid_step=h, **how).epsilon(delta))
    return f"{wall:.2f} s wall / {cpu:.2f} s CPU (h = {h:.3g}, {comp.discretization})", wall, cpu


def dp_accounting_run(eps: float, delta: float, q: float, steps: int, tol: float) -> float:
    import dp_accounting
    from dp_accounting import mechanism_calibration as mc
    from dp_accounting.pld import pld_privacy_accountant

    def event(sigma: float) -> Any:
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)

    return mc.calibrate_dp_mechanism(lambda: pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4),
                                     event, eps, delta, None, tol=tol)


def opacus_run(eps: float, delta: float, q: float, steps: int) -> float:
    from opacus.accountants.utils import get_noise_multiplier

    return get_noise_multiplier(target_epsilon=eps, target_delta=delta, sample_rate=q, steps=steps,
                                accountant="prv", epsilon_tolerance=0.01)


SCHEME_CONFIGS = [("sigma=1, B/N=600/60000, T=1000", 1.0, 600, 60000, 1000),
                  ("MNIST: sigma=1.1, B/N=256/60000, T=14063", 1.1, 256, 60000, 14063)]


def schemes() -> None:
    from gdpproof import account, dpsgd

    print("\n## fixed-size batches against Poisson sampling, same run, delta = 1e-5, 1% width")
    print("| run | scheme | eps bracket | wall s | CPU s | ratio to Poisson (CPU) |\n| --- | --- | --- | --- | --- | --- |")
    for label, sigma, b, n, steps in SCHEME_CONFIGS:
        base = None
        for sampling, rel in (("poisson", "add-remove"), ("fixed-batch", "replace-one"), ("fixed-batch", "add-remove")):
            # the same effective noise: sigma is over C, and fixed-size batches have sensitivity 2C
            s = sigma if sampling == "poisson" else 2 * sigma
            m = dpsgd(s, batch_size=b, dataset_size=n, steps=steps, sampling=sampling, neighbours=rel)
            a, wall, cpu = timed(lambda: account(m, delta="1e-5"))
            base = cpu if base is None else base
            print(f"| {label} | {sampling}, {rel} | [{a.eps_lower}, {a.eps_upper}] | {wall:.2f} | {cpu:.2f} | "
                  f"{cpu / base:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configs", default="1,2", help="which configurations (1-based, comma-separated)")
    ap.add_argument("--schemes-only", action="store_true", help="only the fixed-batch against Poisson table")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved rounds (default 3)")
    args = ap.parse_args()
    if args.schemes_only:
        schemes()
        return

    for i in (int(x) for x in args.configs.split(",")):
        label, eps, delta, q, steps, tol = CONFIGS[i - 1]
        print(f"\n## {label}")
        methods: dict[str, Callable[[], Any]] = {
            f"gdpproof calibrate, rel_width {w}": (lambda w=w: gdpproof_run(eps, delta, q, steps, w))
            for w in (0.01, 0.003)}
        methods[f"dp_accounting PLD + calibrate_dp_mechanism (bracket None, PLD 1e-4, tol {tol:g})"] = \
            lambda: dp_accounting_run(eps, delta, q, steps, tol)
        methods["Opacus get_noise_multiplier(prv, epsilon_tolerance 0.01)"] = lambda: opacus_run(eps, delta, q, steps)
        results: dict[str, Any] = {}
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in methods}
        for _ in range(args.repeats):  # interleaved: each round runs every method once, in turn
            for name, fn in methods.items():
                if name in results and isinstance(results[name], Exception):
                    continue
                try:
                    out, wall, cpu = timed(fn)
                except Exception as exc:  # a peer's failure (or absence) is a finding: report it and go on
                    results[name] = exc
                    continue
                results[name] = out
                times[name].append((wall, cpu))
        med = {name: (statistics.median(t[0] for t in ts), statistics.median(t[1] for t in ts))
               for name, ts in times.items() if ts}
        ours = next(iter(methods))
        rows = []
        for name in methods:
            r = results[name]
            if isinstance(r, Exception):
                rows.append((name, "not installed" if isinstance(r, ImportError) else "failed", 0.0, 0.0,
                             f"{type(r).__name__}: {str(r).splitlines()[0][:80]}"))
                continue
            w, c = med[name]
            if name.startswith("gdpproof"):
                rows.append((name, r[0], w, c, r[1]))
            else:
                rows.append((name, f"{r:.5f}", w, c, f"gdpproof (rel_width 0.01)/peer: {med[ours][0] / w:.2f}x wall, "
                             f"{med[ours][1] / max(c, 1e-9):.2f}x CPU"))
        text, lw, lc = limit_run(eps, delta, q, steps, float(results[ours][0]))
        rows.insert(2, ("limit: one composition at the final grid", "", lw, lc, text))
        load = os.getloadavg()
        print(f"{args.repeats} interleaved rounds, medians; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        print("| method | sigma | wall s | CPU s | notes |\n| --- | --- | --- | --- | --- |")
        for name, sigma, wall, cpu, note in rows:
            print(f"| {name} | {sigma} | {wall:.2f} | {cpu:.2f} | {note} |")
    schemes()


if __name__ == "__main__":
    main()
