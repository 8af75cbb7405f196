"""``gdpproof tightest-mu KIND ...``: the smallest mu with f >= G_mu, rounded up."""

from __future__ import annotations

import argparse

from ._common import COMMON_FLAGS, emit, flags, labelled
from ..text import json_number
from ._family import family


def run(args: argparse.Namespace) -> int:
    f = family(args)
    with flags(COMMON_FLAGS):
        m = f.tightest_mu(digits=args.digits)
    emit(args, {"function": repr(f), "mu": json_number(m), "digits": m.digits, "rounding": m.rounding,
                "certified": m.method}, labelled("mu", m, f"the smallest mu with {f!r} >= G_mu"))
    return 0
