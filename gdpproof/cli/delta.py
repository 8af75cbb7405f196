"""``gdpproof delta KIND ... --at EPS``: delta(epsilon) of a trade-off family, rounded up."""

from __future__ import annotations

import argparse

from ._common import COMMON_FLAGS, emit, flags, labelled
from ..text import json_number
from ._family import family


def run(args: argparse.Namespace) -> int:
    f = family(args)
    with flags({**COMMON_FLAGS, "epsilon": "--at"}):
        d = f.delta(args.at, digits=args.digits)
    emit(args, {"function": repr(f), "eps": args.at, "delta": json_number(d), "digits": d.digits,
                "rounding": d.rounding, "certified": d.method}, labelled("delta", d, f"delta(eps) of {f!r} at eps = {args.at}"))
    return 0
