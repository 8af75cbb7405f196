"""Trade-off functions as frozen sympy values, and the standard families.

A trade-off function f: [0, 1] -> [0, 1] is the type II error of the most powerful test at
type I error alpha (Dong, Roth & Su 2022, Def. 2.1): convex, continuous, non-increasing, f(alpha) <= 1 - alpha.
A :class:`TradeOff` holds one as a sympy expression in :data:`~gdpproof.symbolic.symbols.alpha`
(``Piecewise`` allowed) together with its parameters.  The meaning of each family below never
changes; new meanings get new names.

The numeric methods (``evaluate``, ``delta``, ...) call the engines that :mod:`gdpproof.numeric`
registers in :mod:`gdpproof.symbolic.engines`: this module never imports the numeric layer.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import sympy
from sympy import Max, Piecewise, Rational, erfc, erfcinv, exp, sqrt

from .._args import exact, nonnegative, probability
from ..errors import InvalidParameterError, NotSupportedError, SymbolicError, bad
from ..text import show
from . import engines
from .parse import formula
from .symbols import alpha, delta, epsilon, epsilon_prime, mu, t, x

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .._certified import Certified

__all__ = [
    "TradeOff",
    "gaussian",
    "eps_delta",
    "randomized_response",
    "k_randomized_response",
    "finite_tradeoff",
    "laplace",
    "location_family",
    "identity",
]


def _params(name: str, value: Any) -> tuple[tuple[sympy.Symbol, sympy.Expr], ...]:
    """``value`` as TradeOff parameters: (symbol, value) pairs, each value exact."""
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(pv, (tuple, list)) and len(pv) == 2 and isinstance(pv[0], sympy.Symbol) for pv in value):
        raise bad(name, value, "must be a tuple of (sympy Symbol, value) pairs")
    return tuple((s, exact(s.name, v, infinite=True)) for s, v in value)


@dataclass(frozen=True, slots=True)
class TradeOff:
    """A trade-off function f(alpha) as a sympy expression with named parameters.

    Args:
        template (sympy.Expr): The expression in ``alpha`` and the parameter symbols.
        params (tuple of (Symbol, Expr)): Parameter values (exact numbers or sympy expressions) substituted
            into ``template``.
        name (str): The family name, used in ``repr`` and messages.
        symmetric (bool or None): True when the family is known to be symmetric (f = f^{-1}) by a theorem.
        dual_template (sympy.Expr or None): A closed form of delta(epsilon') = 1 + f*(-e^epsilon') in
            ``epsilon_prime`` and the parameter symbols, when one is known (Gaussian: Dong–Roth–Su Cor. 2.13).

    Construct values with the family functions (:func:`gaussian`, :func:`eps_delta`, ...)
    rather than directly.

    Examples:
        >>> from gdpproof import TradeOff
        >>> from gdpproof.symbols import alpha
        >>> f = TradeOff(1 - alpha, name="identity")
        >>> f, f.evaluate("0.25", digits=5)
        (identity(), Certified('0.75000', digits=5, rounding='down'))
    """

    template: sympy.Expr
    params: tuple[tuple[sympy.Symbol, sympy.Expr], ...] = ()
    name: str = "tradeoff"
    symmetric: bool | None = None
    dual_template: sympy.Expr | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        # what a caller hands in passes the gates: a formula string is read by the restricted
        # grammar, a number exactly, and containers are refused (sympy would run their strings)
        if not isinstance(self.template, sympy.Expr):
            object.__setattr__(self, "template", formula("template", self.template))
        if self.dual_template is not None and not isinstance(self.dual_template, sympy.Expr):
            object.__setattr__(self, "dual_template", formula("dual_template", self.dual_template))
        if type(self.params) is not tuple or not all(
                type(pv) is tuple and len(pv) == 2 and isinstance(pv[0], sympy.Symbol) and isinstance(pv[1], sympy.Expr)
                for pv in self.params):
            object.__setattr__(self, "params", _params("params", self.params))

    # -- the expression ----------------------------------------------------------------------

    @property
    def expr(self) -> sympy.Expr:
        """f as a sympy expression in ``alpha`` with the parameters substituted."""
        return _substituted(self.template, self.params)

    @property
    def parameters(self) -> dict[str, sympy.Expr]:
        """The parameters by name."""
        return {s.name: v for s, v in self.params}

    def __call__(self, a: Any) -> sympy.Expr:
        """f(a) as a sympy expression (exact; use :meth:`evaluate` for digits)."""
        return self.expr.xreplace({alpha: exact("alpha", a)})

    def __repr__(self) -> str:
        if not self.params:
            return f"{self.name}()"
        inner = ", ".join(f"{s.name}={show(v)}" for s, v in self.params)
        return f"{self.name}({inner})"

    def _numeric_params(self) -> tuple[tuple[sympy.Symbol, ...], tuple[sympy.Expr, ...]]:
        return _numeric_params(self)

    def _numeric_params_uncached(self) -> tuple[tuple[sympy.Symbol, ...], tuple[sympy.Expr, ...]]:
        syms = tuple(s for s, _ in self.params)
        vals = tuple(v for _, v in self.params)
        for s, v in self.params:
            if v.free_symbols:
                raise bad(s.name, v, f"is symbolic; numeric evaluation of {self!r} needs numbers")
        extra = self.template.free_symbols - {alpha} - set(syms)
        if extra:
            names = ", ".join(sorted(str(s) for s in extra))
            raise InvalidParameterError(f"{self!r} has free symbols {names}; substitute them first")
        return syms, vals

    # -- numeric methods (delegations) ------------------------------------------------------

    def evaluate(self, alpha: Any, *, digits: int = 30, rounding: str = "down") -> "Certified":
        """f(alpha) to ``digits`` certified significant digits.

        Args:
            alpha (real): Type I error, 0 <= alpha <= 1; strings are exact decimals.
            digits (int): Significant digits of the result (1 to 4000).
            rounding ({"down", "up", "nearest"}): Direction of the last digit.  The default ``"down"`` is the
                safe one for a trade-off value: the returned beta never overstates privacy.

        Returns:
            Certified: A :class:`decimal.Decimal` whose digits are proven (ball arithmetic).

        Raises:
            InvalidParameterError: alpha outside [0, 1], NaN, non-numeric, or symbolic parameters.
            PrecisionError: The digits could not be certified.

        Examples:
            >>> import gdpproof
            >>> gdpproof.gaussian(1).evaluate("0.05", digits=20)
            Certified('0.74048897715855592935', digits=20, rounding='down')
            >>> gdpproof.gaussian(1).evaluate(0.05, digits=20)  # the double nearest 0.05, exactly
            Certified('0.74048897715855592063', digits=20, rounding='down')
            >>> gdpproof.laplace(1).evaluate("0.5", digits=10)
            Certified('0.1839397205', digits=10, rounding='down')
        """
        return engines.lookup("tradeoff_value")(self, alpha, digits=digits, rounding=rounding)

    def evaluate_fast(self, alpha: Any) -> "np.ndarray":
        """f(alpha) in float64, vectorized over numpy arrays (not certified).

        Generated by sympy's SciPy printer from the same expression as :meth:`evaluate`, and
        tested against it.  Use it for plots and large grids; use :meth:`evaluate` for digits.

        Examples:
            >>> import gdpproof, numpy as np
            >>> gdpproof.gaussian(1).evaluate_fast(np.array([0.0, 0.05, 1.0])).round(6)
            array([1.      , 0.740489, 0.      ])
        """
        return engines.lookup("tradeoff_values_fast")(self, alpha)

    def evaluate_mpmath(self, alpha: Any, *, dps: int = 30) -> Any:
        """f(alpha) by lambdified mpmath code at ``dps`` working digits (not certified).

        The lambdified route is an independent check of the ball-arithmetic route; the
        returned mpf belongs to the caller's global mpmath context.
        """
        return engines.lookup("tradeoff_mpmath")(self, alpha, dps=dps)

    def derivative(self, order: int = 1) -> sympy.Expr:
        """The ``order``-th derivative of f in alpha, as a sympy expression."""
        return sympy.diff(self.expr, alpha, order)

    def derivative_at(self, alpha: Any, *, order: int = 1, digits: int = 30, rounding: str = "nearest") -> "Certified":
        """The ``order``-th derivative at alpha, certified to ``digits`` digits."""
        return engines.lookup("expression_value")(
            self.derivative(order), alpha, digits=digits, rounding=rounding, what=f"derivative of {self!r}"
        )

    def delta(self, epsilon: Any, *, digits: int = 30) -> "Certified":
        """delta(epsilon) = 1 + f*(-e^epsilon), rounded up (a privacy loss).

        f-DP implies (epsilon, delta(epsilon))-DP for every real epsilon, and no smaller delta
        holds at that epsilon when f is symmetric (Dong–Roth–Su Prop. 2.12).  At epsilon < 0
        the statement P(S) <= e^eps Q(S) + delta is still meaningful (delta >= 1 - e^eps there;
        e.g. delta(-eps) = 1 - e^-eps + e^-eps delta(eps) for symmetric f) and papers tabulate it.  For the Gaussian
        family the closed form of Cor. 2.13 is used; for the others, a certified concave
        maximisation of the convex conjugate.

        Examples:
            >>> import gdpproof
            >>> gdpproof.gaussian(1).delta(1, digits=40)
            Certified('0.1269367375066439458008296247577668804151', digits=40, rounding='up')
            >>> gdpproof.randomized_response(1).delta(1, digits=5)
            Certified('0', digits=5, rounding='up')
        """
        return engines.lookup("delta_value")(self, epsilon, digits=digits)

    def conjugate_at(self, y: Any, *, digits: int = 30, rounding: str = "nearest") -> "Certified":
        """The convex conjugate f*(y) = sup_alpha (y alpha - f(alpha)), certified."""
        return engines.lookup("conjugate_value")(self, y, digits=digits, rounding=rounding)

    def inverse_at(self, alpha: Any, *, digits: int = 30, rounding: str = "down") -> "Certified":
        """f^{-1}(alpha) = inf{t in [0, 1] : f(t) <= alpha}, certified (default rounded down)."""
        return engines.lookup("inverse_value")(self, alpha, digits=digits, rounding=rounding)

    def tightest_mu(self, *, digits: int = 30) -> "Certified":
        """The smallest mu with f >= G_mu everywhere, rounded up (see :func:`gdpproof.tightest_mu`)."""
        return engines.lookup("tightest_mu")(self, digits=digits)

    def check(self, *, points: int = 64, digits: int = 20) -> Any:
        """Check that f is a trade-off function; see :func:`gdpproof.check_tradeoff`.

        Returns a :class:`gdpproof.numeric.tradeoff.validity.ValidityReport`.
        """
        return engines.lookup("check_tradeoff")(self, points=points, digits=digits)

    # -- symbolic operations ---------------------------------------------------------------

    def delta_expression(self) -> sympy.Expr:
        """delta(epsilon) = 1 + f*(-e^epsilon) as a sympy expression in ``epsilon``.

        Raises :class:`SymbolicError` when no closed form is known or found; :meth:`delta`
        still evaluates it numerically.
        """
        if self.dual_template is not None:
            return self.dual_template.xreplace(dict(self.params)).xreplace({epsilon_prime: epsilon})
        from .duality import conjugate

        return sympy.simplify(1 + conjugate(self).xreplace({_y(): -exp(epsilon)}))

    def inverse(self) -> "TradeOff":
        """f^{-1} as a :class:`TradeOff` (symbolic).  Symmetric families return themselves."""
        from .duality import inverse

        return inverse(self)

    def symmetrize(self) -> "TradeOff":
        """Symm(f), the symmetric trade-off implied by f for both orders of neighbours."""
        from .duality import symmetrize

        return symmetrize(self)

    def substitute(self, **values: Any) -> "TradeOff":
        """A copy with some parameters replaced (numbers or sympy expressions)."""
        names = {s.name: s for s, _ in self.params}
        for k in values:
            if k not in names:
                raise bad(k, values[k], f"is not a parameter of {self!r}")
        new = tuple((s, exact(s.name, values[s.name]) if s.name in values else v) for s, v in self.params)
        return _rebuild(self, new)


@functools.lru_cache(maxsize=1024)
@functools.lru_cache(maxsize=256)
def _substituted(template: sympy.Expr, params: tuple[tuple[sympy.Symbol, sympy.Expr], ...]) -> sympy.Expr:
    """template with params substituted, once per (template, params): substituting into a Max of
    exponentials (k-ary randomized response) makes sympy compare its arguments, tens of ms."""
    return template.xreplace(dict(params))


def _numeric_params(f: TradeOff) -> tuple[tuple[sympy.Symbol, ...], tuple[sympy.Expr, ...]]:
    return f._numeric_params_uncached()


def _y() -> sympy.Symbol:
    from .symbols import y

    return y


def _rebuild(f: TradeOff, params: tuple) -> TradeOff:
    builders = {"gaussian": gaussian, "eps_delta": eps_delta, "randomized_response": randomized_response,
                "laplace": laplace}
    if f.name in builders:
        return builders[f.name](**{s.name: v for s, v in params})
    return TradeOff(f.template, params, f.name, f.symmetric, f.dual_template)


# -------------------------------------------------------------------------------------------
# Families
# -------------------------------------------------------------------------------------------

#: G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu), written through erfc/erfcinv, which is exact
#: in both tails: Phi^{-1}(1 - alpha) = sqrt(2) erfcinv(2 alpha), Phi(z) = erfc(-z/sqrt 2)/2.
#: See derivations/d01_gaussian_tradeoff.py for the equality with the textbook form.
GAUSSIAN = erfc(mu / sqrt(2) - erfcinv(2 * alpha)) / 2

#: delta(epsilon) for G_mu (Dong–Roth–Su Cor. 2.13):
#: Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2).
GAUSSIAN_DUAL = (
    erfc((epsilon / mu - mu / 2) / sqrt(2)) / 2 - exp(epsilon) * erfc((epsilon / mu + mu / 2) / sqrt(2)) / 2
)

#: The same delta(epsilon) without underflow: with x = epsilon/mu - mu/2 and e^epsilon
#: Phi(-epsilon/mu - mu/2) = e^{-x^2/2} erfcx((x + mu)/sqrt 2)/2, delta is
#: e^{-x^2/2} (erfcx(x/sqrt 2) - erfcx((x + mu)/sqrt 2))/2 (derivations/d04_gdp_dual.py).
#: The float64 path uses it; the difference still cancels when mu^2/epsilon is tiny, which the
#: float path detects and hands over to the certified path.
def _scaled_dual() -> sympy.Expr:
    from .special import erfcx

    xa = epsilon / mu - mu / 2
    return exp(-xa**2 / 2) * (erfcx(xa / sqrt(2)) - erfcx((xa + mu) / sqrt(2))) / 2


GAUSSIAN_DUAL_SCALED = _scaled_dual()


def _log_dual() -> sympy.Expr:
    from sympy.codegen.cfunctions import log1p

    from .special import erfcx
    from .symbols import Phi

    xa = epsilon / mu - mu / 2
    xb = epsilon / mu + mu / 2
    near_one = log1p(-Phi(xa) - exp(epsilon) * Phi(-xb))  # 1 - delta without cancellation
    tail = -xa**2 / 2 + sympy.log((erfcx(xa / sqrt(2)) - erfcx(xb / sqrt(2))) / 2)
    return Piecewise((near_one, xa < 0), (tail, True))


#: log delta(epsilon) for G_mu, accurate both where delta is within 1e-54000 of 1 (log1p of the
#: complementary probability) and where delta is 10^-10^9 (the erfcx form, never forming
#: delta itself).  Both branches equal log(GAUSSIAN_DUAL): derivations/d04_gdp_dual.py.
GAUSSIAN_LOG_DUAL = _log_dual()

#: A starting point (an approximation, never a result) for solving delta_mu(epsilon) = delta in
#: epsilon: with z = epsilon/mu - mu/2, delta ~ phi(z) (1/z - 1/(z + mu)) in the tail (Mills'
#: ratio, and e^epsilon phi(z + mu) = phi(z)), so z^2 = t + 2 log mu - 2 log z - 2 log(z + mu)
#: with t = -2 log delta - log(2 pi); one fixed-point step from z^2 = t.  Real where t > 1 and
#: the bracket is positive; for mu in [0.5, 3] and delta in [1e-10, 1e-2] it is within 0.5% of
#: the root at the median and 11% at worst (numeric/tradeoff/solve.py starts Newton from it).
def _epsilon_tail_start() -> sympy.Expr:
    tt = -2 * sympy.log(delta) - sympy.log(2 * sympy.pi)
    z0 = sqrt(tt)
    return mu * (sqrt(tt + 2 * (sympy.log(mu) - sympy.log(z0) - sympy.log(z0 + mu))) + mu / 2)


GAUSSIAN_EPSILON_TAIL_START = _epsilon_tail_start()

#: delta(epsilon') of f_{epsilon,delta}: delta for epsilon' >= epsilon, else
#: 1 - (1 - delta)(1 + e^epsilon')/(1 + e^epsilon) (the conjugate at the vertex
#: alpha = (1 - delta)/(1 + e^epsilon); derivations/d06_pure_dp_and_laplace.py).
EPS_DELTA_DUAL = Piecewise(
    (delta, epsilon_prime >= epsilon),
    (1 - (1 - delta) * (1 + exp(epsilon_prime)) / (1 + exp(epsilon)), True),
)

#: delta(epsilon') of the Laplace trade-off: 0 for epsilon' >= mu (Laplace is mu-DP), else
#: 1 - e^{(epsilon' - mu)/2} (the conjugate at the touching point alpha = e^{-(epsilon'+mu)/2}/2).
LAPLACE_DUAL = Piecewise((0, epsilon_prime >= mu), (1 - exp((epsilon_prime - mu) / 2), True))

#: f_{epsilon,delta}(alpha) = max{0, 1 - delta - e^epsilon alpha, e^-epsilon (1 - delta - alpha)}.
EPS_DELTA = Max(0, 1 - delta - exp(epsilon) * alpha, exp(-epsilon) * (1 - delta - alpha))

#: Trade-off of Laplace(0, 1) against Laplace(mu, 1) (Dong, Roth & Su 2022, Example after Prop. 2.4).
LAPLACE = Piecewise(
    (1 - exp(mu) * alpha, alpha < exp(-mu) / 2),
    (exp(-mu) / (4 * alpha), alpha <= Rational(1, 2)),
    (exp(-mu) * (1 - alpha), True),
)


#: A family's mu or epsilon, when a number other than 0, lies within 10^+-this: beyond, its curve
#: is Id or 0 to hundreds of digits, and sympy's tests of it (1/10^999999 >= 0 took 11 s) and the
#: float paths' conversions do not end or overflow.
MAX_PARAMETER_EXPONENT = 100


def _nonneg_finite(name: str, value: Any) -> sympy.Expr:
    return within_range(name, value, nonnegative(name, value))


def within_range(name: str, value: Any, v: sympy.Expr, *, probability: bool = False, zero: bool = True) -> sympy.Expr:
    """A family parameter's exact value, refused when it is a number other than 0 whose size is
    outside [10^-MAX_PARAMETER_EXPONENT, 10^MAX_PARAMETER_EXPONENT].

    Args:
        name: The argument's name, for the error.
        value: The value as the caller gave it, for the error.
        v: Its exact value (a sympy expression; a symbol or an irrational passes unchecked).
        probability: Whether ``v`` is a probability (already checked to be at most 1): the
            refusal then names the range [1e-100, 1].
        zero: Whether 0 is allowed (the refusal then says "0 or within"); False for a parameter
            that must be > 0.

    Returns:
        ``v``.

    Raises:
        InvalidParameterError: ``v`` is a rational other than 0 outside the range.

    Examples:
        >>> within_range("mu", "1e-100", sympy.Rational(1, 10**100)) == sympy.Rational(1, 10**100)
        True
        >>> within_range("mu", "1e101", sympy.Integer(10**101))
        Traceback (most recent call last):
        ...
        gdpproof.errors.InvalidParameterError: mu='1e101' must be 0 or within [1e-100, 1e100]
    """
    if v.is_Rational and v != 0:
        p, q = abs(int(v.p)), int(v.q)
        if p * 10**MAX_PARAMETER_EXPONENT < q or p > q * 10**MAX_PARAMETER_EXPONENT:
            top = "1" if probability else f"1e{MAX_PARAMETER_EXPONENT}"
            raise bad(name, value, f"must be {'0 or ' if zero else ''}within [1e-{MAX_PARAMETER_EXPONENT}, {top}]")
    return v


def gaussian(mu: Any) -> TradeOff:
    r"""G_mu, the trade-off between N(0, 1) and N(mu, 1).

    .. math:: G_\mu(\alpha) = \Phi(\Phi^{-1}(1 - \alpha) - \mu)

    Args:
        mu (real or sympy expression): mu >= 0 and finite; mu = 0 is perfect privacy (G_0(alpha) = 1 - alpha).

    References:
        Dong, Roth & Su, "Gaussian differential privacy", JRSS-B 2022, Def. 2.7.

    Examples:
        >>> import gdpproof
        >>> g = gdpproof.gaussian(1)
        >>> g
        gaussian(mu=1)
        >>> g.evaluate("0.05", digits=40)
        Certified('0.7404889771585559293516965237010599664806', digits=40, rounding='down')
        >>> g.delta(1, digits=40)
        Certified('0.1269367375066439458008296247577668804151', digits=40, rounding='up')
    """
    from .symbols import mu as MU

    m = _nonneg_finite("mu", mu)
    dual = sympy.Integer(0) if m == 0 else GAUSSIAN_DUAL.xreplace({epsilon: epsilon_prime})
    return TradeOff(GAUSSIAN, ((MU, m),), "gaussian", True, dual)


def eps_delta(epsilon: Any, delta: Any = 0) -> TradeOff:
    r"""f_{epsilon,delta}, the trade-off function of (epsilon, delta)-DP.

    .. math:: f_{\varepsilon,\delta}(\alpha) = \max\{0,\ 1 - \delta - e^\varepsilon\alpha,\
              e^{-\varepsilon}(1 - \delta - \alpha)\}

    Args:
        epsilon: real or sympy expression, epsilon >= 0 and finite.
        delta: real or sympy expression, 0 <= delta <= 1.

    References:
        Dong, Roth & Su (2022), Eq. (5); Wasserman & Zhou (2010); Kairouz, Oh & Viswanath (2015).

    Examples:
        >>> import gdpproof
        >>> gdpproof.eps_delta(1, "0.01").evaluate("0.1", digits=15)
        Certified('0.718171817154095', digits=15, rounding='down')
    """
    from .symbols import delta as D
    from .symbols import epsilon as E

    e = _nonneg_finite("epsilon", epsilon)
    d = probability("delta", delta)
    # f_{eps,delta} is symmetric for every delta (DRS, remark after Eq. (5))
    return TradeOff(EPS_DELTA, ((E, e), (D, d)), "eps_delta", True, EPS_DELTA_DUAL)


def randomized_response(epsilon: Any) -> TradeOff:
    """The trade-off of randomized response with parameter epsilon: exactly f_{epsilon,0}.

    Randomized response reports a private bit truthfully with probability e^eps / (1 + e^eps);
    its Neyman–Pearson curve is piecewise linear with one kink at alpha = 1/(1 + e^epsilon).

    Args:
        epsilon: epsilon >= 0 and finite.

    Returns:
        The :class:`TradeOff`.

    Raises:
        InvalidParameterError: epsilon is not finite and >= 0.

    Examples:
        >>> import gdpproof
        >>> gdpproof.randomized_response(1).evaluate(0, digits=5)
        Certified('1.0000', digits=5, rounding='down')
    """
    from .symbols import delta as D
    from .symbols import epsilon as E

    e = _nonneg_finite("epsilon", epsilon)
    return TradeOff(EPS_DELTA, ((E, e), (D, sympy.Integer(0))), "randomized_response", True, EPS_DELTA_DUAL)


def k_randomized_response(epsilon: Any, k: Any) -> TradeOff:
    """The trade-off of k-ary randomized response (the true value of k with probability
    e^eps/(e^eps + k - 1)): piecewise linear with two kinks, f_{eps,0} for k = 2
    (:func:`gdpproof.symbolic.losses.k_randomized_response_tradeoff`).

    >>> k_randomized_response(1, 4).delta(0, digits=12)
    Certified('0.300489181892', digits=12, rounding='up')
    """
    from .losses import k_randomized_response_tradeoff
    from .symbols import epsilon as E
    from .symbols import k as K

    e = _nonneg_finite("epsilon", epsilon)
    kk = exact("k", k, symbolic=False)
    if not (kk.is_Integer and kk >= 2):
        raise bad("k", k, "must be an integer >= 2")
    f, d = k_randomized_response_tradeoff()
    return TradeOff(f, ((E, e), (K, kk)), "k_randomized_response", True, d)


#: The most outcomes of a finite pair whose closed-form trade-off is built.
MAX_FINITE_OUTCOMES = 32


def finite_tradeoff(masses: Any) -> TradeOff:
    """The trade-off of a pair on a finite set given by exact rational masses (P(o), Q(o)): the
    piecewise-linear Neyman–Pearson curve, symmetrized when the pair is not symmetric (then its
    privacy profile is the worse of the two orderings'); see
    :func:`gdpproof.symbolic.losses.finite_pair_tradeoff`.

    >>> finite_tradeoff([(sympy.Rational(1, 2), sympy.Rational(1, 4)), (sympy.Rational(1, 2), sympy.Rational(3, 4))])
    finite()
    """
    from .losses import finite_pair_tradeoff, pair_delta

    masses = tuple(masses)
    if len(masses) > MAX_FINITE_OUTCOMES:
        raise NotSupportedError(f"a finite pair of {len(masses):,} outcomes: its closed-form trade-off is built by "
                                f"sympy, whose Max of the pieces compares them pairwise (9 s at 30 outcomes); at most "
                                f"{MAX_FINITE_OUTCOMES} here (gdpproof.account composes larger pairs exactly, route "
                                "exact-finite)")
    pairs = tuple((exact("masses", a, symbolic=False), exact("masses", b, symbolic=False)) for a, b in masses)
    sym = sorted(pairs) == sorted((b, a) for a, b in pairs)
    f = finite_pair_tradeoff(pairs, symmetrize=not sym)
    d = pair_delta(pairs)
    if not sym:
        d = sympy.Max(d, pair_delta([(b, a) for a, b in pairs]))
    return TradeOff(f, (), "finite", True, d)


def laplace(mu: Any) -> TradeOff:
    """The trade-off of Laplace(0, 1) against Laplace(mu, 1), mu >= 0.

    The Laplace mechanism with L1 sensitivity Delta and scale b has this trade-off with
    mu = Delta / b.  See Dong, Roth & Su (2022), Example after Prop. 2.4.

    Args:
        mu: mu >= 0 and finite (an exact number or a sympy expression).

    Returns:
        The :class:`TradeOff`.

    Raises:
        InvalidParameterError: mu is not finite and >= 0.

    Examples:
        >>> import gdpproof
        >>> gdpproof.laplace(1).evaluate("0.25", digits=12)
        Certified('0.367879441171', digits=12, rounding='down')
    """
    from .symbols import mu as MU

    m = _nonneg_finite("mu", mu)
    return TradeOff(LAPLACE, ((MU, m),), "laplace", True, LAPLACE_DUAL)


def identity() -> TradeOff:
    """Id(alpha) = 1 - alpha, the trade-off of perfect privacy.

    Returns:
        The :class:`TradeOff` 1 - alpha.

    Examples:
        >>> import gdpproof
        >>> gdpproof.identity().evaluate("0.25", digits=5)
        Certified('0.75000', digits=5, rounding='down')
    """
    return TradeOff(1 - alpha, (), "identity", True, sympy.Integer(0))


# -------------------------------------------------------------------------------------------
# Location families by Neyman–Pearson
# -------------------------------------------------------------------------------------------


def location_family(density: sympy.Expr, variable: sympy.Symbol | None = None, *, mu: Any = None,
                    name: str = "location_family") -> TradeOff:
    r"""T(P, Q) for P with density ``density`` and Q = P shifted by mu, by Neyman–Pearson.

    If the family has a monotone likelihood ratio (p(x - mu)/p(x) non-decreasing in x for
    mu >= 0), the most powerful tests reject for large x, so

    .. math:: T(P, Q)(\alpha) = F(F^{-1}(1 - \alpha) - \mu)

    with F the CDF of P.  F is found by sympy integration (``Abs`` and ``Piecewise``
    densities are supported) and F^{-1} by solving each piece.

    Args:
        density (sympy.Expr or str): A probability density on the real line in ``variable``.  A string is read by the
            restricted grammar of :func:`gdpproof.symbolic.parse.formula` (numbers, names, ``+ - * /
            **`` and a list of functions): nothing in it is executed, so untrusted strings are safe.
            Containers (lists, tuples, arrays, ...) are refused.
        variable (sympy.Symbol or str, optional): The density's variable; defaults to its only free symbol.
        mu (real or sympy expression, optional): The shift, mu >= 0; defaults to the symbol ``mu`` (a
            one-parameter family).
        name: The family's name in ``repr`` and messages.

    Raises:
        InvalidParameterError: The density does not integrate to 1, or its likelihood ratio is not monotone.
        SymbolicError: sympy cannot find F or F^{-1} in closed form.

    Examples:
        >>> import sympy, gdpproof
        >>> from gdpproof.symbols import x
        >>> lap = gdpproof.location_family(sympy.exp(-abs(x)) / 2, x, mu=1)
        >>> lap.evaluate("0.25", digits=12) == gdpproof.laplace(1).evaluate("0.25", digits=12)
        True
    """
    from .symbols import mu as MU

    dens = formula("density", density)  # a string is parsed, never executed
    variable = None if variable is None else formula("variable", variable)
    if variable is not None and not isinstance(variable, sympy.Symbol):
        raise InvalidParameterError(argument="variable", value=variable, rule="must be a symbol")
    if variable is None:
        free = dens.free_symbols
        if len(free) != 1:
            raise bad("variable", None, f"is ambiguous: density {dens} has free symbols {sorted(map(str, free))}; "
                      "name it")
        variable = next(iter(free))
    dens = dens.xreplace({variable: x}).rewrite(sympy.Piecewise)
    m = MU if mu is None else _nonneg_finite("mu", mu)
    cdf, inv = _cdf_and_inverse(dens)
    template = cdf.xreplace({t: inv(1 - alpha) - MU})
    template = sympy.piecewise_fold(template)
    _check_mlr(dens)
    return TradeOff(template, ((MU, m),), name, None)


@functools.lru_cache(maxsize=64)
def _cdf_and_inverse(dens: sympy.Expr) -> tuple[sympy.Expr, sympy.Lambda]:
    total = sympy.integrate(dens, (x, -sympy.oo, sympy.oo))
    if total.has(sympy.Integral) or sympy.simplify(total - 1) != 0:
        raise bad("density", dens, f"integrates to {total}, must integrate to 1")
    cdf = sympy.integrate(dens, (x, -sympy.oo, t))
    if cdf.has(sympy.Integral):
        raise SymbolicError(f"sympy could not integrate the density {dens} to a CDF")
    cdf = sympy.piecewise_fold(cdf.rewrite(sympy.Piecewise))
    q = sympy.Symbol("q", positive=True)
    pieces = cdf.args if isinstance(cdf, sympy.Piecewise) else ((cdf, sympy.true),)
    branches = []
    for expr, cond in pieces:
        expr = sympy.simplify(expr)
        interval = sympy.Interval(-sympy.oo, sympy.oo) if cond is sympy.true else cond.as_set()
        interval = interval.intersect(sympy.Interval(-sympy.oo, sympy.oo))
        for prev in branches:
            interval = interval - prev[2]
        if interval.is_empty:
            continue
        sols = sympy.solve(sympy.Eq(expr, q), t)
        lo, hi = interval.inf, interval.sup
        ref = _interior_point(lo, hi)
        qref = expr.xreplace({t: ref})
        good = [s for s in sols if s.is_real is not False and abs(sympy.N(s.xreplace({q: qref}) - ref, 30)) < 1e-20]
        if not good:
            raise SymbolicError(f"sympy could not invert the CDF piece {expr} on {interval}")
        q_hi = sympy.limit(expr, t, hi, "-") if hi is not sympy.oo else sympy.Integer(1)
        branches.append((good[0], q_hi, interval))
    branches.sort(key=lambda b: b[2].inf)  # ascending in t, hence in q = F(t)
    inv_pieces = [(b[0], q <= b[1]) for b in branches[:-1]] + [(branches[-1][0], True)]
    inverse = sympy.Lambda(q, sympy.Piecewise(*inv_pieces) if len(inv_pieces) > 1 else inv_pieces[0][0])
    return cdf, inverse


def _interior_point(lo: sympy.Expr, hi: sympy.Expr) -> sympy.Expr:
    if lo is -sympy.oo and hi is sympy.oo:
        return sympy.Integer(0)
    if lo is -sympy.oo:
        return hi - 1
    if hi is sympy.oo:
        return lo + 1
    return (lo + hi) / 2


def _check_mlr(dens: sympy.Expr) -> None:
    """Refute a non-monotone likelihood ratio at 401 points of [-10, 10] (shift 1, float64).

    A spot check, done once at construction: it can refute monotonicity, not prove it.  The
    values come from the numeric engine (this layer only builds expressions).
    """
    ratio = sympy.log(dens.xreplace({x: x - 1})) - sympy.log(dens)
    values = engines.lookup("float_values")(ratio, x, [-10 + 20 * i / 400 for i in range(401)])
    vals = [v for v in values if v is not None]
    for a, b in zip(vals, vals[1:]):
        if b < a - 1e-9 * max(1.0, abs(a)):
            raise bad("density", dens, "does not have a monotone likelihood ratio (log p(x - 1)/p(x) decreases "
                      "somewhere in [-10, 10]); the Neyman-Pearson threshold test is not optimal for it")
