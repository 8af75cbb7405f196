r"""DP-SGD: the proven epsilon bracket and the CLT approximation beside it.

T steps of Poisson-subsampled Gaussian noise (noise multiplier sigma, sampling rate p,
sensitivity 1, add/remove neighbours):

* :func:`dpsgd_epsilon`: the proven bracket on eps(delta), the T-fold composition of the
  subsampled Gaussian loss in both orderings (:func:`gdpproof.accounting.search.epsilon_bracket`, the
  engine behind :func:`gdpproof.account`'s ``bracket`` route);
* :func:`dpsgd_mu`: the CLT mu of Bu, Dong, Long & Su (2020), from the expressions in
  :mod:`gdpproof.symbolic.clt`, **an approximation**, with the proven bracket beside it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import flint
import numpy as np

if TYPE_CHECKING:
    import sympy

from ..errors import bad
from ..text import double_text
from ..errors import PrecisionError
from .._args import positive_integer
from ..numeric.engine._kernels import mu_clt_poisson, mu_clt_uniform
from ..numeric.engine._mp import arb_from_exact
from .._args import checked, is_sympy
from ..numeric.engine.bound import Bound, assumptions_of
from ..numeric.engine.certified import Certified, certify_enclosure, certify_fraction, decimal, round_fraction
from ..symbolic.notes import APPROXIMATION_NOTE, REAL_STEPS_NOTE
from .losses import SubsampledGaussianLoss
from .composed import ComposedLoss, check_delta_exact, check_refinement
from .search import epsilon_search
from ..numeric.tradeoff.solve import epsilon_from_delta

__all__ = ["DPSGDBracket", "dpsgd_epsilon", "DPSGDAccount", "dpsgd_mu"]


@dataclass
class DPSGDBracket:
    """The proven epsilon bracket of Poisson-subsampled DP-SGD at one delta.

    Attributes:
        eps (Bound): lower <= eps(delta) <= upper for the worse of the add and remove orderings.
        ordering (str): Which ordering ("add" or "remove") has the larger upper bound at eps.upper.
        grid_step (float): The grid and Hoeffding failure probability used (:func:`compose_losses`).
        eta (float): The grid and Hoeffding failure probability used (:func:`compose_losses`).
        composition (ComposedLoss): For delta(eps) at other eps.
        noise_multiplier (float): sigma.
        sample_rate (float): p.
        steps (int): T.
        delta (float): The delta the bracket is at.

    The bracket is proven under the numerical assumptions :attr:`assumptions` names (those of
    the float route, :data:`~gdpproof.numeric.engine.bound.FLOAT_ROUTE_ASSUMPTIONS`, unless the
    composition names others); :meth:`to_dict` carries them.
    target_met : bool
        False when the relative width asked was not reached (best effort: ``eps`` is proven but
        wider; a :class:`~gdpproof.errors.WidthNotReachedWarning` was issued).

    Examples:
        >>> from gdpproof import dpsgd_epsilon
        >>> b = dpsgd_epsilon(1.0, 0.01, 100, 1e-5)
        >>> b.eps.lower <= 0.71818 and 0.71768 <= b.eps.upper < 0.73, b.ordering in ("add", "remove")
        (True, True)

        (Two proven 0.1% brackets, the coupling's [0.71769, 0.71838] and the pairs' [0.71752,
        0.71818], put the true eps in [0.71768, 0.71818], rounded outward: every proven bracket
        meets that interval.)
    """

    noise_multiplier: float
    sample_rate: float
    steps: int
    delta: float
    eps: Bound
    ordering: str
    grid_step: float
    eta: float
    composition: ComposedLoss
    target_met: bool = True

    def __repr__(self) -> str:
        """One line: the inputs and the proven bracket (not the composition's lattices)."""
        return (f"DPSGDBracket(sigma={double_text(self.noise_multiplier)}, sample_rate={double_text(self.sample_rate)}, "
                f"steps={self.steps}, delta={self.delta!r}: eps in {self.eps} (proven), ordering={self.ordering!r}"
                + ("" if self.target_met else ", target width not met") + ")")

    @property
    def assumptions(self) -> tuple[str, ...]:
        """The numerical assumptions the bracket rests on (:func:`~gdpproof.numeric.engine.bound.assumptions_of`)."""
        return assumptions_of(self.composition)

    def to_dict(self) -> dict[str, Any]:
        """The bracket as JSON-ready values: the ends as 8-digit decimals rounded outward, the
        inputs as the doubles used, and the ``assumptions`` the proof rests on."""
        return {"noise_multiplier": repr(self.noise_multiplier), "sample_rate": repr(self.sample_rate),
                "steps": self.steps, "delta": repr(self.delta),
                "eps_lower": str(float_certified(self.eps.lower, 8, "down")),
                "eps_upper": str(float_certified(self.eps.upper, 8, "up")),
                "ordering": self.ordering, "grid_step": repr(self.grid_step), "eta": repr(self.eta),
                "certified": "pld", "assumptions": list(self.assumptions)}


def dpsgd_epsilon(noise_multiplier: Any, sample_rate: Any, steps: Any, delta: Any, *,
                  rel_width: float = 0.01, max_refinements: int = 5) -> DPSGDBracket:
    r"""Proven bracket on epsilon(delta) for T steps of Poisson-subsampled Gaussian DP-SGD.

    Add/remove neighbours, sensitivity 1 (clipping norm 1), noise multiplier sigma, sampling
    rate p: the T-fold composition of :class:`SubsampledGaussianLoss` in both orderings, the
    worse one reported.  The grid is refined until ``(upper - lower) / lower <= rel_width``; where
    that cannot be reached the narrowest proven bracket is returned with ``target_met=False`` and
    a :class:`~gdpproof.errors.WidthNotReachedWarning` (:func:`~gdpproof.accounting.search.epsilon_bracket`,
    which also picks the float or the exact integer lattice from delta; ``delta`` may be a string
    such as "1e-30", taken exactly).

    Args:
        noise_multiplier: sigma, > 0.
        sample_rate: p, in (0, 1].
        steps: T, a positive integer.
        delta: The delta, in (0, 1).
        rel_width: The relative width asked of the bracket, in [1e-4, 10].
        max_refinements: How many times the grid may be refined.

    Returns:
        :class:`DPSGDBracket`, its ``eps`` the proven bracket.

    Raises:
        InvalidParameterError: A parameter is out of range.

    Examples:
        >>> from gdpproof.accounting.dpsgd import dpsgd_epsilon
        >>> r = dpsgd_epsilon(1.0, 0.01, 1000, 1e-5)
        >>> r.eps.lower < 1.8282 < r.eps.upper, r.eps.relative_width <= 0.01
        (True, True)
    """
    loss = SubsampledGaussianLoss(noise_multiplier, sample_rate)
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or not 1 <= steps <= 10**9:
        raise bad("steps", steps, "must be an integer in [1, 10^9]")
    exact = check_delta_exact(delta)
    d = float(exact)  # the record's float (0.0 below the double range); the bracket uses ``exact``
    b, comp = epsilon_search([(loss, int(steps))], exact, check_refinement(rel_width, max_refinements), max_refinements,
                             given=delta)
    ordering = comp.worse_ordering(b.upper)
    return DPSGDBracket(loss.sigma, loss.p, int(steps), d, b, ordering, comp.h, comp.eta, comp, comp.target_met)


@dataclass(frozen=True)
class DPSGDAccount:
    """The CLT accounting of DP-SGD: an approximation, labelled as one.

    Attributes:
        mu_clt (Certified): p sqrt(T (e^{1/sigma^2} - 1)) (Poisson) or the fixed-batch formula, rounded up.
        eps_clt (Certified or None): The epsilon of mu_clt-GDP at ``delta`` (rounded up), when delta was
            given.
        eps_lower (Certified or None): The proven bracket on the true epsilon at ``delta`` (Poisson sampling,
            add/remove neighbours, the worse ordering) from :func:`gdpproof.accounting.dpsgd.dpsgd_epsilon`:
            lower rounded down, upper rounded up.  None for uniform sampling or without delta.
        eps_upper (Certified or None): The proven bracket on the true epsilon at ``delta`` (Poisson sampling,
            add/remove neighbours, the worse ordering) from :func:`gdpproof.accounting.dpsgd.dpsgd_epsilon`:
            lower rounded down, upper rounded up.  None for uniform sampling or without delta.
        verdict (str or None): "the CLT understates eps by at least X", "the CLT overstates eps by at least X"
            or "eps_clt lies inside the proven bracket".
        exact (DPSGDBracket or None): The full numerical composition (its ``composition.delta(eps)`` gives
            other points).
        mu_T (Certified or None): The finite-T CLT mu of DRS Thm 3.5, 2 ||kl||_1 / sqrt(||kappa2||_1 -
            ||kl||_2^2) of the T-fold per-step curve (rounded up): the centre of the Berry–Esseen band that
            :attr:`gamma` belongs to.  It differs from :attr:`mu_clt`, the T -> infinity limit of the formula
            (for sigma = 1, p = 0.01, T = 1000 under the uniform formula: 0.52888 against 0.54079).  None with
            gamma.
        gamma (Certified or None): Berry–Esseen gamma (rounded up) of the T-fold per-step curve behind the
            formula, around G_{mu_T} (not G_{mu_clt}): p G_{1/sigma} + (1 - p) Id for Poisson,
            C_p(G_{1/sigma}) for uniform; None if not asked for. For Poisson it is **the error term of an
            approximation, not a bound** (:attr:`gamma_approximation`): the mixture is not symmetric and DRS
            Thm 3.5 is stated for symmetric curves.  The proven band of the symmetrised curve
            C_p(G_{1/sigma}), whose CLT mu is the uniform formula, is
            ``berry_esseen(subsample(gaussian(1/sigma), p), n=T)``.
        approximation (bool): Always True: read :attr:`note`.
        noise_multiplier: sigma, the noise over the sensitivity.
        sample_rate: p.
        steps (int): T.
        sampling (str): ``"poisson"`` or ``"uniform"``: which CLT formula.
        delta: The delta the epsilons are at, or None.
        note (str): Why mu_clt is not a bound, in words.
        real_steps (bool): True when ``steps`` is the papers' real T = E N / B (``dpsgd_mu(...,
            real_steps=True)``): the formula at a T no run takes, labelled so in :attr:`note`.

    Examples:
        >>> from gdpproof import dpsgd_mu
        >>> a = dpsgd_mu(1, "0.01", 1000, delta="1e-5", digits=6, gamma=False, exact=False)
        >>> a.mu_clt, a.eps_clt, a.approximation
        (Certified('0.414522', digits=6, rounding='up'), Certified('1.61772', digits=6, rounding='up'), True)
    """

    noise_multiplier: Any
    sample_rate: Any
    steps: int
    sampling: str
    mu_clt: Certified
    eps_clt: Certified | None
    delta: Any
    gamma: Certified | None
    approximation: bool = True
    note: str = APPROXIMATION_NOTE
    eps_lower: Certified | None = None
    eps_upper: Certified | None = None
    verdict: str | None = None
    exact: Any = None
    mu_T: Certified | None = None
    real_steps: bool = False

    def __repr__(self) -> str:
        """One line: the inputs, mu_clt (labelled an approximation) and what else was computed
        (the :attr:`note` and the full :attr:`exact` bracket stay attributes)."""
        parts = [f"sigma={double_text(self.noise_multiplier)}", f"sample_rate={double_text(self.sample_rate)}",
                 f"steps={self.steps}" + (" (real T, the papers' approximation)" if self.real_steps else ""),
                 f"sampling={self.sampling!r}", f"mu_clt={self.mu_clt} (CLT approximation, not a bound)"]
        if self.eps_clt is not None:
            parts.append(f"eps_clt={self.eps_clt} at delta={double_text(self.delta)} (approximation)")
        if self.eps_upper is not None:
            parts.append(f"eps in [{self.eps_lower}, {self.eps_upper}] (proven)")
        if self.gamma is not None:
            parts.append(f"gamma={self.gamma} around mu_T={self.mu_T}")
        return f"DPSGDAccount({', '.join(parts)})"

    @property
    def gamma_approximation(self) -> bool:
        """True when :attr:`gamma` is the error term of an approximation, not a proven band
        (Poisson: the per-step curve p G + (1 - p) Id is not symmetric, DRS Thm 3.5 needs symmetry)."""
        return self.sampling == "poisson"

    @property
    def gamma_note(self) -> str:
        """How to read :attr:`gamma` (one phrase, for displays)."""
        mu_t = "" if self.mu_T is None else f", mu_T = {self.mu_T} (rounded up)"
        s = double_text(self.noise_multiplier)  # the noise over the sensitivity
        mu = f"G_mu with mu = 1/{f'({s})' if '/' in s else s}"
        if self.gamma_approximation:
            return (f"error term of an approximation around G_mu_T{mu_t} (Berry-Esseen, DRS Thm 3.5, "
                    f"for the non-symmetric T-fold p G_mu + (1-p) Id, {mu}), not a bound")
        return (f"Berry-Esseen band (DRS Thm 3.5) around G_mu_T{mu_t}, {mu}: its lower edge "
                "G_mu_T(a + gamma) - gamma <= T-fold C_p(G_mu)(a) is a proven bound (with mu_T rounded up it "
                "only moves down); the upper edge G_mu_T(a - gamma) + gamma >= T-fold C_p(G_mu)(a) holds with "
                "mu_T rounded down")

    @property
    def understated(self) -> bool | None:
        """True when eps_clt is below the proven lower bound on the true epsilon."""
        if self.eps_clt is None or self.eps_lower is None:
            return None
        return self.eps_clt < self.eps_lower


def _mu_clt_ball(sigma: Any, p: Any, steps: Any, sampling: str) -> Callable[[int], flint.arb]:
    """An enclosure of the CLT mu at each precision, from MU_CLT_POISSON / MU_CLT_UNIFORM (their
    generated kernels; ``steps`` an int, or an exact real T)."""
    fn = mu_clt_poisson if sampling == "poisson" else mu_clt_uniform
    if is_sympy(sigma) or is_sympy(p) or is_sympy(steps):
        from ..numeric.engine import compiler  # noqa: F401  (the balls of irrational constants)

    def enclose(bits: int) -> flint.arb:
        t = flint.arb(steps) if isinstance(steps, int) else arb_from_exact(steps)
        return fn(arb_from_exact(sigma), arb_from_exact(p), t)

    return enclose


def dpsgd_mu(noise_multiplier: Any, sample_rate: Any, steps: Any, *, sampling: str = "poisson",
             delta: Any = None, digits: int = 30, gamma: bool = True, gamma_digits: int = 4,
             exact: bool = True, rel_width: float = 0.01, real_steps: bool = False) -> DPSGDAccount:
    r"""The CLT mu of DP-SGD (Bu, Dong, Long & Su 2020) and the epsilon at delta it suggests.

    ``sampling="poisson"``: mu = p sqrt(T (e^{1/sigma^2} - 1)) (Bu et al.; TF Privacy's
    ``compute_mu_poisson``), the CLT limit of T-fold f_p = p G_{1/sigma} + (1 - p) Id, the trade-off
    of one neighbouring direction of a Poisson-subsampled step.
    ``sampling="uniform"``: mu = sqrt(2) p sqrt(T (e^{1/sigma^2} Phi(1.5/sigma) + 3 Phi(-0.5/sigma) - 2))
    (DRS §5; TF Privacy's ``compute_mu_uniform``), the CLT limit of T-fold C_p(G_{1/sigma}),
    the symmetrized curve of DRS Thm 4.2.

    **This is an approximation and can understate the true privacy loss** for realistic
    (sigma, p, T).  The result carries beside it the Berry–Esseen gamma of that T-fold curve
    (computed by quadrature to ``gamma_digits`` digits); for Poisson sampling that curve is not
    symmetric, so gamma is the error term of an approximation, not a bound
    (:attr:`DPSGDAccount.gamma_approximation`).  The symmetrized C_p(G_{1/sigma}), which covers
    both neighbouring directions and has a proven Berry–Esseen band, has the larger (uniform) CLT mu.

    Computed in ball arithmetic (no overflow: sigma = 0.05 has e^{400}).

    With ``delta`` given and Poisson sampling, the true epsilon is bracketed beside it
    (``exact=True``, to relative width ``rel_width``; :func:`gdpproof.accounting.dpsgd.dpsgd_epsilon`)
    and :attr:`DPSGDAccount.verdict` says whether the CLT understates it.

    Args:
        noise_multiplier: sigma, > 0.
        sample_rate: p, in (0, 1].
        steps: T, a positive integer.
        sampling: ``"poisson"`` or ``"uniform"``: the CLT formula.
        delta: A delta in (0, 1) to give eps_clt (and the proven bracket) at, or None.
        digits: Significant digits of mu_clt and eps_clt.
        gamma: Whether to compute the Berry-Esseen gamma (a quadrature).
        gamma_digits: Significant digits of gamma.
        exact: Whether to compute the proven bracket beside the approximation (Poisson, with delta).
        rel_width: The relative width asked of that bracket.
        real_steps: Take ``steps`` as a real T > 0, as papers write it: T = E N / B (epochs times dataset
            size over batch size, not rounded up to whole steps; Bu et al. 2020, TF Privacy's
            ``compute_mu_poisson``), given exactly (``Fraction(E * N, B)``, ``"28125/2"``).  mu_clt and
            eps_clt are the formula's closed forms at that T, certified to ``digits``; **the papers'
            approximation, not proven** (:data:`~gdpproof.symbolic.clt.REAL_STEPS_NOTE` joins the note); no
            gamma and no proven bracket, which need whole steps.

    Returns:
        :class:`DPSGDAccount`.

    Raises:
        InvalidParameterError: A parameter is out of range.

    Examples:
        >>> import gdpproof
        >>> acc = gdpproof.dpsgd_mu(1.1, "0.004266666666666667", 14040, delta="1e-5", digits=6, gamma=False)
        >>> acc.mu_clt, acc.eps_clt, acc.approximation
        (Certified('0.573133', digits=6, rounding='up'), Certified('2.32223', digits=6, rounding='up'), True)
        >>> from fractions import Fraction
        >>> papers = gdpproof.dpsgd_mu("1.3", Fraction(256, 60000), Fraction(15 * 60000, 256), digits=6,
        ...                            real_steps=True)
        >>> papers.mu_clt, papers.steps, papers.real_steps   # TF Privacy's MNIST example: 0.227-GDP
        (Certified('0.227275', digits=6, rounding='up'), Fraction(28125, 8), True)
    """
    sigma, p, T, d = _checked_run(noise_multiplier, sample_rate, steps, sampling, delta, real_steps)
    if real_steps:
        gamma = exact = False  # no Berry-Esseen gamma or bracket for a T that is not whole steps
    return clt_account(sigma, p, T, sampling, d, digits=digits, gamma=gamma, gamma_digits=gamma_digits, exact=exact,
                       rel_width=rel_width, real_steps=real_steps)


def _checked_run(noise_multiplier: Any, sample_rate: Any, steps: Any, sampling: Any,
                 delta: Any, real_steps: Any = False) -> tuple[Any, Any, Any, Any]:
    """A DP-SGD run's parameters as exact numbers, each refused with its name when out of range."""
    sigma = checked("noise_multiplier", noise_multiplier, "positive")
    p = checked("sample_rate", sample_rate, "rate")
    if not isinstance(real_steps, bool):
        raise bad("real_steps", real_steps, "must be True or False")
    if real_steps:
        T: Any = checked("steps", steps, "positive")
        if isinstance(T, Fraction) and T.denominator == 1 or is_sympy(T) and T.is_Integer:
            T = int(T)
    else:
        T = positive_integer("steps", steps)
    if sampling not in ("poisson", "uniform"):
        raise bad("sampling", sampling, "must be 'poisson' or 'uniform'")
    d = None if delta is None else checked("delta", delta, "open probability")
    return sigma, p, T, d


def clt_account(sigma: Any, p: Any, T: Any, sampling: str, d: Any, *, digits: int = 30,
                gamma: bool = True, gamma_digits: int = 4, exact: bool = True, rel_width: float = 0.01,
                real_steps: bool = False) -> DPSGDAccount:
    """:func:`dpsgd_mu` for arguments its caller has validated (``account()`` validates its
    mechanism and delta once, at its door): sigma > 0, p in (0, 1] and delta in (0, 1) or None as
    exact numbers (Fractions, or sympy numbers), T >= 1, sampling ``"poisson"`` or ``"uniform"``."""
    mu = certify_enclosure(_mu_clt_ball(sigma, p, T, sampling), digits=digits, rounding="up",
                           what=f"CLT mu (sigma={sigma}, p={p}, T={T})")
    eps = None if d is None else _eps_clt(sigma, p, T, sampling, d, digits)
    g = mu_t = None
    if gamma:
        try:
            g, mu_t = _berry_esseen(sigma, p, T, sampling, gamma_digits)
        except PrecisionError:
            g = mu_t = None  # gamma is auxiliary: its failure must not take the main result down
    acc = DPSGDAccount(sigma, p, T, sampling, mu, eps, d, g, mu_T=mu_t, real_steps=real_steps,
                       note=f"{APPROXIMATION_NOTE} {REAL_STEPS_NOTE}" if real_steps else APPROXIMATION_NOTE)
    if exact and d is not None and eps is not None and sampling == "poisson":
        acc = _with_bracket(acc, rel_width)
    return acc


def _berry_esseen(sigma: Any, p: Any, steps: Any, sampling: str, digits: int) -> tuple[Certified, Certified]:
    """(gamma, mu_T) of the T-fold per-step curve: p G_{1/sigma} + (1 - p) Id (Poisson) or
    C_p(G_{1/sigma}) (uniform), by :func:`~gdpproof.numeric.tradeoff.clt.berry_esseen`; for rational
    sigma, 0 < p < 1 and an integer T, from the step's functionals directly, without building its curve."""
    small, large = Fraction(1, 10**6), 10**6  # the functionals' range (functionals.source refuses beyond)
    if isinstance(sigma, Fraction) and isinstance(p, Fraction) and 0 < p < 1 and isinstance(steps, int) and \
            steps <= 10**18 and small <= 1 / sigma <= large and small <= p:
        from ..numeric.tradeoff.functionals import band_values, mixture_source

        mu_up, _, g = band_values([mixture_source(1 / sigma, p, symmetric=sampling != "poisson")], [steps], digits)
        return g, mu_up
    from ..numeric.tradeoff.clt import berry_esseen
    from ..symbolic.clt import gaussian_mixture
    from ..symbolic.composition import subsample
    from ..symbolic.tradeoff import gaussian

    step = gaussian_mixture(1 / sigma, p) if sampling == "poisson" else subsample(gaussian(1 / sigma), p)
    band = berry_esseen(step, n=steps, digits=digits)
    return band.gamma, band.mu


def _eps_clt(sigma: Any, p: Any, steps: Any, sampling: str, delta: Any, digits: int) -> Certified:
    """eps at delta of G_mu for the exact CLT mu, rounded up to ``digits`` digits.

    mu is known only as an enclosure, so eps is computed at mu rounded down and up to more
    digits; eps is increasing in mu, so when both round up to the same decimal, that decimal
    is the exact eps rounded up (not merely an upper bound from a rounded mu).
    """
    d = delta
    ball = _mu_clt_ball(sigma, p, steps, sampling)
    for extra in (5, 15, 40):
        lo = certify_enclosure(ball, digits=digits + extra, rounding="down", what="CLT mu")
        hi = certify_enclosure(ball, digits=digits + extra, rounding="up", what="CLT mu")
        e_lo = epsilon_from_delta(str(lo), d, digits=digits)
        e_hi = epsilon_from_delta(str(hi), d, digits=digits)
        if e_lo == e_hi:
            return e_hi
    raise PrecisionError(f"eps_clt to {digits} digits: eps at the CLT mu cannot be settled")


def float_certified(x: float, digits: int, rounding: str) -> Certified:
    """A float bound as a decimal with ``digits`` digits, rounded in the given direction."""
    if x == 0:
        return Certified(0, digits=digits, rounding=rounding, method="pld")
    m, e = round_fraction(Fraction(x), digits, rounding)
    return Certified(decimal(m, e, digits), digits=digits, rounding=rounding, method="pld")


def clt_verdict(noise_multiplier: Any, sample_rate: Any, steps: int, sampling: str, delta: Any,
                eps_lower: Certified, eps_upper: Certified) -> str:
    """Whether the CLT's eps at ``delta`` lies below, inside or above a proven bracket.

    eps_clt is computed to 20 digits whatever digits were asked for, so the verdict does not
    depend on the display; "understates by at least X" is proven (X rounded down).  The parameters
    are checked here (this function is reachable on its own); :func:`verdict_of_clt` takes them
    checked."""
    sigma, p, T, d = _checked_run(noise_multiplier, sample_rate, steps, sampling, delta)
    if d is None:
        raise bad("delta", delta, "must be in (0, 1)")
    return verdict_of_clt(sigma, p, T, sampling, d, eps_lower, eps_upper)


def verdict_of_clt(noise_multiplier: sympy.Expr, sample_rate: sympy.Expr, steps: int, sampling: str,
                   delta: sympy.Expr, eps_lower: Certified, eps_upper: Certified) -> str:
    """:func:`clt_verdict` for parameters its caller has validated (exact sympy numbers)."""
    e20 = _eps_clt(noise_multiplier, sample_rate, steps, sampling, delta, 20)
    clt_hi, clt_lo = Fraction(e20), Fraction(e20) - Fraction(10) ** (e20.adjusted() - 19)
    lo, hi = eps_lower.to_fraction(), eps_upper.to_fraction()
    if clt_hi < lo:
        gap = certify_fraction(lo - clt_hi, digits=3, rounding="down", method="pld")
        return f"the CLT understates eps by at least {gap} ({_share(gap, lo)} of eps_lower)"
    if clt_lo > hi:
        gap = certify_fraction(clt_lo - hi, digits=3, rounding="down", method="pld")
        share = f" ({_share(gap, hi)} of eps_upper)" if hi > 0 else " (eps_upper is 0)"
        return f"the CLT overstates eps by at least {gap}{share}"
    return "eps_clt lies inside the proven bracket"


def _share(gap: Certified, of: Fraction) -> str:
    """gap / of as a percentage with one decimal (the exact ratio: eps_clt is e^2500 at sigma 0.02,
    beyond the doubles)."""
    ratio = gap.to_fraction() / of
    return f"{float(ratio):.1%}" if ratio < 10**300 else "more than 1e302%"


def _with_bracket(acc: DPSGDAccount, rel_width: float) -> DPSGDAccount:
    # the exact values: dpsgd_epsilon rounds them to doubles on the less private side
    r = dpsgd_epsilon(acc.noise_multiplier, acc.sample_rate, acc.steps, acc.delta, rel_width=rel_width)
    lo = float_certified(r.eps.lower, 6, "down")
    hi = float_certified(r.eps.upper, 6, "up")
    verdict = verdict_of_clt(acc.noise_multiplier, acc.sample_rate, acc.steps, acc.sampling, acc.delta, lo, hi)
    return dataclasses.replace(acc, eps_lower=lo, eps_upper=hi, verdict=verdict, exact=r)
