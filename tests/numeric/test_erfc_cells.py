"""erfc from its cell polynomials (gdpproof.numeric.engine.erfc_cells): every cell encloses erfc
over its whole padded interval, serves the accuracy it claims, and declines what it does not cover."""

from __future__ import annotations

import random

import flint
import pytest

from gdpproof.numeric.engine import erfc_cells
from gdpproof.numeric.engine._mp import arb_precision
from gdpproof.numeric.engine.erfc_cells import CELL_BITS, HIGH, LOW, PER_UNIT, cell_polynomial, erfc_cell

CELLS = (HIGH - LOW) * PER_UNIT
HALF = 1 / (2 * PER_UNIT)
PAD = HALF / 32  # the cell's radius is HALF + PAD


def _erfc_exact(z: flint.arb) -> flint.arb:
    with arb_precision(400):
        return z.erfc()


def test_every_cell_encloses_erfc_to_its_padded_ends():
    rng = random.Random(20261205)
    with arb_precision(128):
        for k in range(CELLS):
            z0, p = cell_polynomial(k)
            assert float(z0) == LOW + (k + 0.5) / PER_UNIT and z0.is_exact()
            assert 1 <= p.degree() < 48
            # the padded ends (where the remainder bound is widest), the centre, random points
            for h in (-(HALF + PAD), HALF + PAD, 0.0, -HALF, rng.uniform(-HALF, HALF)):
                z = z0 + h
                y = p(z - z0)
                assert y.overlaps(_erfc_exact(z)), (k, h)
                assert y.rel_accuracy_bits() >= CELL_BITS, (k, h, y)


def test_a_ball_across_a_cell_edge_is_enclosed_at_both_ends():
    with arb_precision(128):
        for edge in (-7.0, -0.5, 0.0, 1.0, 4.25, 9.9375):
            z = flint.arb(edge - 2.0**-40, 2.0**-23)  # centred in the cell below, reaching into the next
            y = erfc_cell(z, float(z))
            assert y is not None
            for end in (z.lower(), z.upper()):
                assert y.overlaps(_erfc_exact(flint.arb(end))), (edge, end)
            assert y.lower() <= _erfc_exact(flint.arb(z.upper())).lower()
            assert y.upper() >= _erfc_exact(flint.arb(z.lower())).upper()


def test_accuracy_over_the_range_at_128_bits():
    # the module's claim: 123-125 bits for exact arguments at 128 bits of evaluation, so that
    # CELL_BITS (118) is served with a margin; the kernel's arguments (a few roundings) lose <= 4
    rng = random.Random(7)
    with arb_precision(128):
        worst = min(erfc_cell(z, float(z)).rel_accuracy_bits()
                    for z in (flint.arb(rng.uniform(LOW, HIGH)) for _ in range(3000)))
        assert worst >= 123, worst
        z = (flint.arb(2.3) / flint.arb(0.7) + flint.arb(0.35)) * (flint.arb(2).sqrt() / 2)
        assert erfc_cell(z, float(z)).rel_accuracy_bits() >= CELL_BITS


@pytest.mark.parametrize("z", [LOW - 1e-9, float(HIGH), 12.0, -30.0, float("nan"), float("inf")])
def test_outside_the_range_is_declined(z):
    with arb_precision(128):
        assert erfc_cell(flint.arb(z), z) is None


def test_a_wide_ball_is_declined():
    with arb_precision(128):
        z = flint.arb(1.5, 2.0**-19)
        assert erfc_cell(z, 1.5) is None
        z = flint.arb(1.5, 2.0**-23)
        assert erfc_cell(z, 1.5) is not None


def test_building_restores_precision_and_series_length_and_clearing_changes_no_answer():
    with arb_precision(96):
        flint.ctx.cap = 7
        try:
            z = flint.arb(5) / 3
            erfc_cells.clear_cells()
            cold = erfc_cell(z, float(z))
            assert flint.ctx.prec == 96 and flint.ctx.cap == 7
            warm = erfc_cell(z, float(z))
        finally:
            flint.ctx.cap = 10
    assert cold.mid() == warm.mid() and cold.rad() == warm.rad()
