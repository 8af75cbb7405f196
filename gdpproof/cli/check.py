"""``gdpproof check KIND ...``: is it a trade-off function?  Exit 1 if refuted."""

from __future__ import annotations

import argparse

from ._common import emit, flags
from ._family import family


def run(args: argparse.Namespace) -> int:
    f = family(args)
    with flags({"points": "--points"}):
        r = f.check(points=args.points)
    payload = {"function": r.function, "ok": r.ok,
               "verdicts": [{"property": v.property, "status": v.status, "method": v.method,
                             "detail": v.detail} for v in r.verdicts]}
    emit(args, payload, str(r))
    return 0 if r.ok else 1
