"""``gdpproof report [--out DIR]``: the verification end to end, written as HTML and JSON.
Exit 1 if any check fails."""

from __future__ import annotations

import argparse

from ._common import COMMON_FLAGS, flags


def run(args: argparse.Namespace) -> int:
    from ..report import write_report

    with flags({**COMMON_FLAGS, "out": "--out"}):
        summary = write_report(args.out, digits=args.digits, progress=not args.quiet, quick=args.quick,
                               notebooks=not args.no_notebooks)
    peers = summary["peer_audits"]
    print(f"report written to {summary['index']} ({summary['passed']} passed, {summary['skipped']} skipped, "
          f"{summary['failed']} failed of {summary['total']} checks; peer audits apart: {peers['ran']} ran, "
          f"{peers['with_material_unsafe']} with material unsafe findings, {peers['skipped']} skipped; "
          f"{summary['seconds']} s)")
    return 0 if summary["failed"] == 0 else 1
