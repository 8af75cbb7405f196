"""``gdpproof calibrate``: noise for a target.

* ``calibrate [gaussian] --eps E --delta D [--sensitivity S]``: the smallest Gaussian noise sigma
  for (epsilon, delta)-DP (certified, rounded up), and the mu it gives (rounded down), from the
  certified solvers of :mod:`gdpproof.numeric.tradeoff.solve`;
* ``calibrate dpsgd --target-eps E --delta D ...``: DP-SGD's sigma (or steps, or sampling rate)
  with a proven epsilon, through :func:`gdpproof.calibrate`.
"""

from __future__ import annotations

import argparse

from ._common import COMMON_FLAGS, Usage, emit, flags, noise_line, noted, sensitivity_of
from ..text import json_number

FLAGS = {**COMMON_FLAGS, "epsilon": "--eps", "delta": "--delta", "sensitivity": "--sensitivity"}
DPSGD_FLAGS = {**COMMON_FLAGS, "target_epsilon": "--target-eps", "delta": "--delta", "noise_multiplier": "--sigma",
               "sample_rate": "--sample-rate", "steps": "--steps", "epochs": "--epochs", "batch_size": "--batch-size",
               "dataset_size": "--dataset-size", "rel_width": "--rel-width", "sampling": "--sampling",
               "neighbours": "--neighbours"}
_DPSGD_ONLY = ("sigma", "sample_rate", "steps", "epochs", "batch_size", "dataset_size", "rel_width", "sampling",
               "neighbours")


def run(args: argparse.Namespace) -> int:
    if args.target == "dpsgd":
        return _dpsgd(args)
    # a DP-SGD option given here is refused, even at its default value (--sampling poisson): never ignored
    given = [f"--{name.replace('_', '-')}={getattr(args, name)}" for name in _DPSGD_ONLY
             if getattr(args, name) is not None] + (["--progress"] if args.progress else [])
    if given:
        raise Usage(f"{', '.join(given)}: DP-SGD options, which calibrate gaussian does not take; use "
                    "'gdpproof calibrate dpsgd ...'")
    from ..numeric.tradeoff.solve import mu_from_epsilon_delta, sigma_from_epsilon_delta

    digits = 30 if args.digits is None else args.digits
    sensitivity = "1" if args.sensitivity is None else args.sensitivity
    with flags(FLAGS):
        (sigma, mu), notes = noted(lambda: (sigma_from_epsilon_delta(args.epsilon, args.delta, sensitivity, digits=digits),
                                            mu_from_epsilon_delta(args.epsilon, args.delta, digits=digits)))
    emit(args, {"eps": args.epsilon, "delta": args.delta, "sensitivity": sensitivity,
                "sigma": json_number(sigma), "mu": json_number(mu), "digits": sigma.digits,
                "rounding": {"sigma": "up", "mu": "down"}, "certified": sigma.method, **({"notes": notes} if notes else {})},
         "\n".join([f"sigma = {sigma}   (certified, rounded up)", f"mu    = {mu}   (certified, rounded down)",
                    *(f"note: {n}" for n in notes)]))
    return 0


def _dpsgd(args: argparse.Namespace) -> int:
    if args.sensitivity is not None:
        raise Usage(f"--sensitivity={args.sensitivity}: DP-SGD's sensitivity is set by --sampling and --neighbours "
                    "(C with poisson and add-remove, 2C otherwise; sigma is the noise over the clipping norm C)")
    from ..calibration import calibrate

    from .._progress import Ticker

    digits = 4 if args.digits is None else args.digits
    # --progress reports each step of the search; without it, a terminal sees a ticker after 2 s
    with flags(DPSGD_FLAGS), Ticker("gdpproof calibrate", enabled=None if not args.progress else False):
        c = calibrate(args.epsilon, args.delta, noise_multiplier=args.sigma, sample_rate=args.sample_rate,
                      steps=args.steps, epochs=args.epochs, batch_size=args.batch_size,
                      dataset_size=args.dataset_size, digits=digits,
                      rel_width="0.01" if args.rel_width is None else args.rel_width,
                      sampling="fixed-batch" if args.sampling == "uniform" else args.sampling or "poisson",
                      neighbours=args.neighbours, progress=args.progress)
    a, n = c.account, c.neighbour_account
    name = {"noise_multiplier": "sigma", "steps": "steps", "sample_rate": "q", "batch_size": "batch"}[c.parameter]
    how = f"{c.digits} significant digits, rounded {c.rounding}" if c.digits else f"rounded {c.rounding}"
    text = [f"{name:<9} = {c.text}   ({how}): meets the target, its eps proven <= {c.to_dict()['target_eps']}",
            (f"eps       in [{a.eps_lower}, {a.eps_upper}]   proven at delta = {c.to_dict()['delta']} (lower rounded "
             "down, upper up)" if a.pair_tight else
             f"eps       <= {a.eps_upper}   proven at delta = {c.to_dict()['delta']} (rounded up; the dominating pair's "
             f"eps >= {a.eps_lower}, a lower bound for the pair, not for the mechanism)"),
            f"{'next':<9} = {c.text_of(c.neighbour)}   eps {'in' if n.pair_tight else '<='} "
            f"{f'[{n.eps_lower}, {n.eps_upper}]' if n.pair_tight else n.eps_upper}: {c.neighbour_phrase()}",
            f"schedule  : q = {c.to_dict()['sample_rate']}, T = {c.schedule.steps}"
            + (f"   ({c.schedule.rule})" if c.schedule.rule else "")]
    text.insert(1, f"noise     : {noise_line(a.mechanism)}")
    if a.clt is not None:
        text.append(f"mu_clt    = {a.clt.mu}   (CLT approximation at the answer, not a bound)")
    text.append(f"cost      : {c.evaluations} compositions ({c.evaluations - c.proven} coarse estimates, "
                f"{c.proven} proven accounts)")
    text.append(c.statement())
    emit(args, {**c.to_dict(), "sensitivity": sensitivity_of(a.mechanism)}, "\n".join(text))
    return 0
