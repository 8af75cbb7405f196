"""``gdpproof calibrate --eps E --delta D [--sensitivity S]``: the smallest Gaussian noise sigma
for (epsilon, delta)-DP (rounded up), and the mu it gives (rounded down).

Imports only the certified solvers of :mod:`gdpproof.numeric.solve`.
"""

from __future__ import annotations

import argparse

from ._common import COMMON_FLAGS, emit, flags, num

FLAGS = {**COMMON_FLAGS, "epsilon": "--eps", "delta": "--delta", "sensitivity": "--sensitivity"}


def run(args: argparse.Namespace) -> int:
    from ..numeric.solve import mu_from_epsilon_delta, sigma_from_epsilon_delta

    with flags(FLAGS):
        sigma = sigma_from_epsilon_delta(args.epsilon, args.delta, args.sensitivity, digits=args.digits)
        mu = mu_from_epsilon_delta(args.epsilon, args.delta, digits=args.digits)
    emit(args, {"eps": args.epsilon, "delta": args.delta, "sensitivity": args.sensitivity,
                "sigma": num(sigma), "mu": num(mu), "digits": sigma.digits,
                "rounding": {"sigma": "up", "mu": "down"}, "certified": sigma.method},
         f"sigma = {sigma}   (mu = {mu})")
    return 0
