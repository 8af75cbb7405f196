"""Grid specifications of reference tables: explicit lists, linear and logarithmic ranges.

A specification is one of

* a comma-separated list of decimals, ``"0.5,1,2"`` (each value kept exactly as written);
* ``"lin:START:STOP:N"``, N equally spaced points from START to STOP;
* ``"log:START:STOP:N"``, N points equally spaced in log10 from START to STOP (both > 0).

Range points that are not short decimals are rounded to :data:`GRID_DIGITS` significant digits
(to nearest), the endpoints are kept as written, and the decimal that results *is* the input:
the table's input columns are exact, so every tabulated value belongs to the input printed
beside it.  Integer variables (steps, n) round range points to the nearest integer and drop
repeats.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from fractions import Fraction

import mpmath

from ..errors import bad
from ..text import show
from ..numeric.engine.certify import round_fraction

__all__ = ["GRID_DIGITS", "MAX_POINTS", "parse_grid", "canonical"]

#: Significant digits of generated (lin/log) grid points.
GRID_DIGITS = 15
#: At most this many points per variable.
MAX_POINTS = 100_000


def canonical(value: Decimal | Fraction) -> str:
    """The shortest plain decimal string of an exact decimal value (exponent form when tiny or huge)."""
    d = Decimal(value.numerator) / Decimal(value.denominator) if isinstance(value, Fraction) else value
    d = d.normalize()
    if d == 0:
        return "0"
    if -7 <= d.adjusted() <= 20:
        return format(d, "f")
    return str(d).replace("E+", "e").replace("E", "e")


def _round(x: Fraction) -> str:
    m, e = round_fraction(x, GRID_DIGITS, "nearest")
    return canonical(Fraction(m) * Fraction(10) ** e)


#: Grid points have decimal exponents within +-this (and integer points at most 10**MAX_INTEGER_DIGITS).
MAX_EXPONENT = 10_000
MAX_INTEGER_DIGITS = 30


def _decimal(option: str, spec: str, text: str, integer: bool = False) -> Decimal:
    text = text.strip()
    try:
        # "_" and non-ASCII digits are refused, as every number gdpproof reads (gdpproof._args.plain_value)
        d = Decimal(text) if text.isascii() and "_" not in text else None
    except InvalidOperation:
        d = None
    if d is None or not d.is_finite():
        raise bad(option, spec, f"is not a grid: {show(text)} is not a finite decimal number")
    if d and abs(d.adjusted()) > (MAX_INTEGER_DIGITS if integer else MAX_EXPONENT):
        rule = f"at most 10^{MAX_INTEGER_DIGITS}" if integer else f"a decimal exponent within +-{MAX_EXPONENT:,}"
        raise bad(option, spec, f"is not a grid: {show(text)} is out of range (a grid point has {rule})")
    return d


def parse_grid(option: str, spec: str, *, integer: bool = False) -> tuple[str, ...]:
    """The points of a grid specification, as exact decimal strings.

    ``option`` names the option in error messages (for example ``"--mu"``).

    Examples:
        >>> from gdpproof.reference.grid import parse_grid
        >>> parse_grid("--mu", "0.5, 1,2")
        ('0.5', '1', '2')
        >>> parse_grid("--alpha", "lin:0:1:4")
        ('0', '0.333333333333333', '0.666666666666667', '1')
        >>> parse_grid("--delta", "log:1e-10:1e-2:5")
        ('1e-10', '1e-8', '0.000001', '0.0001', '0.01')
        >>> parse_grid("--steps", "log:1:1000:4", integer=True)
        ('1', '10', '100', '1000')
        >>> parse_grid("--mu", "lin:0:1")
        Traceback (most recent call last):
        ...
        gdpproof.errors.InvalidParameterError: --mu='lin:0:1' is not a grid: a range is lin:START:STOP:N or log:START:STOP:N (4 fields)
    """
    if not isinstance(spec, str) or not spec.strip() or not spec.isprintable() or len(spec) > 10 * MAX_POINTS:
        # a newline or other control character would break the table's header
        raise bad(option, spec, "must be a comma-separated list, lin:START:STOP:N or "
                          "log:START:STOP:N (printable characters, one line)")
    head = spec.strip().split(":", 1)[0].lower()
    if head in ("lin", "log"):
        fields = spec.strip().split(":")
        if len(fields) != 4:
            raise bad(option, spec, "is not a grid: a range is lin:START:STOP:N or log:START:STOP:N (4 fields)")
        start, stop = _decimal(option, spec, fields[1], integer), _decimal(option, spec, fields[2], integer)
        try:
            n = int(fields[3])
        except ValueError:
            n = 0
        if not 1 <= n <= MAX_POINTS or str(n) != fields[3].strip():
            raise bad(option, spec, f"is not a grid: N={fields[3]!r} must be an integer in [1, {MAX_POINTS}]")
        if n == 1 and start != stop:
            raise bad(option, spec, "is not a grid: N=1 needs START == STOP")
        points = _linear(start, stop, n) if head == "lin" else _logarithmic(option, spec, start, stop, n)
        if integer:
            seen: dict[str, None] = {}
            for p in points:
                seen.setdefault(str(round(Fraction(Decimal(p)))), None)
            return tuple(seen)
    else:
        values = [_decimal(option, spec, t, integer) for t in spec.split(",")]
        if len(values) > MAX_POINTS:
            raise bad(option, spec, f"is not a grid: {len(values)} values, at most {MAX_POINTS}")
        points = tuple(canonical(v) for v in values)
        if integer:
            for v, p in zip(values, points):
                if v != v.to_integral_value():
                    raise bad(option, spec, f"is not a grid: {p} must be an integer")
            points = tuple(str(int(v)) for v in values)  # plain digits, never 1e21
    return points


def _linear(start: Decimal, stop: Decimal, n: int) -> tuple[str, ...]:
    a, b = Fraction(start), Fraction(stop)
    if n == 1:
        return (canonical(start),)
    inner = tuple(_round(a + (b - a) * i / (n - 1)) for i in range(1, n - 1))
    return (canonical(start),) + inner + (canonical(stop),)


def _logarithmic(option: str, spec: str, start: Decimal, stop: Decimal, n: int) -> tuple[str, ...]:
    if start <= 0 or stop <= 0:
        raise bad(option, spec, "is not a grid: a log range needs START > 0 and STOP > 0")
    if n == 1:
        return (canonical(start),)
    ctx = mpmath.mp.clone()
    ctx.dps = GRID_DIGITS + 25
    la, lb = ctx.log10(ctx.mpf(str(start))), ctx.log10(ctx.mpf(str(stop)))
    inner = []
    for i in range(1, n - 1):
        x = ctx.power(10, la + (lb - la) * i / (n - 1))
        man, exp = x.man_exp  # x = man * 2**exp exactly
        inner.append(_round(Fraction(int(man)) * Fraction(2) ** int(exp)))
    return (canonical(start),) + tuple(inner) + (canonical(stop),)
