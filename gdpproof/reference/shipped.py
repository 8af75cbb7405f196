"""The canonical tables shipped inside the package (``reference/data``), and how they are rebuilt.

Each entry of :data:`SHIPPED` is the exact specification of one file; ``gdpproof tables
--regenerate`` rebuilds them all and ``gdpproof tables --check`` recomputes them and compares
with the files.  The grids concentrate where implementations fail: tiny delta (down to 1e-300),
large eps, mu near 0 and large, small noise.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import InvalidParameterError

__all__ = ["SHIPPED", "shipped_path", "regenerate_shipped", "check_shipped"]

SHIPPED: dict[str, dict[str, Any]] = {
    "gdp_delta": dict(kind="delta", digits=40, mu="0.01,0.1,0.5,1,2,5,10,30", eps="0,0.1,0.5,1,2,5,20,100"),
    "gdp_epsilon": dict(kind="epsilon", digits=40, mu="0.01,0.1,0.5,1,2,5,10",
                        delta="1e-300,1e-100,1e-30,1e-10,1e-5,0.001,0.1"),
    "gdp_mu": dict(kind="mu", digits=40, eps="0.01,0.1,0.5,1,2,8,50",
                   delta="1e-300,1e-30,1e-10,1e-5,0.001,0.1"),
    "gaussian_sigma": dict(kind="sigma", digits=40, eps="0.01,0.1,1,3,10,100", delta="1e-300,1e-12,1e-5,0.01",
                           sensitivity="1"),
    "gaussian_tradeoff": dict(kind="tradeoff", digits=40, mu="0.01,0.5,1,3,10",
                              alpha="1e-300,1e-10,0.001,0.05,0.25,0.5,0.75,0.95,0.999"),
    "subsampled_gaussian_tradeoff": dict(kind="subsampled", digits=30, mu="0.5,1,4", sample_rate="0.001,0.01,0.5",
                                         alpha="1e-10,0.01,0.2,0.5,0.9"),
    "rr_composition": dict(kind="rr-composition", digits=30, eps="0.1,1", n="1,10,100,1000",
                           alpha="0.001,0.05,0.2,0.5,0.9"),
    "dpsgd": dict(kind="dpsgd", digits=20, sigma="0.8,1,2", sample_rate="0.01", steps="1000", delta="1e-5"),
}


def shipped_path(name: str) -> Path:
    """The file of a shipped table."""
    if name not in SHIPPED:
        raise InvalidParameterError(f"name={name!r} is not a shipped table ({', '.join(SHIPPED)})")
    return Path(str(resources.files("gdpproof.reference") / "data" / f"{name}.csv"))


def _names(names: Iterable[str] | None) -> list[str]:
    chosen = list(SHIPPED) if names is None else list(names)
    for n in chosen:
        shipped_path(n)
    return chosen


def regenerate_shipped(names: Iterable[str] | None = None, *, folder: str | Path | None = None,
                       workers: int | None = None, progress: bool = False) -> list[Path]:
    """Rebuild shipped tables (all by default) into ``folder`` (the package's data folder by default)."""
    from .generate import make_table

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
    from .generate import TableSpec, _compute_chunk, make_table
    from .table import read_table

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
            got = _compute_chunk(kind, digits, list(enumerate(inputs)))
            diff = []
            for (i, values, _), stored_row in zip(got, table.rows):
                fresh_row = tuple(inputs[i]) + tuple(values)
                if fresh_row != stored_row:
                    diff.append(f"row {i + 1}: file {','.join(stored_row)}, recomputed {','.join(fresh_row)}")
        report[name] = diff
    return report
