"""The Berry–Esseen band of the CLT for compositions (Dong, Roth & Su 2022, Thm 3.5).

DRS Thm 3.5 is stated for *symmetric* trade-off functions (f = f^{-1}).  :func:`berry_esseen`
decides symmetry exactly (:func:`gdpproof.symbolic.duality.is_symmetric`); when some factor is
not proven symmetric, the band is returned with ``approximation=True``: its gamma is then the
error term of an approximation, not a proven bound.  ``symmetrize=True`` replaces each such
factor by its symmetrisation min{f, f^{-1}}** (for Poisson subsampling, C_p of DRS Thm 4.2),
whose band is proven and whose lower edge bounds the mechanism's curve in both orderings.

References: Dong, Roth & Su, "Gaussian differential privacy", JRSS-B 2022 (DRS), Thm 3.4–3.5
(the CLT and its Berry–Esseen bound, both for symmetric f_i), Thm 4.2 (C_p).  The functionals it is built from are certified in
:mod:`gdpproof.numeric.tradeoff.functionals` (re-exported here); the CLT side of DP-SGD is in
:mod:`gdpproof.accounting.dpsgd`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from ...errors import bad
from ...text import show
from ...symbolic.clt import gaussian_mixture  # noqa: F401  (its historical place)
from ..._args import positive_integer
from ...symbolic.symbols import alpha as ALPHA
from ...symbolic.tradeoff import TradeOff
from ..engine.certify import Certified, decimal, round_fraction
from .functionals import (  # noqa: F401  (the functionals are part of this module's public face)
    BERRY_ESSEEN_CONSTANT,
    band_values,
    mu_gamma,
    Functionals,
    certify_functional,
    source,
    bar_kappa3,
    functionals,
    kappa2,
    kappa3,
    kl,
)

__all__ = [
    "Functionals",
    "functionals",
    "kl",
    "kappa2",
    "kappa3",
    "bar_kappa3",
    "BerryEsseenBand",
    "berry_esseen",
    "BERRY_ESSEEN_CONSTANT",
    "NON_SYMMETRIC_NOTE",
]


#: What a band of non-symmetric curves is (DRS Thm 3.5 assumes symmetric f_i).
NON_SYMMETRIC_NOTE = (
    "approximation: some factor is not proven symmetric (f = f^-1), and DRS Thm 3.5 is stated for symmetric "
    "trade-off functions, so gamma is the error term of an approximation and the band is not a proven bound; "
    "berry_esseen(..., symmetrize=True) gives the proven band of the symmetrised curves min{f, f^-1}**"
)


# ---------------------------------------------------------------------------------------------
# Berry–Esseen
# ---------------------------------------------------------------------------------------------


#: The most compositions the CLT is computed for: its exact last resort takes square roots of n
#: times rationals, which sympy factors: minutes for an n of thousands of digits.
MAX_CLT_N = 10**18


def _factors(fs: Any, n: Any) -> tuple[list[Any], list[int]]:
    k = positive_integer("n", n)
    if k > MAX_CLT_N:
        raise bad("n", n, "must be at most 10^18")
    items = [fs] if isinstance(fs, TradeOff) else list(fs)
    if not items:
        raise bad("fs", [], "must contain at least one trade-off function")
    merged: dict[Any, int] = {}
    for i, f in enumerate(items):
        if not isinstance(f, TradeOff):
            raise bad(f"fs[{i}]", f, "must be a TradeOff")
        merged[f] = merged.get(f, 0) + k
    return list(merged), list(merged.values())


@dataclass(frozen=True)
class BerryEsseenBand:
    """The CLT approximation G_mu of f_1 (x) ... (x) f_n with its Berry–Esseen band (DRS Thm 3.5).

    For symmetric f_i (``approximation`` False) and alpha in [gamma, 1 - gamma]:
    G_mu(alpha + gamma) - gamma <= f_1 (x) ... (x) f_n(alpha) <= G_mu(alpha - gamma) + gamma.
    :meth:`lower` and :meth:`upper` extend the band to all of [0, 1] by monotonicity (and by
    0 <= f <= 1 - alpha), rounded outwards; they bound the exact composition, while ``mu``
    is only the approximation's parameter.

    With ``approximation`` True some f_i is not proven symmetric, the theorem's hypothesis
    fails, and nothing is proven: gamma is the error term of an approximation and the edges
    (whose digits are still certified) are not bounds of the composition.

    Attributes:
        mu (Certified): The CLT mu, rounded up (the privacy loss it suggests).
        mu_low (Certified): The same mu rounded down (used for the upper edge of the band).
        gamma (Certified): The Berry–Esseen error, rounded up (a wider band is the safe side).
        factors (tuple of (TradeOff, int)): The trade-off functions and how often each is composed (after
            symmetrisation, with ``symmetrize=True``).
        approximation (bool): True when some factor is not proven symmetric: DRS Thm 3.5 does not apply, the
            band is not proven (read :attr:`note`).
        symmetrized (bool): True when non-symmetric factors were replaced by min{f, f^{-1}}**: the band is
            then the proven band of the symmetrised composition, whose lower edge is a lower bound of the
            mechanism's trade-off in both orderings (its upper edge bounds the symmetrised curve only).

    Examples:
        >>> import gdpproof
        >>> band = gdpproof.berry_esseen(gdpproof.gaussian(1), n=4)
        >>> band.mu, band.approximation
        (Certified('2.00000000000000000000000000000', digits=30, rounding='up'), False)
    """

    mu: Certified
    mu_low: Certified
    gamma: Certified
    factors: tuple[tuple[Any, int], ...]
    approximation: bool = False
    symmetrized: bool = False

    def __repr__(self) -> str:
        """One line: mu and gamma with their rounding, what was composed, and whether the band is proven."""
        factors = " (x) ".join(f"{f!r}" + (f" x {k}" if k != 1 else "") for f, k in self.factors)
        kind = "not proven (approximation)" if self.approximation else "proven band"
        return (f"BerryEsseenBand(mu={self.mu} (CLT, rounded up), gamma={self.gamma} (rounded up), "
                f"of {factors}: {kind}{', symmetrised' if self.symmetrized else ''})")

    @property
    def note(self) -> str:
        """What the band is: a proven bound, or the error term of an approximation."""
        if self.approximation:
            return NON_SYMMETRIC_NOTE
        if self.symmetrized:
            return ("proven band (DRS Thm 3.5) of the composition of the symmetrised curves min{f, f^-1}**; "
                    "its lower edge bounds the mechanism's trade-off in both orderings")
        return "proven band (DRS Thm 3.5): lower and upper bound the exact composition"

    def _edge(self, alpha: Any, digits: int, upper: bool) -> Certified:
        from ...symbolic.tradeoff import GAUSSIAN
        from ...symbolic.symbols import mu as MU
        from ..engine.certify import certify
        from ..engine.evaluate import parse_alpha

        a = parse_alpha(alpha)
        g = sympy.Rational(str(self.gamma))
        vacuous = 2 * g >= 1  # the theorem's range [gamma, 1 - gamma] is empty
        direction = "up" if upper else "down"

        def exact_value(v: sympy.Expr) -> Certified:
            m, e = round_fraction(Fraction(int(v.p), int(v.q)), digits, direction)
            return Certified(decimal(m, e, digits), digits=digits, rounding=direction, method="exact")

        if upper:
            trivial = exact_value(1 - a)  # f <= 1 - alpha for every trade-off function
            if a < g or vacuous:
                return trivial
            at, m_, expr = min(a, 1 - g) - g, sympy.Rational(str(self.mu_low)), GAUSSIAN + g
        else:
            if a > 1 - g or vacuous:
                return exact_value(sympy.Integer(0))
            at, m_, expr = min(max(a, g) + g, sympy.Integer(1)), sympy.Rational(str(self.mu)), GAUSSIAN - g
        value = certify(expr, (ALPHA, MU), (at, m_), digits=digits, rounding=direction,
                        what=f"Berry-Esseen {'upper' if upper else 'lower'} edge at alpha={show(a)}")
        # min/max of two bounds rounded the same way is that bound of the min/max
        if upper:
            return min(value, trivial)
        return value if value > 0 else exact_value(sympy.Integer(0))

    def lower(self, alpha: Any, *, digits: int = 30) -> Certified:
        """The band's lower edge at alpha (rounded down): a proven lower bound of the exact
        composition unless :attr:`approximation` (then only the approximation's edge)."""
        return self._edge(alpha, digits, upper=False)

    def upper(self, alpha: Any, *, digits: int = 30) -> Certified:
        """The band's upper edge at alpha (rounded up): a proven upper bound of the exact
        composition unless :attr:`approximation` (then only the approximation's edge)."""
        return self._edge(alpha, digits, upper=True)

    def fast(self, alpha: Any) -> tuple[Any, Any, Any]:
        """(lower, G_mu, upper) in float64 over an array of alpha (for plots; not certified)."""
        import numpy as np
        from scipy.stats import norm

        a = np.asarray(alpha, dtype=np.float64)
        m, ml, g = float(self.mu), float(self.mu_low), float(self.gamma)

        def G(x: Any, mu_: float) -> Any:
            return norm.cdf(norm.isf(np.clip(x, 0, 1)) - mu_)

        if 2 * g >= 1:
            return np.zeros_like(a), G(a, m), 1 - a
        lo = np.where(a > 1 - g, 0.0, np.maximum(G(np.minimum(np.maximum(a, g) + g, 1), m) - g, 0.0))
        up = np.where(a < g, 1 - a, np.minimum(G(np.minimum(a, 1 - g) - g, ml) + g, 1 - a))
        return lo, G(a, m), up

    def plot(self, ax: Any = None, *, exact: Any = None, points: int = 401) -> Any:
        """Plot G_mu, the band, and optionally the exact composition (a TradeOff).  Needs matplotlib."""
        import numpy as np

        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:  # pragma: no cover - exercised without the extra
            raise ImportError("BerryEsseenBand.plot needs matplotlib: pip install 'gdpproof[plot]'") from exc
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 5))
        a = np.linspace(0, 1, points)
        lo, mid, up = self.fast(a)
        what = "approximate band, not proven" if self.approximation else "Berry-Esseen band"
        ax.fill_between(a, lo, up, alpha=0.25, label=f"{what} (gamma={float(self.gamma):.3g})")
        ax.plot(a, mid, label=f"CLT: G_mu, mu={float(self.mu):.4g}")
        if exact is not None:
            ax.plot(a, exact.evaluate_fast(a), "k--", label=f"exact: {exact!r}")
        ax.plot(a, 1 - a, ":", color="grey", lw=0.8)
        ax.set_xlabel("type I error alpha")
        ax.set_ylabel("type II error beta")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.legend(loc="upper right", fontsize=8)
        return ax


def _symmetrized(f: TradeOff) -> TradeOff:
    """min{f, f^{-1}}**, the largest symmetric trade-off below f and f^{-1} (DRS §4.1)."""
    from ...symbolic.composition import subsample
    from ...symbolic.duality import is_symmetric, symmetrize
    from ...symbolic.tradeoff import gaussian

    if is_symmetric(f):
        return f
    if f.name == "gaussian_mixture":  # p G_mu + (1 - p) Id: its envelope is C_p(G_mu) (DRS Thm 4.2)
        par = f.parameters
        return subsample(gaussian(par["mu"]), par["p"])
    return symmetrize(f)


def _linear(f: TradeOff) -> bool:
    """f = c (1 - alpha): log|f'| is constant, so it adds nothing to the CLT's variance."""
    e = f.expr
    return not e.has(sympy.Piecewise) and e.is_polynomial(ALPHA) and sympy.degree(e, ALPHA) <= 1


def berry_esseen(fs: Any, n: Any = 1, *, digits: int = 30, symmetrize: bool = False) -> BerryEsseenBand:
    """The CLT mu and Berry–Esseen gamma for the composition of ``fs``, each taken n times.

    mu = 2 ||kl||_1 / sqrt(||kappa2||_1 - ||kl||_2^2) and
    gamma = 0.56 ||bar_kappa3||_1 / (||kappa2||_1 - ||kl||_2^2)^{3/2} (DRS Thm 3.5).  G_mu is
    an approximation of the composition.  When every factor is proven symmetric
    (:func:`gdpproof.symbolic.duality.is_symmetric`), the theorem applies and the returned band
    bounds the exact composition.  Otherwise the band is marked ``approximation=True``: gamma is
    the error term of an approximation, not a bound (DRS prove the theorem for symmetric f_i only).

    Args:
        fs: TradeOff or sequence of TradeOff
        n (int): How many times each listed function is composed (default 1).
        digits (int): Digits of mu and gamma.
        symmetrize (bool): Replace each factor not proven symmetric by min{f, f^{-1}}**
            (``gaussian_mixture(mu, p)``, one ordering of a Poisson-subsampled Gaussian, by C_p(G_mu)).  A
            mechanism that is f-DP in one ordering of the neighbours is f^{-1}-DP in the other, hence min{f,
            f^{-1}}**-DP in both: the band of the symmetrised composition is proven, and its lower edge bounds
            the mechanism's trade-off.  Curved non-symmetric curves other than the mixture have no CLT
            functionals for their envelope (NotSupportedError).

    Raises:
        InvalidParameterError: Every factor is linear, c (1 - alpha) with c < 1: log|f'| is constant, the
            CLT's variance is 0 and its mu infinite (the composition is c^n (1 - alpha) exactly).

    Examples:
        >>> import gdpproof
        >>> band = gdpproof.berry_esseen(gdpproof.randomized_response("0.1"), n=400, digits=10)
        >>> band.mu, band.gamma, band.approximation
        (Certified('2.000833438', digits=10, rounding='up'), Certified('0.02810497817', digits=10, rounding='up'), False)

        A non-symmetric curve gives an approximation only; its symmetrisation a proven band:

        >>> from gdpproof.numeric.tradeoff.clt import gaussian_mixture
        >>> gdpproof.berry_esseen(gaussian_mixture(1, "0.5"), n=100, digits=5).approximation
        True
        >>> band = gdpproof.berry_esseen(gaussian_mixture(1, "0.5"), n=100, digits=5, symmetrize=True)
        >>> band.approximation, band.factors[0][0]
        (False, subsampled_gaussian(mu=1, p=1/2))
    """
    items, counts = _factors(fs, n)

    from ...symbolic.composition import is_identity
    from ...symbolic.duality import is_symmetric

    if symmetrize:
        sym = [_symmetrized(f) for f in items]
        merged: dict[Any, int] = {}
        for f, c in zip(sym, counts):
            merged[f] = merged.get(f, 0) + c
        changed = any(a is not b for a, b in zip(sym, items))
        items, counts = list(merged), list(merged.values())
    else:
        changed = False
    if all(is_identity(f) for f in items):  # Id composes to Id = G_0, exactly
        zero = Certified(0, digits=digits, rounding="up", method="exact")
        return BerryEsseenBand(zero, zero, zero, tuple(zip(items, counts)), False, changed)
    keep = [i for i, f in enumerate(items) if not is_identity(f)]  # Id factors add nothing
    items, counts = [items[i] for i in keep], [counts[i] for i in keep]
    if all(_linear(f) for f in items):
        raise bad(
            "fs", fs, "has every factor linear, c (1 - alpha) with c < 1, so log|f'| is constant, the CLT's "
            "variance ||kappa2||_1 - ||kl||_2^2 is 0 and its mu infinite (the composition is c^n (1 - alpha) "
            "exactly, which is not mu-GDP for any finite mu)"
        )
    approximation = not all(is_symmetric(f) for f in items)
    sources = [source(f) for f in items]

    def exact(which: int) -> Callable[[list], sympy.Expr]:
        def run(values: list) -> sympy.Expr:
            out = mu_gamma(values, counts, sympy.sqrt, sympy.Integer(0))
            return out[which]

        return run

    mu_up, mu_lo, gamma = band_values(sources, counts, digits, exact)
    return BerryEsseenBand(mu_up, mu_lo, gamma, tuple(zip(items, counts)), approximation, changed)
