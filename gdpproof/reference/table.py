"""A reference table in memory, and its four text forms: CSV, JSON, LaTeX (booktabs), Markdown.

Every form carries the same header (kind, generator, versions, digits, certification method,
rounding direction of each value column, the grid) and no timestamp, so regenerating a table
gives the same bytes.  Every form can be read back (:func:`parse`), which is what ``--verify``
and ``--resume`` rely on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from ..errors import InvalidParameterError, bad
from ..text import show

__all__ = ["Table", "FORMATS", "format_for_path", "parse", "read_table"]

FORMATS = ("csv", "json", "latex", "markdown")
_SUFFIX = {".csv": "csv", ".json": "json", ".tex": "latex", ".latex": "latex", ".md": "markdown",
           ".markdown": "markdown"}


def format_for_path(path: str | Path, fmt: str | None = None) -> str:
    """The format named by ``fmt``, or implied by the file's suffix (CSV when neither says)."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise bad("format", fmt, f"must be one of {', '.join(FORMATS)}")
        return fmt
    return _SUFFIX.get(Path(path).suffix.lower(), "csv")


@dataclass(frozen=True)
class Table:
    """A reference table: header fields, column names and rows of decimal strings.

    ``header`` is an ordered tuple of (key, text) pairs; ``rounding`` maps each value column to
    ``"up"``, ``"down"`` or ``"nearest"`` (absent for tables that do not say).  Values are exact
    decimal strings: inputs as used, outputs with their certified digits.

    Args:
        kind: The table's kind (as :func:`make_table` names it).
        columns: The column names.
        rows: The rows, decimal strings.
        header: (key, text) pairs, in order.
        rounding: Each value column's rounding, when the table says.

    Examples:
        >>> from gdpproof.reference import make_table
        >>> t = make_table("tradeoff", mu="1", alpha="0.05,0.5", digits=15)
        >>> t.columns, t.rows[0], t.rounding
        (('mu', 'alpha', 'beta'), ('1', '0.05', '0.740488977158555'), {'beta': 'down'})
    """

    kind: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    header: tuple[tuple[str, str], ...] = ()
    rounding: dict[str, str] = field(default_factory=dict)

    def render(self, fmt: str = "csv") -> str:
        """The table as text in ``fmt`` (one of :data:`FORMATS`)."""
        fmt = format_for_path("", fmt)
        return {"csv": _csv, "json": _json, "latex": _latex, "markdown": _markdown}[fmt](self)

    def column(self, name: str) -> list[Decimal]:
        """The values of one column as exact Decimals."""
        try:
            i = self.columns.index(name)
        except ValueError:
            raise bad("column", name, f"is not in this table ({', '.join(self.columns)})") from None
        return [Decimal(r[i]) for r in self.rows]

    def __str__(self) -> str:
        return self.render("markdown")


def _header_lines(t: Table) -> list[str]:
    lines = [f"{k}: {v}" for k, v in t.header]
    if t.rounding:
        lines.append("rounding: " + "; ".join(f"{c}={d}" for c, d in t.rounding.items()))
    lines.append("columns: " + ",".join(t.columns))
    return lines


def _csv(t: Table) -> str:
    out = [f"# {line}" for line in _header_lines(t)]
    out.append(",".join(t.columns))
    out.extend(",".join(r) for r in t.rows)
    return "\n".join(out) + "\n"


def _json(t: Table) -> str:
    head = dict(t.header)
    head["rounding"] = dict(t.rounding)  # type: ignore[assignment]
    head["columns"] = list(t.columns)  # type: ignore[assignment]
    body = json.dumps(head, indent=1, ensure_ascii=False)[:-2]  # drop the closing "\n}"
    rows = ",\n".join("  " + json.dumps(list(r)) for r in t.rows)
    return body + ',\n "rows": [\n' + rows + "\n ]\n}\n"


_TEX_NAMES = {"mu": r"$\mu$", "eps": r"$\varepsilon$", "delta": r"$\delta$", "sigma": r"$\sigma$",
              "sensitivity": r"$\Delta$", "alpha": r"$\alpha$", "beta": r"$\beta$", "sample_rate": r"$p$",
              "steps": r"$T$", "n": r"$n$", "mu_clt": r"$\mu_{\mathrm{CLT}}$",
              "eps_clt": r"$\varepsilon_{\mathrm{CLT}}$", "eps_lower": r"$\varepsilon_{\mathrm{lower}}$",
              "eps_upper": r"$\varepsilon_{\mathrm{upper}}$"}
_TEX_BACK = {v: k for k, v in _TEX_NAMES.items()}


def _tex_value(s: str) -> str:
    if s in ("Infinity", "inf"):
        return r"$\infty$"
    if "e" in s.lower():
        m, e = re.split("[eE]", s)
        return rf"${m}\times10^{{{int(e)}}}$"
    return s


def _tex_back(s: str) -> str:
    s = s.strip()
    if s == r"$\infty$":
        return "Infinity"
    m = re.fullmatch(r"\$(-?[0-9.]+)\\times ?10\^\{(-?[0-9]+)\}\$", s)
    if m:
        return f"{m.group(1)}e{m.group(2)}"
    return s


def _latex(t: Table) -> str:
    out = [f"% {line}" for line in _header_lines(t)]
    out.append(r"\begin{tabular}{" + "l" * len(t.columns) + "}")
    out.append(r"\toprule")
    out.append(" & ".join(_TEX_NAMES.get(c, c.replace("_", r"\_")) for c in t.columns) + r" \\")
    out.append(r"\midrule")
    out.extend(" & ".join(_tex_value(v) for v in r) + r" \\" for r in t.rows)
    out.append(r"\bottomrule")
    out.append(r"\end{tabular}")
    return "\n".join(out) + "\n"


def _markdown(t: Table) -> str:
    out = [f"<!-- {line} -->" for line in _header_lines(t)]
    out.append("| " + " | ".join(t.columns) + " |")
    out.append("|" + "|".join("---" for _ in t.columns) + "|")
    out.extend("| " + " | ".join(r) + " |" for r in t.rows)
    return "\n".join(out) + "\n"


def _split_header(pairs: Iterable[str]) -> tuple[list[tuple[str, str]], dict[str, str], list[str]]:
    header: list[tuple[str, str]] = []
    rounding: dict[str, str] = {}
    columns: list[str] = []
    for line in pairs:
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "rounding":
            for part in value.split(";"):
                col, eq, d = part.partition("=")
                if eq:
                    rounding[col.strip()] = d.strip()
        elif key == "columns":
            columns = [c.strip() for c in value.split(",")]
        else:
            header.append((key, value))
    return header, rounding, columns


def parse(text: str, fmt: str | None = None) -> Table:
    """Read a table written by :meth:`Table.render` (or a third party's in the same format).

    Without a gdpproof header the kind is found from the column names; ``fmt`` is guessed from
    the text when not given.
    """
    from .kinds import KINDS, kind_for_columns

    stripped = text.lstrip()
    if fmt is None:
        fmt = ("json" if stripped.startswith("{") else "latex" if stripped.startswith(("%", "\\")) else
               "markdown" if stripped.startswith(("<!--", "|")) else "csv")
    if fmt == "json":
        try:
            # numbers as Decimals: a float would lose the digits being verified
            obj = json.loads(text, parse_float=Decimal, parse_int=Decimal)
            rows_raw = obj.pop("rows")
            columns = [str(c) for c in obj.pop("columns")]
            rounding = {str(k): str(v) for k, v in dict(obj.pop("rounding", {}) or {}).items()}
            rows = [tuple(str(v) for v in r) for r in rows_raw]
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            raise InvalidParameterError(f"the JSON table is malformed ({type(exc).__name__}: {show(str(exc))}): it needs "
                                        "'columns' and 'rows', a list of lists") from None
        header = [(k, v if isinstance(v, str) else json.dumps(v, default=str)) for k, v in obj.items()]
    else:
        comment = {"csv": "#", "latex": "%", "markdown": "<!--"}[fmt]
        head_lines, data_lines = [], []
        for line in text.splitlines():
            s = line.strip()
            if not s:
                continue
            if s.startswith(comment):
                head_lines.append(s[len(comment):].removesuffix("-->").strip())
            else:
                data_lines.append(s)
        header, rounding, columns = _split_header(head_lines)
        rows = []
        if fmt == "csv":
            if not data_lines:
                raise InvalidParameterError("the CSV table has no column line")
            columns = [c.strip() for c in data_lines[0].split(",")]
            rows = [tuple(v.strip() for v in line.split(",")) for line in data_lines[1:]]
        elif fmt == "markdown":
            cells = [[c.strip() for c in line.strip("|").split("|")] for line in data_lines if line.startswith("|")]
            if not cells:
                raise InvalidParameterError("the Markdown table has no rows")
            columns = cells[0]
            separator = len(cells) > 1 and all(re.fullmatch(r":?-+:?", c) for c in cells[1])
            rows = [tuple(c) for c in cells[2 if separator else 1:]]
        else:
            body_lines = [line for line in data_lines if line.endswith(r"\\")]
            if not body_lines:
                raise InvalidParameterError("the LaTeX table has no rows")
            first = [c.strip() for c in body_lines[0].removesuffix(r"\\").split("&")]
            names = [_TEX_BACK.get(c, c.replace(r"\_", "_")) for c in first]
            columns = columns or names
            rows = [tuple(_tex_back(c) for c in line.removesuffix(r"\\").split("&")) for line in body_lines[1:]]
    header_d = dict(header)
    kind_name = header_d.get("table", "").split(" ")[0]
    kind = KINDS[kind_name] if kind_name in KINDS else kind_for_columns(columns)
    columns_t = tuple("eps" if c == "epsilon" else c for c in columns)
    if columns_t != kind.header:
        raise bad("columns", ",".join(columns), f"do not match table kind {kind.name} ({','.join(kind.header)})")
    for col, claim in rounding.items():
        if col not in columns_t or claim not in ("up", "down", "nearest"):
            raise bad(col, claim, "is not a rounding claim this table can make "
                      "(a value column and one of up, down, nearest)")
    for i, r in enumerate(rows):
        if len(r) != len(columns_t):
            raise InvalidParameterError(f"row {i + 1} has {len(r)} fields, expected {len(columns_t)}: {','.join(r)}")
    return Table(kind.name, columns_t, tuple(rows), tuple(header), rounding)


#: Largest table file read (shipped tables are kilobytes; 64 MiB is a million 30-digit rows).
MAX_TABLE_BYTES = 64 * 2**20


def read_table(source: str | Path, fmt: str | None = None) -> Table:
    """Read a table from a file, or one of the tables shipped with gdpproof by name.

    Args:
        source: A path (CSV, JSON, LaTeX or Markdown), or the name of a shipped table.
        fmt: The format, or None to follow the suffix.

    Returns:
        The :class:`Table`.

    Raises:
        InvalidParameterError: The file cannot be read as a table.

    Examples:
        >>> from gdpproof.reference import read_table
        >>> t = read_table("gdp_delta")
        >>> t.columns
        ('mu', 'eps', 'delta')
        >>> t.rows[0][:2], t.rounding
        (('0.01', '0'), {'delta': 'up'})
    """
    from .catalogue import SHIPPED, shipped_path

    path = shipped_path(str(source)) if str(source) in SHIPPED else Path(source)
    try:
        with open(path, "rb") as fh:  # bounded: /dev/zero or a huge file is refused, not read for ever
            data = fh.read(MAX_TABLE_BYTES + 1)
        if len(data) > MAX_TABLE_BYTES:
            raise bad("source", str(source), f"is larger than {MAX_TABLE_BYTES:,} bytes; "
                      "gdpproof reads tables up to that size")
        text = data.decode("utf-8")
    except OSError as exc:
        raise bad("source", str(source), f"cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise bad("source", str(source), "is not UTF-8 text") from None
    return parse(text, fmt if fmt is not None else (_SUFFIX.get(path.suffix.lower())))
