"""Composition and subsampling of trade-off functions, where they are exact.

* G_{mu_1} (x) ... (x) G_{mu_n} = G_{sqrt(sum mu_i^2)} (Dong–Roth–Su Cor. 3.3): a theorem.
* f_{eps,0}^{(x) n} is the Neyman–Pearson curve of two binomials (DRS §3.1; Kairouz, Oh &
  Viswanath 2015): :func:`rr_composition`.
* f (x) f_{0,delta}(alpha) = (1 - delta) f(alpha / (1 - delta)) for alpha <= 1 - delta, else 0:
  the extra outcome of f_{0,delta} reveals the pair with probability delta and is
  uninformative otherwise.  Since f_{eps,delta} = f_{eps,0} (x) f_{0,delta}, (eps, delta)
  factors with a common eps compose exactly.
* C_p(f) = min{f_p, f_p^{-1}}**, f_p = p f + (1 - p) Id (DRS Thm 4.2): :func:`subsample`.

Anything else raises :class:`~gdpproof.errors.NotSupportedError`; gdpproof never returns an
approximate composition dressed as an exact one.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy
from sympy import Piecewise, sqrt

from .._args import nonnegative, positive_integer, probability
from ..errors import bad
from ..errors import NotSupportedError, SymbolicError
from ..text import show
from .special import fold, implicit_inverse, rr_composed, rr_composed_delta
from .symbols import Phi, alpha, delta, epsilon, epsilon_prime, mu, n, p, t
from .tradeoff import TradeOff, eps_delta, gaussian, identity, randomized_response, within_range

__all__ = ["compose", "self_compose", "rr_composition", "subsample", "with_delta"]

#: The n-fold randomized-response trade-off, in n, epsilon and alpha.
RR_COMPOSITION = rr_composed(n, epsilon, alpha)
#: Its delta(epsilon') profile.
RR_COMPOSITION_DUAL = rr_composed_delta(n, epsilon, epsilon_prime)


def rr_composition(epsilon: Any, n: Any) -> TradeOff:
    r"""f_{eps,0}^{(x) n}: n-fold randomized response (equivalently n epsilon-DP mechanisms), exactly.

    The trade-off between Binomial(n, e^eps/(1+e^eps)) and Binomial(n, 1/(1+e^eps)), a
    piecewise-linear curve with n + 1 segments; values are certified through the regularized
    incomplete beta function, so n = 10^5 costs a few special-function calls.

    Args:
        epsilon: real, epsilon >= 0
        n: int, n >= 1

    References:
        Dong, Roth & Su (2022), §3.1 (the binomial form); Kairouz, Oh & Viswanath (2015).

    Examples:
        >>> import gdpproof
        >>> f = gdpproof.rr_composition("0.1", 100)
        >>> f.evaluate("0.05", digits=15)
        Certified('0.741215622710327', digits=15, rounding='down')
        >>> gdpproof.rr_composition(1, 1).evaluate("0.1", digits=15) == gdpproof.randomized_response(1).evaluate("0.1", digits=15)
        True
    """
    from .symbols import epsilon as E
    from .symbols import n as N

    e = within_range("epsilon", epsilon, nonnegative("epsilon", epsilon))
    k = positive_integer("n", n)
    if k > MAX_RR_N:
        raise bad("n", n, f"must be at most 10^12 (got {show(k)})")
    return TradeOff(RR_COMPOSITION, ((E, e), (N, sympy.Integer(k))), "rr_composition", True, RR_COMPOSITION_DUAL)


#: The largest n for n-fold randomized response (the float path sizes arrays by n below 10^7 and
#: SciPy's binomial functions need n to fit a C long).
MAX_RR_N = 10**12


def is_identity(f: TradeOff) -> bool:
    """True when f is Id by its parameters (mu = 0, eps = 0 with delta = 0, or identity())."""
    par = f.parameters
    zero = sympy.Integer(0)
    if f.name == "identity":
        return True
    if f.name in ("gaussian", "laplace", "subsampled_gaussian"):
        return par["mu"] == zero
    if f.name in ("randomized_response", "eps_delta", "rr_composition"):
        return par["epsilon"] == zero and par.get("delta", zero) == zero
    return False


def with_delta(f: TradeOff, delta_: Any) -> TradeOff:
    """f (x) f_{0,delta}: (1 - delta) f(alpha/(1 - delta)) on [0, 1 - delta], 0 after.

    Its delta profile is delta + (1 - delta) delta_f(epsilon).

    Args:
        f: The trade-off function.
        delta_: delta, in [0, 1].

    Returns:
        The :class:`~gdpproof.TradeOff`.

    Examples:
        >>> import gdpproof
        >>> g = gdpproof.with_delta(gdpproof.gaussian(1), "0.01")
        >>> g, g.evaluate("0.5", digits=10)
        (gaussian_with_delta(mu=1, delta=1/100), Certified('0.1540551638', digits=10, rounding='down'))
    """
    d = probability("delta", delta_)
    if d == 0:
        return f
    if d == 1:
        return eps_delta(0, 1)
    if f.name == "identity":
        return eps_delta(0, d)
    if f.name == "randomized_response":
        return eps_delta(f.parameters["epsilon"], d)
    if any(s == delta for s, _ in f.params):
        raise NotSupportedError(f"{f!r} already has a delta parameter; compose its factors instead")
    template = Piecewise(((1 - delta) * f.template.xreplace({alpha: alpha / (1 - delta)}), alpha <= 1 - delta),
                         (0, True))
    dual = None if f.dual_template is None else delta + (1 - delta) * f.dual_template
    return TradeOff(template, (*f.params, (delta, d)), f"{f.name}_with_delta", f.symmetric, dual)


def _decompose(f: TradeOff) -> tuple[str, Any, sympy.Expr]:
    """(kind, data, delta) with f = core (x) f_{0,delta}."""
    if not isinstance(f, TradeOff):
        raise bad("f", f, "must be a TradeOff")
    par = f.parameters
    d = par.get("delta", sympy.Integer(0))
    base = f.name.removesuffix("_with_delta")
    if f.name == "identity":
        return "id", None, d
    if base in ("eps_delta", "randomized_response"):
        if par["epsilon"] == 0:
            return "id", None, d
        return "rr", (par["epsilon"], 1), d
    if base == "rr_composition":
        if par["epsilon"] == 0:
            return "id", None, d
        return "rr", (par["epsilon"], int(par["n"])), d
    if base == "gaussian":
        if par["mu"] == 0:
            return "id", None, d
        return "gdp", par["mu"], d
    return "other", f, sympy.Integer(0)


def _same(a: sympy.Expr, b: sympy.Expr) -> bool:
    return a == b or sympy.simplify(a - b) == 0


def compose(*fs: TradeOff) -> TradeOff:
    r"""The composition f_1 (x) ... (x) f_n, when gdpproof knows it exactly.

    Exact cases:

    * all Gaussian: G_{sqrt(sum mu_i^2)} (a theorem, not a limit; symbolic parameters allowed);
    * randomized response / (eps, delta)-DP with one common eps: :func:`rr_composition`
      combined with f_{0, 1 - prod(1 - delta_i)};
    * factors f_{0,delta} (and the identity) combined with any single exactly known factor.

    Other combinations raise :class:`~gdpproof.errors.NotSupportedError` (use the
    Berry–Esseen band of :func:`gdpproof.berry_esseen` for an approximation with a bound).

    Examples:
        >>> import gdpproof
        >>> gdpproof.compose(gdpproof.gaussian(1), gdpproof.gaussian(2))
        gaussian(mu=sqrt(5))
        >>> gdpproof.compose(gdpproof.randomized_response(1), gdpproof.randomized_response(1))
        rr_composition(epsilon=1, n=2)
    """
    if not fs:
        raise bad("fs", (), "must contain at least one trade-off function")
    if len(fs) == 1 and isinstance(fs[0], (list, tuple)):
        fs = tuple(fs[0])
    parts = [_decompose(f) for f in fs]
    keep = 1 - sympy.Integer(0)
    for _, _, d in parts:
        keep = keep * (1 - d)
    total_delta = sympy.simplify(1 - keep) if keep.free_symbols else 1 - keep
    cores = [(k, data) for k, data, _ in parts if k != "id"]
    kinds = {k for k, _ in cores}
    if not cores:
        core: TradeOff = identity()
    elif kinds == {"gdp"}:
        core = gaussian(_root_sum_of_squares([m for _, m in cores]))
    elif kinds == {"rr"}:
        e0 = cores[0][1][0]
        if not all(_same(data[0], e0) for _, data in cores):
            raise NotSupportedError(
                "composition of randomized response / (eps, delta)-DP with different epsilons is not supported "
                "yet (no exact method here): describe the mechanisms with gdpproof's mechanism values and call "
                "gdpproof.account() for a proven answer; berry_esseen() gives the CLT approximation"
            )
        k = sum(data[1] for _, data in cores)
        core = randomized_response(e0) if k == 1 else rr_composition(e0, k)
    elif kinds == {"other"} and len(cores) == 1:
        core = cores[0][1]
    else:
        names = ", ".join(repr(f) for f in fs)
        raise NotSupportedError(
            f"exact composition of {names} is not supported yet: gdpproof composes Gaussian with Gaussian, "
            "randomized response with a common epsilon, and f_(0,delta) with anything exactly: describe the "
            "mechanisms with gdpproof's mechanism values (GaussianMechanism, LaplaceMechanism, Composed, ...) and "
            "call gdpproof.account() for a proven answer; berry_esseen() gives the CLT approximation"
        )
    return with_delta(core, total_delta)


def self_compose(f: TradeOff, n_: Any) -> TradeOff:
    """f composed with itself n times (see :func:`compose` for the exact cases).

    Args:
        f: The trade-off function.
        n_: n, a positive integer (at most 10^12).

    Returns:
        The :class:`~gdpproof.TradeOff` of the n-fold composition.

    Raises:
        NotSupportedError: No exact n-fold curve is known for f.

    Examples:
        >>> import gdpproof
        >>> gdpproof.self_compose(gdpproof.gaussian("0.5"), 16)
        gaussian(mu=2)
    """
    k = positive_integer("n", n_)
    kind, data, d = _decompose(f)
    if d != 0 and d.is_Rational and k * int(sympy.Rational(d).q).bit_length() > 10**6:
        raise NotSupportedError(
            f"the exact {k}-fold composition of {f!r} holds (1 - delta)^{k}, a rational with millions of digits: "
            f"gdpproof.account(Repeated(EpsDelta(...), {k})) evaluates it in ball arithmetic")
    keep = (1 - d) ** k
    if kind == "gdp":
        core = gaussian(data * sqrt(k))
    elif kind == "rr":
        core = rr_composition(data[0], data[1] * k) if data[1] * k > 1 else randomized_response(data[0])
    elif kind == "id":
        core = identity()
    elif k == 1:
        return f
    else:
        raise NotSupportedError(
            f"exact {k}-fold composition of {f!r} is not supported yet: gdpproof.account(Repeated(mechanism, {k})) "
            "gives a proven answer; berry_esseen() gives the CLT approximation"
        )
    return with_delta(core, 1 - keep)


# -------------------------------------------------------------------------------------------
# Subsampling
# -------------------------------------------------------------------------------------------


def _slope_point(f: TradeOff) -> sympy.Expr:
    """x* = inf{x : -1 in the subdifferential of f at x}, for symmetric f with f(0) = 1."""
    if f.name == "gaussian":
        return Phi(-mu / 2)
    if f.name == "gaussian_with_delta":  # the slope of (1 - delta) G(alpha/(1 - delta)) is G'(alpha/(1 - delta))
        return (1 - delta) * Phi(-mu / 2)
    from .duality import xbar

    try:
        if not f.template.free_symbols - {alpha} - {s for s, _ in f.params}:
            xb = xbar(TradeOff(f.expr, (), f.name, f.symmetric))
            if xb.is_number:
                return xb
    except (SymbolicError, NotImplementedError, TypeError, ValueError):
        pass
    # -f' is non-increasing (f convex): x* = inf{t : -f'(t) <= 1}
    from .duality import piecewise_form

    slope = -sympy.diff(piecewise_form(f.template), alpha).xreplace({alpha: t})
    return implicit_inverse(sympy.Lambda(t, slope), 1)


def _number(value: sympy.Expr) -> sympy.Expr:
    """A numeric expression with its Max/Min/Piecewise decided (ties by exact simplification).

    sympy leaves Max(a, b) unevaluated when a and b are equal irrational numbers it cannot
    compare; such a Max inside a Piecewise condition later breaks sympy's own rewriting.
    """
    from .duality import piecewise_form

    value = piecewise_form(value)
    if isinstance(value, Piecewise):
        for expr, cond in value.args:
            verdict = cond if cond in (sympy.true, sympy.false) else sympy.simplify(cond)
            if verdict is sympy.true:
                return _number(expr)
            if verdict is not sympy.false:
                raise SymbolicError(f"cannot decide the condition {cond} of {value}")
    if value.has(Piecewise):
        raise SymbolicError(f"cannot reduce {value} to a number")
    return value


def subsample(f: TradeOff, p_: Any) -> TradeOff:
    r"""C_p(f): the trade-off guaranteed after Poisson subsampling with probability p.

    Sampling each record with probability p turns an f-DP mechanism into a C_p(f)-DP one,
    C_p(f) = min{f_p, f_p^{-1}}** with f_p = p f + (1 - p) Id (Dong–Roth–Su Thm 4.2).  For
    symmetric f with f(0) = 1 it is f_p on [0, x*], the line x* + f_p(x*) - alpha on
    [x*, f_p(x*)] and f_p^{-1} after, where f'(x*) = -1; for G_mu, x* = Phi(-mu/2).  The
    inverse piece is an :class:`~gdpproof.symbolic.special.implicit_inverse`, evaluated to
    certified digits by ball arithmetic.  For f_{eps,delta} this is tighter than the classical
    amplification to f_{eps', p delta}, eps' = log(1 - p + p e^eps), which lies below it.
    Non-symmetric piecewise-linear f get the exact envelope (the lower convex hull of the
    vertices of f_p and f_p^{-1}).  Curved non-symmetric f (numeric parameters) get the
    envelope as a :class:`~gdpproof.symbolic.special.symmetrized` node: its values are
    certified (rounded down) between a supporting line of the conjugate and values and chords
    of min{f_p, f_p^{-1}} (:mod:`gdpproof.numeric.tradeoff.envelope`); ``delta`` uses the conjugates of
    f_p and f_p^{-1} (exact, rounded up); ``evaluate_fast``, ``evaluate_mpmath`` and
    :func:`~gdpproof.check_tradeoff` work; the CLT functionals (``kl``, ``kappa2``, ...) are
    refused with NotSupportedError (log|C'| has kinks where the bridging segments meet the
    curves, and quadrature over an envelope solved pointwise is neither fast nor certified).
    For non-symmetric f, p = 1 gives min{f, f^{-1}}** (:func:`gdpproof.symbolic.duality.symmetrize`),
    not f: a one-sided guarantee covers only one order of the neighbours.

    Args:
        f (TradeOff): The trade-off of one run on the whole data set.
        p_: The sampling probability p, in [0, 1].

    Examples:
        >>> import gdpproof
        >>> c = gdpproof.subsample(gdpproof.gaussian(1), "0.1")
        >>> c
        subsampled_gaussian(mu=1, p=1/10)
        >>> c.evaluate("0.5", digits=15)
        Certified('0.461707507745197', digits=15, rounding='down')
        >>> rr = gdpproof.subsample(gdpproof.randomized_response(1), "0.5")
        >>> rr.evaluate("0.4", digits=10)  # the classical f_{eps',0} gives 0.3227...
        Certified('0.3689414213', digits=10, rounding='down')
    """
    if not isinstance(f, TradeOff):
        raise bad("f", f, "must be a TradeOff")
    q = within_range("p", p_, probability("p", p_), probability=True)
    if q == 0:
        return identity()
    if q == 1 and f.symmetric:
        return f
    if is_identity(f):
        return identity()
    head = fold(f.expr.xreplace({alpha: sympy.Integer(0)}))
    if isinstance(head, Piecewise):
        head = head.doit()
    # only the Gaussian curves keep their parameters symbolic (their x* is a formula in mu);
    # for the others x* is found for the given numbers, so the numbers are folded in
    keep = f.name in ("gaussian", "gaussian_with_delta") and not any(s == p for s, _ in f.params)
    template = f.template if keep else f.expr
    params = tuple(f.params) if keep else ()
    from .duality import piecewise_form

    # Max/Min as Piecewise before anything is wrapped in a Lambda (its derivative must be
    # piecewise, not a Heaviside expression)
    original = template
    template = piecewise_form(template)
    fp = p * template + (1 - p) * (1 - alpha)
    if f.symmetric:
        base = TradeOff(template, params, f.name, True)
        xs = _slope_point(base)
        # G_mu(x*) = x* (the slope -1 point of a symmetric curve with a unique such point), and
        # with a delta factor f(x*) = (1 - delta) Phi(-mu/2) = x*
        if f.name in ("gaussian", "gaussian_with_delta"):
            fpx = p * xs + (1 - p) * (1 - xs)
        else:
            fpx = p * _number(original.xreplace({alpha: xs})) + (1 - p) * (1 - xs)
        inv = implicit_inverse(sympy.Lambda(t, fp.xreplace({alpha: t})), alpha)
        cp = Piecewise((fp, alpha <= xs), (xs + fpx - alpha, alpha <= fpx), (inv, True))
        label = f"subsampled_{f.name}" if keep else f"subsampled_{f!r}"
        return TradeOff(cp, (*params, (p, q)), label, True)
    from .duality import is_piecewise_linear, envelope, symmetrize

    fpn = TradeOff(fp.xreplace({p: q, **dict(params)}), (), f"{f.name}_p", None)
    if is_piecewise_linear(fpn):
        return TradeOff(symmetrize(fpn).expr, (), f"subsampled_{f.name}", True)
    # f_p(t) >= (1 - p)(1 - t) > 0 for t < 1 when p < 1, so f_p^{-1}(0) = 1 >= f_p(0) = C_p(f)(0)
    fp0 = q * head + 1 - q
    at_zero = fp0 if q < 1 and fp0.is_number else None
    return envelope(fpn, at_zero=at_zero, name=f"subsampled_{f.name}" if q < 1 else f"symmetrize({f!r})")


#: The exact GDP composition takes sqrt(sum mu_i^2) of rationals up to this many bits.
MAX_GDP_SQUARE_BITS = 8192


def _root_sum_of_squares(mus: list[sympy.Expr]) -> sympy.Expr:
    """sqrt(sum mu_i^2) (:func:`root_of_sum`)."""
    return root_of_sum([m**2 for m in mus])


def root_of_sum(terms: list[sympy.Expr]) -> sympy.Expr:
    """sqrt(sum of ``terms``), the rational terms summed pairwise in Fractions (20,000 rationals
    of different denominators summed one by one in sympy took minutes); refused quickly when the
    sum is a rational of more than MAX_GDP_SQUARE_BITS bits (mu = 1 and 1e-10000): sympy's square
    root and every later exact test of it look for perfect-power factors, which takes minutes."""
    rational = [Fraction(int(t.p), int(t.q)) for t in terms if t.is_Rational]
    while len(rational) > 1:
        rational = [sum(rational[i:i + 2]) for i in range(0, len(rational), 2)]
    total = sum((t for t in terms if not t.is_Rational), sympy.Integer(0))
    if rational:
        total += sympy.Rational(rational[0].numerator, rational[0].denominator)
    if total.is_Rational and max(abs(int(total.p)).bit_length(), int(total.q).bit_length()) > MAX_GDP_SQUARE_BITS:
        raise NotSupportedError(
            f"the exact composed mu is the square root of a rational of more than {MAX_GDP_SQUARE_BITS:,} bits (the "
            f"sum of {len(terms):,} squares); give the mu values with fewer digits, or fewer distinct ones (a mu below "
            "1e-1000 next to mu = 1 changes nothing at 1000 digits)")
    return sqrt(total)
