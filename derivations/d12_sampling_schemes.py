"""d12: dominating pairs of one subsampled Gaussian step under each sampling scheme and relation.

Setting and conventions.  A step adds N(0, s^2 I) to a query f of a batch.  The sensitivity Delta
is the largest L2 change of f under the change of batch the relation allows, and the noise
multiplier is s/Delta, as dp_accounting's ``GaussianDpEvent(noise_multiplier)`` ("the ratio of the
standard deviation of the Gaussian noise to the l2-sensitivity of the function to which it is
added"; its RDP accountant takes ``SampledWithoutReplacementDpEvent`` under ``REPLACE_ONE``).  For
a sum of contributions clipped to norm C: Delta = C when a record is added or removed, 2C when one
is replaced; with fixed-size batches, 2C under add/remove as well (the batch has no free slot: a
removed record's place is taken by another, so one contribution moves from +C to -C).  DP-SGD's
noise multiplier in gdpproof (``dpsgd``, ``--sigma``) is s/C, so sigma here is it over
Delta / C = 2 except for Poisson sampling under add/remove (``dpsgd_sensitivity``).
Units: Delta = 1, sigma = s/Delta, mu = 1/sigma.  R = (R_P, R_Q) is the Poisson
add/remove pair R_P = (1 - q) N(0, sigma^2) + q N(1, sigma^2), R_Q = N(0, sigma^2) (d11),
"remove" = R_P||R_Q, "add" = R_Q||R_P.  H_g(A||B) = int (dA - g dB)_+ is the hockey-stick
divergence, delta(eps) = H_{e^eps}.

Claim.
(a) Fixed-size batches (B of N records without replacement, q = B/N), replace-one neighbours
(N public): every neighbouring pair of one step satisfies H_{e^eps}(M(D)||M(D')) <= delta_S(eps)
for every real eps, where S = (S_P, S_Q) is the symmetric pair shipped as
``symmetric_subsampled_gaussian``: S_P = (1 - q) N(0, sigma^2) + q A with A of density
phi_sigma(x - 1) on x > 1/2 and phi_sigma(x) on x < -1/2, S_Q(x) = S_P(-x).  Its trade-off is
C_q(G_mu) (DRS Thm 4.2, whose subsampling is this scheme), its loss is R's on (0, oo), R's "add"
law mirrored on (-oo, 0), and 0 with probability (1 - q)(Phi(1/(2 sigma)) - Phi(-1/(2 sigma))).
So S dominates the step (Zhu, Dong & Wang 2022, Def. 7) and S^T the T-step composition, adaptive
or not (ZDW Thm 10).  One step: tight, both orderings being attained (step (d)).  Composed: an
upper bound only; the orderings can alternate from step to step (the gradients, hence which
ordering a step takes, may depend on earlier outputs), and S^T, which covers every sequence, is
not shown to be attained; the true value lies between the worse single ordering composed and
S^T.  A bracket's lower end is then a lower bound for S^T, not for the mechanism.  Lebeda,
Regehr, Kamath & Steinke (2024), "Avoiding pitfalls for privacy accounting of subsampled
mechanisms under composition", discuss exactly these pairs and why a per-step worst case need not
survive composition.
(b) Poisson sampling (rate q), replace-one neighbours: the same S dominates, when Delta also
bounds the change of f when a record is added to or removed from a batch (true for clipped sums:
C <= 2C).  An upper bound: a clipped sum does not attain it (that would need a contribution of
norm 2C).
(c) Fixed-size batches, add/remove neighbours (datasets of N and N - 1 records, q = B/N): the
pair R, in the orderings remove and add, tight; each ordering keeps its direction through the
run (the larger dataset is always the mixture).  Neighbours of N and N + 1 records have the
smaller rate B/(N + 1), dominated by q (step (e)).
(d), (e): the steps below.  The CLT of each composed pair: R^T, Bu, Dong, Long & Su (2020)
(``MU_CLT_POISSON``); S^T = C_q(G_mu)^T, DRS 2022 §5 (``MU_CLT_UNIFORM``).  Shuffled epochs
("shuffle and iterate") are none of these schemes; gdpproof does not account them.

Assumptions.  sigma > 0, 0 < q <= 1; the inner mechanism is Gaussian noise on f as above.

Steps.
1. Coupling (a): with D = D0 + {x}, D' = D0 + {x'}, draw a (B-1)-subset T of D0 and y in D0 \\ T;
   the batch of D is T + {x} with probability q, else T + {y} (a uniform B-subset), the same for
   D' with x'.  Given (T, y), after shifting by f(T), the step is the pair
   (q N(a) + (1 - q) N(w), q N(b) + (1 - q) N(w)) with |a - b|, |a - w|, |b - w| <= 1; the
   mixture over (T, y) has the same weights on both sides, and H is jointly convex.
2. Advanced joint convexity (Balle, Barthe & Gaboardi 2018, Thm 2): for g' = 1 + q(g - 1) and
   beta = g'/g, H_{g'}(q A + (1 - q) W || q B + (1 - q) W) = q H_g(A || (1 - beta) W + beta B)
   <= q max(H_g(A||W), H_g(A||B)) <= q delta_{G_mu}(log g), which is H_{g'}(R_P||R_Q) (checked
   symbolically below for the last identity, numerically for the whole chain at seeded
   configurations in one dimension).  So for eps >= 0 the step is below the remove profile, and
   since the relation is symmetric, both orderings are.
3. The pair S: for eps >= 0, delta_S(eps) = delta_R(eps) (on x > 1/2 the densities are R's, and
   L > eps >= 0 only there; symbolic); S is symmetric, so delta_S(eps) = 1 - e^eps +
   e^eps delta_S(-eps) for eps < 0, which is what any pair of a symmetric relation satisfies:
   H_g(X||Y) = 1 - g + g H_{1/g}(Y||X).  Hence S dominates.  Its profile equals C_q(G_mu)'s
   (certified at seeded eps), and its laws are the ones shipped (their CDFs against quadrature of
   the densities at seeded points).
4. (d) Attained, one step: contributions x = +1/2, x' = -1/2 and every other record -1/2 (norms
   C = 1/2, Delta = 1) give, after shifting by B(-1/2), exactly (R_P, R_Q); swapping the roles of
   x and x' gives (R_Q, R_P) (symbolic).
5. (e) Monotone in q: the kernel "keep with probability r, else draw from R_Q" maps
   (q' R_P-mixture, R_Q) to the rate r q' and R_Q to itself (symbolic), so a smaller rate is
   post-processing of a larger one.
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy
from sympy import exp, sqrt

import gdpproof
from gdpproof.accounting.losses import SubsampledGaussianLoss, SymmetricSubsampledGaussianLoss
from gdpproof.symbolic import losses as shipped_laws
from gdpproof.symbols import p, sigma
from gdpproof.symbols import x as X

try:
    from ._check import random_points
except ImportError:  # run as a script
    from _check import random_points

CTX = mpmath.MPContext()
CTX.dps = 20


def _npdf(x, m, s):
    return CTX.npdf(x, m, s)


def _hockey(dens_a, dens_b, g, cuts):
    """int (a - g b)_+ by quadrature split at the given points and at the sign changes of a - g b
    (located on a grid and refined by bisection: the integrand has a kink there)."""
    diff = lambda t: dens_a(t) - g * dens_b(t)  # noqa: E731
    grid = [CTX.mpf(-10) + CTX.mpf(20) * k / 160 for k in range(161)]
    kinks = []
    for lo, hi in zip(grid, grid[1:]):
        if (diff(lo) > 0) != (diff(hi) > 0):
            for _ in range(80):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if (diff(mid) > 0) == (diff(lo) > 0) else (lo, mid)
            kinks.append((lo + hi) / 2)
    inner = sorted({c for c in cuts if abs(c) != CTX.inf} | set(kinks))
    return CTX.quad(lambda t: max(diff(t), 0), [-CTX.inf] + inner + [CTX.inf])


def main() -> None:
    S, R = shipped_laws.SYMMETRIC_SUBSAMPLED_GAUSSIAN, shipped_laws.SUBSAMPLED_GAUSSIAN
    half = sympy.Rational(1, 2)
    # 3. the pieces above 1/2 are R's own: same loss, same densities
    for law in "PQ":
        pieces = S.integrand[law].args
        assert pieces[2][1] == sympy.true and sympy.simplify(pieces[2][0] - R.integrand[law]) == 0
        assert pieces[1][0] == 0 and pieces[1][1] == (X <= half) and pieces[0][1] == (X < -half)
    # the lower piece is the mirror of the other law's upper piece with the loss negated (symmetry)
    assert sympy.simplify(S.integrand["P"].args[0][0] + R.integrand["Q"].xreplace({X: -X})) == 0
    assert sympy.simplify(S.integrand["Q"].args[0][0] + R.integrand["P"].xreplace({X: -X})) == 0
    # the atom: total mass of P is 1 with (1 - q) phi_sigma on [-1/2, 1/2] for both laws
    s_, q_ = sympy.symbols("s q", positive=True)
    phi_s = lambda t, m=0: exp(-((t - m) ** 2) / (2 * s_**2)) / (s_ * sqrt(2 * sympy.pi))  # noqa: E731
    t = sympy.Symbol("t", real=True)
    total = (sympy.integrate((1 - q_) * phi_s(t) + q_ * phi_s(t, 1), (t, half, sympy.oo))
             + sympy.integrate((1 - q_) * phi_s(t), (t, -half, half))
             + sympy.integrate(phi_s(t), (t, -sympy.oo, -half)))
    assert sympy.simplify(sympy.expand((total - 1).rewrite(sympy.erf))) == 0
    # the loss is non-decreasing in x: L = log(1 - q + q e^{(2x - 1)/(2 s^2)}) > 0 above 1/2, 0 between
    loss_up = shipped_laws.SUBSAMPLED_GAUSSIAN_LOSS_AT
    assert sympy.simplify(loss_up.xreplace({X: half})) == 0
    assert sympy.simplify(sympy.diff(loss_up, X) - p * exp((2 * X - 1) / (2 * sigma**2)) / sigma**2
                          / (1 - p + p * exp((2 * X - 1) / (2 * sigma**2)))) == 0
    # 2. H_{g'}(R_P || R_Q) = q H_g(N(1)||N(0)) with g = 1 + (g' - 1)/q: (q A + (1 - q) W - g' W) = q (A - g W)
    g1, A, W = sympy.symbols("g1 A W", positive=True)
    g = 1 + (g1 - 1) / q_
    assert sympy.simplify(q_ * A + (1 - q_) * W - g1 * W - q_ * (A - g * W)) == 0
    # the symmetric relation: H_g(X||Y) = 1 - g + g H_{1/g}(Y||X), pointwise (x - g y)_+ = x - g y + g (y - x/g)_+
    a, b = sympy.symbols("a b", positive=True)
    for xv, yv in ((3, 1), (1, 3), (2, 2)):
        lhs = sympy.Max(a - g1 * b, 0).subs({a: xv, b: yv})
        rhs = (a - g1 * b + g1 * sympy.Max(b - a / g1, 0)).subs({a: xv, b: yv})
        for gv in (sympy.Rational(1, 3), 1, 5):
            assert sympy.simplify(lhs.subs(g1, gv) - rhs.subs(g1, gv)) == 0
    # 4. attained: x = +1/2, x' and the others -1/2, batch sum shifted by B/2
    Bs = sympy.Symbol("B", positive=True, integer=True)
    with_x = (Bs - 1) * (-half) + half - Bs * (-half)      # batch holding x, shifted
    without = Bs * (-half) - Bs * (-half)                   # batch of others (or holding x')
    assert sympy.simplify(with_x - 1) == 0 and without == 0
    # 5. post-processing to a smaller rate
    r, q2 = sympy.symbols("r q2", positive=True)
    mixed = r * (q2 * A + (1 - q2) * W) + (1 - r) * W
    assert sympy.simplify(mixed - (r * q2 * A + (1 - r * q2) * W)) == 0
    check_profiles()
    check_joint_convexity()
    check_cdfs()
    print("d12: dominating pairs of fixed-size and Poisson subsampling under replace-one and add/remove: verified")


def check_profiles() -> None:
    """3. delta_S = C_q(G_mu)'s profile and = the remove profile for eps >= 0; for eps < 0 the
    symmetric identity (certified trade-off against the shipped laws' hockey-stick by quadrature)."""
    for point in random_points(1212, 2, sigma=("0.6", "2"), q=("0.01", "0.5"), eps=("0", "1.5")):
        s, q, e = (float(point[k]) for k in ("sigma", "q", "eps"))
        c = gdpproof.subsample(gdpproof.gaussian(1 / sympy.Rational(point["sigma"])), sympy.Rational(point["q"]))
        want = CTX.mpf(str(c.delta(sympy.Rational(point["eps"]), digits=20)))
        sym_p = lambda t: (1 - q) * _npdf(t, 0, s) + q * (  # noqa: E731
            _npdf(t, 1, s) if t > 0.5 else (_npdf(t, 0, s) if t < -0.5 else 0))
        sym_q = lambda t: sym_p(-t)  # noqa: E731
        cuts = [-CTX.inf, -0.5, 0.5, CTX.inf]
        got = _hockey(sym_p, sym_q, CTX.exp(e), cuts)
        remove = _hockey(lambda t: (1 - q) * _npdf(t, 0, s) + q * _npdf(t, 1, s), lambda t: _npdf(t, 0, s),
                         CTX.exp(e), [-CTX.inf, 0.5, CTX.inf])
        assert abs(got - want) < 1e-15 and abs(remove - want) < 1e-15, (point, got, want, remove)
        # eps < 0: H_{e^-eps}(S_P||S_Q) = 1 - e^-eps + e^-eps delta_S(eps)
        neg = _hockey(sym_p, sym_q, CTX.exp(-e), cuts)
        assert abs(neg - (1 - CTX.exp(-e) + CTX.exp(-e) * want)) < 1e-15


def check_joint_convexity() -> None:
    """2., numerically: one-dimensional configurations (a, b, w) with pairwise distances <= 1 stay
    below delta_S in both orderings, at seeded points."""
    for point in random_points(1213, 3, sigma=("0.5", "2"), q=("0.02", "0.6"), eps=("0", "2"),
                               a=("-0.5", "0.5"), b=("-0.5", "0.5"), w=("-0.5", "0.5")):
        s, q, e = (float(point[k]) for k in ("sigma", "q", "eps"))
        av, bv, wv = (float(point[k]) for k in ("a", "b", "w"))
        bound = float(gdpproof.subsample(gdpproof.gaussian(1 / sympy.Rational(point["sigma"])),
                                         sympy.Rational(point["q"])).delta(sympy.Rational(point["eps"]), digits=15))
        m1 = lambda t: q * _npdf(t, av, s) + (1 - q) * _npdf(t, wv, s)  # noqa: E731
        m2 = lambda t: q * _npdf(t, bv, s) + (1 - q) * _npdf(t, wv, s)  # noqa: E731
        cuts = [-CTX.inf] + sorted({av, bv, wv}) + [CTX.inf]
        for first, second in ((m1, m2), (m2, m1)):
            assert _hockey(first, second, CTX.exp(e), cuts) <= bound * (1 + 1e-12) + 1e-20, point


def check_cdfs() -> None:
    """3.: the shipped float CDFs of S against quadrature of its densities (and S against R above 0)."""
    for sig, q in ((0.9, 0.05), (1.7, 0.4)):
        loss, base = SymmetricSubsampledGaussianLoss(sig, q), SubsampledGaussianLoss(sig, q)
        ells = np.array([0.0, 0.05, 0.7])
        for law in "PQ":
            assert np.all(np.abs(loss.sf(ells, law) - base.sf(ells, law)) <= 2e-15)
        # under P below 0: P(L <= -l) = R_Q(L_R >= l), the mirror
        assert np.all(np.abs(loss.cdf(-ells[1:], "P") - base.sf(ells[1:], "Q")) <= 2e-15)
        assert np.all(np.abs(loss.cdf(-ells[1:], "Q") - base.sf(ells[1:], "P")) <= 2e-15)
    # the atom at 0 (law P): the jump of the CDF there
    loss = SymmetricSubsampledGaussianLoss(0.9, 0.05)
    jump = loss.cdf(np.array([0.0]), "P")[0] - loss.cdf(np.array([-1e-300]), "P")[0]
    want = 0.95 * (CTX.ncdf(1 / 1.8) - CTX.ncdf(-1 / 1.8))
    assert abs(jump - want) < 1e-14
    # the flags the bracket relies on: symmetric, support the whole line, riskier like R
    fam = shipped_laws.SYMMETRIC_SUBSAMPLED_GAUSSIAN
    assert fam.support == (-sympy.oo, sympy.oo) and fam.symmetric and fam.riskier == (-1, 1)
    assert sympy.simplify(fam.x_of_ell.args[1][0] - shipped_laws.SUBSAMPLED_GAUSSIAN_X_OF_ELL) == 0


if __name__ == "__main__":
    main()
