r"""The one door: the privacy of any mechanism value, by the strongest route that applies.

:func:`account` takes a mechanism value (:mod:`gdpproof.mechanisms`) and either ``delta`` (then it
reports epsilon) or ``epsilon`` (then it reports delta), by the strongest route that applies:
``exact`` (a closed form, certified digits), ``exact-finite`` (finitely supported losses composed
exactly: :mod:`gdpproof.accounting.finite`) or ``bracket`` (numerical composition with a proven
bracket of relative width ``rel_width``: :mod:`gdpproof.accounting.compose`); ``route=`` forces
one.  A reported epsilon or delta is rounded up, a bracket's lower end down; for DP-SGD the CLT
is reported beside the answer, labelled as an approximation.

What each route covers: ``docs/guides/account.md``; what each proves and assumes:
``docs/proofs/index.md``.
"""

from __future__ import annotations

import functools
import math
import warnings
from fractions import Fraction
from typing import Any

from ..errors import bad
from ..errors import (
    MISSING,
    InvalidParameterError,
    NotSupportedError,
    PrecisionError,
    WidthNotReachedWarning,
)
from ..text import given_text, show
from ..mechanisms import (
    DiscreteGaussianMechanism,
    Mechanism,
)
from ..numeric.engine.bound import Bound, directed_double
from .._args import checked, is_sympy
from ..numeric.engine.certified import Certified, certify_fraction, check_request
from ..numeric.tradeoff.profile import epsilon_from_profile
from ..numeric.tradeoff.solve import delta_from_epsilon, epsilon_from_delta

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sympy

    from ..symbolic.tradeoff import TradeOff
    from .composed import ComposedLoss
    from .losses import PrivacyLoss

# The engine (composed, search, the discretizations, dpsgd) is imported where a route needs it, so
# that a closed-form account does not load it.
from .checks import check_refinement
from .result import lower_neighbour, BRACKET_DIGITS, ROUTES, Account, CLTApproximation, pair_tight
from .translate import (
    exact_ordering,
    finite_pairs,
    privacy_losses,
    single_discrete_gaussian,
)

__all__ = ["account", "Account", "CLTApproximation", "ROUTES"]

#: The most distinct mechanisms (leaves) account() composes, and the most distinct privacy losses
#: the bracket route discretizes.
MAX_LEAVES, MAX_BRACKET_LOSSES = 1000, 256


#: How the exact route accounts one discrete Gaussian mechanism.
DG_NOTE = ("discrete Gaussian: delta(eps) = sum over the integers x of (P(x) - e^eps Q(x))_+, a finite sum in "
           "ball arithmetic plus a proven geometric tail bound (derivations/d14)")


@functools.cache
def _finite() -> Any:
    """The exact-finite route's functions (sympy: loaded when a finite mechanism is accounted),
    gathered on the first call and kept."""
    from types import SimpleNamespace

    from .finite import (
        MAX_ATOMS,
        atom_count,
        finite_delta,
        infinite_mass_bounds,
        infinite_mass_lower,
        pairs_delta,
        pairs_infinite_mass,
        pairs_table_size,
    )

    return SimpleNamespace(MAX_ATOMS=MAX_ATOMS, atom_count=atom_count, finite_delta=finite_delta,
                           infinite_mass_bounds=infinite_mass_bounds, infinite_mass_lower=infinite_mass_lower,
                           pairs_delta=pairs_delta, pairs_infinite_mass=pairs_infinite_mass,
                           pairs_table_size=pairs_table_size)


def _exact_discrete_gaussian(leaf: DiscreteGaussianMechanism, given: str, value: sympy.Expr, digits: int) -> Certified:
    """One discrete Gaussian: delta(eps) is a sum over the integers, certified in ball arithmetic
    with a proven tail (:func:`~gdpproof.accounting.discrete.discrete_gaussian_delta`); eps(delta) by
    the monotone solve (no infinite loss: delta(eps) > 0 at every eps, with floor 0)."""
    from .discrete import discrete_gaussian_delta

    return _by_profile(lambda e, d: discrete_gaussian_delta(leaf.sigma, leaf.sensitivity, e, digits=d),
                       lambda: Fraction(0), given, value, digits)


def _certified_mu(mu: Any, digits: int) -> Certified:
    if isinstance(mu, Fraction):
        return certify_fraction(mu, digits=digits, rounding="up")
    from ..numeric.engine.certify import certify  # an irrational mu (sqrt(3)/2): sympy's

    return certify(mu, (), (), digits=digits, rounding="up", what="mu")


def _exact(m: Mechanism, f: TradeOff | None, given: str, value: sympy.Expr, digits: int) -> tuple[Any, Certified | None]:
    mu = m.gdp_mu()
    mu_c = None if mu is None else _certified_mu(mu, digits)
    if given == "epsilon":
        if f is None and isinstance(mu, Fraction) and mu > 0 and isinstance(value, Fraction):
            return delta_from_epsilon(mu, value, digits=digits), mu_c  # the certified conversion: no curve
        return (m.closed_form() if f is None else f).delta(value, digits=digits), mu_c
    target = value
    if mu is not None:
        # mu-GDP: the certified solver of convert (T runs of sigma: mu = sqrt(T)/sigma, bracketed
        # by rationals); the profile search below took minutes at T = 10^9 (its deltas there are
        # decimals of millions of digits)
        return epsilon_from_delta(mu, target, digits=digits), mu_c
    # delta(eps) >= 1 - f(0) at every eps: when that is >= delta, no eps works (proven).  G_mu(0) = 1
    # for every finite mu, known without evaluating it: the ball of Phi(Phi^-1(1) - mu) is not
    # finite, and a mu of many digits (800 Gaussians of different sigma) gets no exact attempt
    f0 = Fraction(1) if mu is not None and mu.is_finite else f.evaluate(0, digits=20, rounding="up").to_fraction()
    return epsilon_from_profile(lambda x, d: f.delta(x, digits=d), target, digits=digits, floor=1 - f0), mu_c


def _by_profile(delta_at: Any, floor: Any, given: str, value: sympy.Expr, digits: int) -> Certified:
    """delta at ``value`` (``delta_at(eps, digits)``), or the smallest eps with delta(eps) <= value
    (``floor()`` a proven lower bound on delta at every eps)."""
    if given == "epsilon":
        return delta_at(value, digits)
    target = value
    import sympy  # the finite and discrete profiles take sympy numbers

    return epsilon_from_profile(lambda x, d: delta_at(sympy.Rational(x.numerator, x.denominator), d), target,
                                digits=digits, floor=floor())


def _exact_finite(groups: list, given: str, value: sympy.Expr, digits: int) -> Certified:
    return _by_profile(lambda e, d: _finite().finite_delta(groups, e, digits=d), lambda: _finite().infinite_mass_lower(groups),
                       given, value, digits)


def _exact_pairs(leaves: list, given: str, value: sympy.Expr, digits: int) -> Certified:
    return _by_profile(lambda e, d: _finite().pairs_delta(leaves, e, digits=d), lambda: _finite().pairs_infinite_mass(leaves),
                       given, value, digits)


def _bracket(parts: list[tuple[PrivacyLoss, int]], revealing: list, given: str, value: sympy.Expr,
             rel_width: float, width_notes: bool = True,
             negated: bool = False) -> tuple[Bound, ComposedLoss | None, list[str]]:
    """The bracket route: the proven bracket of the composition, with the given delta or epsilon
    rounded to doubles on each end's safe side, and the mass of infinite loss of (eps, delta)
    leaves folded in: delta(eps) = delta_inf + (1 - delta_inf) delta_finite(eps).  Without
    ``width_notes`` the notes say nothing of the bracket's width (the caller maps it on); with
    ``negated`` the epsilon given is -eps of the caller's (its notes say so)."""
    from .composed import largest_losses
    from .exact_lattice import ROUTE as EXACT_ROUTE
    from .search import delta_at, delta_search, epsilon_search

    notes = []
    cap: float | None = max(largest_losses(parts))  # no output's loss exceeds it, in either ordering
    if math.isinf(cap):
        cap = None  # some loss is unbounded (a Gaussian part): no cap
    v, v_hi = enclosure(value)
    if v != v_hi:
        notes.append(f"epsilon = {value} is irrational: the bracket is taken between rationals around it (the upper "
                     "end of delta at the one below, the lower end at the one above), so it holds for the exact value")
    inf_lo = inf_hi = Fraction(0)
    if revealing:
        inf_lo, inf_hi = _finite().infinite_mass_bounds(revealing)
        notes.append("(eps, delta) mechanisms reveal the data with probability delta: delta(eps) = delta_inf + "
                     "(1 - delta_inf) delta_rest(eps), delta_inf = 1 - prod (1 - delta_i)")
    if given == "delta":
        if inf_lo >= v:
            return Bound(math.inf, math.inf), None, notes + ["delta is at most the probability of revealing the data"]
        # targets for the rest: rounded down for the upper end of eps, up for the lower end
        t_down = (v - inf_hi) / (1 - inf_hi)
        t_up = (v - inf_lo) / (1 - inf_lo)
        if t_down <= 0:
            raise PrecisionError(f"delta={float(v):.6g} is too close to the probability of revealing the data "
                                 f"({float(inf_hi):.6g}) to bracket epsilon")
        if not parts:
            return Bound(0.0, 0.0), None, notes
        # the target is exact (a Fraction): the float route rounds it to doubles on each end's safe
        # side, the exact integer route (taken for small delta) compares with it exactly
        b, comp = epsilon_search(parts, t_down, rel_width)
        lower = b.lower
        if t_up != t_down:
            at = t_up if comp.route == EXACT_ROUTE else min(directed_double(t_up, up=True), math.nextafter(1.0, 0.0))
            lower = comp.epsilon(at, ends="lower").lower
        if cap is not None and b.upper >= cap:
            if lower > cap:
                raise RuntimeError(f"a bug: the lower end {lower!r} of epsilon exceeds the largest privacy loss {cap!r}")
            notes.append(f"the upper end is the largest privacy loss, L_max <= {_cap_text(cap)} ({LARGEST_LOSS}): "
                         "delta(eps) = E[(1 - e^(eps - L))_+] = 0 at every eps >= L_max, so eps <= L_max at every delta")
        return Bound(min(lower, b.upper), b.upper), comp, notes + route_notes(comp, width_notes)
    if not parts or cap is not None and v >= cap:
        lo, hi = Fraction(0), Fraction(0)
        comp = None
        if parts:
            beyond = (f"is at least the largest privacy loss, L_max <= {_cap_text(cap)} ({LARGEST_LOSS}), which no "
                      "output exceeds")
            at = f"-eps = {given_text(value)}" if negated else f"eps = {given_text(value)}"
            notes.append(f"delta{'(-eps)' if negated else ''} = 0: {at} {beyond}" if not revealing else
                         f"delta_rest({'-eps' if negated else 'eps'}) = 0: {at} {beyond} where the data is not "
                         f"revealed; so delta{'(-eps)' if negated else ''} = delta_inf")
    else:
        # beyond 1e300 delta is bracketed at 1e300 (delta does not increase with eps, so the upper end
        # holds), and its lower end is 0
        _, comp = delta_search(parts, directed_double(min(v, Fraction(10**300)), up=False), rel_width)
        b = delta_at(comp, v, v_hi)
        lo, hi = Fraction(b.lower), Fraction(b.upper)
        if width_notes:
            notes.extend(zero_lower_note(comp, b))
    total_lo = inf_lo + (1 - inf_lo) * lo
    total_hi = min(Fraction(1), inf_hi + (1 - inf_hi) * hi)
    low, high = directed_double(total_lo, up=False), directed_double(total_hi, up=True)
    return Bound(min(low, high), high), comp, notes + ([] if comp is None else route_notes(comp, width_notes))


#: What the largest privacy loss of a composition is (its proof: docs/proofs/losses.md).
LARGEST_LOSS = "each part's largest loss times its runs, summed; the larger of the two orderings'"


def _cap_text(cap: float) -> str:
    from ..text import significant_text

    return significant_text(Fraction(cap), "up", 6)


def enclosure(value: sympy.Expr) -> tuple[Fraction, Fraction]:
    """Rationals lo <= value <= hi: the value itself twice when rational, else the ends of its ball
    at 256 bits (an irrational epsilon such as log(3); every double between is resolved)."""
    from ..numeric.engine._mp import rational_enclosure

    if not isinstance(value, Fraction):
        from ..numeric.engine import compiler  # noqa: F401 - registers the evaluator of constants

    return rational_enclosure(value)


def zero_lower_note(comp: ComposedLoss, b: Bound) -> list[str]:
    """The note for a delta bracket [0, upper]: the upper end is the answer."""
    if b.lower == 0 and b.upper > 0:
        return [f"the lower end of delta is 0 (delta may be 0 at this epsilon, or below what the bracket "
                f"resolves, about {comp.delta_floor():.2g}): the relative width does not apply, the upper "
                "end is the proven answer"]
    return []


def route_notes(comp: ComposedLoss, width_notes: bool = True) -> list[str]:
    """How the bracket was composed, and whether it reached the relative width asked."""
    how = {"pairs": ", pairs discretization: dominating and dominated grid masses",
           "tilted pairs": ", pairs discretization under an exponential tilt: dominating and dominated grid "
                           "masses composed tilted toward the tail, their FFT error relative to delta"}.get(
        getattr(comp, "discretization", ""), "")
    notes = [f"composed on the {comp.route}{how}"
             + (f" (assumes: {'; '.join(comp.assumptions)})" if comp.assumptions else " (no float assumption)")]
    if width_notes and not comp.target_met:
        notes.append(_width_note(comp))
    return notes


def _width_note(comp: ComposedLoss) -> str:
    return (f"the relative width asked ({comp.rel_width_asked:g}) was not reached: the bracket is proven "
            f"but {comp.rel_width_reached:.3g} wide (best effort)")


def _negative_epsilon_bracket(parts: list[tuple[PrivacyLoss, int]], revealing: list, value: sympy.Expr,
                              rel_width: float) -> tuple[Bound, ComposedLoss | None, list[str]]:
    """The bracket on delta(eps) at eps < 0 from the one at -eps (the hockey-stick identity).

    The width asked and reached are those of the bracket reported, at eps: the one at -eps may
    be one-sided ([0, upper]) or wide where the one at eps is narrow (its lower end is at least
    1 - e^eps), so its notes, warning and ``target_met`` are not passed on as they are."""
    from ..numeric.tradeoff.duality import delta_bracket_at_negative

    eps = value
    # delta(eps) >= 1 - e^eps, and a width w at -eps is e^eps w at eps: the bracket at -eps needs
    # only *absolute* accuracy (a tiny delta(-eps) need not be resolved relatively).  A first pass
    # at the loosest relative width; a second only if its width at eps misses the target, at the
    # relative width at -eps that the first pass's ends show to be enough.
    asked = 10.0
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", WidthNotReachedWarning)
            at_minus, comp, notes = _bracket(parts, revealing, "epsilon", -value, asked, width_notes=False,
                                             negated=True)
        for w in caught:
            if not issubclass(w.category, WidthNotReachedWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        b = delta_bracket_at_negative(at_minus, eps)
        if b.upper == 0 or b.width <= rel_width * b.upper or at_minus.upper == 0:
            break
        # relative width needed at -eps: rel_width delta(eps) / (e^eps delta(-eps)), bounded below
        # with delta(eps) >= b.lower and delta(-eps) <= at_minus.upper
        g = math.exp(float(eps))
        needed = rel_width * b.lower / (g * at_minus.upper)
        if needed >= asked:
            break
        asked = min(10.0, max(1e-4, needed * 0.9))
    notes.append("epsilon < 0: delta(eps) = 1 - e^eps + e^eps delta(-eps) (the hockey-stick identity "
                 "H_g(P||Q) = 1 - g + g H_(1/g)(Q||P), orderings swapped), from the bracket "
                 f"[{at_minus.lower:.6g}, {at_minus.upper:.6g}] at -eps")
    if comp is not None:
        reached = b.width / b.upper if b.upper > 0 else 0.0
        comp.rel_width_reached, comp.target_met = reached, reached <= rel_width
        if not comp.target_met:
            notes.append(_width_note(comp))
            warnings.warn(WidthNotReachedWarning(f"delta at epsilon={show(value)}: reached a relative width of "
                                                 f"{reached:.3g}, asked {rel_width:g}; the bracket {b} is proven, "
                                                 "only wider"), stacklevel=3)
    return b, comp, notes


def clt_formula(m: Mechanism) -> str:
    """Which CLT of :func:`~gdpproof.accounting.dpsgd.dpsgd_mu` belongs to a DP-SGD value: the CLT of
    its dominating pair composed.  Add/remove (Poisson, or fixed-size batches with rate B/N): the
    pair (q P + (1 - q) Q, Q), Bu, Dong, Long & Su (2020), ``"poisson"``; replace-one: the pair of
    C_q(G_mu), Dong, Roth & Su (2022) §5 (their SGD samples without replacement under replace-one),
    ``"uniform"`` (for Poisson sampling that pair is an upper bound, and so is its CLT's target).

    Args:
        m: A DP-SGD mechanism value.

    Returns:
        ``"poisson"`` or ``"uniform"``.

    Examples:
        >>> from gdpproof.mechanisms import dpsgd
        >>> clt_formula(dpsgd(1, "0.01", 100)), clt_formula(dpsgd(1, "0.01", 100, sampling="fixed-batch"))
        ('poisson', 'uniform')
    """
    scheme = m.sampling()
    return "uniform" if scheme is not None and scheme[1] == "replace-one" else "poisson"


def _dpsgd_clt(m: Mechanism, given: str, value: sympy.Expr, digits: int, result: Any) -> CLTApproximation | None:
    params = m.dpsgd_parameters()
    if params is None:
        return None
    from .dpsgd import clt_account, float_certified, verdict_of_clt

    sigma, rate, steps = params
    formula = clt_formula(m)
    if given == "delta":
        acc = clt_account(sigma, rate, steps, formula, value, digits=digits, gamma=False, exact=False)
        verdict = None
        if isinstance(result, Bound) and math.isfinite(result.upper):
            lo = float_certified(result.lower, digits, "down")
            hi = float_certified(result.upper, digits, "up")
            verdict = _for_the_pair(m, verdict_of_clt(sigma, rate, steps, formula, value, lo, hi))
        return CLTApproximation(acc.mu_clt, epsilon=acc.eps_clt, verdict=verdict, run=(sigma, rate, steps, formula))
    acc = clt_account(sigma, rate, steps, formula, None, digits=digits, gamma=False, exact=False)
    from ..symbolic.tradeoff import gaussian

    d_clt = gaussian(acc.mu_clt.to_fraction()).delta(value, digits=digits)
    verdict = None
    if isinstance(result, Bound):
        dc = d_clt.to_fraction()
        if dc < Fraction(result.lower):
            verdict = "the CLT understates delta: delta_clt is below the proven lower end"
        elif dc - Fraction(10) ** (d_clt.adjusted() - digits + 1) > Fraction(result.upper):
            verdict = "the CLT overstates delta: delta_clt is above the proven upper end"
        else:
            verdict = "delta_clt lies inside the proven bracket"
        verdict = _for_the_pair(m, verdict)
    return CLTApproximation(acc.mu_clt, delta=d_clt, verdict=verdict, run=(sigma, rate, steps, formula))


def _for_the_pair(m: Mechanism, verdict: str) -> str:
    """A verdict against a bracket whose lower end holds for the dominating pair only (replace-one,
    ``pair_tight`` false) speaks of the pair: the CLT formula is the pair's too, and nothing proves
    that the mechanism attains it."""
    if pair_tight(m):
        return verdict
    return f"against the dominating pair's bracket (not the mechanism's): {verdict}"


def account(mechanism: Mechanism, *, delta: Any = None, epsilon: Any = None, digits: int | None = None,
            rel_width: float = 0.01, route: str | None = None) -> Account:
    r"""The (eps, delta)-DP guarantee of a mechanism, by the strongest route that applies.

    Args:
        mechanism (Mechanism): What ran (:mod:`gdpproof.mechanisms`).
        delta (real): Exactly one: with ``delta`` in (0, 1) the smallest epsilon is reported; with
            ``epsilon``, the smallest delta (any real epsilon: delta(eps) >= 1 - e^eps > 0 at eps < 0, where
            the guarantee bounds P(S) <= e^eps Q(S) + delta with e^eps < 1; the bracket route computes it from
            its bracket at -eps by delta(eps) = 1 - e^eps + e^eps delta(-eps)).
        epsilon (real): Exactly one: with ``delta`` in (0, 1) the smallest epsilon is reported; with
            ``epsilon``, the smallest delta (any real epsilon: delta(eps) >= 1 - e^eps > 0 at eps < 0, where
            the guarantee bounds P(S) <= e^eps Q(S) + delta with e^eps < 1; the bracket route computes it from
            its bracket at -eps by delta(eps) = 1 - e^eps + e^eps delta(-eps)).
        digits (int or None): Significant digits of the reported numbers: certified digits on the exact routes
            (30 by default), the digits of a bracket's decimal ends, rounded outward (:data:`BRACKET_DIGITS` =
            6 by default, at most 17: the ends are doubles).
        rel_width (float): The relative width asked of a numerical bracket, in [1e-4, 10].
        route ({"exact", "exact-finite", "bracket"} or None): Force a route (NotSupportedError if it does not
            apply); None picks the strongest.

    Returns:
        Account: With the route named, the reported quantity (rounded up, or a proven bracket), the worse
            ordering, the exact mu of Gaussian mechanisms, and for DP-SGD the CLT approximation labelled as
            one; :meth:`Account.statement` is one sentence for a paper.  An epsilon of Infinity is exact:
            delta is below the probability that the mechanism reveals the data.

    Examples:
        >>> from gdpproof import account
        >>> from gdpproof.mechanisms import GDP, Repeated, GaussianMechanism, LaplaceMechanism, Composed
        >>> a = account(Repeated(GDP("0.3"), 10), delta="1e-5", digits=12)
        >>> a.route, a.epsilon, a.mu
        ('exact', Certified('4.11863534405', digits=12, rounding='up'), Certified('0.948683298051', digits=12, rounding='up'))
        >>> b = account(Composed(Repeated(GaussianMechanism(sigma="10/3"), 10),
        ...                      Repeated(LaplaceMechanism(scale=10), 5)), delta="1e-5")
        >>> b.route, b.epsilon.relative_width <= 0.01, 4.2 < b.epsilon.lower < b.epsilon.upper < 4.3
        ('bracket', True, True)
    """
    if not isinstance(mechanism, Mechanism):
        raise bad("mechanism", mechanism, "must be a gdpproof mechanism value (see gdpproof.mechanisms)")
    if (delta is None) == (epsilon is None):
        raise InvalidParameterError("give exactly one of delta= (to get epsilon) and epsilon= (to get delta)")
    if route is not None and route not in ROUTES:
        raise bad("route", route, f"must be one of {', '.join(ROUTES)} or None")
    asked = digits
    check_request(30 if digits is None else digits, "up")
    shown = BRACKET_DIGITS if digits is None else min(digits, 17)
    digits = 30 if digits is None else digits
    width = check_refinement(rel_width, 5)
    if delta is not None:
        given = "delta"
        value = checked("delta", delta, "open probability")
    else:
        given = "epsilon"
        # any real epsilon: delta(eps) = 1 + f*(-e^eps) holds for eps < 0 too (DRS Prop. 2.12);
        # the exact routes evaluate it there, the bracket route from its bracket at -eps
        value = checked("epsilon", epsilon)
        if is_sympy(value) and value.is_Rational:
            value = Fraction(int(value.p), int(value.q))
        if isinstance(value, Fraction) and value != 0 and not Fraction(1, 10**100) <= abs(value) <= 10**1000:
            # an eps of 1e-999999 was printed through its million-digit decimal
            raise bad("epsilon", epsilon, "must be 0 or of a size within [1e-100, 1e1000]")
    if is_sympy(value) and value.is_Rational:
        value = Fraction(int(value.p), int(value.q))
    if not isinstance(value, Fraction) and (given == "delta" or not value.is_real or value < 0):
        raise bad(given, delta if given == "delta" else epsilon,
                  "must be a rational number (a decimal or a fraction)" if given == "delta" else
                  "must be a rational number, or a closed form >= 0 (log(3))")
    # a rational value is a Fraction from here on; an irrational epsilon stays exact (sympy)

    distinct = len(mechanism.leaves())
    if distinct > MAX_LEAVES:
        raise InvalidParameterError(argument="mechanism", value=MISSING,
                                    rule=f"composes {distinct:,} distinct mechanisms, more than {MAX_LEAVES:,} (each "
                                         "costs the routes work of its own; equal ones are merged)")
    candidates = [route] if route is not None else list(ROUTES)
    reasons = []
    # the sums over outcomes take a rational epsilon: an irrational one is rounded down (delta does not
    # increase with epsilon, so the delta reported, rounded up, stays an upper bound), said in a note
    below, outward, above = value, (), None
    if not isinstance(value, Fraction):
        below, above = enclosure(value)
        outward = (f"epsilon = {value} is irrational: this route sums at a rational below it (within a relative 2^-250) and rounds "
                   "delta up (delta does not increase with epsilon): an upper bound for the exact value, not its "
                   "correctly rounded digits",)

    def lower_end(upper: Certified) -> Certified | None:
        """At an irrational epsilon, delta(eps) >= delta(below) - e^above (above - below) (delta
        falls by at most e^eps' d eps'), and delta(below) > upper - one unit."""
        if above is None:
            return None
        if above > 1000 or not upper.is_finite() or upper.adjusted() < -10_000:  # no giant Fractions
            return certify_fraction(Fraction(0), digits=digits, rounding="down")
        slack = Fraction(3) ** max(0, math.ceil(above)) * (above - below)  # e^above <= 3^ceil(above)
        return certify_fraction(max(Fraction(0), lower_neighbour(upper).to_fraction() - slack), digits=digits,
                                rounding="down")
    for r in candidates:
        if r == "exact":
            dg = single_discrete_gaussian(mechanism)
            if dg is not None:
                res = _exact_discrete_gaussian(dg, given, below, digits)
                return _make(mechanism, r, given, value, res, "both", digits, notes=(DG_NOTE, *outward),
                             lower_end=lower_end(res))
            # mu-GDP (Gaussian mechanisms and their compositions) needs no curve: eps from mu
            mu = mechanism.gdp_mu()
            f = None if isinstance(mu, Fraction) and mu > 0 and isinstance(value, Fraction) \
                or given == "delta" and mu is not None else mechanism.closed_form()
            if f is None and mechanism.gdp_mu() is None:
                reasons.append("exact: no closed form for this mechanism")
                continue
            result, mu = _exact(mechanism, f, given, value, digits)
            return _make(mechanism, r, given, value, result, exact_ordering(mechanism), digits, mu)
        if r == "exact-finite":
            groups = mechanism.eps_delta_groups()
            if groups is None:
                pairs = finite_pairs(mechanism)
                if pairs is None:
                    reasons.append("exact-finite: some privacy loss is not finitely supported")
                    continue
                try:
                    _finite().pairs_table_size(pairs[0])
                except NotSupportedError as exc:
                    reasons.append(f"exact-finite: {exc}")
                    continue
                res = _exact_pairs(pairs[0], given, below, digits)
                return _make(mechanism, r, given, value, res, "both" if pairs[1] else "the worse of P||Q and Q||P",
                             digits, notes=outward, lower_end=lower_end(res))
            if _finite().atom_count(groups) > _finite().MAX_ATOMS:
                reasons.append(f"exact-finite: {_finite().atom_count(groups)} atoms, more than {_finite().MAX_ATOMS}")
                continue
            res = _exact_finite(groups, given, below, digits)
            return _make(mechanism, r, given, value, res, "both", digits, notes=outward, lower_end=lower_end(res))
        try:
            parts, doubles, revealing = privacy_losses(mechanism)
        except NotSupportedError as exc:
            reasons.append(f"bracket: {exc}")
            continue
        if len(parts) > MAX_BRACKET_LOSSES:
            reasons.append(f"bracket: {len(parts):,} distinct privacy losses, more than {MAX_BRACKET_LOSSES} (each is "
                           "discretized and composed on its own: 300 subsampled Gaussians took 12 s)")
            continue
        negative = given == "epsilon" and value < 0
        if negative:
            b, comp, notes = _negative_epsilon_bracket(parts, revealing, value, width)
        else:
            b, comp, notes = _bracket(parts, revealing, given, value, width)
        return bracket_account(mechanism, parts, doubles, given, value, b, comp, notes, shown, negative,
                                clt_digits=shown if asked is None else digits)
    raise NotSupportedError(f"no route accounts for {mechanism!r}: " + "; ".join(reasons))


def bracket_account(mechanism: Mechanism, parts: list[tuple[PrivacyLoss, int]], doubles: bool, given: str,
                     value: sympy.Expr, b: Bound, comp: ComposedLoss | None, notes: list[str], shown: int,
                     negative: bool = False, clt_digits: int | None = None) -> Account:
    """The bracket route's Account: the notes on rounded parameters and the worse ordering; the
    CLT side (closed forms) to ``clt_digits`` certified digits (default: the bracket's)."""
    if not doubles:
        notes.append("parameters that are not doubles were rounded to the neighbouring double on the less "
                     "private side: the upper end holds for the mechanism as given, the lower end for the "
                     "rounded parameters (within one part in 2^52)")
    if not pair_tight(mechanism):
        poisson_replace = mechanism.sampling() == ("poisson", "replace-one")
        notes.append("the upper end is proven for the mechanism through its dominating pair, which it need not "
                     "attain: its own eps may be much smaller"
                     + (" (under Poisson sampling and replace-one the pair is the subsampled Gaussian shifted by the "
                        "whole sensitivity, the distance between the replaced record's two terms; the mechanism's own "
                        "worst pair, those terms at +1/2 and -1/2 of it, is not accounted here)"
                        if poisson_replace else ""))
    ordering = "both"
    if comp is not None and not all(loss.symmetric for loss, _ in parts):
        # beyond 1e300 the bracket is taken at 1e300 (a float of 1e999 is inf: "eps=inf", exit 2)
        ordering = comp.worse_ordering(b.upper if given == "delta" else float(min(abs(value), 10**300)))
        names = [d.name for d in comp.directions]
        if negative and len(names) == 2:  # at eps < 0 the worse is the other one of the worse at -eps
            ordering = names[1] if ordering == names[0] else names[0]
    return _make(mechanism, "bracket", given, value, b, ordering, shown, None, comp, tuple(notes),
                 rounded=not doubles, clt_digits=clt_digits)


def _make(m: Mechanism, route: str, given: str, value: sympy.Expr, result: Any, ordering: str, digits: int,
          mu: Certified | None = None, comp: ComposedLoss | None = None, notes: tuple[str, ...] = (),
          rounded: bool = False, clt_digits: int | None = None, lower_end: Certified | None = None) -> Account:
    try:
        clt = _dpsgd_clt(m, given, value, digits if clt_digits is None else clt_digits, result)
    except (PrecisionError, InvalidParameterError):
        clt = None  # auxiliary: never takes the main answer down
    eps, delta = (result, value) if given == "delta" else (value, result)
    return Account(m, route, given, eps, delta, ordering, digits, mu, clt, notes, comp, rounded, lower_end)
