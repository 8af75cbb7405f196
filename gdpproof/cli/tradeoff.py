"""``gdpproof tradeoff KIND ... --alpha A``: beta = f(alpha), certified, rounded down by default."""

from __future__ import annotations

import argparse

from ._common import COMMON_FLAGS, emit, flags, labelled
from ..text import json_number
from ._family import family


def run(args: argparse.Namespace) -> int:
    f = family(args)
    with flags({**COMMON_FLAGS, "alpha": "--alpha"}):
        beta = f.evaluate(args.alpha, digits=args.digits, rounding=args.rounding)
    emit(args, {"function": repr(f), "alpha": args.alpha, "beta": json_number(beta), "digits": beta.digits,
                "rounding": beta.rounding, "certified": beta.method}, labelled("beta", beta, f"f(alpha) of {f!r} at alpha = {args.alpha}"))
    return 0
