r"""The one door: the privacy of any mechanism value, by the strongest route that applies.

:func:`account` takes a mechanism value (:mod:`gdpproof.mechanisms`) and either ``delta`` (then it
reports epsilon) or ``epsilon`` (then it reports delta).  Routes, strongest first:

``exact``
    A closed form: compositions of Gaussian mechanisms are exactly G_mu with
    mu = sqrt(sum mu_i^2) (DRS Cor. 3.3); single mechanisms with a closed-form trade-off
    (Laplace, randomized response and its n-fold composition, (eps, delta)-DP) have a closed-form
    privacy profile; one discrete Gaussian mechanism has its profile as a sum over the integers,
    evaluated with a proven tail (:mod:`gdpproof.numeric.discrete`).  Digits are certified in ball
    arithmetic.
``exact-finite``
    Finitely supported losses (randomized response, pure and (eps, delta)-DP, discrete Laplace,
    finite pairs, with different parameters) composed exactly in ball arithmetic
    (:mod:`gdpproof.numeric.finite`); certified digits.
``bracket``
    Numerical composition of the privacy-loss distributions with a proven error bracket
    (:mod:`gdpproof.numeric.pld`): Gaussian, Laplace, randomized response, discrete Gaussian,
    discrete Laplace and subsampled Gaussian mechanisms (Poisson or fixed-size batches, add/remove
    or replace-one neighbours) in any mix.  The answer is a proven [lower, upper] of relative width ``rel_width``: the upper end
    bounds the mechanism; the lower end bounds it too where the dominating pair is attained
    (add/remove), and otherwise (replace-one, composed) only the pair (the statement says which).

``route=`` forces one, so that routes can be checked against each other.  Where the CLT applies
(DP-SGD) its mu and epsilon are reported beside the answer, **labelled as an approximation**.

Rounding: a reported epsilon or delta is rounded up (the mechanism satisfies the guarantee with
that value); a bracket's lower end is rounded down.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy

from ._args import _bad, exact, probability
from ._plain import short_number
from ._version import __version__
from .errors import MISSING, InvalidParameterError, NotSupportedError, PrecisionError, SymbolicError, WidthNotReachedWarning, show
from .mechanisms import (
    GDP,
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    EpsDelta,
    FiniteMechanism,
    GaussianMechanism,
    Mechanism,
    PureDP,
    RandomizedResponse,
    _decimal_text,
    _Subsampled,
)
from .numeric.bound import Bound, assumptions_of, directed_double
from .numeric.certify import Certified, _check_request, _decimal, certify, round_fraction
from .numeric.duality import delta_bracket_at_negative
from .numeric.dpsgd import _float_certified, clt_verdict, dpsgd_mu
from .numeric.finite import (
    MAX_ATOMS,
    FiniteAtom,
    atom_count,
    finite_delta,
    infinite_mass_bounds,
    infinite_mass_lower,
    pairs_delta,
    pairs_infinite_mass,
    pairs_table_size,
)
from .numeric.discrete import discrete_gaussian_delta
from .numeric.losses import PrivacyLoss, loss_from_law, rounded_exactly
from .numeric.pld import EXACT_ROUTE, ComposedLoss, HonestMu, _check_refinement, delta_bracket, epsilon_bracket
from .numeric.profile import epsilon_from_profile
from .numeric.solve import epsilon_from_delta
from .symbolic.clt import APPROXIMATION_NOTE
from .symbolic.tradeoff import TradeOff, gaussian

__all__ = ["account", "Account", "CLTApproximation", "ROUTES"]

ROUTES = ("exact", "exact-finite", "bracket")
#: The most distinct mechanisms (leaves) account() composes, and the most distinct privacy losses
#: the bracket route discretizes.
MAX_LEAVES, MAX_BRACKET_LOSSES = 1000, 256
#: A finite pair with more outcomes is not given the closed-form route (its sympy curve took 4 s at
#: 16 outcomes); the exact-finite route composes it.
CLOSED_FORM_OUTCOMES = 8

_METHODS = {
    "exact": "a closed form, certified in ball arithmetic",
    "exact-finite": "exact composition of finitely supported privacy losses, certified in ball arithmetic",
    "bracket": "numerical composition of privacy-loss distributions with a proven error bracket",
}

#: The largest sensitivity of a discrete Laplace mechanism composed on the exact-finite route (its
#: pair has Delta + 1 outputs, each mass a ball of exponentials); beyond, the bracket.
MAX_DL_OUTPUTS = 256

#: How the exact route accounts one discrete Gaussian mechanism.
DG_NOTE = ("discrete Gaussian: delta(eps) = sum over the integers x of (P(x) - e^eps Q(x))_+, a finite sum in "
           "ball arithmetic plus a proven geometric tail bound (derivations/d14)")

#: Significant digits shown for the ends of a numerical bracket (rounded outward): six, the
#: accounting default (enough to compare with a paper's table; the full doubles stay in ``Bound``).
BRACKET_DIGITS = 6


@dataclass(frozen=True)
class CLTApproximation:
    """The central-limit approximation of a DP-SGD run: **not a bound** (:data:`note`).

    ``mu`` is p sqrt(T (e^{1/sigma^2} - 1)) rounded up; ``epsilon`` (or ``delta``) is what
    mu-GDP would give at the account's delta (or epsilon)."""

    mu: Certified
    epsilon: Certified | None = None
    delta: Certified | None = None
    verdict: str | None = None
    approximation: bool = True
    note: str = APPROXIMATION_NOTE


@dataclass(frozen=True)
class Account:
    """The privacy of a mechanism: what :func:`account` returns.

    Attributes
    ----------
    mechanism : Mechanism
    route : str
        "exact", "exact-finite" or "bracket" (:data:`ROUTES`).
    given : str
        "delta" (epsilon was computed) or "epsilon" (delta was computed).
    epsilon, delta : Certified or Bound or exact number
        The given one is the exact input; the computed one is a :class:`Certified` decimal rounded
        up (exact routes) or a proven :class:`Bound` (bracket).
    ordering : str
        Which neighbouring ordering is the worse one ("both" when they are equal).
    mu : Certified or None
        Exact routes, Gaussian mechanisms: the mechanism is exactly mu-GDP (rounded up).
    clt : CLTApproximation or None
        For DP-SGD: the CLT approximation, labelled as one.
    digits : int
        Significant digits of the reported numbers: certified digits on the exact routes, the
        digits of a bracket's decimal ends (rounded outward) on the bracket route.
    composition : ComposedLoss or None
        The numerical composition behind a bracket (delta at other eps, trade-off bounds).
    """

    mechanism: Mechanism
    route: str
    given: str
    epsilon: Any
    delta: Any
    ordering: str
    digits: int
    mu: Certified | None = None
    clt: CLTApproximation | None = None
    notes: tuple[str, ...] = ()
    composition: ComposedLoss | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        """One line: the mechanism, the route and the answer (``str`` is the full statement)."""
        what, lo, hi = (("eps", self.eps_lower, self.eps_upper) if self.given == "delta"
                        else ("delta", self.delta_lower, self.delta_upper))
        given = self.delta if self.given == "delta" else self.epsilon
        answer = f"{what} in [{lo}, {hi}] (proven)" if self.route == "bracket" else f"{what} = {hi} (rounded up)"
        extra = ("" if self.mu is None else f", mu = {self.mu}") + (
            "" if self.clt is None else f", mu_clt = {self.clt.mu} (CLT approximation)")
        return f"Account({self.mechanism!r}, route={self.route!r}, {self.given}={short_number(given)}: {answer}{extra})"

    @property
    def method(self) -> str:
        """How the route computes (one phrase)."""
        return _METHODS[self.route]

    @property
    def result(self) -> Any:
        """The computed quantity: epsilon when delta was given, else delta."""
        return self.epsilon if self.given == "delta" else self.delta

    def decimal_ends(self, value: Bound) -> tuple[Certified, Certified]:
        """A float bracket as decimals of :attr:`digits` digits (:data:`BRACKET_DIGITS` by
        default on the bracket route), rounded outward."""
        digits = self.digits

        def end(x: float, rounding: str) -> Certified:
            if math.isinf(x):
                return Certified("Infinity", digits=digits, rounding=rounding, method="exact")
            return _float_certified(x, digits, rounding)

        return end(value.lower, "down"), end(value.upper, "up")

    def _ends(self, value: Any) -> tuple[Any, Any]:
        if isinstance(value, Bound):
            return self.decimal_ends(value)
        if isinstance(value, Certified):
            return _lower_neighbour(value), value
        return value, value

    @property
    def eps_lower(self) -> Any:
        """A proven lower bound on epsilon (rounded down)."""
        return self._ends(self.epsilon)[0]

    @property
    def eps_upper(self) -> Any:
        """A proven upper bound on epsilon (rounded up): the epsilon to report."""
        return self._ends(self.epsilon)[1]

    @property
    def delta_lower(self) -> Any:
        """A proven lower bound on delta (rounded down)."""
        return self._ends(self.delta)[0]

    @property
    def delta_upper(self) -> Any:
        """A proven upper bound on delta (rounded up): the delta to report."""
        return self._ends(self.delta)[1]

    def honest_mu(self) -> Certified | HonestMu | None:
        """The tightest GDP description: exact mu for Gaussian mechanisms, else (bracket route)
        the :class:`~gdpproof.numeric.pld.HonestMu` bracket with the delta range where it holds."""
        if self.mu is not None:
            return self.mu
        if self.composition is not None:
            return self.composition.honest_mu()
        return None

    def honest_mu_decimals(self) -> dict[str, Certified] | None:
        """The bracket route's honest mu as decimals: ``mu_lower`` (rounded down), ``mu_upper``
        (rounded up) and ``delta_min`` (rounded up: the claim holds for every delta >= it);
        None on the exact routes (see :attr:`mu`)."""
        h = self.honest_mu()
        if not isinstance(h, HonestMu):
            return None
        lo, hi = self.decimal_ends(h.mu)
        return {"mu_lower": lo, "mu_upper": hi, "delta_min": _float_certified(h.delta_min, 3, "up")}

    def statement(self, honest_mu: bool = False) -> str:
        """One sentence fit to paste into a paper: the guarantee, how it is proven (and under which
        assumptions), the sampling scheme and neighbouring relation where there is one, and with
        ``honest_mu=True`` on the bracket route the honest mu with the delta range where it holds
        (about a second more)."""
        if self.given == "delta":
            lo, hi = self.eps_lower, self.eps_upper
            main = f"(ε, δ)-DP with δ = {_fmt(self.delta)} and ε = {hi}"
            what = "ε"
        else:
            lo, hi = self.delta_lower, self.delta_upper
            main = f"(ε, δ)-DP with ε = {_fmt(self.epsilon)} and δ = {hi}"
            what = "δ"
        if self.given == "delta" and not Fraction(0) <= _as_fraction(hi) < math.inf:
            return (f"The mechanism {self.mechanism!r} is (ε, δ)-DP for no finite ε at δ = {_fmt(self.delta)}: "
                    f"δ is below the probability that it reveals the data (exact; route {self.route}; "
                    f"gdpproof {__version__}).")
        tight = _pair_tight(self.mechanism)
        if self.route == "bracket":
            order = "" if self.ordering == "both" else f", worse ordering: {self.ordering}"
            assumed = self.assumptions
            tail = ("; the proof assumes " + " and ".join(assumed) if assumed
                    else "; in exact integer and ball arithmetic, no float assumption")
            where = (f"the exact {what} lies in [{lo}, {hi}]" if tight else
                     f"the {what} of its dominating pair lies in [{lo}, {hi}] (the mechanism's is at most {hi}; "
                     f"{lo} is a lower bound for the pair, not for the mechanism)")
            how = (f"a proven upper bound; {where}, by numerical composition of "
                   f"privacy-loss distributions with a proven error bracket{order}{tail}")
        elif tight:
            how = f"the exact {what} rounded up to {self.digits} significant digits, certified in ball arithmetic"
        else:
            how = (f"the {what} of its dominating pair (an upper bound for the mechanism) rounded up to "
                   f"{self.digits} significant digits, certified in ball arithmetic")
        gdp = f"; it is exactly μ-GDP with μ = {self.mu}" if self.mu is not None else ""
        if honest_mu and self.mu is None:
            h = self.honest_mu_decimals()
            if h is not None:
                gdp = (f"; its honest μ (the smallest μ with the mechanism μ-GDP at every δ ≥ {h['delta_min']}) "
                       f"lies in [{h['mu_lower']}, {h['mu_upper']}]")
        return (f"The mechanism {self.mechanism!r} satisfies {main} ({how}{gdp}{_sampling_phrase(self.mechanism)}; "
                f"gdpproof {__version__}).")

    @property
    def assumptions(self) -> tuple[str, ...]:
        """The numerical assumptions the reported numbers rest on: none on the exact routes (ball
        arithmetic); on the bracket route those of its composition
        (:data:`~gdpproof.numeric.bound.FLOAT_ROUTE_ASSUMPTIONS` for the float lattice), none when
        no lattice was composed (an answer folded exactly from revealing masses)."""
        if self.route != "bracket" or self.composition is None:
            return ()
        return assumptions_of(self.composition)

    def to_dict(self) -> dict[str, Any]:
        """Every reported number as a decimal string (the CLI's ``--json``), with the numerical
        ``assumptions`` behind them (an empty list on the exact routes)."""
        out: dict[str, Any] = {"mechanism": repr(self.mechanism), "route": self.route, "method": self.method,
                               "given": self.given, "ordering": self.ordering, "digits": self.digits,
                               "certified": "arb" if self.route != "bracket" else "pld",
                               "assumptions": list(self.assumptions)}
        scheme = self.mechanism.sampling()
        out["sampling"], out["neighbours"] = scheme if scheme is not None else (None, None)
        out["pair_tight"] = _pair_tight(self.mechanism)
        if self.given == "delta":
            out["delta"] = _fmt(self.delta)
            out["eps_lower"], out["eps_upper"] = str(self.eps_lower), str(self.eps_upper)
        else:
            out["epsilon"] = _fmt(self.epsilon)
            out["delta_lower"], out["delta_upper"] = str(self.delta_lower), str(self.delta_upper)
        if self.mu is not None:
            out["mu"] = str(self.mu)
        if self.clt is not None:
            out["clt"] = {"approximation": True, "mu_clt": str(self.clt.mu), "note": self.clt.note}
            if self.clt.epsilon is not None:
                out["clt"]["eps_clt"] = str(self.clt.epsilon)
            if self.clt.delta is not None:
                out["clt"]["delta_clt"] = str(self.clt.delta)
            if self.clt.verdict is not None:
                out["clt"]["verdict"] = self.clt.verdict
        if self.composition is not None:
            out["target_met"] = self.composition.target_met
        if self.notes:
            out["notes"] = list(self.notes)
        out["statement"] = self.statement()
        return out

    def __str__(self) -> str:
        return self.statement()


_SCHEMES = {"poisson": "Poisson sampling", "fixed-batch": "fixed-size batches drawn without replacement",
            "mixed": "mixed sampling schemes"}
_RELATIONS = {"add-remove": "add/remove neighbours", "replace-one": "replace-one neighbours",
              "mixed": "mixed neighbouring relations"}


def _sampling_phrase(m: Mechanism) -> str:
    """"; Poisson sampling, add/remove neighbours" for the statement ("" without subsampling)."""
    scheme = m.sampling()
    return "" if scheme is None else f"; {_SCHEMES[scheme[0]]}, {_RELATIONS[scheme[1]]}"


def _pair_tight(m: Mechanism) -> bool:
    """True when the composition of the dominating pairs is attained by the mechanism (its
    privacy lies in the reported bracket, not only below its upper end): add/remove subsampling,
    every mechanism without subsampling, and one fixed-size step under replace-one *standing
    alone*.  d12 shows that step's symmetric pair attained for eps >= 0 only; composed with
    anything (another step, or another mechanism) the pair's profile at negative eps enters,
    which is not shown attained, so the lower end then bounds the pair, not the mechanism."""
    leaves = m.leaves()
    subsampled = [(leaf, n) for leaf, n in leaves if isinstance(leaf, _Subsampled)]
    if all(leaf.pair_is_tight(n) and leaf.neighbours == "add-remove" for leaf, n in subsampled):
        return True
    return len(leaves) == 1 and leaves[0][1] == 1 and leaves[0][0].pair_is_tight(1)


def _as_fraction(c: Any) -> Any:
    """A decimal end as a Fraction, or math.inf for Infinity."""
    if isinstance(c, Certified):
        return c.to_fraction() if c.is_finite() else math.inf
    return c


def _fmt(v: Any) -> str:
    """A given delta or epsilon for a statement: its exact decimal (``1E-5``) or fraction when
    short, else rounded up to 17 digits (a larger delta or epsilon only weakens the claim, so the
    sentence stays true; the double 1e-5 is 1.0000000000000001E-5)."""
    if not isinstance(v, sympy.Rational):
        return str(v)
    for text in (_decimal_text(v), str(v)):
        if text is not None and len(text) <= 24:
            return text
    m, e = round_fraction(Fraction(int(v.p), int(v.q)), 17, "up")
    d = _decimal(m, e, 17)
    return format(d, "E") if not -4 <= d.adjusted() <= 15 else str(d)


def _lower_neighbour(c: Certified) -> Any:
    """The certified decimal one unit lower (a lower bound, since c is the value rounded up)."""
    if not c.is_finite() or c == 0:
        return c  # Infinity and 0 are exact (the value, not a rounding of it)
    # in integers m 10^e (m of c.digits digits): c may be 1E-100000000, whose Fraction is not made
    sign, digits, e = c.as_tuple()
    m = int("".join(map(str, digits)))
    scale = c.digits - len(str(m))
    m, e = (m * 10**scale, e - scale) if scale >= 0 else (m // 10**-scale, e - scale)
    if sign or m <= 1:
        return Certified(0, digits=c.digits, rounding="down", method=c.method)
    m -= 1
    if m < 10 ** (c.digits - 1):
        m, e = m * 10, e - 1
    return Certified(_decimal(m, e, c.digits), digits=c.digits, rounding="down", method=c.method)


# ---------------------------------------------------------------------------------------------
# routes
# ---------------------------------------------------------------------------------------------


def _closed_form(m: Mechanism) -> TradeOff | None:
    mu = m.gdp_mu()
    if mu is not None:
        return gaussian(mu)
    for leaf, n in m.leaves():
        if isinstance(leaf, DiscreteLaplaceMechanism):
            return None  # its curve's kinks are exponentials sympy orders slowly: exact-finite is faster
        if isinstance(leaf, FiniteMechanism) and len(leaf.P) > CLOSED_FORM_OUTCOMES:
            return None  # sympy's Max of its pieces compares them pairwise: exact-finite is faster
        # n copies of (eps, delta) carry (1 - delta)^n as an exact rational: millions of digits
        # for large n, which the exact-finite route evaluates in balls instead
        if isinstance(leaf, EpsDelta) and leaf.delta != 0 and n > 4096:
            return None
    try:
        return m.tradeoff()
    except (NotSupportedError, SymbolicError, InvalidParameterError):
        return None


def _finite_groups(m: Mechanism) -> list[tuple[sympy.Expr, sympy.Expr, int]] | None:
    groups = []
    for leaf, n in m.leaves():
        if isinstance(leaf, RandomizedResponse) and leaf.k != 2:
            return None
        if isinstance(leaf, (RandomizedResponse, PureDP)):
            groups.append((leaf.epsilon, sympy.Integer(0), n))
        elif isinstance(leaf, EpsDelta):
            groups.append((leaf.epsilon, leaf.delta, n))
        else:
            return None
    return groups


def _finite_pairs(m: Mechanism) -> tuple[list[tuple[tuple[FiniteAtom, ...], int]], bool] | None:
    """The leaves as finite pairs for :func:`~gdpproof.numeric.finite.pairs_delta` (each atom's
    likelihood ratio written as r e^{c eps_j}), and whether every pair is symmetric; None when
    some leaf's loss is not finitely supported."""
    eps_index: dict[sympy.Expr, int] = {}
    leaves = []
    symmetric = True
    for leaf, n in m.leaves():
        if isinstance(leaf, FiniteMechanism):
            atoms = tuple((a, b, None if b == 0 else Fraction(int((a / b).p), int((a / b).q)), 0, 0)
                          for a, b in leaf.masses())
            symmetric = symmetric and leaf.symmetric()
        elif isinstance(leaf, DiscreteLaplaceMechanism) and leaf.sensitivity > MAX_DL_OUTPUTS:
            return None  # a ball per output and atom: beyond this the bracket is faster
        elif isinstance(leaf, DiscreteLaplaceMechanism):
            # the output x <= 0, x = 1..Delta - 1, x >= Delta has ratio e^{(Delta - 2 min(max(x, 0), Delta)) / scale}
            j = eps_index.setdefault(1 / leaf.scale, len(eps_index))
            d = leaf.sensitivity
            atoms = tuple((a, b, Fraction(1), d - 2 * i, j) for i, (a, b) in enumerate(leaf.masses()))
        elif isinstance(leaf, (RandomizedResponse, PureDP, EpsDelta)):
            k = leaf.k if isinstance(leaf, RandomizedResponse) else 2
            j = eps_index.setdefault(leaf.epsilon, len(eps_index))
            keep = 1 - leaf.delta if isinstance(leaf, EpsDelta) else sympy.Integer(1)
            rr = RandomizedResponse(leaf.epsilon, k).masses()
            # the outputs: the first true value (ratio e^eps), the second (e^-eps), the k - 2 others (1)
            atoms = tuple((keep * a, keep * b, Fraction(1), c, j) for (a, b), c in zip(rr, (1, -1, 0)))
            if isinstance(leaf, EpsDelta) and leaf.delta != 0:
                atoms += ((leaf.delta, sympy.Integer(0), None, 0, 0), (sympy.Integer(0), leaf.delta, Fraction(0), 0, 0))
        else:
            return None
        leaves.append((atoms, n))
    return leaves, symmetric


def _losses(m: Mechanism) -> tuple[list[tuple[PrivacyLoss, int]], bool, list[tuple[sympy.Expr, sympy.Expr, int]]]:
    """The compiled losses of the leaves (leaves without privacy loss dropped), whether every
    parameter was a double (else it was rounded to the less private side), and the (eps, delta)
    leaves whose loss is infinite with probability delta (their finite part, randomized response
    with parameter eps, is among the losses)."""
    parts: list[tuple[PrivacyLoss, int]] = []
    exact = True
    revealing = []
    for leaf, n in m.leaves():
        if isinstance(leaf, (GDP, GaussianMechanism)) and leaf._leaf_mu() == 0:
            continue  # no privacy loss
        if isinstance(leaf, EpsDelta) and leaf.delta != 0:
            revealing.append((leaf.epsilon, leaf.delta, n))
            if leaf.epsilon == 0:
                continue
            law = RandomizedResponse(leaf.epsilon).loss_law()
        elif isinstance(leaf, (RandomizedResponse, PureDP, EpsDelta)) and leaf.epsilon == 0:
            continue
        else:
            law = leaf.loss_law()
        exact = exact and rounded_exactly(law)
        parts.append((loss_from_law(law), n))
    return parts, exact, revealing


def _ordering(m: Mechanism) -> str:
    """How the exact routes' answer relates to the two orderings (under replace-one C_p is the
    pair's own, symmetric, curve)."""
    if any(isinstance(leaf, _Subsampled) and leaf.neighbours == "add-remove" for leaf, _ in m.leaves()):
        return "the worse of remove and add (C_p)"
    return "both"


def _single_discrete_gaussian(m: Mechanism) -> DiscreteGaussianMechanism | None:
    leaves = m.leaves()
    if len(leaves) == 1 and leaves[0][1] == 1 and isinstance(leaves[0][0], DiscreteGaussianMechanism):
        return leaves[0][0]
    return None


def _exact_discrete_gaussian(leaf: DiscreteGaussianMechanism, given: str, value: sympy.Expr, digits: int) -> Certified:
    """One discrete Gaussian: delta(eps) is a sum over the integers, certified in ball arithmetic
    with a proven tail (:func:`~gdpproof.numeric.discrete.discrete_gaussian_delta`); eps(delta) by
    the monotone solve (no infinite loss: delta(eps) > 0 at every eps, with floor 0)."""
    return _by_profile(lambda e, d: discrete_gaussian_delta(leaf.sigma, leaf.sensitivity, e, digits=d),
                       lambda: Fraction(0), given, value, digits)


def _exact(m: Mechanism, f: TradeOff, given: str, value: sympy.Expr, digits: int) -> tuple[Any, Certified | None]:
    mu = m.gdp_mu()
    mu_c = None if mu is None else certify(mu, (), (), digits=digits, rounding="up", what="mu")
    if given == "epsilon":
        return f.delta(value, digits=digits), mu_c
    target = Fraction(int(value.p), int(value.q))
    if mu is not None:
        # mu-GDP: the certified solver of convert (T runs of sigma: mu = sqrt(T)/sigma, bracketed
        # by rationals); the profile search below took minutes at T = 10^9 (its deltas there are
        # decimals of millions of digits)
        return epsilon_from_delta(mu, target, digits=digits), mu_c
    # delta(eps) >= 1 - f(0) at every eps: when that is >= delta, no eps works (proven)
    f0 = f.evaluate(0, digits=20, rounding="up").to_fraction()
    return epsilon_from_profile(lambda x, d: f.delta(x, digits=d), target, digits=digits, floor=1 - f0), mu_c


def _by_profile(delta_at: Any, floor: Any, given: str, value: sympy.Expr, digits: int) -> Certified:
    """delta at ``value`` (``delta_at(eps, digits)``), or the smallest eps with delta(eps) <= value
    (``floor()`` a proven lower bound on delta at every eps)."""
    if given == "epsilon":
        return delta_at(value, digits)
    target = Fraction(int(value.p), int(value.q))
    return epsilon_from_profile(lambda x, d: delta_at(sympy.Rational(x.numerator, x.denominator), d), target,
                                digits=digits, floor=floor())


def _exact_finite(groups: list, given: str, value: sympy.Expr, digits: int) -> Certified:
    return _by_profile(lambda e, d: finite_delta(groups, e, digits=d), lambda: infinite_mass_lower(groups),
                       given, value, digits)


def _exact_pairs(leaves: list, given: str, value: sympy.Expr, digits: int) -> Certified:
    return _by_profile(lambda e, d: pairs_delta(leaves, e, digits=d), lambda: pairs_infinite_mass(leaves),
                       given, value, digits)


def _bracket(parts: list[tuple[PrivacyLoss, int]], revealing: list, given: str, value: sympy.Expr,
             rel_width: float, width_notes: bool = True) -> tuple[Bound, ComposedLoss | None, list[str]]:
    """The bracket route: the proven bracket of the composition, with the given delta or epsilon
    rounded to doubles on each end's safe side, and the mass of infinite loss of (eps, delta)
    leaves folded in: delta(eps) = delta_inf + (1 - delta_inf) delta_finite(eps).  Without
    ``width_notes`` the notes say nothing of the bracket's width (the caller maps it on)."""
    notes = []
    v = Fraction(int(value.p), int(value.q))
    inf_lo = inf_hi = Fraction(0)
    if revealing:
        inf_lo, inf_hi = infinite_mass_bounds(revealing)
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
        b, comp = epsilon_bracket(parts, t_down, rel_width=rel_width)
        lower = b.lower
        if t_up != t_down:
            at = t_up if comp.route == EXACT_ROUTE else min(directed_double(t_up, up=True), math.nextafter(1.0, 0.0))
            lower = comp.epsilon(at).lower
        return Bound(min(lower, b.upper), b.upper), comp, notes + _route_notes(comp, width_notes)
    if not parts:
        lo, hi = Fraction(0), Fraction(0)
        comp = None
    else:
        # beyond 1e300 delta is bracketed at 1e300 (delta does not increase with eps, so the upper end
        # holds), and its lower end is 0
        e_down = directed_double(min(v, Fraction(10**300)), up=False)
        e_up = directed_double(v, up=True) if v <= 10**300 else None
        b, comp = delta_bracket(parts, e_down, rel_width=rel_width)
        low_end = 0.0 if e_up is None else (comp.delta(e_up).lower if e_up != e_down else b.lower)
        lo, hi = Fraction(low_end), Fraction(b.upper)
        if b.lower == 0 and b.upper > 0 and width_notes:
            notes.append(f"the lower end of delta is 0 (delta may be 0 at this epsilon, or below what the "
                         f"bracket resolves, about {comp.delta_floor():.2g}): the relative width does not apply, "
                         "the upper end is the proven answer")
    total_lo = inf_lo + (1 - inf_lo) * lo
    total_hi = min(Fraction(1), inf_hi + (1 - inf_hi) * hi)
    low, high = directed_double(total_lo, up=False), directed_double(total_hi, up=True)
    return Bound(min(low, high), high), comp, notes + ([] if comp is None else _route_notes(comp, width_notes))


def _route_notes(comp: ComposedLoss, width_notes: bool = True) -> list[str]:
    """How the bracket was composed, and whether it reached the relative width asked."""
    how = ", pairs discretization: dominating and dominated grid masses" \
        if getattr(comp, "discretization", "") == "pairs" else ""
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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", WidthNotReachedWarning)
        at_minus, comp, notes = _bracket(parts, revealing, "epsilon", -value, rel_width, width_notes=False)
    for w in caught:
        if not issubclass(w.category, WidthNotReachedWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    b = delta_bracket_at_negative(at_minus, Fraction(int(value.p), int(value.q)))
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
    """Which CLT of :func:`~gdpproof.numeric.dpsgd.dpsgd_mu` belongs to a DP-SGD value: the CLT of
    its dominating pair composed.  Add/remove (Poisson, or fixed-size batches with rate B/N): the
    pair (q P + (1 - q) Q, Q), Bu, Dong, Long & Su (2020), ``"poisson"``; replace-one: the pair of
    C_q(G_mu), Dong, Roth & Su (2022) §5 (their SGD samples without replacement under replace-one),
    ``"uniform"`` (for Poisson sampling that pair is an upper bound, and so is its CLT's target)."""
    scheme = m.sampling()
    return "uniform" if scheme is not None and scheme[1] == "replace-one" else "poisson"


def _dpsgd_clt(m: Mechanism, given: str, value: sympy.Expr, digits: int, result: Any) -> CLTApproximation | None:
    params = m.dpsgd_parameters()
    if params is None:
        return None
    sigma, rate, steps = params
    formula = clt_formula(m)
    if given == "delta":
        acc = dpsgd_mu(sigma, rate, steps, sampling=formula, delta=value, digits=digits, gamma=False, exact=False)
        verdict = None
        if isinstance(result, Bound) and math.isfinite(result.upper):
            lo = _float_certified(result.lower, digits, "down")
            hi = _float_certified(result.upper, digits, "up")
            verdict = clt_verdict(sigma, rate, steps, formula, value, lo, hi)
        return CLTApproximation(acc.mu_clt, epsilon=acc.eps_clt, verdict=verdict)
    acc = dpsgd_mu(sigma, rate, steps, sampling=formula, digits=digits, gamma=False, exact=False)
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
    return CLTApproximation(acc.mu_clt, delta=d_clt, verdict=verdict)


def account(mechanism: Mechanism, *, delta: Any = None, epsilon: Any = None, digits: int | None = None,
            rel_width: float = 0.01, route: str | None = None) -> Account:
    r"""The (eps, delta)-DP guarantee of a mechanism, by the strongest route that applies.

    Parameters
    ----------
    mechanism : Mechanism
        What ran (:mod:`gdpproof.mechanisms`).
    delta, epsilon : real
        Exactly one: with ``delta`` in (0, 1) the smallest epsilon is reported; with ``epsilon``,
        the smallest delta (any real epsilon: delta(eps) >= 1 - e^eps > 0 at eps < 0, where the
        guarantee bounds P(S) <= e^eps Q(S) + delta with e^eps < 1; the bracket route computes
        it from its bracket at -eps by delta(eps) = 1 - e^eps + e^eps delta(-eps)).
    digits : int or None
        Significant digits of the reported numbers: certified digits on the exact routes (30 by
        default), the digits of a bracket's decimal ends, rounded outward (:data:`BRACKET_DIGITS`
        = 6 by default, at most 17: the ends are doubles).
    rel_width : float
        The relative width asked of a numerical bracket, in [1e-4, 10].
    route : {"exact", "exact-finite", "bracket"} or None
        Force a route (NotSupportedError if it does not apply); None picks the strongest.

    Returns
    -------
    Account
        With the route named, the reported quantity (rounded up, or a proven bracket), the worse
        ordering, the exact mu of Gaussian mechanisms, and for DP-SGD the CLT approximation
        labelled as one; :meth:`Account.statement` is one sentence for a paper.  An epsilon of
        Infinity is exact: delta is below the probability that the mechanism reveals the data.

    Examples
    --------
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
        raise _bad("mechanism", mechanism, "must be a gdpproof mechanism value (see gdpproof.mechanisms)")
    if (delta is None) == (epsilon is None):
        raise InvalidParameterError("give exactly one of delta= (to get epsilon) and epsilon= (to get delta)")
    if route is not None and route not in ROUTES:
        raise _bad("route", route, f"must be one of {', '.join(ROUTES)} or None")
    if digits is None:
        shown = BRACKET_DIGITS
        digits = 30
    else:
        _check_request(digits, "up")
        shown = min(digits, 17)
    _check_request(digits, "up")
    width = _check_refinement(rel_width, 5)
    if delta is not None:
        given = "delta"
        value = probability("delta", delta, symbolic=False)
        if not 0 < value < 1:
            raise _bad("delta", delta, "must be in (0, 1)")
    else:
        given = "epsilon"
        # any real epsilon: delta(eps) = 1 + f*(-e^eps) holds for eps < 0 too (DRS Prop. 2.12);
        # the exact routes evaluate it there, the bracket route from its bracket at -eps
        value = exact("epsilon", epsilon, symbolic=False)
    if not value.is_Rational:
        raise _bad(given, delta if given == "delta" else epsilon, "must be a rational number (a decimal or a fraction)")
    value = sympy.Rational(value)

    distinct = len(mechanism.leaves())
    if distinct > MAX_LEAVES:
        raise InvalidParameterError(argument="mechanism", value=MISSING,
                                    rule=f"composes {distinct:,} distinct mechanisms, more than {MAX_LEAVES:,} (each "
                                         "costs the routes work of its own; equal ones are merged)")
    candidates = [route] if route is not None else list(ROUTES)
    reasons = []
    for r in candidates:
        if r == "exact":
            dg = _single_discrete_gaussian(mechanism)
            if dg is not None:
                return _make(mechanism, r, given, value, _exact_discrete_gaussian(dg, given, value, digits), "both",
                             digits, notes=(DG_NOTE,))
            f = _closed_form(mechanism)
            if f is None:
                reasons.append("exact: no closed form for this mechanism")
                continue
            result, mu = _exact(mechanism, f, given, value, digits)
            return _make(mechanism, r, given, value, result, _ordering(mechanism), digits, mu)
        if r == "exact-finite":
            groups = _finite_groups(mechanism)
            if groups is None:
                pairs = _finite_pairs(mechanism)
                if pairs is None:
                    reasons.append("exact-finite: some privacy loss is not finitely supported")
                    continue
                try:
                    pairs_table_size(pairs[0])
                except NotSupportedError as exc:
                    reasons.append(f"exact-finite: {exc}")
                    continue
                return _make(mechanism, r, given, value, _exact_pairs(pairs[0], given, value, digits),
                             "both" if pairs[1] else "the worse of P||Q and Q||P", digits)
            if atom_count(groups) > MAX_ATOMS:
                reasons.append(f"exact-finite: {atom_count(groups)} atoms, more than {MAX_ATOMS}")
                continue
            return _make(mechanism, r, given, value, _exact_finite(groups, given, value, digits), "both", digits)
        try:
            parts, doubles, revealing = _losses(mechanism)
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
        if not doubles:
            notes.append("parameters that are not doubles were rounded to the neighbouring double on the less "
                         "private side: the upper end holds for the mechanism as given, the lower end for the "
                         "rounded parameters (within one part in 2^52)")
        ordering = "both"
        if comp is not None and not all(loss.symmetric for loss, _ in parts):
            ordering = comp.worse_ordering(b.upper if given == "delta" else abs(float(value)))
            names = [d.name for d in comp.directions]
            if negative and len(names) == 2:  # at eps < 0 the worse is the other one of the worse at -eps
                ordering = names[1] if ordering == names[0] else names[0]
        return _make(mechanism, "bracket", given, value, b, ordering, shown, None, comp, tuple(notes))
    raise NotSupportedError(f"no route accounts for {mechanism!r}: " + "; ".join(reasons))


def _make(m: Mechanism, route: str, given: str, value: sympy.Expr, result: Any, ordering: str, digits: int,
          mu: Certified | None = None, comp: ComposedLoss | None = None, notes: tuple[str, ...] = ()) -> Account:
    try:
        clt = _dpsgd_clt(m, given, value, digits, result)
    except (PrecisionError, InvalidParameterError):
        clt = None  # auxiliary: never takes the main answer down
    eps, delta = (result, value) if given == "delta" else (value, result)
    return Account(m, route, given, eps, delta, ordering, digits, mu, clt, notes, comp)
