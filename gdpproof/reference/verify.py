"""Verifying an existing table: recompute its rows at higher precision.

Every row of a table of up to :data:`FULL_ROWS` rows is recomputed; a larger table is checked on
a seeded random sample (``sample="all"`` checks every row).  A value with d significant digits is
checked against the exact value, enclosed by the certified value at d + ``extra_digits`` digits,
by the rule its header claims for its column (rounded up, down or to nearest; faithful, within
``ulps`` float64 spacings or ``rtol``, for a third-party table that claims nothing).  A value is
reported only when the enclosure *proves* the rule broken; rows that cannot be recomputed are
listed as unchecked.  DP-SGD bracket columns are checked against a freshly proven bracket.

The rules in full: ``docs/guides/tables.md``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any

from .._progress import Progress
from .._args import MAX_DECIMAL_EXPONENT, plain_value
from .._typing import Real
from ..errors import GdpproofError, InvalidParameterError, PrecisionError, bad
from ..text import table_value_text
from ..numeric.engine.certify import Certified
from .kinds import KINDS
from .table import Table, read_table

__all__ = ["FULL_ROWS", "Mismatch", "TableVerification", "verify_table"]

#: Tables of up to this many rows are verified row by row; larger ones on a sample of this size.
FULL_ROWS = 10_000


@dataclass(frozen=True)
class Mismatch:
    """One wrong value: its row (1-based, data rows only), column, inputs, value and why."""

    row: int
    column: str
    inputs: tuple[tuple[str, str], ...]
    value: str
    reference: str
    rule: str

    def __str__(self) -> str:
        where = ", ".join(f"{n}={v}" for n, v in self.inputs)
        return f"row {self.row} ({where}): {self.column}={self.value}; reference {self.reference}; {self.rule}"


@dataclass(frozen=True)
class TableVerification:
    """What :func:`verify_table` checked and found.

    Args:
        source: What was verified, as named.
        kind: The table's kind.
        rows: How many rows the table has.
        checked: The rows recomputed (1-based).
        values_checked: How many values were compared.
        mismatches: Every wrong value, with the rule it breaks.
        extra_digits: How many digits beyond the table's the reference carried.
        seed: The sampling seed.
        unchecked: (row, reason) of rows that could not be recomputed.
        sampled: Whether the rows were a random sample.
        ulps: The float64 spacings allowed for a column without a rounding claim.
        rtol: The relative tolerance for such a column.

    Examples:
        >>> from gdpproof.reference import make_table, verify_table
        >>> r = verify_table(make_table("tradeoff", mu="1", alpha="0.05,0.5", digits=15), sample=None)
        >>> r.rows, r.checked, r.values_checked, r.ok
        (2, (1, 2), 2, True)
    """

    source: str
    kind: str
    rows: int
    checked: tuple[int, ...]
    values_checked: int
    mismatches: tuple[Mismatch, ...]
    extra_digits: int
    seed: int
    unchecked: tuple[tuple[int, str], ...] = ()
    sampled: bool = False
    ulps: int = 1
    rtol: Fraction = Fraction(0)

    @property
    def ok(self) -> bool:
        """True when no checked value is wrong (rows that could not be recomputed are in ``unchecked``)."""
        return not self.mismatches

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (numbers as decimal strings)."""
        return {"source": self.source, "kind": self.kind, "rows": str(self.rows),
                "rows_checked": str(len(self.checked)), "values_checked": str(self.values_checked),
                "extra_digits": str(self.extra_digits), "seed": str(self.seed), "ok": self.ok,
                "coverage": self.coverage(), "sampled": self.sampled, "ulps": str(self.ulps),
                "rtol": str(Decimal(self.rtol.numerator) / Decimal(self.rtol.denominator)),
                "mismatches": [{"row": str(m.row), "column": m.column, "inputs": dict(m.inputs), "value": m.value,
                                "reference": m.reference, "rule": m.rule} for m in self.mismatches],
                "unchecked": [{"row": str(r), "reason": why} for r, why in self.unchecked]}

    def coverage(self) -> str:
        """Which rows were checked, in words: every row, or a sample (and why)."""
        if not self.sampled:
            return "every row"
        why = f"tables above {FULL_ROWS:,} rows are sampled; " if len(self.checked) == FULL_ROWS < self.rows else ""
        return f"a random sample (seed {self.seed}; {why}--sample all checks every row)"

    def __str__(self) -> str:
        tol = (f", tolerance {self.ulps} float64 spacing(s)" if self.ulps != 1 else "") + \
            (f", rtol {float(self.rtol):g}" if self.rtol else "")
        head = (f"{self.source}: table {self.kind}, {len(self.checked) - len(self.unchecked)} of {self.rows} rows "
                f"checked, {self.coverage()} ({self.values_checked} values, at {self.extra_digits} extra "
                f"digits{tol})")
        verdict = (f": {len(self.mismatches)} wrong" if not self.ok
                   else ": every checked value is right" if self.values_checked
                   else ": no value could be checked" if self.rows else ": the table has no rows; nothing was checked")
        lines = [head + verdict]
        lines += [f"  {m}" for m in self.mismatches]
        lines += [f"  row {r} could not be checked: {why}" for r, why in self.unchecked]
        return "\n".join(lines)


def _broken(v: Decimal, claim: str | None, enc: tuple[Fraction, Fraction], ulps: int = 1,
            rtol: Fraction = Fraction(0)) -> str | None:
    """Why v breaks its column's rounding claim against the exact value in [lo, hi] (None: it does not)."""
    lo, hi = enc
    x = Fraction(v)
    ulp = Fraction(10) ** v.as_tuple().exponent  # type: ignore[operator]
    if claim == "up":
        if x < lo:
            return "below the exact value, but the column is marked rounded up"
        if x - ulp >= hi:
            return "more than one unit in the last place above the exact value"
    elif claim == "down":
        if x > hi:
            return "above the exact value, but the column is marked rounded down"
        if x + ulp <= lo:
            return "more than one unit in the last place below the exact value"
    elif claim == "nearest":
        if x - ulp / 2 > hi or x + ulp / 2 < lo:
            return "more than half a unit in the last place from the exact value"
    elif (x - ulp >= hi or x + ulp <= lo) and not _faithful_double(v, lo, hi, ulps):
        slack = rtol * max(abs(lo), abs(hi))
        if not rtol or x - slack > hi or x + slack < lo:
            spacing = "one float64 spacing" if ulps == 1 else f"{ulps} float64 spacings"
            return (f"not within one unit in the last place of the exact value (nor within {spacing}"
                    + (f", nor within rtol {float(rtol):g})" if rtol else ")"))
    return None


def _faithful_double(v: Decimal, lo: Fraction, hi: Fraction, ulps: int = 1) -> bool:
    """A table of float64 values without a rounding claim: v (printed with at most 17 digits) names
    the double float(v), which passes when it is within ``ulps`` float64 spacings of the exact value."""
    if len(v.as_tuple().digits) > 17:
        return False
    f = float(v)
    if not math.isfinite(f):
        return False
    d, spacing = Fraction(f), ulps * Fraction(math.ulp(f))
    return not (d - spacing >= hi or d + spacing <= lo)


#: A tabulated value has at most this many digits (tables are made with at most 4,000) and a
#: decimal exponent within +-MAX_DECIMAL_EXPONENT: beyond, checking it would not end in time.
MAX_VALUE_DIGITS = 4100


def _decimal(text: str, row: int, column: str) -> Decimal:
    try:
        d = Decimal(text) if text.isascii() and "_" not in text else None
    except InvalidOperation:
        d = None
    if d is None:
        raise bad(column, text, f"(row {row}) is not a decimal number")
    if d.is_finite() and (len(d.as_tuple().digits) > MAX_VALUE_DIGITS or abs(d.adjusted()) > MAX_DECIMAL_EXPONENT):
        # a decimal gdpproof may well have written (delta below 1e-1000000): the row is listed as
        # unchecked (PrecisionError), not refused
        shown = text if len(text) <= 60 else f"{text[:40]}...{text[-12:]}"
        raise PrecisionError(f"{column}={shown} has more than {MAX_VALUE_DIGITS:,} digits or a decimal exponent "
                             f"beyond +-{MAX_DECIMAL_EXPONENT:,}: beyond what verification recomputes")
    return d


def verify_table(source: str | Path | Table, *, sample: int | str | None = None, seed: int = 0,
                 extra_digits: int = 10, ulps: int = 1, rtol: Real = 0, kind: str | None = None,
                 progress: bool = False) -> TableVerification:
    """Recompute a table's rows at higher precision and list every wrong value.

    ``source`` is a path (CSV, JSON, LaTeX or Markdown, gdpproof's or a third party's with the
    same columns), the name of a shipped table, or a :class:`Table`.  ``sample`` is None (every
    row of a table of up to :data:`FULL_ROWS` rows, a seeded random sample of :data:`FULL_ROWS`
    rows above), ``"all"`` (every row) or a number of random rows (seeded by ``seed``).  For a
    column without a rounding claim (a third party's floats), ``ulps`` (an integer >= 1, default
    1) is how many float64 spacings a value of at most 17 digits may lie from the exact one, and
    ``rtol`` (in [0, 1), default 0) a relative tolerance.  ``kind``, when given, must be the
    table's kind (:class:`InvalidParameterError` naming the table's kind otherwise).

    Args:
        source: A path, the name of a shipped table, or a :class:`Table`.
        sample: None, ``"all"`` or a number of random rows.
        seed: Seed of the sample.
        extra_digits: Digits beyond the table's that the reference carries.
        ulps: Float64 spacings allowed for a column without a rounding claim (>= 1).
        rtol: A relative tolerance for such a column, in [0, 1).
        kind: The table's kind, when its header does not say.
        progress: Whether to show progress on stderr.

    Returns:
        The :class:`TableVerification`.

    Raises:
        InvalidParameterError: The table cannot be read or an argument is out of range.

    Examples:
        >>> from gdpproof.reference import make_table, verify_table
        >>> t = make_table("tradeoff", mu="1", alpha="0.05,0.5", digits=15)
        >>> verify_table(t, sample=None).ok
        True
        >>> bad = t.rows[0][:2] + ("0.740488977158249",)   # last digit changed
        >>> from dataclasses import replace
        >>> r = verify_table(replace(t, rows=(bad,) + t.rows[1:]), sample=None)
        >>> r.ok, r.mismatches[0].rule
        (False, 'more than one unit in the last place below the exact value')
    """
    if sample is not None and sample != "all" and (isinstance(sample, bool) or not isinstance(sample, int)
                                                   or sample < 1):
        raise bad("sample", sample, "must be a positive integer, 'all' or None (every row up "
                        f"to {FULL_ROWS:,} rows)")
    if isinstance(extra_digits, bool) or not isinstance(extra_digits, int) or not 1 <= extra_digits <= 200:
        raise bad("extra_digits", extra_digits, "must be an integer in [1, 200]")
    if isinstance(ulps, bool) or not isinstance(ulps, int) or not 1 <= ulps <= 2**52:
        raise bad("ulps", ulps, "must be an integer in [1, 2**52]")
    rtol_q = _tolerance(rtol)
    if kind is not None and kind not in KINDS:
        raise bad("kind", kind, f"must be one of {', '.join(KINDS)}")
    table = source if isinstance(source, Table) else read_table(source)
    name = "table" if isinstance(source, Table) else str(source)
    if kind is not None and kind != table.kind:
        raise bad("kind", kind, f"does not match {name}, a table of kind {table.kind!r}")
    spec = KINDS[table.kind]
    n = len(table.rows)
    size = n if sample == "all" else min(FULL_ROWS if sample is None else sample, n)
    sampled = size < n
    picked = sorted(random.Random(seed).sample(range(n), size)) if sampled else list(range(n))
    nvar = len(spec.variables)
    bracket = {c.name for c in spec.columns if not c.certified}
    mismatches: list[Mismatch] = []
    unchecked: list[tuple[int, str]] = []
    count = 0
    bar = Progress(len(picked), "verify", unit="rows", enabled=progress)
    try:
        for i in picked:
            row = table.rows[i]
            inputs = tuple(zip(spec.variables, row[:nvar]))
            try:
                values = [_decimal(v, i + 1, c.name) for v, c in zip(row[nvar:], spec.columns)]
            except PrecisionError as exc:
                unchecked.append((i + 1, str(exc)))
                bar.advance()
                continue
            digits = max(len(v.as_tuple().digits) for v in values) + extra_digits
            try:
                refs = spec.compute(dict(inputs), digits)
            except GdpproofError as exc:
                unchecked.append((i + 1, str(exc)))
                bar.advance()
                continue
            huge = next((r for r in refs if r.is_finite() and r.adjusted() > _FAR), None)
            if huge is not None:
                unchecked.append((i + 1, f"an exact value is about 10^{huge.adjusted():,}, beyond the range a "
                                         f"table value may hold (10^{MAX_DECIMAL_EXPONENT:,})"))
                bar.advance()
                continue
            lookup = dict(zip((c.name for c in spec.columns), refs))
            for col, v, ref in zip(spec.columns, values, refs):
                count += 1
                if v.is_nan():
                    rule = "not a number"
                elif col.name in bracket:
                    rule = _bracket_rule(col.name, v, lookup)
                elif not v.is_finite() or not ref.is_finite():
                    rule = None if (not v.is_finite() and not ref.is_finite() and v == ref) else \
                        "one of the value and the exact value is infinite, the other not"
                else:
                    rule = _broken(v, table.rounding.get(col.name), _enclosure(ref), ulps, rtol_q)
                if rule:
                    mismatches.append(Mismatch(i + 1, col.name, inputs, row[nvar + spec.columns.index(col)],
                                               table_value_text(ref), rule))
            bar.advance()
    finally:
        bar.close()
    return TableVerification(name, table.kind, n, tuple(i + 1 for i in picked), count, tuple(mismatches),
                             extra_digits, seed, tuple(unchecked), sampled, ulps, rtol_q)


#: A tabulated value v (at most MAX_VALUE_DIGITS digits, exponent within MAX_DECIMAL_EXPONENT) and
#: its units are 0 or at least 10^-(MAX_DECIMAL_EXPONENT + MAX_VALUE_DIGITS) in size: a non-zero
#: exact value below 10^-_FAR compares with all of them as a stand-in of the same sign does.
_FAR = MAX_DECIMAL_EXPONENT + MAX_VALUE_DIGITS + 10


def _enclosure(ref: Certified) -> tuple[Fraction, Fraction]:
    """The exact value's enclosure; for one below 10^-_FAR (a reference of 1e-200694931398, whose
    Fraction would take minutes to form), a stand-in interval (0, 10^-_FAR) on the same side of
    every quantity :func:`_broken` compares it with (a relative tolerance there is below them all),
    so the verdict is the same.  (An exact value above 10^_FAR is left unchecked by the caller.)"""
    if ref != 0 and ref.adjusted() < -_FAR:
        tiny = Fraction(1, 10**_FAR)
        return (tiny / 4, tiny / 2) if ref > 0 else (-tiny / 2, -tiny / 4)
    return ref.enclosure()


def _tolerance(rtol: Real) -> Fraction:
    """``rtol`` as an exact fraction in [0, 1) (a float is taken at its exact binary value)."""
    try:  # the one parser of numbers: "1/0" and "1e999999999" are refused, not computed
        q = plain_value("rtol", rtol)
    except InvalidParameterError:
        q = None
    if not isinstance(q, Fraction) or not 0 <= q < 1:
        raise bad("rtol", rtol, "must be a number in [0, 1)")
    if q and (q.numerator * 10**100 < q.denominator or q.denominator.bit_length() > 4096):
        # a tolerance of 1e-999999 is shown as a Decimal made from its million-digit denominator
        raise bad("rtol", rtol, "must be 0 or in [1e-100, 1) (with at most "
                        "about 1,200 digits)")
    return q


def _bracket_rule(name: str, v: Decimal, fresh: dict[str, Certified]) -> str | None:
    """A tabulated bound against the freshly proven bracket [L, U] of width w: a lower bound above
    U or an upper bound below L is false; one looser than the bracket by more than w is not the
    bracket this configuration gives (the width absorbs float differences between machines)."""
    lo, hi = fresh["eps_lower"], fresh["eps_upper"]
    width = hi - lo
    if name == "eps_lower":
        if v > hi:
            return "a lower bound above the proven upper bound"
        if v < lo - width:
            return "not the bracket gdpproof computes: lower than the proven lower bound by more than its width"
    if name == "eps_upper":
        if v < lo:
            return "an upper bound below the proven lower bound"
        if v > hi + width:
            return "not the bracket gdpproof computes: higher than the proven upper bound by more than its width"
    return None
