"""erfc on [-8, 10) from a Taylor polynomial per cell of width 1/16, each with a proven remainder.

The certified delta(epsilon) evaluates two erfc per call at about 110 bits, where arb's erfc
(1 - erf with (z^2 + ln z)/ln 2 bits of cancellation) costs 3-10 us above z = 1; a cell's
polynomial of degree 11-31 costs about 1 us at 128 bits.  Cell k (centre z0, radius r =
(1/32)(1 + 1/32), a little more than half its width) has P(h) = c_0 + ... + c_{n-1} h^{n-1} +
C_n h^n: c_j = erfc^(j)(z0)/j! from arb's erfc series at z0, C_n enclosing erfc^(n)(xi)/n! for
every xi in [z0 - r, z0 + r] (the series over that interval), so by Taylor's theorem with the
Lagrange remainder P(z - z0) contains erfc(z) for every z of a ball inside [z0 - r, z0 + r].
The proof and the measured accuracy are in docs/proofs/conversions.md ("delta(epsilon) in one
evaluation").  A cell is built at its eighth use (28-51 us) and kept: 288 at most, 0.3 MB.
"""

from __future__ import annotations

import math

import flint

from ._mp import precision_lock

__all__ = ["erfc_cell", "CELL_BITS", "LOW", "HIGH", "PER_UNIT", "BUILD_AFTER", "cell_polynomial", "clear_cells"]

#: The table's range begins here: arguments z with LOW <= z < HIGH (below, erfc is 2 to 120 bits).
LOW = -8
#: The table's range ends below this (above, arb's asymptotic series is as cheap as a polynomial).
HIGH = 10
#: Cells per unit of z (a power of two, so that every centre is a short dyadic number and
#: z - z0 costs no rounding to speak of).
PER_UNIT = 16
#: The relative accuracy the table serves: a request for more bits is declined (the caller's
#: own route runs).  At 128 bits of evaluation the balls measure 123-125 bits for exact
#: arguments over the whole range (tests/numeric/test_erfc_cells.py), so 118 leaves a margin.
CELL_BITS = 118
#: The remainder term's bound, relative to erfc's minimum on the cell.
_REMAINDER_BITS = 124
#: The precisions of the power series at a cell's centre, of the one over the cell (only a bound
#: of its last coefficient is used), and of the stored coefficients.
_BUILD_BITS, _BOUND_BITS, _STORE_BITS = 136, 64, 128
#: The longest series tried; the degree found over the range is 11 to 31.
_MAX_TERMS = 36
#: An argument ball is covered only if arb's ``rel_one_accuracy_bits`` is at least this: its
#: radius below 2^-20 2^ceil(log2 max(1, |mid|)) <= 2^-16 for |mid| < 10, well inside the
#: 1/1024 the cell's radius leaves beyond its half-width.
_MIN_ACCURACY = 20

#: A cell is built at its BUILD_AFTER-th use; before, :func:`erfc_cell` declines (its caller's
#: arb route runs).  Building costs 28-51 us and saves about 1.5-8 us per later use (more at
#: larger z), so a process that asks a few values pays no table; over a fresh process's first
#: thousand values it costs up to a fifth more, over twenty thousand a quarter less
#: (docs/performance.md has the cumulative figures).
BUILD_AFTER = 8

_CTX = flint.ctx
_HALF_WIDTH = flint.arb(1) / (2 * PER_UNIT)
_RADIUS = _HALF_WIDTH + _HALF_WIDTH / 32
_CELLS: list[tuple[flint.arb, flint.arb_poly] | None] = [None] * ((HIGH - LOW) * PER_UNIT)
_USES = [0] * len(_CELLS)
_LAST = len(_CELLS) - 1


def cell_polynomial(k: int) -> tuple[flint.arb, flint.arb_poly]:
    """Cell k's centre z0 (an exact ball) and its polynomial P, erfc(z0 + h) in P(h) for
    |h| <= r (the module's docstring has the proof).

    Args:
        k: The cell's index, 0 <= k < (HIGH - LOW) * PER_UNIT.

    Returns:
        (z0, P).

    Examples:
        >>> z0, p = cell_polynomial(8 * 16 + 16)  # the cell [1, 1 + 1/16)
        >>> z0, p.degree() < 24
        (1.03125000000000, True)
        >>> with flint.ctx.workprec(128):
        ...     p(flint.arb(1) - z0).overlaps(flint.arb(1).erfc())
        True
    """
    with precision_lock:  # python-flint's context is global (re-entrant: callers may hold it)
        return _build(k)


def _build(k: int) -> tuple[flint.arb, flint.arb_poly]:
    saved_prec, saved_cap = _CTX.prec, _CTX.cap  # (python-flint's public setters: a cold path)
    try:
        _CTX.prec, _CTX.cap = _BUILD_BITS, _MAX_TERMS
        z0 = flint.arb(LOW) + (2 * k + 1) * _HALF_WIDTH  # exact: a dyadic number of a few bits
        at_centre = flint.arb_series([z0, 1], prec=_MAX_TERMS).erfc().coeffs()
        # the degree sets only the accuracy (the last coefficient's ball encloses the remainder
        # at any degree), so it is chosen in floats: the least n whose last term, bounded over
        # the cell, is below 2^-124 of erfc's minimum on the cell, erfc(z0 + r) (erfc decreases);
        # the centre's coefficients give the first n to try
        r = float(_RADIUS)
        tolerance = math.erfc(float(z0) + r) * 2.0**-_REMAINDER_BITS
        n = next((j for j in range(1, len(at_centre)) if abs(float(at_centre[j])) * r**j < tolerance / 64),
                 len(at_centre))
        while True:
            if n >= _MAX_TERMS:  # never over the range (tests/numeric/test_erfc_cells.py builds every cell)
                raise ArithmeticError(f"erfc's cell {k}: no remainder below 2^-{_REMAINDER_BITS} within "
                                      f"{_MAX_TERMS} terms")
            _CTX.prec = _BOUND_BITS
            last = flint.arb_series([flint.arb(z0, _RADIUS), 1], prec=n + 1).erfc().coeffs()[n]
            if (abs(float(last)) + float(last.rad())) * r**n < tolerance:
                break
            n += 1
        # (a series drops exactly-zero trailing terms: the last must stay the coefficient of h^n)
        low = at_centre[:n] + [flint.arb(0)] * (n - len(at_centre))
        _CTX.prec = _STORE_BITS
        return z0, flint.arb_poly([+c for c in low] + [+last])
    finally:
        _CTX.prec, _CTX.cap = saved_prec, saved_cap


def erfc_cell(z: flint.arb, x: float) -> flint.arb | None:
    """A ball containing erfc(z) from its cell's polynomial, at the current precision; None when
    the table does not cover z (outside [LOW, HIGH), or a ball wider than about 2^-20), or z's
    cell is not built yet (it is at its :data:`BUILD_AFTER`-th use).

    The caller passes ``x = float(z)`` (it has it already) and asks only for at most
    :data:`CELL_BITS` bits.

    Args:
        z: The argument's ball.
        x: float(z).

    Returns:
        The ball, or None.

    Examples:
        >>> with flint.ctx.workprec(128):
        ...     z = flint.arb(3) / 7
        ...     y = None
        ...     while y is None:  # declined until the cell is built
        ...         y = erfc_cell(z, float(z))
        ...     y.overlaps(z.erfc()), y.rel_accuracy_bits() >= CELL_BITS
        (True, True)
        >>> erfc_cell(flint.arb(12), 12.0) is None
        True
    """
    if not LOW <= x < HIGH or z.rel_one_accuracy_bits() < _MIN_ACCURACY:
        return None
    # x - LOW may round up to the next cell's edge (at 10 - 2^-49, to 18 exactly: the clamp), so
    # |mid(z) - z0| <= 1/32 + 2^-48, inside the cell's padded radius
    k = min(int((x - LOW) * PER_UNIT), _LAST)
    cell = _CELLS[k]
    if cell is None:
        _USES[k] += 1
        if _USES[k] < BUILD_AFTER:
            return None
        cell = _CELLS[k] = cell_polynomial(k)
    return cell[1](z - cell[0])


def clear_cells() -> None:
    """Forget every built cell (for measuring the cold cost; the answers never depend on it).

    Examples:
        >>> clear_cells()
    """
    _CELLS[:] = [None] * len(_CELLS)
    _USES[:] = [0] * len(_USES)
