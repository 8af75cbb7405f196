"""``gdpproof tables --regenerate | --check [--rows N]``: the tables shipped in
gdpproof/reference/data, rebuilt in place or recomputed and compared (exit 1 on a difference)."""

from __future__ import annotations

import argparse
import sys

from .._args import int_option
from ._common import Usage, emit


def run(args: argparse.Namespace) -> int:
    from ..reference import check_shipped, regenerate_shipped

    progress = sys.stderr.isatty()
    if args.regenerate:
        if args.rows is not None:
            raise Usage(f"--rows={args.rows} applies to --check only")
        paths = regenerate_shipped(progress=progress)
        emit(args, {"written": [str(p) for p in paths]}, "\n".join(f"wrote {p}" for p in paths))
        return 0
    rows = None if args.rows is None else int_option("--rows", args.rows)
    diff = check_shipped(rows=rows, progress=progress)
    lines = []
    for name, d in diff.items():
        lines.append(f"{name}: {'identical' if not d else f'{len(d)} differences'}")
        lines.extend(f"  {x}" for x in d[:10])
    emit(args, {"tables": dict(diff), "identical": not any(diff.values())}, "\n".join(lines))
    return 1 if any(diff.values()) else 0
