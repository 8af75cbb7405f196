"""The canonical tables shipped inside the package (``reference/data``), and how they are rebuilt.

The catalogue (:data:`SHIPPED`, :func:`shipped_path`) lives in
:mod:`gdpproof.reference.catalogue` and is re-exported here.  ``gdpproof tables --regenerate``
rebuilds every file (:func:`regenerate_shipped`) and ``gdpproof tables --check`` recomputes them
and compares with the files (:func:`check_shipped`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .catalogue import SHIPPED, shipped_path
from .generate import TableSpec, compute_chunk, make_table
from .table import read_table

__all__ = ["SHIPPED", "shipped_path", "regenerate_shipped", "check_shipped"]


def _names(names: Iterable[str] | None) -> list[str]:
    chosen = list(SHIPPED) if names is None else list(names)
    for n in chosen:
        shipped_path(n)
    return chosen


def regenerate_shipped(names: Iterable[str] | None = None, *, folder: str | Path | None = None,
                       workers: int | None = None, progress: bool = False) -> list[Path]:
    """Rebuild shipped tables (all by default) into ``folder`` (the package's data folder by default)."""
    out = []
    for name in _names(names):
        spec = dict(SHIPPED[name])
        path = Path(folder) / f"{name}.csv" if folder is not None else shipped_path(name)
        make_table(spec.pop("kind"), out=path, workers=workers, progress=progress, **spec)
        out.append(path)
    return out


def _without_versions(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("# versions:")]


def check_shipped(names: Iterable[str] | None = None, *, rows: int | None = None, workers: int | None = None,
                  progress: bool = False) -> dict[str, list[str]]:
    """Recompute shipped tables and compare them with their files; returns the differences.

    With ``rows=k`` only the first k rows of each table are recomputed (a fast slice); otherwise
    the whole file is rendered and compared line by line.  The ``versions`` header line is left
    out of the comparison (it records the environment, not the table); everything else,
    including every digit, must be identical.  An empty list for a table means it matches.
    """
    report: dict[str, list[str]] = {}
    for name in _names(names):
        spec = dict(SHIPPED[name])
        kind = spec.pop("kind")
        digits = spec.pop("digits")
        path = shipped_path(name)
        if rows is None:
            fresh = _without_versions(make_table(kind, digits=digits, workers=workers, progress=progress,
                                                 **spec).render("csv"))
            stored = _without_versions(path.read_text(encoding="utf-8"))
            diff = [f"line {i + 1}: file {a!r}, recomputed {b!r}" for i, (a, b) in enumerate(zip(stored, fresh))
                    if a != b]
            if len(stored) != len(fresh):
                diff.append(f"the file has {len(stored)} lines, the recomputed table {len(fresh)}")
        else:
            table = read_table(path)
            inputs = TableSpec.build(kind, digits, spec).rows()[:rows]
            got = compute_chunk(kind, digits, list(enumerate(inputs)))
            diff = []
            for (i, values, _), stored_row in zip(got, table.rows):
                fresh_row = tuple(inputs[i]) + tuple(values)
                if fresh_row != stored_row:
                    diff.append(f"row {i + 1}: file {','.join(stored_row)}, recomputed {','.join(fresh_row)}")
        report[name] = diff
    return report
