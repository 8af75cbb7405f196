"""``gdpproof check KIND ...``: is it a trade-off function?  Exit 1 if refuted."""

from __future__ import annotations

import argparse

from ._common import Usage, emit
from ._family import family


def run(args: argparse.Namespace) -> int:
    if args.points < 2:
        raise Usage(f"--points={args.points} must be at least 2")
    f = family(args)
    r = f.check(points=args.points)
    payload = {"function": r.function, "ok": r.ok,
               "verdicts": [{"property": v.property, "status": v.status, "method": v.method,
                             "detail": v.detail} for v in r.verdicts]}
    emit(args, payload, str(r))
    return 0 if r.ok else 1
