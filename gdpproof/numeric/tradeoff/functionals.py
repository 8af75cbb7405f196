"""Certified CLT functionals of a trade-off function: kl, kappa2, kappa3, bar_kappa3 (DRS Thm 3.4–3.5).

With L(alpha) = log|f'(alpha)| and alpha ~ U(0, 1): kl(f) = -E L, kappa2(f) = E L^2,
kappa3(f) = E|L|^3, bar_kappa3(f) = E|L + kl(f)|^3 (Dong, Roth & Su 2022, Thm 3.4-3.5).  Two ways to the numbers:

* closed forms (:func:`gdpproof.symbolic.clt.functional_expressions`) compiled to ball
  arithmetic: ``method="arb"``;
* otherwise tanh-sinh quadrature of log|f'| (mpmath), split at the pieces of f and at the sign
  changes of the integrand, accepted only when two working precisions agree:
  ``method="mpmath-2prec"`` (docs/architecture.md).  Pieces that are implicit inverses g^{-1} are
  integrated in the variable t = g^{-1}(alpha), where log|(g^{-1})'| = -log|g'(t)|.

The Berry–Esseen band built from them is in :mod:`gdpproof.numeric.tradeoff.clt`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fractions import Fraction

import flint

from ...errors import NotSupportedError, PrecisionError, SymbolicError, bad
from ..engine._mp import arb_from_exact, arb_precision, mpf_from_exact, mpf_to_fraction, private_context
from ..engine.certified import GUARD_DIGITS, Certified, check_request, decimal, certify_enclosure, round_fraction

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sympy


def _sclt() -> Any:
    from ...symbolic import clt

    return clt


def _alpha() -> Any:
    from ...symbolic.symbols import alpha

    return alpha


def mpmath_function(expr: Any, symbols: Any, ctx: Any) -> Any:
    from ..engine.evaluate import mpmath_function as compiled

    return compiled(expr, symbols, ctx)

__all__ = ["Functionals", "functionals", "kl", "kappa2", "kappa3", "bar_kappa3", "mixture_source", "band_values",
           "mu_gamma", "BERRY_ESSEEN_CONSTANT"]

Moments = tuple[Any, Any, Any, Any]


# ---------------------------------------------------------------------------------------------
# sources of the four functionals
# ---------------------------------------------------------------------------------------------


class _Source:
    """The functionals of one trade-off function at a requested precision."""

    method = "arb"

    def cached(self, ctx: Any) -> Moments:
        """:meth:`approx`, remembered per working precision (all four come from one pass)."""
        memo = self.__dict__.setdefault("_memo", {})
        key = int(ctx.prec)
        if key not in memo:
            memo[key] = tuple(ctx.mpf(v)._mpf_ for v in self.approx(ctx))
        return tuple(ctx.make_mpf(v) for v in memo[key])  # type: ignore[return-value]

    def ball(self, bits: int) -> tuple[flint.arb, ...] | None:
        """The four functionals as balls at ``bits`` of precision; None where there is no ball form."""
        return None

    def approx(self, ctx: Any) -> Moments:
        """Values in the mpmath context ``ctx`` (from the ball, when there is one)."""
        with arb_precision(int(ctx.prec) + 32):
            balls = self.ball(int(ctx.prec) + 32)
        assert balls is not None
        return tuple(ctx.mpf(b.mid().str(int(ctx.dps) + 10, radius=False)) for b in balls)  # type: ignore[return-value]


class _Closed(_Source):
    def __init__(self, exprs: dict[str, sympy.Expr]) -> None:
        from ..engine.compiler import arb_function

        self.exprs = tuple(exprs[k] for k in _sclt().NAMES)
        self.fns = [arb_function(e, ()) for e in self.exprs]

    def ball(self, bits: int) -> tuple[flint.arb, ...]:
        return tuple(fn() for fn in self.fns)


class _RRSum(_Source):
    """n-fold randomized response: L = eps (n - 2k) with probability Binomial(n, q1)(k)."""

    def __init__(self, eps: sympy.Expr, n: int) -> None:
        self.eps, self.n = eps, n

    def ball(self, bits: int) -> tuple[flint.arb, ...]:
        e = arb_from_exact(self.eps)
        n = self.n
        q0 = 1 / (1 + e.exp())
        term = q0**n  # P(K = 0)
        ratio = e.exp()  # q1/q0
        s1 = s2 = s3 = flint.arb(0)
        values = []
        for k in range(n + 1):
            v = e * (n - 2 * k)
            s1 += term * v
            s2 += term * v * v
            s3 += term * abs(v) ** 3
            values.append((term, v))
            term = term * ratio * (n - k) / (k + 1)
        klv = -s1
        sb = flint.arb(0)
        for w, v in values:
            sb += w * abs(v + klv) ** 3
        return klv, s2, s3, sb


class _Quadrature(_Source):
    method = "mpmath-2prec"

    def __init__(self, f: Any) -> None:
        self.f = f
        from ...symbolic.duality import ordered_pieces

        try:
            self.raw = ordered_pieces(f.expr)
        except (SymbolicError, TypeError) as exc:
            raise NotSupportedError(f"the CLT functionals of {f!r} cannot be integrated: {exc}") from None
        # kl is infinite when f is flat on an interval: a constant piece, or f(0) < 1 (an
        # implicit inverse piece is then 0 from f(0) on; symmetric curves reach 0 before 1)
        import sympy

        flat = [(lo, hi) for e, lo, hi in self.raw if sympy.diff(e, _alpha()) == 0]
        from ..engine.evaluate import tradeoff_value

        if flat or tradeoff_value(f, 0, digits=10, rounding="up") < 1:
            where = f"on [{flat[0][0]}, {flat[0][1]}]" if flat else "near alpha = 1 (f(0) < 1)"
            raise bad("f", f, f"is flat {where}, so log|f'| = -oo there and kl(f) is infinite; "
                      "the CLT functionals need f' < 0 almost everywhere")

    def _integrands(self, ctx: Any) -> list[tuple[Callable[[Any], Any], Callable[[Any], Any], Any, Any]]:
        """(u, weight, a, b): the piece's log-slope u(s) and weight w(s) on [a, b] in its variable."""
        import sympy

        from ...symbolic.special import implicit_inverse

        ALPHA = _alpha()
        out: list[tuple[Callable[..., Any], Callable[..., Any], Any, Any]] = []
        for e, lo, hi in self.raw:
            if isinstance(e, implicit_inverse) and e.args[1] == ALPHA:
                g = e.function
                (var,) = g.variables
                dg = sympy.diff(g.expr, var)
                dgf = mpmath_function(dg, (var,), ctx)
                inv = mpmath_function(e, (ALPHA,), ctx)
                a, b = inv(mpf_from_exact(ctx, hi)), inv(mpf_from_exact(ctx, lo))

                def u(s: Any, dgf: Any = dgf) -> Any:
                    return -ctx.log(-dgf(s))

                def w(s: Any, dgf: Any = dgf) -> Any:
                    return -dgf(s)

                out.extend(self._split(u, w, a, b, g.expr.xreplace({var: ALPHA}), ctx))
            else:
                d = sympy.diff(e, ALPHA)
                df = mpmath_function(d, (ALPHA,), ctx)

                def u2(s: Any, df: Any = df) -> Any:
                    return ctx.log(-df(s))

                out.append((u2, lambda s: ctx.one, mpf_from_exact(ctx, lo), mpf_from_exact(ctx, hi)))  # noqa: E731
        return out

    @staticmethod
    def _split(u: Any, w: Any, a: Any, b: Any, body: sympy.Expr, ctx: Any) -> list:
        """(u, w, a, b) cut at the breakpoints of a piecewise g inside (a, b): tanh-sinh needs
        a smooth integrand on each part."""
        from ...symbolic.duality import ordered_pieces

        try:
            points = sorted({mpf_from_exact(ctx, lo) for _, lo, _ in ordered_pieces(body)[1:]})
        except (SymbolicError, TypeError):
            points = []
        edges = [a, *[x for x in points if a < x < b], b]
        return [(u, w, lo, hi) for lo, hi in zip(edges, edges[1:])]

    def approx(self, ctx: Any) -> Moments:
        parts = self._integrands(ctx)

        def integral(h: Callable[[Any], Any], level: Any = None) -> Any:
            total = ctx.zero
            for u, w, a, b in parts:
                if not a < b:
                    continue
                cuts = [a]
                if level is not None:
                    root = _crossing(ctx, u, a, b, level)
                    if root is not None:
                        cuts.append(root)
                cuts.append(b)
                total += ctx.quad(lambda s: h(u(s)) * w(s), cuts)
            return total

        klv = -integral(lambda v: v)
        k2 = integral(lambda v: v * v)
        k3 = integral(lambda v: abs(v) ** 3, ctx.zero)
        kb3 = integral(lambda v: abs(v + klv) ** 3, -klv)
        return klv, k2, k3, kb3


class _GaussianQuadrature(_Source):
    """Functionals of a curve built from G_mu and a probability p, by quadrature in z."""

    method = "mpmath-2prec"

    def __init__(self, mu: sympy.Expr, p: sympy.Expr) -> None:
        self.mu, self.p = mu, p


class _SubsampledGaussian(_GaussianQuadrature):
    """C_p(G_mu) in the variable z = Phi^{-1}(1 - alpha), where nothing needs erfcinv.

    On [0, x*] (z >= mu/2), L(z) = log(p e^{mu z - mu^2/2} + 1 - p) >= 0 with weight phi(z);
    the mirrored piece f_p^{-1} contributes -L(z) with weight p phi(z - mu) + (1 - p) phi(z);
    the middle segment (length (1 - p)(1 - 2 Phi(-mu/2))) has L = 0.
    """


    def approx(self, ctx: Any) -> Moments:
        m, q = mpf_from_exact(ctx, self.mu), mpf_from_exact(ctx, self.p)
        start = m / 2
        middle = (1 - q) * (1 - 2 * ctx.ncdf(-start))

        norm = 1 / ctx.sqrt(2 * ctx.pi)

        # the four integrals share their nodes (the same at the same working precision): the
        # weights and the loss at a node are computed once, by the same operations
        memo: dict[tuple[Any, int], tuple[Any, Any, Any]] = {}

        def at(z: Any) -> tuple[Any, Any, Any]:
            key = (z, ctx.prec)
            if key not in memo:
                phi = ctx.exp(-z * z / 2) * norm
                ratio = ctx.exp(m * z - m * m / 2)  # phi(z - mu) / phi(z)
                memo[key] = (phi, ctx.log1p(q * (ratio - 1)), q * ratio + 1 - q)
            return memo[key]

        def integrand(h: Callable[[Any], Any]) -> Callable[[Any], Any]:
            def run(z: Any) -> Any:
                phi, L, mirrored = at(z)
                return phi * (h(L) + h(-L) * mirrored)

            return run

        def integral(h: Callable[[Any], Any], cut: Any = None) -> Any:
            pts = [start, ctx.inf] if cut is None or not cut > start else [start, cut, ctx.inf]
            return ctx.quad(integrand(h), pts) + h(ctx.zero) * middle

        klv = -integral(lambda v: v)
        k2 = integral(lambda v: v * v)
        k3 = integral(lambda v: abs(v) ** 3)
        # -L(z) + kl changes sign where L(z) = kl
        cut = (ctx.log((ctx.expm1(klv) + q) / q) + m * m / 2) / m
        kb3 = integral(lambda v: abs(v + klv) ** 3, cut)
        return klv, k2, k3, kb3


class _GaussianMixture(_GaussianQuadrature):
    """f_p = p G_mu + (1 - p) Id = T(N(0, 1), (1 - p) N(0, 1) + p N(mu, 1)), one direction of Poisson
    subsampling, in z = Phi^{-1}(1 - alpha): L(z) = log(p e^{mu z - mu^2/2} + 1 - p), weight phi(z)."""


    def approx(self, ctx: Any) -> Moments:
        m, q = mpf_from_exact(ctx, self.mu), mpf_from_exact(ctx, self.p)
        norm = 1 / ctx.sqrt(2 * ctx.pi)

        # the four integrals share their nodes (the same at the same working precision): the
        # weight and the loss at a node are computed once, by the same operations
        memo: dict[tuple[Any, int], tuple[Any, Any]] = {}

        def integral(h: Callable[[Any], Any], cuts: list) -> Any:
            def run(z: Any) -> Any:
                key = (z, ctx.prec)
                if key not in memo:
                    memo[key] = (ctx.exp(-z * z / 2) * norm, ctx.log1p(q * ctx.expm1(m * z - m * m / 2)))
                w, L = memo[key]
                return w * h(L)

            return ctx.quad(run, [-ctx.inf, *cuts, ctx.inf])

        half = m / 2  # L(z) >= 0 exactly for z >= mu/2
        klv = -integral(lambda v: v, [half])
        k2 = integral(lambda v: v * v, [half])
        k3 = integral(lambda v: abs(v) ** 3, [half])
        inner = ctx.expm1(-klv) + q  # L(z) = -kl where p e^{mu z - mu^2/2} = e^{-kl} - 1 + p
        cuts = [half] if not inner > 0 else sorted([half, (ctx.log(inner / q) + m * m / 2) / m])
        kb3 = integral(lambda v: abs(v + klv) ** 3, cuts)
        return klv, k2, k3, kb3


def _crossing(ctx: Any, u: Callable[[Any], Any], a: Any, b: Any, level: Any) -> Any:
    """The point of [a, b] where the monotone u crosses ``level``, if it does inside."""
    eps = (b - a) * ctx.mpf(2) ** (-ctx.prec // 2)
    ua, ub = u(a + eps) - level, u(b - eps) - level
    if ua == 0 or ub == 0 or (ua > 0) == (ub > 0):
        return None
    lo, hi = a + eps, b - eps
    for _ in range(int(ctx.prec) + 20):
        mid = (lo + hi) / 2
        if (u(mid) - level > 0) == (ua > 0):
            lo = mid
        else:
            hi = mid
        if hi - lo <= abs(mid) * ctx.mpf(2) ** (-ctx.prec + 4):
            break
    return (lo + hi) / 2


#: Families whose CLT functionals are closed forms valid at every parameter value.
CLOSED_EVERYWHERE = frozenset({"gaussian", "randomized_response", "eps_delta", "identity"})


@functools.lru_cache(maxsize=256)
def source(f: Any) -> _Source:
    from ...symbolic.tradeoff import TradeOff

    if not isinstance(f, TradeOff):
        raise bad("f", f, "must be a TradeOff")
    f._numeric_params()  # symbolic parameters are refused here
    if f.name not in CLOSED_EVERYWHERE:
        import sympy  # a TradeOff exists: sympy is loaded

        for name, v in f.parameters.items():
            if v.is_Rational and v != 0 and not sympy.Rational(1, 10**6) <= abs(v) <= 10**6:
                # quadrature and the series of the subsampled Gaussian overflowed or did not end there
                raise bad(name, v, f"must be 0 or within [1e-6, 1e6] for the CLT functionals of "
                          f"{f.name} (only the Gaussian and randomized response have them in closed form at "
                          "every value)")
    if f.name == "subsampled_gaussian":
        par = f.parameters
        return _SubsampledGaussian(par["mu"], par["p"])
    if f.name == "gaussian_mixture":
        par = f.parameters
        return _GaussianMixture(par["mu"], par["p"])
    if f.name == "rr_composition":
        par = f.parameters
        return _RRSum(par["epsilon"], int(par["n"]))
    from ...symbolic.special import symmetrized

    if f.expr.has(symmetrized):
        raise NotSupportedError(
            f"the CLT functionals of {f!r} are not supported: it is a numeric envelope min(h, h^-1)** "
            "(a curved non-symmetric f subsampled or symmetrized), whose log-slope has kinks where its "
            "bridging segments meet the curves; quadrature over an envelope solved point by point would be "
            "slow and uncertified"
        )
    try:
        return _Closed(_sclt().functional_expressions(f))
    except SymbolicError:
        pass
    return _Quadrature(f)


@functools.lru_cache(maxsize=64)
def mixture_source(mu: Any, p: Any, *, symmetric: bool) -> _Source:
    """The functionals' source of one subsampled Gaussian step, from exact mu and p (Fractions or
    sympy numbers) without building its curve: C_p(G_mu) (``symmetric``) or p G_mu + (1 - p) Id,
    what :func:`source` gives for ``subsample(gaussian(mu), p)`` and ``gaussian_mixture(mu, p)``
    with 0 < p < 1 and mu > 0."""
    return _SubsampledGaussian(mu, p) if symmetric else _GaussianMixture(mu, p)


#: The constant of the Berry–Esseen bound in DRS Thm 3.5.
BERRY_ESSEEN_CONSTANT = Fraction(56, 100)


def mu_gamma(values: list, counts: Sequence[int], sqrt: Callable[[Any], Any], zero: Any) -> tuple[Any, Any] | None:
    """The CLT mu and the Berry-Esseen gamma of a composition from its factors' functionals (DRS Thm 3.5)."""
    s_kl = s_k2 = s_kl2 = s_kb3 = zero
    for (klv, k2, _, kb3), c in zip(values, counts):
        s_kl += c * klv
        s_k2 += c * k2
        s_kl2 += c * klv * klv
        s_kb3 += c * kb3
    var = s_k2 - s_kl2
    const = BERRY_ESSEEN_CONSTANT
    return 2 * s_kl / sqrt(var), const.numerator * s_kb3 / (const.denominator * var * sqrt(var))


def band_values(sources: Sequence[_Source], counts: Sequence[int], digits: int,
                exact: Callable[[int], Callable[[list], Any]] | None = None) -> tuple[Certified, Certified, Certified]:
    """mu rounded up, mu rounded down and gamma rounded up, certified, of the composition of the
    ``sources`` taken ``counts`` times; ``exact(which)`` settles exact short decimals of closed forms."""

    def ball(which: int) -> Callable[[list], flint.arb | None]:
        def run(balls: list) -> flint.arb | None:
            out = mu_gamma(balls, counts, lambda v: v.sqrt(), flint.arb(0))
            return None if out is None else out[which]

        return run

    def mp(which: int) -> Callable[[Any, list], Any]:
        def run(ctx: Any, values: list) -> Any:
            out = mu_gamma(values, counts, ctx.sqrt, ctx.zero)
            return None if out is None else out[which]

        return run

    def closed(which: int) -> Any:
        return None if exact is None else exact(which)

    what = "CLT mu"
    mu_up = certify_functional(sources, ball(0), mp(0), digits=digits, rounding="up", what=what, combine_exact=closed(0))
    mu_lo = certify_functional(sources, ball(0), mp(0), digits=digits, rounding="down", what=what,
                               combine_exact=closed(0))
    gamma = certify_functional(sources, ball(1), mp(1), digits=digits, rounding="up", what="Berry-Esseen gamma",
                               combine_exact=closed(1))
    return mu_up, mu_lo, gamma


# ---------------------------------------------------------------------------------------------
# certification of quantities computed from the functionals
# ---------------------------------------------------------------------------------------------


def certify_functional(sources: Sequence[_Source], combine_ball: Callable[[list], flint.arb | None],
             combine_mp: Callable[[Any, list], Any], *, digits: int, rounding: str, what: str,
             combine_exact: Callable[[list], sympy.Expr] | None = None) -> Certified:
    """Certify combine(functionals...) by balls when every source has them, else two precisions.

    ``combine_exact`` (sympy expressions in, an expression out) settles values that are exact
    short decimals, which no ball can round in a direction (mu = 1 for ten G_(1/sqrt 10)).
    """
    check_request(digits, rounding)
    if all(s.method == "arb" for s in sources):

        def enclose(bits: int) -> flint.arb | None:
            return combine_ball([s.ball(bits) for s in sources])

        exact = None
        if combine_exact is not None and all(isinstance(s, _Closed) for s in sources):
            closed = [s.exprs for s in sources if isinstance(s, _Closed)]

            def exact() -> sympy.Expr:
                import sympy

                return sympy.simplify(combine_exact(closed))

        return certify_enclosure(enclose, digits=digits, rounding=rounding, what=what, exact=exact)
    for scale in (1, 2):
        values = []
        for dps in (scale * digits + GUARD_DIGITS, 2 * (scale * digits + GUARD_DIGITS)):
            with private_context(dps) as ctx:
                v = combine_mp(ctx, [s.cached(ctx) for s in sources])
                if v is None or not ctx.isfinite(v):
                    raise PrecisionError(f"the {what} is not finite")
                values.append(mpf_to_fraction(ctx.mpf(v)))
        ra, rb = (round_fraction(v, digits, rounding) for v in values)
        if ra == rb:
            return Certified(decimal(ra[0], ra[1], digits), digits=digits, rounding=rounding, method="mpmath-2prec")
    raise PrecisionError(f"could not certify {digits} digits of the {what} (quadrature precisions disagree)")


@dataclass(frozen=True)
class Functionals:
    """kl, kappa2, kappa3 and bar_kappa3 of one trade-off function (DRS Thm 3.4).

    Args:
        kl: kl(f).
        kappa2: kappa2(f).
        kappa3: kappa3(f).
        bar_kappa3: bar_kappa3(f).

    Examples:
        >>> import gdpproof
        >>> gdpproof.functionals(gdpproof.gaussian(1), digits=6).kl
        Certified('0.500000', digits=6, rounding='nearest')
    """

    kl: Certified
    kappa2: Certified
    kappa3: Certified
    bar_kappa3: Certified

    def as_dict(self) -> dict[str, Certified]:
        """The four values by name, in the order kl, kappa2, kappa3, bar_kappa3."""
        return {k: getattr(self, k) for k in _sclt().NAMES}


def _one(f: Any, index: int, digits: int, rounding: str) -> Certified:
    src = source(f)
    return certify_functional([src], lambda b: b[0][index], lambda ctx, m: m[0][index], digits=digits, rounding=rounding,
                    what=f"{_sclt().NAMES[index]} of {f!r}", combine_exact=lambda e: e[0][index])


def functionals(f: Any, *, digits: int = 30, rounding: str = "nearest") -> Functionals:
    """The four CLT functionals of f, certified (Dong, Roth & Su 2022, Thm 3.4-3.5).

    Closed forms for G_mu, f_{eps,0}, Laplace and other piecewise functions sympy integrates
    (``method="arb"``); an exact sum for :func:`~gdpproof.rr_composition`; quadrature at two
    precisions otherwise (``method="mpmath-2prec"``).  Raises InvalidParameterError when kl is
    infinite (f flat on an interval, as for delta > 0).

    Args:
        f: The trade-off function (a :class:`~gdpproof.TradeOff`).
        digits: Significant digits.
        rounding: ``"nearest"``, ``"up"`` or ``"down"``.

    Returns:
        :class:`Functionals`, each certified.

    Raises:
        InvalidParameterError: kl is infinite (f flat on an interval, as for delta > 0).

    Examples:
        >>> import gdpproof
        >>> fl = gdpproof.functionals(gdpproof.gaussian(1), digits=20)
        >>> fl.kl, fl.kappa2
        (Certified('0.50000000000000000000', digits=20, rounding='nearest'), Certified('1.2500000000000000000', digits=20, rounding='nearest'))
        >>> fl.bar_kappa3  # 2 sqrt(2/pi)
        Certified('1.5957691216057307118', digits=20, rounding='nearest')
    """
    return Functionals(*(_one(f, i, digits, rounding) for i in range(4)))


def kl(f: Any, *, digits: int = 30, rounding: str = "nearest") -> Certified:
    """kl(f) = -integral of log|f'| over [0, 1]: the KL divergence of the pair behind f.

    Args:
        f: The trade-off function (a :class:`~gdpproof.TradeOff`).
        digits: Significant digits.
        rounding: ``"nearest"``, ``"up"`` or ``"down"``.

    Returns:
        A :class:`~gdpproof.Certified`.

    Raises:
        InvalidParameterError: kl is infinite (f flat on an interval, as for delta > 0).

    Examples:
        >>> import gdpproof
        >>> gdpproof.kl(gdpproof.gaussian(1), digits=10)
        Certified('0.5000000000', digits=10, rounding='nearest')
    """
    return _one(f, 0, digits, rounding)


def kappa2(f: Any, *, digits: int = 30, rounding: str = "nearest") -> Certified:
    """kappa2(f) = integral of log^2|f'| over [0, 1].

    Args:
        f: The trade-off function (a :class:`~gdpproof.TradeOff`).
        digits: Significant digits.
        rounding: ``"nearest"``, ``"up"`` or ``"down"``.

    Returns:
        A :class:`~gdpproof.Certified`.

    Raises:
        InvalidParameterError: kl is infinite (f flat on an interval, as for delta > 0).

    Examples:
        >>> import gdpproof
        >>> gdpproof.kappa2(gdpproof.gaussian(1), digits=10)
        Certified('1.250000000', digits=10, rounding='nearest')
    """
    return _one(f, 1, digits, rounding)


def kappa3(f: Any, *, digits: int = 30, rounding: str = "nearest") -> Certified:
    """kappa3(f) = integral of |log|f'||^3 over [0, 1].

    Args:
        f: The trade-off function (a :class:`~gdpproof.TradeOff`).
        digits: Significant digits.
        rounding: ``"nearest"``, ``"up"`` or ``"down"``.

    Returns:
        A :class:`~gdpproof.Certified`.

    Raises:
        InvalidParameterError: kl is infinite (f flat on an interval, as for delta > 0).

    Examples:
        >>> import gdpproof
        >>> gdpproof.kappa3(gdpproof.gaussian(1), digits=10)
        Certified('2.206546970', digits=10, rounding='nearest')
    """
    return _one(f, 2, digits, rounding)


def bar_kappa3(f: Any, *, digits: int = 30, rounding: str = "nearest") -> Certified:
    """bar_kappa3(f) = integral of |log|f'| + kl(f)|^3 over [0, 1].

    Args:
        f: The trade-off function (a :class:`~gdpproof.TradeOff`).
        digits: Significant digits.
        rounding: ``"nearest"``, ``"up"`` or ``"down"``.

    Returns:
        A :class:`~gdpproof.Certified`.

    Raises:
        InvalidParameterError: kl is infinite (f flat on an interval, as for delta > 0).

    Examples:
        >>> import gdpproof
        >>> gdpproof.bar_kappa3(gdpproof.gaussian(1), digits=10)
        Certified('1.595769122', digits=10, rounding='nearest')
    """
    return _one(f, 3, digits, rounding)
