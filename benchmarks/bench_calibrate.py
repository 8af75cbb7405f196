"""Calibrating DP-SGD's noise multiplier: gdpproof's proven calibration against what users run.

One run, interleaved, wall and CPU time side by side.  Target (eps, delta) = (3, 1e-5), Poisson
sampling at q = 0.01 over 500 epochs (T = 50000 steps), and a small configuration (2, 1e-5),
q = 0.01, T = 1000:

- gdpproof ``calibrate(eps, delta, sample_rate=q, steps=T, digits=4, rel_width=w)`` for w = 0.01
  and 0.003: the smallest 4-digit sigma whose *proven* eps upper end meets the target, with the
  bracket at the answer (its relative width is printed) and the number of compositions run;
- the limit, measured in the same run: one composition (one FFT pass) at the grid of the final
  bracket, ``compose_losses(...).epsilon(delta)``;
- dp_accounting's ``calibrate_dp_mechanism`` with its PLD accountant (``value_discretization_
  interval`` 1e-4 as in bench_pld, pessimistic estimate; Brent's method on sigma with tol =
  1e-3 sigma, the same relative resolution as 4 digits);
- Opacus's ``get_noise_multiplier(accountant="prv", epsilon_tolerance=0.01)`` where Opacus is
  installed (0.01 absolute at eps = 3 is 0.33 % relative, between gdpproof's two widths).

Peers answer an *estimate* of the boundary; gdpproof answers a sigma that meets the target with
proof, so its sigma is at least the true boundary and exceeds it by about the bracket's half
width.  Ratios are gdpproof's time over each peer's.

Then the fixed-batch bracket against the Poisson bracket of the same run (sigma, B/N, T), both at
1 % width through ``gdpproof.account``: fixed-size batches under replace-one (a symmetric pair:
one composition serves both orderings) and under add/remove, against Poisson add/remove.

Run: ``PYTHONPATH=. python benchmarks/bench_calibrate.py [--configs 1,2]`` (about two minutes).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

CONFIGS = [("eps=3, delta=1e-5, q=0.01, 500 epochs (T=50000)", 3.0, 1e-5, 0.01, 50000),
           ("eps=2, delta=1e-5, q=0.01, T=1000", 2.0, 1e-5, 0.01, 1000)]


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def gdpproof_run(eps: float, delta: float, q: float, steps: int, width: float) -> tuple[str, str]:
    from gdpproof import calibrate

    c = calibrate(eps, delta, sample_rate=q, steps=steps, digits=4, rel_width=width)
    b = c.account.epsilon
    return c.text, f"eps in [{b.lower:.5f}, {b.upper:.5f}] ({b.relative_width:.2%} wide), {c.evaluations} compositions"


def limit_run(eps: float, delta: float, q: float, steps: int, sigma: float) -> tuple[str, float, float]:
    from gdpproof.accounting.losses import SubsampledGaussianLoss
    from gdpproof.accounting.compose import compose_losses
    from gdpproof.accounting.search import epsilon_bracket

    parts = [(SubsampledGaussianLoss(sigma, q), steps)]
    _, comp = epsilon_bracket(parts, delta, rel_width=0.01)
    h = comp.h
    _, wall, cpu = timed(lambda: compose_losses(parts, grid_step=h, eta=comp.eta).epsilon(delta))
    return f"{wall:.2f} s wall / {cpu:.2f} s CPU (h = {h:.3g})", wall, cpu


def dp_accounting_run(eps: float, delta: float, q: float, steps: int, guess: float) -> float:
    import dp_accounting
    from dp_accounting import mechanism_calibration as mc
    from dp_accounting.pld import pld_privacy_accountant

    def event(sigma: float) -> Any:
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)

    return mc.calibrate_dp_mechanism(lambda: pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4),
                                     event, eps, delta, mc.LowerEndpointAndGuess(0.3, guess),
                                     tol=1e-3 * guess)


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
    args = ap.parse_args()
    if args.schemes_only:
        schemes()
        return
    for i in (int(x) for x in args.configs.split(",")):
        label, eps, delta, q, steps = CONFIGS[i - 1]
        print(f"\n## {label}")
        rows = []
        for width in (0.01, 0.003):
            (sigma, note), wall, cpu = timed(lambda: gdpproof_run(eps, delta, q, steps, width))
            rows.append((f"gdpproof calibrate, rel_width {width}", sigma, wall, cpu, note))
        g_wall, g_cpu = rows[0][2], rows[0][3]
        text, lw, lc = limit_run(eps, delta, q, steps, float(rows[0][1]))
        rows.append(("limit: one composition at the final grid", "", lw, lc, text))
        for name, fn in (("dp_accounting PLD + calibrate_dp_mechanism", lambda: dp_accounting_run(eps, delta, q, steps,
                                                                                                   float(rows[0][1]))),
                         ("Opacus get_noise_multiplier(prv)", lambda: opacus_run(eps, delta, q, steps))):
            try:
                value, wall, cpu = timed(fn)
            except ImportError as exc:
                rows.append((name, "not installed", 0.0, 0.0, str(exc).splitlines()[0]))
                continue
            except Exception as exc:  # a peer's failure is a finding: report it and go on
                rows.append((name, "failed", 0.0, 0.0, f"{type(exc).__name__}: {str(exc)[:80]}"))
                continue
            rows.append((name, f"{value:.5f}", wall, cpu, f"gdpproof/peer (rel_width 0.01): "
                         f"{g_wall / wall:.2f}x wall, {g_cpu / max(cpu, 1e-9):.2f}x CPU"))
        print("| method | sigma | wall s | CPU s | notes |\n| --- | --- | --- | --- | --- |")
        for name, sigma, wall, cpu, note in rows:
            print(f"| {name} | {sigma} | {wall:.2f} | {cpu:.2f} | {note} |")
    schemes()


if __name__ == "__main__":
    main()
