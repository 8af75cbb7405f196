"""Generating reference tables: certified rows, split into chunks on any executor, resumable.

:func:`make_table` computes every row with the package's certified functions (each value to the
requested significant digits, rounded in its safe direction, or the run stops with an error
naming the row), in chunks that run in this process, on a process pool or on any
``concurrent.futures.Executor``; the output depends only on the specification.  Writing is
crash-safe: finished chunks go to a journal ``OUT.partial`` (each line with a digest and a MAC
under the user's key, :mod:`._journal_key`), the table is renamed over ``OUT`` only when every
row is known, and ``resume=True`` produces the same bytes an uninterrupted run would.  A
journal row whose MAC does not verify is recomputed and must match byte for byte.

The journal, the key and what they protect against: ``docs/guides/tables.md``.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import os
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, Future, as_completed
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import IO, Any

from .._progress import Progress
from ..errors import MISSING, GdpproofError, InvalidParameterError, bad
from ..text import show, table_value_text
from ._journal_key import JournalNote, journal_key, key_path, line_signer
from .grid import parse_grid
from .kinds import KINDS, Kind
from .table import Table, format_for_path

__all__ = ["TableSpec", "make_table", "versions"]

#: Option spelling of each grid variable (the CLI's ``--sample-rate`` is ``sample_rate`` here).
OPTION = {"sample_rate": "--sample-rate"}
_JOURNAL_MAGIC = "gdpproof-table-journal 3"  # 2: each line carries its digest; 3: and its MAC (or null)


def versions() -> dict[str, str]:
    """Versions of the packages a table's values depend on (recorded in its header)."""
    from importlib.metadata import PackageNotFoundError, version

    from .._version import __version__

    out = {"gdpproof": __version__}
    for name in ("mpmath", "python-flint", "sympy"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:  # pragma: no cover - they are dependencies
            out[name] = "unknown"
    return out


def _spec_text(value: Any) -> str:
    if isinstance(value, str):
        return ",".join(part.strip() for part in value.split(",")) if ":" not in value else value.strip()
    if isinstance(value, Iterable):
        return ",".join(str(v) for v in value)
    return str(value)


@dataclass(frozen=True)
class TableSpec:
    """What a table holds: its kind, digits and grid (variable, specification, points)."""

    kind: str
    digits: int
    grid: tuple[tuple[str, str, tuple[str, ...]], ...]

    @classmethod
    def build(cls, kind: str, digits: int, grid: Mapping[str, Any]) -> "TableSpec":
        """Validate a kind, digits and grid specifications (strings, or sequences of numbers)."""
        if kind not in KINDS:
            raise bad("kind", kind, f"must be one of {', '.join(KINDS)}")
        k = KINDS[kind]
        if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 4000:
            raise bad("digits", digits, "must be an integer in [1, 4000]")
        unknown = [name for name, v in grid.items() if v is not None and name not in k.variables]
        if unknown:
            raise bad(_option(unknown[0]), _spec_text(grid[unknown[0]]), f"does not apply to table {kind} "
                      f"(it takes {', '.join(_option(v) for v in k.variables)})")
        given = {**dict(k.defaults), **{n: v for n, v in grid.items() if v is not None}}
        missing = [v for v in k.variables if v not in given]
        if missing:
            raise bad(_option(missing[0]), MISSING, f"is required for table {kind}")
        entries = []
        for name in k.variables:
            text = _spec_text(given[name])
            points = parse_grid(_option(name), text, integer=name in k.integer)
            for p in points:
                _check_point(name, p, signed=name in k.real)
            entries.append((name, text, points))
        size = 1
        for _, _, points in entries:
            size *= len(points)
        if size > 10_000_000:
            raise InvalidParameterError(f"the grid has {size:,} rows; at most 10,000,000")
        return cls(kind, digits, tuple(entries))

    @property
    def kind_info(self) -> Kind:
        """The kind's columns and row function."""
        return KINDS[self.kind]

    def rows(self) -> list[tuple[str, ...]]:
        """The input tuples, row-major in the kind's variable order."""
        return list(itertools.product(*(points for _, _, points in self.grid)))

    def header(self, methods: Mapping[str, int], computed_on: str | None = None) -> tuple[tuple[str, str], ...]:
        """The header fields of the table, given how many values each method certified (and
        where, when not in this process or its own pool: ``computed_on``)."""
        k = self.kind_info
        ver = versions()
        bracket = [c.name for c in k.columns if not c.certified]
        digits = f"{self.digits} significant"
        if bracket:
            digits += f" ({', '.join(bracket)}: 6, proven bounds rounded outward)"
        out = [("table", f"{k.name} -- {k.title}"),
               ("generator", "gdpproof.reference.generate.make_table"),
               ("versions", ", ".join(f"{n} {v}" for n, v in ver.items())),
               ("digits", digits),
               ("certified", "; ".join(f"{c} value{'s' if c != 1 else ''} by {m} ({_METHODS.get(m, m)})"
                                      for m, c in sorted(methods.items()))),
               *([("computed on", f"{computed_on}; its results are trusted as they came back, not re-checked")]
                 if computed_on else []),
               ("grid", "; ".join(f"{n} = {t}" for n, t, _ in self.grid))]
        out.extend((c.name, c.meaning) for c in k.columns)
        return tuple(out)

    def fingerprint(self) -> str:
        """What a journal must match to be resumed: kind, digits, grid points and versions."""
        return json.dumps({"kind": self.kind, "digits": self.digits, "grid": [[n, list(p)] for n, _, p in self.grid],
                           "versions": versions()}, sort_keys=True)


_METHODS = {"arb": "ball arithmetic, python-flint: a proven enclosure",
            "exact": "exact rational arithmetic or a closed form",
            "mpmath-2prec": "two mpmath precisions agreed: evidence, not proof",
            "pld": "proven bounds of the numerical composition"}

_RULES = {"mu": ("nonneg", "must be >= 0"), "eps": ("nonneg", "must be >= 0"),
          "delta": ("prob", "must be in [0, 1]"), "alpha": ("prob", "must be in [0, 1]"),
          "sample_rate": ("prob", "must be in [0, 1]"), "sigma": ("pos", "must be > 0"),
          "sensitivity": ("pos", "must be > 0"), "steps": ("pos", "must be a positive integer"),
          "n": ("pos", "must be a positive integer"), "eps0": ("nonneg", "must be >= 0"),
          "delta0": ("prob", "must be in [0, 1]"), "k": ("atleast2", "must be an integer >= 2")}


def _option(name: str) -> str:
    return OPTION.get(name, "--" + name)


def _check_point(name: str, point: str, *, signed: bool = False) -> None:
    """Refuse a grid point outside its variable's domain; ``signed``: the kind takes any real
    value of it (eps of the delta(eps) kinds: delta is defined for every real eps)."""
    from decimal import Decimal

    if signed:
        return  # parse_grid has made it a finite decimal
    rule, text = _RULES[name]
    d = Decimal(point)
    outside = d < 0 if rule == "nonneg" else d <= 0 if rule == "pos" else d < 2 if rule == "atleast2" \
        else not 0 <= d <= 1
    if outside:
        raise bad(_option(name), point, text)


def compute_chunk(kind: str, digits: int, chunk: Sequence[tuple[int, tuple[str, ...]]]
                   ) -> list[tuple[int, list[str], list[str]]]:
    """Rows of one chunk: (index, value strings, certification methods).  Runs in a worker."""
    k = KINDS[kind]
    out = []
    for index, inputs in chunk:
        row = dict(zip(k.variables, inputs))
        try:
            values = k.compute(row, digits)
        except GdpproofError as exc:
            where = ", ".join(f"{n}={v}" for n, v in row.items())
            raise type(exc)(f"row {index + 1} ({where}): {exc}") from None
        out.append((index, [table_value_text(v) for v in values], [v.method for v in values]))
    return out


def _journal_path(out: Path) -> Path:
    return out.with_name(out.name + ".partial")


def _digest(fingerprint: str, row: str) -> str:
    """The digest that ties a journal line ``row`` to its run: a changed digit, a row moved or
    copied from another run's journal fails it."""
    return hashlib.sha256(f"{fingerprint}\n{row}".encode()).hexdigest()[:32]


def _journal_line(fingerprint: str, index: int, values: list[str], methods: list[str],
                  sign: Callable[[str], str] | None = None) -> str:
    """A journal line: the row, its digest and its MAC by ``sign`` (:func:`line_signer`; null
    without one)."""
    row = json.dumps([index, values, methods])
    return json.dumps([index, values, methods, _digest(fingerprint, row), sign and sign(row)]) + "\n"


def _valid_row(line: bytes, fingerprint: str, total: int, columns: int
               ) -> tuple[int, list[str], list[str], str | None, str] | None:
    """The row of one journal line, its MAC and the row's JSON text, or None when the line fails
    any check: UTF-8 JSON ``[index, values, methods, digest, mac]``, the digest over the row and
    the run's fingerprint, an index on the grid, one decimal value and one known method per
    column.  The MAC is not checked here."""
    try:
        index, values, methods, digest, mac = json.loads(line.decode("utf-8"))
    except (ValueError, TypeError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    if not (type(index) is int and 0 <= index < total and isinstance(values, list) and isinstance(methods, list)
            and len(values) == len(methods) == columns and all(type(v) is str for v in values)
            and all(m in _METHODS for m in methods) and type(digest) is str and (mac is None or type(mac) is str)):
        return None
    row = json.dumps([index, values, methods])
    if digest != _digest(fingerprint, row):
        return None
    for v in values:
        try:
            if not v.isascii() or "_" in v or Decimal(v).is_nan():
                return None
        except InvalidOperation:
            return None
    return index, values, methods, mac, row


def _load_journal(path: Path, fingerprint: str, total: int, columns: int, sign: Callable[[str], str] | None
                  ) -> dict[int, tuple[list[str], list[str], int, bool]]:
    """The rows a journal holds (values, methods, line number, whether its MAC is the one
    ``sign`` gives), each checked (:func:`_valid_row`); a journal with any line that fails is
    refused."""
    lines = path.read_bytes().split(b"\n")
    if len(lines) < 2 or lines[0] != _JOURNAL_MAGIC.encode() or lines[1] != fingerprint.encode():
        raise InvalidParameterError(
            f"resume: {path} was written for a different table (kind, digits, grid or package versions "
            "differ) or by another version of the journal format; delete it, or rerun with the original arguments")
    done: dict[int, tuple[list[str], list[str], int, bool]] = {}
    for number, line in enumerate(lines[2:-1], 3):  # the last piece is "" or a line cut by the interruption
        row = _valid_row(line, fingerprint, total, columns)
        if row is None or (row[0] in done and done[row[0]][:2] != row[1:3]):
            raise InvalidParameterError(
                f"resume: line {number} of {path} fails its check (damaged or edited: its digest, its row's place "
                "on the grid or its values); nothing of it is used: delete the journal to start again")
        index, values, methods, mac, text = row
        signed = sign is not None and mac is not None and hmac.compare_digest(mac, sign(text))
        if index not in done or (signed and not done[index][3]):
            done[index] = (values, methods, number, signed)
    # drop a line cut by the interruption, so that appending starts on a fresh line
    with open(path, "r+b") as fh:
        fh.truncate(len(b"\n".join(lines[:-1]) + b"\n"))
    return done


def _check_claim(claim: tuple[list[str], list[str], int, bool], index: int, inputs: tuple[str, ...],
                 values: list[str], methods: list[str], spec: TableSpec, out: Path | None) -> None:
    """A journal row not signed with this user's key must be what recomputing it gives, byte
    for byte (its digest proves nothing against someone who can write the journal: it is unkeyed)."""
    if (claim[0], claim[1]) == (values, methods):
        return
    k = spec.kind_info
    j = next(c for c in range(len(values)) if (claim[0][c], claim[1][c]) != (values[c], methods[c]))
    where = ", ".join(f"{n}={v}" for n, v in zip(k.variables, inputs))
    raise InvalidParameterError(
        f"resume: line {claim[2]} of {_journal_path(out or Path())} says {k.columns[j].name}={show(claim[0][j])} "
        f"(by {claim[1][j]}) for row {index + 1} ({where}), but recomputing it gives {values[j]} (by {methods[j]}): "
        "the journal was edited or damaged; nothing of it is used: delete it to start again")


def _lock(journal: IO[str], path: Path) -> None:
    """Hold an exclusive lock on the open journal: a second run on the same ``out`` is refused
    while this one lives (POSIX; where fcntl is missing, no lock is taken)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return
    try:
        fcntl.flock(journal.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        journal.close()
        raise bad("out", str(path), "cannot be written: another gdpproof run is writing this table now "
                  f"(it holds {_journal_path(path)}); wait for it to finish, or stop it and rerun with --resume") from None


class _naming:  # noqa: N801 - a context manager
    """An OSError without a file name (a full disk on write) gets ``path`` as its file name."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if isinstance(exc, OSError) and exc.filename is None:
            raise OSError(exc.errno, exc.strerror or str(exc), str(self.path)) from exc


def make_table(kind: str, *, digits: int = 30, out: str | os.PathLike[str] | None = None, format: str | None = None,
               workers: int | None = None, executor: Executor | None = None, resume: bool = False,
               progress: bool = False, chunk_rows: int | None = None, computed_on: str | None = None,
               **grid: Any) -> Table:
    """A certified reference table; written atomically to ``out`` when given.

    Args:
        kind (str): ``"delta"`` (grid mu, eps), ``"epsilon"`` (mu, delta), ``"mu"`` (eps, delta), ``"sigma"``
            (eps, delta, sensitivity=1), ``"tradeoff"`` (mu, alpha), ``"subsampled"`` (mu, sample_rate,
            alpha), ``"rr-composition"`` (eps, n, alpha), ``"discrete-gaussian-delta"`` (sigma, sensitivity=1,
            eps) or ``"dpsgd"`` (sigma, sample_rate, steps, delta).
        digits (int): Significant digits of every value (the DP-SGD bracket has 6).
        out (path, optional): Where to write; the format follows ``format`` or the suffix (.csv, .json, .tex,
            .md).
        workers: Rows run in chunks on ``executor``, or on a process pool of ``workers`` processes, or in this
            process (``workers`` None or 1).  The result does not depend on them.
        executor: Rows run in chunks on ``executor``, or on a process pool of ``workers`` processes, or in
            this process (``workers`` None or 1).  The result does not depend on them.
        resume (bool): Continue from ``OUT.partial`` left by an interrupted run with the same arguments.  A
            journal row signed with this user's key (``$GDPPROOF_KEY_FILE``, else
            ``~/.config/gdpproof/journal.key``, made on first use) for the same ``computed_on`` is taken as it
            is; any other journal row is recomputed and must equal its line byte for byte
            (:class:`InvalidParameterError` naming the line otherwise).  A :class:`JournalNote` warning says
            when rows are recomputed, or when there is no key.
        progress (bool): A progress bar on stderr (rows, rows per second, time remaining).
        computed_on (str, optional): Where ``executor`` runs when that is not this machine (``"the dask
            cluster at tcp://..."``): named in the table's header, since rows that come back from there are
            trusted, not recomputed here.  Their journal lines are signed for that place: a resume with
            another ``computed_on`` (or none) recomputes them.
        **grid: One specification per grid variable: ``"0.5,1,2"``, ``"lin:0:1:11"``, ``"log:1e-10:1e-2:9"``
            or a sequence of numbers.  Grid points are decimals: a float in a sequence is taken as the decimal
            its ``repr`` prints (0.1 is 1/10), unlike the certified functions, which read a float as its exact
            binary value.  The input columns print the decimal used.
        format: ``"csv"``, ``"json"``, ``"latex"`` or ``"markdown"``; None follows the suffix of
            ``out``.
        chunk_rows: Rows per chunk of work (None: chosen from the rows and workers).

    Examples:
        >>> from gdpproof.reference import make_table
        >>> t = make_table("delta", mu="0.5,1", eps="1", digits=12)
        >>> t.rows
        (('0.5', '1', '0.00682959498312'), ('1', '1', '0.126936737507'))
        >>> print(t.render("csv").splitlines()[-3])
        mu,eps,delta
    """
    spec = TableSpec.build(kind, digits, grid)
    inputs = spec.rows()
    total = len(inputs)
    path = Path(out) if out is not None else None
    fmt = format_for_path(path or "", format)
    if computed_on is not None and (not isinstance(computed_on, str) or not computed_on.isprintable()
                                    or not computed_on.strip()):
        raise bad("computed_on", computed_on, "must be a non-empty printable string")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise bad("workers", workers, "must be a positive integer")
    done: dict[int, tuple[list[str], list[str]]] = {}
    claimed: dict[int, tuple[list[str], list[str], int, bool]] = {}  # the journal's rows
    journal = None
    sign: Callable[[str], str] | None = None  # the MAC of a row under this user's key
    fingerprint = spec.fingerprint()
    if path is not None:
        if path.is_dir():
            raise bad("out", str(path), "is a folder; give a file name")
        if path.exists() and not path.is_file():  # a device or a pipe: the rename would replace it
            raise bad("out", str(path), "is not a regular file; give a file name")
        jpath = _journal_path(path)
        if not path.parent.exists():
            raise bad("out", str(path), f"is in a folder that does not exist ({path.parent})")
        key = journal_key()
        sign = None if key is None else line_signer(key, fingerprint, computed_on)
        try:
            journal = open(jpath, "x", encoding="utf-8")  # x: of two runs starting together, one creates it
            fresh = True
        except FileExistsError:
            journal, fresh = open(jpath, "a", encoding="utf-8"), False
        _lock(journal, path)
        if fresh:
            with _naming(jpath):
                journal.write(_JOURNAL_MAGIC + "\n" + fingerprint + "\n")
                journal.flush()
        elif not resume:
            journal.close()
            raise bad("out", str(path), f"cannot be written: {jpath} holds an interrupted run; resume it "
                          "(resume=True, or --resume on the command line), or delete it to start again")
        else:
            try:
                claimed = _load_journal(jpath, fingerprint, total, len(spec.kind_info.columns), sign)
            except BaseException:
                journal.close()
                raise
    # rows signed with this user's key are taken as they are; the others are recomputed, first,
    # so that a forged one stops the run before the missing rows are computed
    for i, (vals, ms, _, signed) in claimed.items():
        if signed:
            done[i] = (vals, ms)
    claimed = {i: claim for i, claim in claimed.items() if not claim[3]}
    if claimed and sign is not None:
        n = len(claimed)
        warnings.warn(JournalNote(f"resume: {n} row{'s' if n != 1 else ''} of {_journal_path(path or Path())} "
                                  f"{'are' if n != 1 else 'is'} not signed with your journal key ({key_path()})"
                                  f"{' for ' + computed_on if computed_on else ''}: recomputed, and each must match "
                                  "its line"), stacklevel=2)
    todo = [(i, inputs[i]) for i in sorted(claimed)] + [(i, inputs[i]) for i in range(total)
                                                         if i not in claimed and i not in done]
    n_workers = workers or 1
    # enough chunks that the last ones finish together (tail imbalance <= one small chunk)
    size = chunk_rows or max(1, min(128, -(-len(todo) // (16 * n_workers))))
    chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
    bar = Progress(total, f"table {kind}", unit="rows", enabled=progress, done=len(done))
    own = None
    if executor is None and n_workers > 1 and len(chunks) > 1:
        from .._pool import process_pool

        own = executor = process_pool(n_workers)
    try:
        if executor is None:
            results: Iterable[Any] = (compute_chunk(kind, digits, c) for c in chunks)
        else:
            futures: list[Future[Any]] = [executor.submit(compute_chunk, kind, digits, c) for c in chunks]
            results = (f.result() for f in as_completed(futures))
        for rows in results:
            for index, values, methods in rows:
                done[index] = (values, methods)
                if index in claimed:
                    _check_claim(claimed[index], index, inputs[index], values, methods, spec, path)
                elif journal is not None:
                    with _naming(_journal_path(path or Path())):
                        journal.write(_journal_line(fingerprint, index, values, methods, sign))
            if journal is not None:
                with _naming(_journal_path(path or Path())):
                    journal.flush()
                    os.fsync(journal.fileno())
            bar.advance(len(rows))
    except BaseException:
        if own is not None:
            from .._pool import stop

            stop(own)  # no chunk is waited for: the finished rows are in the journal
            own = None
        if journal is not None:
            journal.close()
        raise
    finally:
        if own is not None:
            own.shutdown()
        bar.close()
    methods: dict[str, int] = {}
    rows_out = []
    for i in range(total):
        values, ms = done[i]
        for m in ms:
            methods[m] = methods.get(m, 0) + 1
        rows_out.append(tuple(inputs[i]) + tuple(values))
    k = spec.kind_info
    table = Table(kind, k.header, tuple(rows_out), spec.header(methods, computed_on), {c.name: c.rounding for c in k.columns})
    if path is not None and journal is not None:
        try:  # the lock is held until the table is in place and the journal gone
            write_atomic(path, table.render(fmt))
            _journal_path(path).unlink()
        finally:
            journal.close()
    return table


def _file_mode(path: Path) -> int:
    """The mode a plain ``open(path, "w")`` would give (mkstemp's files are private); a symlink's
    target is not consulted (the rename replaces the link, not its target)."""
    if path.is_file() and not path.is_symlink():
        return path.stat().st_mode & 0o777
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it over ``path``."""
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with _naming(path), os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode(path))
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
