"""``gdpproof table KIND ...``: a certified reference table (CSV, JSON, LaTeX, Markdown), written
atomically and resumable; or ``[KIND] --verify FILE``: recompute a table's rows (every row up to
10,000 rows, a sample above; ``--ulps``/``--rtol`` for third-party tables of floats)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from .._args import int_option
from ._common import Usage, emit, flags, write_out


@contextlib.contextmanager
def _table_executor(args: argparse.Namespace) -> Iterator[Any]:
    """The executor of ``--scheduler`` (None without), its client closed when the table is done."""
    if args.scheduler is None:
        yield None
        return
    try:
        from distributed import Client
    except ImportError:
        raise Usage(f"--scheduler={args.scheduler} needs dask.distributed (pip install 'gdpproof[scale]')") from None
    scheme = args.scheduler.split("://", 1)[0] if "://" in args.scheduler else "tcp"
    if scheme not in ("tcp", "inproc"):  # tls and ucx need a security or UCX setup a command line cannot give
        raise Usage(f"--scheduler={args.scheduler!r}: the scheme {scheme}:// is not supported here (tcp:// only); "
                    "for tls or ucx, connect a dask Client in Python and pass make_table(executor=...)")
    try:
        client = Client(args.scheduler, timeout=10)
    except Exception as exc:  # noqa: BLE001 - dask raises many kinds on a bad address: one line, exit 2
        raise Usage(f"--scheduler={args.scheduler!r}: cannot connect ({type(exc).__name__}: {exc})") from None
    try:
        yield client.get_executor()
    finally:
        client.close()


@contextlib.contextmanager
def _journal_notes() -> Iterator[None]:
    """A table journal's notes (no key; rows recomputed) as one line each on stderr, when they happen."""
    from ..reference import JournalNote

    def note_or_warn(message: Any, category: Any, *rest: Any, **kw: Any) -> None:
        if issubclass(category, JournalNote):
            print(f"gdpproof: note: {message}", file=sys.stderr, flush=True)
        else:
            shown(message, category, *rest, **kw)

    with warnings.catch_warnings():
        shown = warnings.showwarning
        warnings.simplefilter("always", JournalNote)
        warnings.showwarning = note_or_warn
        yield


def run(args: argparse.Namespace) -> int:
    from ..reference import make_table

    grid = {k[5:]: v for k, v in vars(args).items() if k.startswith("grid_") and v is not None}
    progress = not args.no_progress and sys.stderr.isatty()
    if args.verify is not None:
        extra = [f"--{k.replace('_', '-')}" for k in grid] + \
            [o for o, v in (("--out", args.out), ("--resume", args.resume), ("--format", args.format)) if v]
        if extra:
            raise Usage(f"--verify takes a file, KIND and --sample/--seed/--ulps/--rtol only; {extra[0]} does not "
                        "apply")
        return _verify(args, progress)
    if args.ulps is not None or args.rtol is not None:
        raise Usage(f"{'--ulps' if args.ulps is not None else '--rtol'} goes with --verify FILE (a tolerance for "
                    "checking a table of floats)")
    if args.kind is None:
        raise Usage("give a table KIND (or --verify FILE)")
    if args.resume and args.out is None:
        raise Usage("--resume needs --out (the journal is OUT.partial)")
    if not 1 <= args.digits <= 4000:
        raise Usage(f"--digits={args.digits} must be an integer in [1, 4000]")
    workers = min(os.cpu_count() or 1, 8) if args.workers is None else int_option("--workers", args.workers)
    # a cluster's rows come back as pickles and are not recomputed here: the table says whose they are
    where = None if args.scheduler is None else f"the dask cluster at {args.scheduler}"
    if args.out is None:
        with _table_executor(args) as executor:
            table = make_table(args.kind, digits=args.digits, workers=workers, executor=executor,
                               progress=progress, computed_on=where, **grid)
        write_out(table.render("json" if args.json and args.format is None else (args.format or "csv")))
        return 0
    journal = args.out + ".partial"
    resumed = 0
    if args.resume and os.path.exists(journal):
        with open(journal, "rb") as fh:  # bytes: a damaged journal is make_table's to refuse, not a crash here
            resumed = max(0, sum(1 for line in fh if line.endswith(b"\n")) - 2)
    elif args.resume:
        print(f"gdpproof: note: --resume: there is no {journal} to resume; computing every row", file=sys.stderr)
    try:
        with _table_executor(args) as executor, _journal_notes():
            table = make_table(args.kind, digits=args.digits, out=args.out, format=args.format, workers=workers,
                               executor=executor, resume=args.resume, progress=progress, computed_on=where,
                               **grid)
    except KeyboardInterrupt:
        print(f"\ngdpproof: interrupted; finished rows are kept in {journal}: rerun the same command with "
              "--resume", file=sys.stderr)
        return 130
    header = dict(table.header)
    payload = {"out": args.out, "kind": table.kind, "rows": str(len(table.rows)), "resumed_rows": str(resumed),
               "computed_rows": str(len(table.rows) - resumed), "digits": args.digits,
               "certified": header.get("certified", "")}
    if where is not None:
        payload["computed_on"] = header["computed on"]
    roundings = ", ".join(f"{c} rounded {r}" for c, r in table.rounding.items())
    emit(args, payload, f"wrote {args.out}: table {table.kind}, {len(table.rows)} rows at {args.digits} digits "
                         f"({resumed} resumed, {len(table.rows) - resumed} computed); "
                         f"certified: {header.get('certified', 'not stated')}; {roundings or 'rounding not stated'}"
                         + (f"; computed on {header['computed on']}" if where is not None else ""))
    return 0


def _verify(args: argparse.Namespace, progress: bool) -> int:
    from ..errors import InvalidParameterError
    from ..reference import verify_table
    from ..reference.table import read_table

    sample = args.sample if args.sample in (None, "all") else int_option("--sample", args.sample)
    ulps = 1 if args.ulps is None else int_option("--ulps", args.ulps)
    rtol = "0" if args.rtol is None else args.rtol
    with flags({"source": "--verify"}):
        table = read_table(args.verify)
    if args.kind is not None and args.kind != table.kind:
        raise Usage(f"KIND={args.kind!r} does not match --verify={args.verify!r}, a table of kind {table.kind!r}")
    try:
        report = verify_table(table, sample=sample, seed=int_option("--seed", args.seed, low=0), ulps=ulps,
                              rtol=rtol, progress=progress)
    except InvalidParameterError as exc:
        if exc.argument == "rtol":
            raise Usage(exc.named("--rtol")) from None
        raise
    report = replace(report, source=args.verify)
    emit(args, report.as_dict(), str(report))
    if report.ok and report.unchecked:  # exit 3: one line on stderr, as every exit 3 has
        print(f"gdpproof: error: {len(report.unchecked)} row(s) of {args.verify} could not be checked "
              "(listed above); no value checked is wrong", file=sys.stderr)
        return 3
    return 1 if not report.ok else 0
