"""An ordering known coarse first (gdpproof.accounting.direction.CoarseFirst): the lesser ordering's
proven bound from a coarser grid decides the eps search where it can; the bracket is the one the
fine ordering gives, never wider, and the fine ordering is composed wherever the coarse bound
does not decide."""

from __future__ import annotations

import math

import numpy as np
import pytest

import gdpproof.accounting.compose as compose
from gdpproof.accounting.compose import compose_losses, compose_prefixes, compose_tilted
from gdpproof.accounting.direction import CoarseFirst
from gdpproof.accounting.exact_lattice import grid_step_exact
from gdpproof.accounting.losses import SubsampledGaussianLoss
from gdpproof.accounting.pairs import coarsened, pair_steps
from gdpproof.accounting.search import eps_at, epsilon_bracket
from gdpproof.errors import InvalidParameterError, PrecisionError

DELTA = 1e-5
#: sigma 1, p 0.01, T 100 at delta 1e-5: remove 1e-5 at eps 0.718, add 5e-10 there.
PARTS = [(SubsampledGaussianLoss(1.0, 0.01), 100)]
GRID = 1.2e-3


def _pairs(**kwargs):
    return compose_losses(PARTS, grid_step=GRID, eta=5e-10, discretization="pairs", fft_error=2e-9, **kwargs)


def _lazy(comp):
    return [d for d in comp.directions if isinstance(d, CoarseFirst)]


def test_the_lesser_ordering_coarse_gives_the_same_bracket():
    # (about 0.1 s) the identity: the add ordering is known from the grid 8 h only, and the
    # bracket is the one both fine orderings give (here bit for bit; in general within the
    # bisection's resolution, its span and first estimates being the coarse bound's)
    plain, aimed = _pairs(), _pairs(aim_delta=DELTA)
    (lazy,) = _lazy(aimed)
    assert lazy.name == "add" and lazy.coarse.h == compose.COARSE_FACTOR * aimed.h
    assert eps_at(aimed, DELTA) == eps_at(plain, DELTA)
    assert not lazy.built
    assert aimed.worse_ordering(0.72) == "remove" and not aimed.floor_above(1e-7) and not lazy.built
    # every other answer asks the fine ordering: the upper end the smaller of the two, the lower the same
    for eps in (0.0, 0.3, 0.72, 1.5):
        for name, b in aimed.delta_by_ordering(eps).items():
            ref = plain.delta_by_ordering(eps)[name]
            assert b.lower == ref.lower and b.upper <= ref.upper
    assert lazy.built and aimed.delta_floor() <= plain.delta_floor()


def test_a_wrong_prediction_falls_back_to_the_fine_ordering(monkeypatch):
    # (about 0.1 s) the ordering composed coarse first is the worse one: its coarse bound is above
    # the target at the answer, so the search composes it on the fine grid, and the bracket is
    # still the fine one's
    monkeypatch.setattr(compose, "_lesser_ordering", lambda *args: (0, 0))
    plain, aimed = _pairs(), _pairs(aim_delta=DELTA)
    (lazy,) = _lazy(aimed)
    assert lazy.name == "remove" and not lazy.built
    assert eps_at(aimed, DELTA) == eps_at(plain, DELTA)
    assert lazy.built


def test_a_coarse_bound_too_wide_falls_back(monkeypatch):
    # the lesser ordering on a grid 64 times coarser: its bound no longer decides near the answer
    monkeypatch.setattr(compose, "COARSE_FACTOR", 64)
    plain, aimed = _pairs(), _pairs(aim_delta=DELTA)
    (lazy,) = _lazy(aimed)
    b = eps_at(aimed, DELTA)
    assert lazy.coarse.upper(b.lower) > DELTA and lazy.built and b == eps_at(plain, DELTA)


def test_close_orderings_are_not_split():
    # sigma 2, p 0.001, T 1e4: the add ordering's delta is 0.9 of the remove one's at the answer,
    # so neither is composed coarse first
    comp = compose_losses([(SubsampledGaussianLoss(2.0, 0.001), 10_000)], grid_step=2e-4, eta=5e-10,
                          discretization="pairs", aim_delta=DELTA)
    assert not _lazy(comp)


def test_the_coarse_masses_dominate_the_fine_ones():
    # connect the dots onto 8 h: every curve point above the fine masses', the Q-mass kept
    h = grid_step_exact(GRID)
    steps = pair_steps(PARTS[0][0], h, 5e-10 / 1600, 99)
    for o, sign in ((0, 1), (1, -1)):
        fine, coarse = steps[o], coarsened(steps[o], sign, h, 8)
        assert coarse.excess >= fine.excess and coarse.top == fine.top

        def curve(lat, step, y):
            s = sign * step * np.arange(lat.k0, lat.k0 + len(lat.w), dtype=float)
            return float(np.sum(lat.w * np.maximum(0.0, 1 - y * np.exp(-s))))

        for eps in (-0.05, -0.004, 0.0, 0.003, 0.02, 0.1, 0.5):
            y = math.exp(eps)
            assert curve(coarse.upper, 8 * h, y) >= curve(fine.upper, h, y) * (1 - 1e-12)
        q = [float(np.sum(lat.w * np.exp(-sign * step * np.arange(lat.k0, lat.k0 + len(lat.w)))))
             for lat, step in ((fine.upper, h), (coarse.upper, 8 * h))]
        assert abs(q[1] / q[0] - 1) < 1e-12


def test_the_coupling_keeps_the_rough_pass(monkeypatch):
    # (about 0.1 s) sigma 0.5, p 0.01, T 100: a rough pass, then one whose add ordering is the
    # rough pass's (its delta 1e-9 at the answer); the same bracket as with both composed anew
    b, comp = epsilon_bracket([(SubsampledGaussianLoss(0.5, 0.01), 100)], DELTA)
    assert comp.discretization == "coupling" and comp.passes == 2
    (lazy,) = _lazy(comp)
    assert lazy.name == "add" and not lazy.built and lazy.coarse.h > comp.h
    monkeypatch.setattr(compose, "LESSER_SHARE", 1e-300)   # no ordering is that far below: both composed
    b_ref, ref = epsilon_bracket([(SubsampledGaussianLoss(0.5, 0.01), 100)], DELTA)
    assert not _lazy(ref) and b == b_ref and ref.h == comp.h
    # the model that aims a next grid and t cover both laws, as composed anew (T < 256: the trivial
    # second moments, known without discretizing the add ordering's law)
    assert comp.completed() is comp and not lazy.built
    assert comp.coupling_model == ref.coupling_model and comp.t == ref.t
    assert comp.delta(6.5).upper <= ref.delta(6.5).upper and comp.delta(6.5).lower == ref.delta(6.5).lower
    assert lazy.built and set(comp.step_laws) == {"P", "Q"}


def test_the_coupling_knows_the_lesser_ordering_coarse_first():
    # (about 0.05 s) one coupling grid: the add ordering's bound on the grid 8 h decides, with the
    # trivial mean interval [-h/2, h/2] (T = 100: T h / 2 is small), and the prefixes (which need
    # the fine ordering) compose it: every answer as composing without the aim
    parts = [(SubsampledGaussianLoss(0.5, 0.01), 100)]
    plain = compose_losses(parts, grid_step=3e-3, eta=5e-10)
    aimed = compose_losses(parts, grid_step=3e-3, eta=5e-10, aim_delta=DELTA)
    (lazy,) = _lazy(aimed)
    assert lazy.name == "add" and lazy.coarse.h == compose.COARSE_FACTOR * aimed.h
    assert eps_at(aimed, DELTA) == eps_at(plain, DELTA) and not lazy.built
    assert set(aimed.step_laws) == {"P"}
    assert [eps_at(c, DELTA) for c in compose_prefixes(aimed, [40, 70])] == \
        [eps_at(c, DELTA) for c in compose_prefixes(plain, [40, 70])]
    assert lazy.built and aimed.t == plain.t and lazy.fine.shift == plain.directions[1].shift


def test_many_steps_keep_the_mean_on_the_coarse_grid():
    # (about 0.1 s) T = 3000: T h / 2 is too wide a shift, so the coarse ordering has its mean computed
    parts = [(SubsampledGaussianLoss(0.8, 0.1), 3000)]
    plain = compose_losses(parts, grid_step=3e-3, eta=5e-10)
    aimed = compose_losses(parts, grid_step=3e-3, eta=5e-10, aim_delta=DELTA)
    (lazy,) = _lazy(aimed)
    width = lazy.coarse.shift[1] - lazy.coarse.shift[0]
    assert width < 3000 * lazy.coarse.h / 4       # not the trivial T h_eff
    assert eps_at(aimed, DELTA) == eps_at(plain, DELTA) and not lazy.built


def test_the_aim_is_checked():
    with pytest.raises(InvalidParameterError, match="aim_delta"):
        compose_losses(PARTS, grid_step=GRID, aim_delta=1.5)
    with pytest.raises(InvalidParameterError, match="earlier"):
        compose_losses(PARTS, grid_step=GRID, aim_delta=DELTA, earlier=("a", 1.0))


def test_an_earlier_composition_of_other_parts_is_refused():
    # (about 0.1 s) its orderings' upper ends would be kept as bounds of these parts: a composition
    # of 30 steps is not one of 100 (its add ordering would put delta(0.2) near 9e-5, the proven
    # value being 1.7e-3), nor one of another loss with the same count, nor a tilted one
    loss = PARTS[0][0]
    for other in ([(loss, 30)], [(SubsampledGaussianLoss(1.0, 0.02), 100)]):
        comp = compose_losses(other, grid_step=1e-2, eta=5e-10)
        with pytest.raises(InvalidParameterError, match="earlier=.* must compose the same losses"):
            compose_losses(PARTS, grid_step=GRID, eta=5e-10, aim_delta=DELTA, earlier=(comp, 0.1))
    tilted = compose_tilted([(loss, 3)], grid_step=0.05, delta=1e-5)
    with pytest.raises(InvalidParameterError, match="earlier=.* must be an untilted float-route"):
        compose_losses([(loss, 3)], grid_step=GRID, eta=5e-10, aim_delta=DELTA, earlier=(tilted, 0.1))


def test_completed_composes_a_kept_law_whose_model_needs_it():
    # (about 0.15 s) T = 300 >= 256: the second moments come from the law's CDF, so aiming a next
    # grid discretizes the kept ordering's law on this one (without composing it); the model is
    # then the plain one's, and composing the ordering later leaves it so
    parts = [(SubsampledGaussianLoss(0.5, 0.01), 300)]
    first = compose_losses(parts, grid_step=4e-3, eta=5e-10, aim_delta=DELTA)
    lower = eps_at(first, DELTA).lower
    plain = compose_losses(parts, grid_step=2e-3, eta=5e-10)
    kept = compose_losses(parts, grid_step=2e-3, eta=5e-10, aim_delta=DELTA, earlier=(first, lower))
    (lazy,) = _lazy(kept)
    assert len(kept.coupling_model[0]) == 1 and not lazy.built
    assert eps_at(kept, DELTA) == eps_at(plain, DELTA)
    assert kept.completed() is kept and not lazy.built
    assert kept.coupling_model == plain.coupling_model and kept.t == plain.t
    assert kept.delta(8.7).lower == plain.delta(8.7).lower and lazy.built
    assert kept.coupling_model == plain.coupling_model and kept.t == plain.t


def test_below_the_floor_both_refuse_alike():
    # a delta below what the grid resolves: the same refusal, the fine orderings' floor named
    plain, aimed = _pairs(), _pairs(aim_delta=DELTA)
    messages = []
    for comp in (plain, aimed):
        with pytest.raises(PrecisionError, match="below this bracket's floor") as info:
            comp.epsilon(1e-16)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_a_coarse_grid_that_does_not_resolve_the_loss_is_not_used(monkeypatch):
    # (about 0.02 s) sigma 2, p 0.001: on the grid 8 h = 2.4e-3 each step's lattice holds all but
    # 1e-6 of its mass in 5 bins, where a Chernoff pick means nothing: both orderings on h
    parts = [(SubsampledGaussianLoss(2.0, 0.001), 10000)]
    aimed = compose_losses(parts, grid_step=3e-4, eta=5e-10, aim_delta=DELTA)
    assert not _lazy(aimed)
    monkeypatch.setattr(compose, "COARSE_MIN_BINS", 1)   # the check off: the pick was made there
    picked = compose_losses(parts, grid_step=3e-4, eta=5e-10, aim_delta=DELTA)
    assert _lazy(picked) and eps_at(picked, DELTA) == eps_at(aimed, DELTA)
