"""``gdpproof convert``: mu-GDP <-> (epsilon, delta)-DP, given exactly two of --mu, --eps, --delta.

Imports only the certified solvers of :mod:`gdpproof.numeric.tradeoff.solve` (not the symbolic layer's
trade-off values), so that a conversion starts quickly.
"""

from __future__ import annotations

import argparse

from ._common import COMMON_FLAGS, Usage, emit, flags, labelled, noted, num

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FLAGS = {**COMMON_FLAGS, "mu": "--mu", "epsilon": "--eps", "delta": "--delta"}


def run(args: argparse.Namespace) -> int:
    given = [n for n in ("mu", "epsilon", "delta") if getattr(args, n) is not None]
    if len(given) != 2:
        raise Usage(f"convert takes exactly two of --mu, --eps, --delta (got {len(given)})")
    from ..numeric.tradeoff.solve import delta_from_epsilon, epsilon_from_delta, mu_from_epsilon_delta

    def solve() -> tuple[str, Any]:
        if args.delta is None:
            return "delta", delta_from_epsilon(args.mu, args.epsilon, digits=args.digits)
        if args.epsilon is None:
            return "eps", epsilon_from_delta(args.mu, args.delta, digits=args.digits)
        return "mu", mu_from_epsilon_delta(args.epsilon, args.delta, digits=args.digits)

    with flags(FLAGS):
        (key, value), notes = noted(solve)
    payload = {k: v for k, v in (("mu", args.mu), ("eps", args.epsilon), ("delta", args.delta)) if v is not None}
    payload.update({key: num(value), "digits": value.digits, "rounding": value.rounding, "certified": value.method})
    if notes:
        payload["notes"] = notes
    what = {"delta": f"of {args.mu}-GDP at eps = {args.epsilon}",
            "eps": f"the smallest, of {args.mu}-GDP at delta = {args.delta}",
            "mu": f"the largest with mu-GDP implying ({args.epsilon}, {args.delta})-DP"}[key]
    emit(args, payload, "\n".join([labelled(key, value, what), *(f"note: {n}" for n in notes)]))
    return 0
