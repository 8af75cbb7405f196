"""``gdpproof convert``: mu-GDP <-> (epsilon, delta)-DP, given exactly two of --mu, --eps, --delta.

Imports only the certified solvers of :mod:`gdpproof.numeric.tradeoff.solve` (not the symbolic layer's
trade-off values), so that a conversion starts quickly.
"""

from __future__ import annotations

import argparse

from ._common import COMMON_FLAGS, Usage, emit, flags, labelled
from ..text import json_number

FLAGS = {**COMMON_FLAGS, "mu": "--mu", "epsilon": "--eps", "delta": "--delta"}


def run(args: argparse.Namespace) -> int:
    given = [n for n in ("mu", "epsilon", "delta") if getattr(args, n) is not None]
    if len(given) != 2:
        raise Usage(f"convert takes exactly two of --mu, --eps, --delta (got {len(given)})")
    from ..numeric.tradeoff.solve import delta_from_epsilon, epsilon_from_delta, mu_from_epsilon_delta

    with flags(FLAGS):
        if args.delta is None:
            key, value = "delta", delta_from_epsilon(args.mu, args.epsilon, digits=args.digits)
        elif args.epsilon is None:
            key, value = "eps", epsilon_from_delta(args.mu, args.delta, digits=args.digits)
        else:
            key, value = "mu", mu_from_epsilon_delta(args.epsilon, args.delta, digits=args.digits)
    payload = {k: v for k, v in (("mu", args.mu), ("eps", args.epsilon), ("delta", args.delta)) if v is not None}
    payload.update({key: json_number(value), "digits": value.digits, "rounding": value.rounding, "certified": value.method})
    what = {"delta": f"of {args.mu}-GDP at eps = {args.epsilon}",
            "eps": f"the smallest, of {args.mu}-GDP at delta = {args.delta}",
            "mu": f"the largest with mu-GDP implying ({args.epsilon}, {args.delta})-DP"}[key]
    emit(args, payload, labelled(key, value, what))
    return 0
