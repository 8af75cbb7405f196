r"""The laws of the privacy loss of each mechanism family, in both orderings, as sympy expressions.

For a pair (P, Q) the privacy loss is L = log(dP/dQ)(o).  Each family (``gaussian``,
``randomized_response``, ``k_randomized_response``, ``laplace``, ``subsampled_gaussian``,
``symmetric_subsampled_gaussian``, ``discrete_gaussian``, ``discrete_laplace``; one unit of
sensitivity) gives, under each law ("P": o ~ P, "Q": o ~ Q), its ``cdf`` and ``sf`` in tail-safe
forms, its partial mean E[L; L <= ell] in closed form or as an ``integrand`` with ``x_of_ell``,
or, when finitely supported, its ``atoms``.  Every formula is written here once, in the
canonical symbols; the engines compile them (:mod:`gdpproof.accounting.losses`) and never
restate one.  The claims are checked in ``derivations/d11_privacy_loss.py``.

Each family's pair, its loss and the references: ``docs/proofs/losses.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any

import sympy
from sympy import Piecewise, Rational, exp, log, tanh
from sympy.codegen.cfunctions import expm1, log1p

from .._args import count, exact
from ..errors import InvalidParameterError

from .symbols import Delta, Phi, alpha, ell, epsilon, epsilon_prime, k, mu, p, phi, sigma, x, z

__all__ = ["LossFamily", "LossLaw", "FAMILIES", "gaussian_loss", "randomized_response_loss", "laplace_loss",
           "subsampled_gaussian_loss", "symmetric_subsampled_gaussian_loss", "k_randomized_response_loss",
           "K_RR_MASSES", "k_randomized_response_tradeoff", "finite_pair_tradeoff", "pair_delta",
           "DISCRETE_GAUSSIAN", "discrete_gaussian_loss", "discrete_laplace_masses",
           "DISCRETE_LAPLACE", "discrete_laplace_loss", "DL_LOSS_AT", "DL_P_MASS", "DL_Q_MASS", "DG_WEIGHT", "DG_LOSS_AT",
           "DG_CUT", "DG_TAIL_BOUND", "DG_DELTA", "DG_RATIO"]

LAWS = ("P", "Q")


@dataclass(frozen=True)
class LossFamily:
    """The privacy-loss laws of a family of pairs (P, Q), in the family's parameter symbols.

    Attributes:
        name: The family's name.
        parameters: The symbols the expressions depend on besides ``ell`` (and ``x``), in calling order.
        orderings: The names of the orderings P||Q and Q||P.
        cdf: P(L <= ell) under law "P" or "Q".
        sf: P(L > ell) under law "P" or "Q".
        support: Bounds of the support of L (the same under both laws); +-oo when unbounded.
        median: A point near the centre of the law (the start of the tail search).
        partial: M(ell) = E[L; L <= ell], right-continuous; None when there is no closed form.
        integrand: L(x) times the density of the output x under the law (when ``partial`` is None); a
            ``Piecewise`` in x alone (conditions x < c, x <= c with constant c) where the output law
            has pieces, which the engines integrate piece by piece.
        x_of_ell: The output x at which L(x) = ell (L increasing in x); -oo at and below the floor.
        atoms: The whole law, for finitely supported losses.
        riskier: For each parameter, +1 if a larger value is less private (the pair's trade-off curve
            decreases), -1 if a smaller one is: the direction to round a parameter in safely.
        symmetric: True when T(P, Q) = T(Q, P) (both orderings have the same privacy profile).
    """

    name: str
    parameters: tuple[sympy.Symbol, ...]
    orderings: tuple[str, str]
    cdf: dict[str, sympy.Expr]
    sf: dict[str, sympy.Expr]
    support: tuple[sympy.Expr, sympy.Expr]
    median: dict[str, sympy.Expr]
    partial: dict[str, sympy.Expr] | None = None
    integrand: dict[str, sympy.Expr] | None = None
    x_of_ell: sympy.Expr | None = None
    atoms: dict[str, tuple[tuple[sympy.Expr, sympy.Expr], ...]] | None = None
    riskier: tuple[int, ...] = ()
    symmetric: bool = True


@dataclass(frozen=True)
class LossLaw:
    """A :class:`LossFamily` at exact parameter values (what a mechanism value hands to an engine)."""

    family: LossFamily
    values: tuple[sympy.Expr, ...]
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def name(self) -> str:
        return self.family.name

    def __post_init__(self) -> None:
        # every value through the exact-number gate (sympify would run a string's code)
        if not isinstance(self.values, (tuple, list)) or len(self.values) != len(self.family.parameters):
            raise InvalidParameterError(argument="values", value=self.values,
                                        rule=f"must be {len(self.family.parameters)} values for {self.family.name}")
        object.__setattr__(self, "values", tuple(exact(s.name, v, infinite=True)
                                                 for s, v in zip(self.family.parameters, self.values)))

    def parameters(self) -> dict[str, sympy.Expr]:
        """The parameter values by symbol name."""
        return {s.name: v for s, v in zip(self.family.parameters, self.values)}

    def substitute(self, expr: sympy.Expr) -> sympy.Expr:
        """``expr`` with the family's parameters replaced by this law's values."""
        return expr.xreplace(dict(zip(self.family.parameters, self.values)))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in self.parameters().items())
        return f"{self.family.name}({args})"


# ---------------------------------------------------------------------------------------------
# Gaussian: L = mu^2/2 - mu X; L ~ N(+-mu^2/2, mu^2)
# ---------------------------------------------------------------------------------------------

_m = mu**2 / 2
_zP, _zQ = (ell - _m) / mu, (ell + _m) / mu


GAUSSIAN = LossFamily(
    name="gaussian",
    parameters=(mu,),
    orderings=("P||Q", "Q||P"),
    cdf={"P": Phi(_zP), "Q": Phi(_zQ)},
    sf={"P": Phi(-_zP), "Q": Phi(-_zQ)},
    support=(-sympy.oo, sympy.oo),
    median={"P": _m, "Q": -_m},
    # E[L; L <= ell] for L ~ N(m, s^2): m Phi(z) - s phi(z), z = (ell - m)/s
    partial={"P": _m * Phi(_zP) - mu * phi(_zP), "Q": -_m * Phi(_zQ) - mu * phi(_zQ)},
    riskier=(1,),
)

# ---------------------------------------------------------------------------------------------
# randomized response: L = +-eps
# ---------------------------------------------------------------------------------------------

_q = 1 / (1 + exp(-epsilon))      # P(L = eps) under P; under Q it is 1 - q
_qc = 1 / (1 + exp(epsilon))      # 1 - q without cancellation


def _two_atoms(q_plus: sympy.Expr, q_minus: sympy.Expr, mean: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr]:
    cdf = Piecewise((0, ell < -epsilon), (q_minus, ell < epsilon), (1, True))
    sf = Piecewise((1, ell < -epsilon), (q_plus, ell < epsilon), (0, True))
    partial = Piecewise((0, ell < -epsilon), (-epsilon * q_minus, ell < epsilon), (mean, True))
    return cdf, sf, partial


# E_P[L] = eps (2q - 1) = eps tanh(eps/2), written without cancellation
_rrP = _two_atoms(_q, _qc, epsilon * tanh(epsilon / 2))
_rrQ = _two_atoms(_qc, _q, -epsilon * tanh(epsilon / 2))

RANDOMIZED_RESPONSE = LossFamily(
    name="randomized_response",
    parameters=(epsilon,),
    orderings=("P||Q", "Q||P"),
    cdf={"P": _rrP[0], "Q": _rrQ[0]},
    sf={"P": _rrP[1], "Q": _rrQ[1]},
    support=(-epsilon, epsilon),
    median={"P": sympy.Integer(0), "Q": sympy.Integer(0)},
    partial={"P": _rrP[2], "Q": _rrQ[2]},
    atoms={"P": ((epsilon, _q), (-epsilon, _qc)), "Q": ((epsilon, _qc), (-epsilon, _q))},
    riskier=(1,),
)

# ---------------------------------------------------------------------------------------------
# k-ary randomized response: L in {-eps, 0, eps}
# ---------------------------------------------------------------------------------------------

_kZ = exp(epsilon) + k - 1
_k_plus = 1 / (1 + (k - 1) * exp(-epsilon))   # e^eps/Z: P(L = eps) under P, P(L = -eps) under Q
_k_minus = 1 / _kZ                            # 1/Z: P(L = -eps) under P, P(L = eps) under Q
_k_zero = (k - 2) / _kZ                       # (k - 2)/Z: P(L = 0) under both

#: The worst pair of k-ary randomized response as masses (P(o), Q(o)) of its three kinds of
#: outputs: the first true value, the second, and the k - 2 others together.
K_RR_MASSES = ((_k_plus, _k_minus), (_k_minus, _k_plus), (_k_zero, _k_zero))


def _three_atoms(q_plus: sympy.Expr, q_minus: sympy.Expr, mean: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr]:
    cdf = Piecewise((0, ell < -epsilon), (q_minus, ell < 0), (q_minus + _k_zero, ell < epsilon), (1, True))
    sf = Piecewise((1, ell < -epsilon), (q_plus + _k_zero, ell < 0), (q_plus, ell < epsilon), (0, True))
    partial = Piecewise((0, ell < -epsilon), (-epsilon * q_minus, ell < epsilon), (mean, True))
    return cdf, sf, partial


# E_P[L] = eps (e^eps - 1)/Z, written with expm1 (no cancellation at small eps)
_krrP = _three_atoms(_k_plus, _k_minus, epsilon * expm1(epsilon) / _kZ)
_krrQ = _three_atoms(_k_minus, _k_plus, -epsilon * expm1(epsilon) / _kZ)

K_RANDOMIZED_RESPONSE = LossFamily(
    name="k_randomized_response",
    parameters=(epsilon, k),
    orderings=("P||Q", "Q||P"),
    cdf={"P": _krrP[0], "Q": _krrQ[0]},
    sf={"P": _krrP[1], "Q": _krrQ[1]},
    support=(-epsilon, epsilon),
    median={"P": sympy.Integer(0), "Q": sympy.Integer(0)},
    partial={"P": _krrP[2], "Q": _krrQ[2]},
    atoms={"P": ((epsilon, _k_plus), (sympy.Integer(0), _k_zero), (-epsilon, _k_minus)),
           "Q": ((epsilon, _k_minus), (sympy.Integer(0), _k_zero), (-epsilon, _k_plus))},
    riskier=(1, -1),   # a larger eps, or fewer outputs, is less private
)

# ---------------------------------------------------------------------------------------------
# Laplace: P = Lap(0, 1), Q = Lap(mu, 1), L = |x - mu| - |x| in [-mu, mu]
# ---------------------------------------------------------------------------------------------
# Under P: P(L = mu) = 1/2 (x <= 0), P(L = -mu) = e^{-mu}/2 (x >= mu), density e^{-(mu - s)/2}/4 on
# (-mu, mu).  Under Q the law is e^{-s} dP.  Antiderivatives of s times the densities:
# (s - 2) e^{(s - mu)/2}/2 and -(s + 2) e^{-(s + mu)/2}/2 (checked in d11).

_half = Rational(1, 2)
_lapP_cdf = Piecewise((0, ell < -mu), (exp((ell - mu) / 2) / 2, ell < mu), (1, True))
_lapP_sf = Piecewise((1, ell < -mu), (1 - exp((ell - mu) / 2) / 2, ell < mu), (0, True))
_lapQ_cdf = Piecewise((0, ell < -mu), (1 - exp(-(ell + mu) / 2) / 2, ell < mu), (1, True))
_lapQ_sf = Piecewise((1, ell < -mu), (exp(-(ell + mu) / 2) / 2, ell < mu), (0, True))
_antiP = (ell - 2) * exp((ell - mu) / 2) / 2
_antiQ = -(ell + 2) * exp(-(ell + mu) / 2) / 2
_atomP_lo = -mu * exp(-mu) / 2                      # the atom at -mu under P
_atomQ_lo = -mu * _half                             # under Q
_lapP_partial = Piecewise(
    (0, ell < -mu),
    (_atomP_lo + _antiP - _antiP.xreplace({ell: -mu}), ell < mu),
    (_atomP_lo + _antiP.xreplace({ell: mu}) - _antiP.xreplace({ell: -mu}) + mu * _half, True))
_lapQ_partial = Piecewise(
    (0, ell < -mu),
    (_atomQ_lo + _antiQ - _antiQ.xreplace({ell: -mu}), ell < mu),
    (_atomQ_lo + _antiQ.xreplace({ell: mu}) - _antiQ.xreplace({ell: -mu}) + mu * exp(-mu) / 2, True))

LAPLACE = LossFamily(
    name="laplace",
    parameters=(mu,),
    orderings=("P||Q", "Q||P"),
    cdf={"P": _lapP_cdf, "Q": _lapQ_cdf},
    sf={"P": _lapP_sf, "Q": _lapQ_sf},
    support=(-mu, mu),
    median={"P": sympy.Integer(0), "Q": sympy.Integer(0)},
    partial={"P": _lapP_partial, "Q": _lapQ_partial},
    riskier=(1,),
)

# ---------------------------------------------------------------------------------------------
# one Poisson-subsampled Gaussian step
# ---------------------------------------------------------------------------------------------

#: The privacy loss at output x.
SUBSAMPLED_GAUSSIAN_LOSS_AT = log(1 - p + p * exp((2 * x - 1) / (2 * sigma**2)))
#: x with L(x) = ell: sigma^2 log((e^ell - (1 - p))/p) + 1/2, in the cancellation-free forms of
#: d11 (log1p(expm1(ell)/p) for ell <= 1, ell - log p + log1p(-(1 - p) e^{-ell}) above, where
#: (1 - p) e^{-ell} <= 1/e: the second form cancels for small ell > 0 and small p, 1 + (p - 1) e^{-ell}
#: being about p + ell, with an error of 1e-12 relative at p = 1e-4, ell = 1e-5); -oo at and
#: below the floor log(1 - p), where no output has that loss; for p = 1 (no floor) sigma^2 ell + 1/2,
#: which the float forms would lose once e^ell is below the unit roundoff.
SUBSAMPLED_GAUSSIAN_X_OF_ELL = Piecewise(
    (sigma**2 * ell + _half, sympy.Eq(p, 1)),                 # no floor: L(x) = (2x - 1)/(2 sigma^2)
    (-sympy.oo, expm1(ell) <= -p),
    (sigma**2 * log1p(expm1(ell) / p) + _half, ell <= 1),
    (sigma**2 * (ell - log(p) + log1p(-(1 - p) * exp(-ell))) + _half, True))

_xs = SUBSAMPLED_GAUSSIAN_X_OF_ELL / sigma
_xs1 = (SUBSAMPLED_GAUSSIAN_X_OF_ELL - 1) / sigma
_density_q = phi(x / sigma) / sigma
_density_p = ((1 - p) * phi(x / sigma) + p * phi((x - 1) / sigma)) / sigma

SUBSAMPLED_GAUSSIAN = LossFamily(
    name="subsampled_gaussian",
    parameters=(sigma, p),
    orderings=("remove", "add"),
    cdf={"P": (1 - p) * Phi(_xs) + p * Phi(_xs1), "Q": Phi(_xs)},
    sf={"P": (1 - p) * Phi(-_xs) + p * Phi(-_xs1), "Q": Phi(-_xs)},
    support=(log1p(-p), sympy.oo),
    median={"P": sympy.Integer(0), "Q": sympy.Integer(0)},
    integrand={"P": SUBSAMPLED_GAUSSIAN_LOSS_AT * _density_p, "Q": SUBSAMPLED_GAUSSIAN_LOSS_AT * _density_q},
    x_of_ell=SUBSAMPLED_GAUSSIAN_X_OF_ELL,
    riskier=(-1, 1),
    symmetric=False,
)

# ---------------------------------------------------------------------------------------------
# one subsampled Gaussian step under replace-one neighbours: the symmetric pair of C_p(G_{1/sigma})
# ---------------------------------------------------------------------------------------------
# With L_R the subsampled Gaussian's loss (P_R the mixture, Q_R = N(0, sigma^2)) and X(ell) its
# inverse map (X(ell) >= 1/2 for ell >= 0): under P the law is P_R's on (0, oo), Q_R's mirrored
# onto (-oo, 0) and an atom at 0; under Q the law of -L under P (derivations/d12).

_X = SUBSAMPLED_GAUSSIAN_X_OF_ELL             # the output with loss ell, for ell >= 0
# the output with loss -ell, for ell < 0, written through |ell| (X(-ell) as such would print its
# erfc arguments with an extracted minus sign: 1 - erfc(...)/2, which cancels in the tails)
_Xm = _X.xreplace({ell: sympy.Abs(ell)})
# z-values of the two mixture components at X(ell) and X(-ell) (built once, as the subsampled
# Gaussian's are: Phi(-(X - 1)/sigma) written inline prints as 1 - erfc(...)/2, which cancels in the
# tails; d12 checks the tails against mpmath)
_z, _z1 = _X / sigma, (_X - 1) / sigma
_zm, _zm1 = _Xm / sigma, (_Xm - 1) / sigma
_mix_sf = (1 - p) * Phi(-_z) + p * Phi(-_z1)        # P_R(L_R > ell)
_mix_ge = (1 - p) * Phi(-_zm) + p * Phi(-_zm1)      # P_R(L_R >= -ell)
_loss_neg = -SUBSAMPLED_GAUSSIAN_LOSS_AT.xreplace({x: -x})            # the loss at x < -1/2

SYMMETRIC_SUBSAMPLED_GAUSSIAN = LossFamily(
    name="symmetric_subsampled_gaussian",
    parameters=(sigma, p),
    orderings=("P||Q", "Q||P"),
    cdf={"P": Piecewise((Phi(-_zm), ell < 0), ((1 - p) * Phi(_z) + p * Phi(_z1), True)),
         "Q": Piecewise((_mix_ge, ell < 0), (Phi(_z), True))},
    sf={"P": Piecewise((Phi(_zm), ell < 0), (_mix_sf, True)),
        "Q": Piecewise(((1 - p) * Phi(_zm) + p * Phi(_zm1), ell < 0), (Phi(-_z), True))},
    support=(-sympy.oo, sympy.oo),
    median={"P": sympy.Integer(0), "Q": sympy.Integer(0)},
    integrand={"P": Piecewise((_loss_neg * _density_q, x < -_half), (0, x <= _half),
                              (SUBSAMPLED_GAUSSIAN_LOSS_AT * _density_p, True)),
               "Q": Piecewise((_loss_neg * _density_p.xreplace({x: -x}), x < -_half), (0, x <= _half),
                              (SUBSAMPLED_GAUSSIAN_LOSS_AT * _density_q, True))},
    x_of_ell=Piecewise((-_Xm, ell < 0), (_X, True)),
    riskier=(-1, 1),
    symmetric=True,
)

# ---------------------------------------------------------------------------------------------
# discrete Gaussian: P = N_Z(0, sigma^2), Q = N_Z(Delta, sigma^2) (derivations/d14)
# ---------------------------------------------------------------------------------------------

#: The unnormalised mass of N_Z(0, sigma^2) at the integer z.
DG_WEIGHT = exp(-z**2 / (2 * sigma**2))
#: The privacy loss log P(x)/Q(x) at the integer output x.
DG_LOSS_AT = (Delta**2 - 2 * Delta * x) / (2 * sigma**2)
#: The smallest integer x with L(x) <= ell: L(x) <= ell iff x >= (Delta^2 - 2 sigma^2 ell)/(2 Delta).
DG_CUT = sympy.ceiling((Delta**2 - 2 * sigma**2 * ell) / (2 * Delta))
#: The ratio W(z + 1)/W(z): the weights are summed by this recurrence (one product per term).
DG_RATIO = exp(-(2 * z + 1) / (2 * sigma**2))
#: A bound on sum_{z > n} W(z) for an integer n >= 0: the ratio W(z + 1)/W(z) = e^{-(2z + 1)/(2 sigma^2)}
#: is at most e^{-(2n + 3)/(2 sigma^2)} for z >= n + 1, so the tail is below a geometric series.
DG_TAIL_BOUND = DG_WEIGHT.xreplace({z: x + 1}) / (1 - exp(-(2 * x + 3) / (2 * sigma**2)))

_S = sympy.Sum(DG_WEIGHT, (z, -sympy.oo, sympy.oo))
_dg_cdfP = sympy.Sum(DG_WEIGHT, (z, DG_CUT, sympy.oo)) / _S
_dg_cdfQ = sympy.Sum(DG_WEIGHT, (z, DG_CUT - Delta, sympy.oo)) / _S
_dg_sfP = sympy.Sum(DG_WEIGHT, (z, -sympy.oo, DG_CUT - 1)) / _S
_dg_sfQ = sympy.Sum(DG_WEIGHT, (z, -sympy.oo, DG_CUT - 1 - Delta)) / _S
#: delta(eps') of the pair: the outputs x < (Delta^2 - 2 sigma^2 eps')/(2 Delta) have L(x) > eps', so
#: delta = P(X <= c) - e^eps' Q(X <= c) with c = DG_CUT(eps') - 1 (the hockey-stick divergence).
_c = DG_CUT.xreplace({ell: epsilon_prime}) - 1
DG_DELTA = (sympy.Sum(DG_WEIGHT, (z, -sympy.oo, _c))
            - exp(epsilon_prime) * sympy.Sum(DG_WEIGHT, (z, -sympy.oo, _c - Delta))) / _S

DISCRETE_GAUSSIAN = LossFamily(
    name="discrete_gaussian",
    parameters=(sigma, Delta),
    orderings=("P||Q", "Q||P"),
    cdf={"P": _dg_cdfP, "Q": _dg_cdfQ},
    sf={"P": _dg_sfP, "Q": _dg_sfQ},
    support=(-sympy.oo, sympy.oo),
    median={"P": Delta**2 / (2 * sigma**2), "Q": -Delta**2 / (2 * sigma**2)},
    riskier=(-1, 1),
    symmetric=True,
)

# ---------------------------------------------------------------------------------------------
# discrete Laplace: P = DLap(0), Q = DLap(Delta), P(z) = (1 - r)/(1 + r) r^|z|, r = e^{-eps} (d14)
# ---------------------------------------------------------------------------------------------

#: The index of a merged output: j = 0 for x <= 0, j = x for 0 < x < Delta, j = Delta for x >= Delta.
j = sympy.Symbol("j", integer=True, nonnegative=True)
_r = exp(-epsilon)
#: The loss (|x - Delta| - |x|) eps on the j-th merged output.
DL_LOSS_AT = (Delta - 2 * j) * epsilon
#: Its P-mass (geometric sums for the two ends: sum_{z <= 0} (1 - r)/(1 + r) r^|z| = 1/(1 + r)).
DL_P_MASS = Piecewise((1 / (1 + _r), sympy.Eq(j, 0)), (_r**Delta / (1 + _r), sympy.Eq(j, Delta)),
                      ((1 - _r) * _r**j / (1 + _r), True))
#: Its Q-mass: the P-mass of the mirror output Delta - j.
DL_Q_MASS = DL_P_MASS.xreplace({j: Delta - j})
_in = lambda cond: Piecewise((1, cond), (0, True))  # noqa: E731

DISCRETE_LAPLACE = LossFamily(
    name="discrete_laplace",
    parameters=(epsilon, Delta),
    orderings=("P||Q", "Q||P"),
    cdf={"P": sympy.Sum(DL_P_MASS * _in(DL_LOSS_AT <= ell), (j, 0, Delta)),
         "Q": sympy.Sum(DL_Q_MASS * _in(DL_LOSS_AT <= ell), (j, 0, Delta))},
    sf={"P": sympy.Sum(DL_P_MASS * _in(DL_LOSS_AT > ell), (j, 0, Delta)),
        "Q": sympy.Sum(DL_Q_MASS * _in(DL_LOSS_AT > ell), (j, 0, Delta))},
    support=(-Delta * epsilon, Delta * epsilon),
    median={"P": sympy.Integer(0), "Q": sympy.Integer(0)},
    riskier=(1, 1),
    symmetric=True,
)

FAMILIES = {f.name: f for f in (GAUSSIAN, RANDOMIZED_RESPONSE, K_RANDOMIZED_RESPONSE, LAPLACE, SUBSAMPLED_GAUSSIAN,
                                SYMMETRIC_SUBSAMPLED_GAUSSIAN, DISCRETE_GAUSSIAN, DISCRETE_LAPLACE)}


def gaussian_loss(mu_: sympy.Expr) -> LossLaw:
    """The loss of N(0, 1) against N(mu, 1) (a Gaussian mechanism with sensitivity/sigma = mu)."""
    return LossLaw(GAUSSIAN, (mu_,))


def randomized_response_loss(epsilon_: sympy.Expr) -> LossLaw:
    """The loss of randomized response with parameter eps (also the worst pair of eps-DP)."""
    return LossLaw(RANDOMIZED_RESPONSE, (epsilon_,))


def laplace_loss(mu_: sympy.Expr) -> LossLaw:
    """The loss of Lap(0, 1) against Lap(mu, 1) (a Laplace mechanism with sensitivity/scale = mu)."""
    return LossLaw(LAPLACE, (mu_,))


def subsampled_gaussian_loss(sigma_: sympy.Expr, p_: sympy.Expr) -> LossLaw:
    """The loss of one Poisson-subsampled Gaussian step (noise sigma, sensitivity 1, rate p)."""
    return LossLaw(SUBSAMPLED_GAUSSIAN, (sigma_, p_))


def symmetric_subsampled_gaussian_loss(sigma_: sympy.Expr, p_: sympy.Expr) -> LossLaw:
    """The loss of the pair with trade-off C_p(G_{1/sigma}): one subsampled Gaussian step (noise sigma,
    sensitivity 1, rate p) under replace-one neighbours (derivations/d12)."""
    return LossLaw(SYMMETRIC_SUBSAMPLED_GAUSSIAN, (sigma_, p_))


def k_randomized_response_loss(epsilon_: sympy.Expr, k_: sympy.Expr) -> LossLaw:
    """The loss of k-ary randomized response (k >= 2 outputs; k = 2 is binary randomized response)."""
    return LossLaw(K_RANDOMIZED_RESPONSE, (epsilon_, k_))


def discrete_laplace_loss(eps_: sympy.Expr, delta_: sympy.Expr) -> LossLaw:
    """The loss of DLap(0) against DLap(Delta) at eps = 1/scale (a discrete Laplace mechanism)."""
    return LossLaw(DISCRETE_LAPLACE, (eps_, delta_))


def discrete_gaussian_loss(sigma_: sympy.Expr, delta_: sympy.Expr) -> LossLaw:
    """The loss of N_Z(0, sigma^2) against N_Z(Delta, sigma^2) (a discrete Gaussian mechanism)."""
    return LossLaw(DISCRETE_GAUSSIAN, (sigma_, delta_))


def discrete_laplace_masses(eps_: sympy.Expr, sensitivity: int) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
    r"""The worst pair of the discrete Laplace mechanism at eps = 1/scale and an integer Delta as the
    masses (P(o), Q(o)) of its Delta + 1 kinds of outputs, j = 0..Delta (:data:`DL_P_MASS`,
    :data:`DL_Q_MASS` at each j; the loss there is :data:`DL_LOSS_AT`)."""
    n = count("sensitivity", sensitivity)
    vals = {epsilon: exact("epsilon", eps_, infinite=True), Delta: sympy.Integer(n)}
    return tuple((DL_P_MASS.xreplace({**vals, j: sympy.Integer(i)}), DL_Q_MASS.xreplace({**vals, j: sympy.Integer(i)}))
                 for i in range(n + 1))


# ---------------------------------------------------------------------------------------------
# finite pairs: trade-off curves and privacy profiles from the masses
# ---------------------------------------------------------------------------------------------


def pair_delta(masses: Sequence[tuple[sympy.Expr, sympy.Expr]], at: sympy.Expr = epsilon_prime) -> sympy.Expr:
    r"""delta(eps') = sum_o (P(o) - e^eps' Q(o))_+ for a pair given by its masses (P(o), Q(o)):
    the hockey-stick divergence, for every real eps' (Dong, Roth & Su 2022, Prop. 2.12 and its
    dual form; Balle et al. 2018, Thm 1).  Outcomes with Q(o) = 0 contribute P(o) (the loss is
    +infinity there); outcomes with P(o) = 0 contribute nothing."""
    return sympy.Add(*(sympy.Max(0, pm - exp(at) * qm) if qm != 0 else pm for pm, qm in masses if pm != 0))


def _np_vertices(masses: Sequence[tuple[sympy.Expr, sympy.Expr]]) -> list[tuple[sympy.Expr, sympy.Expr]]:
    """The vertices (A_j, 1 - B_j) of T(P, Q) (see :func:`finite_pair_tradeoff`)."""
    rest = sorted(((pm, qm) for pm, qm in masses if pm != 0), key=lambda m: -(m[1] / m[0]))
    a, b = sympy.Integer(0), sympy.Add(*(qm for pm, qm in masses if pm == 0))
    out = [(a, 1 - b)]
    for pm, qm in rest:
        a, b = a + pm, b + qm
        if not (a.is_Rational and b.is_Rational):  # sums of e^eps terms: 1 - b = 0 must come out exactly 0
            a, b = _exact_simplify(a), _exact_simplify(b)
        out.append((a, 1 - b))
    return out


def _exact_simplify(x: sympy.Expr) -> sympy.Expr:
    """``x`` with every exp(r) written as a power of one exp(1/L) and the quotient cancelled, so
    that a sum equal to a rational (the masses of a pair sum to 1) becomes that rational."""
    exps = sorted(x.atoms(sympy.exp), key=sympy.default_sort_key)
    if not exps or not all(e.args[0].is_Rational for e in exps):
        return sympy.simplify(x)
    den = sympy.ilcm(1, 1, *(sympy.Rational(e.args[0]).q for e in exps))
    t = sympy.Dummy("t", positive=True)
    y = x.xreplace({e: t ** int(e.args[0] * den) for e in exps})
    return sympy.cancel(sympy.together(y)).xreplace({t: sympy.exp(sympy.Rational(1, den))})


def _lower_hull(points: list[tuple[sympy.Expr, sympy.Expr]]) -> list[tuple[sympy.Expr, sympy.Expr]]:
    """The lower convex hull of points, left to right (monotone chain; exact comparisons)."""
    hull: list[tuple[sympy.Expr, sympy.Expr]] = []
    for pt in sorted(set(points)):
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (pt[1] - y1) - (y2 - y1) * (pt[0] - x1) <= 0:  # not a left turn
                hull.pop()
            else:
                break
        hull.append(pt)
    return hull


def finite_pair_tradeoff(masses: Sequence[tuple[sympy.Expr, sympy.Expr]], *, symmetrize: bool = False) -> sympy.Expr:
    r"""The trade-off curve T(P, Q)(alpha) of a pair on a finite set, exactly, in ``alpha``.

    By Neyman–Pearson the most powerful tests reject the outputs in decreasing order of the
    likelihood ratio Q(o)/P(o) (randomizing on the boundary output), so T(P, Q) is the
    piecewise-linear curve through (A_j, 1 - B_j), A_j and B_j the P- and Q-masses of the first j
    outputs in that order; outputs with P(o) = 0 come first (they are rejected at no cost) and
    give f(0) = 1 - sum of their Q-masses.  With ``symmetrize``, min{T(P, Q), T(Q, P)}** (DRS
    Prop 2.9: what a mechanism with this pair in both orderings satisfies): the lower convex hull
    of the vertices of both curves.  Being convex, the curve is the maximum of 0 and the lines
    through its segments.  The masses must be exact rationals (the order of the ratios is exact).
    """
    pts = _np_vertices(masses)
    if symmetrize:
        pts = _lower_hull(pts + _np_vertices([(qm, pm) for pm, qm in masses]))
    lines = [sympy.Integer(0)]
    for (x1, y1), (x2, y2) in zip(pts, pts[1:]):
        if x2 != x1:
            lines.append(y1 + (y2 - y1) / (x2 - x1) * (alpha - x1))
    return sympy.Max(*lines)


def k_randomized_response_tradeoff() -> tuple[sympy.Expr, sympy.Expr]:
    r"""The trade-off curve of k-ary randomized response and its privacy profile, in ``alpha``,
    ``epsilon_prime`` and the parameters ``epsilon`` and ``k``:

        f(alpha) = max{0, 1 - e^eps alpha, 1 - (e^eps - 1)/Z - alpha, e^-eps (1 - alpha)},
        delta(eps') = (e^eps - e^eps')_+ / Z + (k - 2)(1 - e^eps')_+ / Z + (1 - e^(eps' + eps))_+ / Z,

    with Z = e^eps + k - 1 (:func:`finite_pair_tradeoff` and :func:`pair_delta` of
    :data:`K_RR_MASSES`, written out so that the order of the ratios is symbolic: e^eps >= 1 >= e^-eps)."""
    f = sympy.Max(0, 1 - exp(epsilon) * alpha, 1 - expm1(epsilon) / _kZ - alpha, exp(-epsilon) * (1 - alpha))
    d = (sympy.Max(0, exp(epsilon) - exp(epsilon_prime)) + (k - 2) * sympy.Max(0, 1 - exp(epsilon_prime))
         + sympy.Max(0, 1 - exp(epsilon_prime + epsilon))) / _kZ
    return f, d
