"""What :func:`gdpproof.account` returns: :class:`Account` (the route, the proven or certified
answer with its rounding, the worse ordering, the numerical assumptions of the proof, the
statement and the JSON) and :class:`CLTApproximation`, DP-SGD's central-limit side result,
labelled as an approximation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..text import double_text, given_text
from .._version import __version__
from ..mechanisms import (
    Mechanism,
    Subsampled,
)
from ..numeric.engine.bound import Bound, assumptions_of, directed_double
from ..numeric.engine.certified import Certified, decimal
from ..symbolic.notes import APPROXIMATION_NOTE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .composed import ComposedLoss, HonestMu
    from .dpsgd import DPSGDAccount


def float_certified(x: float, digits: int, rounding: str) -> Certified:
    """:func:`gdpproof.accounting.dpsgd.float_certified` (the engine is imported when a bracket exists)."""
    from .dpsgd import float_certified as certified

    return certified(x, digits, rounding)

ROUTES = ("exact", "exact-finite", "bracket")


METHODS = {
    "exact": "a closed form, certified in ball arithmetic",
    "exact-finite": "exact composition of finitely supported privacy losses, certified in ball arithmetic",
    "bracket": "numerical composition of privacy-loss distributions with a proven error bracket",
}


#: Significant digits shown for the ends of a numerical bracket (rounded outward): six, the
#: accounting default (enough to compare with a paper's table; the full doubles stay in ``Bound``).
BRACKET_DIGITS = 6


@dataclass(frozen=True)
class CLTApproximation:
    """The central-limit approximation of a DP-SGD run: **not a bound** (:data:`note`).

    ``mu`` is p sqrt(T (e^{1/sigma^2} - 1)) (or the fixed-batch formula) rounded up; ``epsilon``
    (or ``delta``) is what mu-GDP would give at the account's delta (or epsilon).
    :meth:`berry_esseen` gives the Berry-Esseen gamma of the same run with the finite-T mu_T it
    belongs to (computed on first use: a quadrature).

    Args:
        mu: mu_clt, rounded up.
        epsilon: The epsilon of mu_clt-GDP at the account's delta (rounded up), or None.
        delta: The delta of mu_clt-GDP at the account's epsilon (rounded up), or None.
        verdict: How the proven answer compares with the approximation, when both are known.
        approximation: Always True: this is not a bound.
        note: Why it is not a bound, in words (:data:`note`).
        run: (noise multiplier, sample rate, steps, formula) of the run, for :meth:`berry_esseen`.

    Examples:
        >>> from gdpproof import account
        >>> from gdpproof.mechanisms import dpsgd
        >>> clt = account(dpsgd(1, "0.01", 1000), delta="1e-5").clt
        >>> clt.mu, clt.approximation
        (Certified('0.414522', digits=6, rounding='up'), True)
    """

    mu: Certified
    epsilon: Certified | None = None
    delta: Certified | None = None
    verdict: str | None = None
    approximation: bool = True
    note: str = APPROXIMATION_NOTE
    run: tuple[Any, Any, int, str] | None = field(default=None, repr=False, compare=False)

    def berry_esseen(self, digits: int = 6) -> DPSGDAccount | None:
        """The CLT account of the run with its Berry-Esseen ``gamma`` and ``mu_T`` to ``digits``
        digits (``gamma`` None where it cannot be certified); None without a run."""
        if self.run is None:
            return None
        cache = self.__dict__.setdefault("_gamma", {})
        if digits not in cache:
            sigma, rate, steps, formula = self.run
            from .dpsgd import clt_account

            cache[digits] = clt_account(sigma, rate, steps, formula, None, digits=max(digits, self.mu.digits),
                                        gamma_digits=digits, exact=False)
        return cache[digits]


class ProvenBound(Bound):
    """A proven bracket on a privacy loss (epsilon or delta): ``float()`` gives its upper end, the
    value to report (the mechanism satisfies the guarantee with it); ``lower`` and ``upper`` stay.

    Examples:
        >>> float(ProvenBound(1.0, 1.01))
        1.01
    """

    def __float__(self) -> float:
        return self.upper

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Bound):
            return (self.lower, self.upper) == (other.lower, other.upper)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.lower, self.upper))

    def __repr__(self) -> str:
        return f"Bound(lower={self.lower!r}, upper={self.upper!r})"


class UpperCertified(Certified):
    """A certified decimal rounded up: ``float()`` gives the smallest double at or above it (a
    plain ``Decimal`` converts to the nearest double, which may lie below it)."""

    __slots__ = ()

    def __float__(self) -> float:
        if not self.is_finite():
            return super().__float__()
        return directed_double(self.to_fraction(), up=True)


def _reportable(value: Any) -> Any:
    """The computed epsilon or delta with ``float()`` its proven upper end."""
    if isinstance(value, Bound) and not isinstance(value, ProvenBound):
        return ProvenBound(value.lower, value.upper)
    if isinstance(value, Certified) and value.rounding == "up" and not isinstance(value, UpperCertified):
        return UpperCertified(value, digits=value.digits, rounding=value.rounding, method=value.method)
    return value


@dataclass(frozen=True)
class Account:
    """The privacy of a mechanism: what :func:`account` returns.

    Attributes:
        mechanism: Mechanism
        route (str): "exact", "exact-finite" or "bracket" (:data:`ROUTES`).
        given (str): "delta" (epsilon was computed) or "epsilon" (delta was computed).
        epsilon (Certified or Bound or exact number): The given one is the exact input; the computed one is a
            :class:`Certified` decimal rounded up (exact routes) or a proven :class:`Bound` (bracket).
            ``float()`` of either is the proven upper end (:attr:`eps_upper`, :attr:`delta_upper` as a double
            rounded up), the number to report; the bracket stays available (``lower``, ``upper``).
        delta (Certified or Bound or exact number): The given one is the exact input; the computed one is a
            :class:`Certified` decimal rounded up (exact routes) or a proven :class:`Bound` (bracket).
            ``float()`` of either is the proven upper end (:attr:`eps_upper`, :attr:`delta_upper` as a double
            rounded up), the number to report; the bracket stays available (``lower``, ``upper``).
        ordering (str): Which neighbouring ordering is the worse one ("both" when they are equal).
        mu (Certified or None): Exact routes, Gaussian mechanisms: the mechanism is exactly mu-GDP (rounded
            up).
        clt (CLTApproximation or None): For DP-SGD: the CLT approximation, labelled as one.
        digits (int): Significant digits of the reported numbers: certified digits on the exact routes, the
            digits of a bracket's decimal ends (rounded outward) on the bracket route.
        composition (ComposedLoss or None): The numerical composition behind a bracket (delta at other eps,
            trade-off bounds).
        rounded_parameters (bool): True when parameters that are not doubles were rounded to the neighbouring
            double on the less private side for the bracket: the upper end holds for the mechanism as given,
            the lower end for the parameters as doubles.
        notes (tuple of str): What the route adds to the statement (the discrete Gaussian's
            certified sum, a bracket's width, the revealing mass of (eps, delta) leaves).
        lower_end (Certified or None): On an exact route at an irrational epsilon, the proven lower
            end of delta (the answer is then delta at a rational just below epsilon, rounded up: an
            upper bound whose lower neighbour is not a bound); None otherwise.

    Examples:
        >>> from gdpproof import account
        >>> from gdpproof.mechanisms import GDP
        >>> a = account(GDP(1), delta="1e-5", digits=6)
        >>> a
        Account(GDP(mu=1), route='exact', delta=1/100000: eps = 4.37718 (rounded up), mu = 1.00000)
        >>> a.route, a.epsilon, float(a.epsilon) >= 4.37717
        ('exact', Certified('4.37718', digits=6, rounding='up'), True)
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
    rounded_parameters: bool = False
    lower_end: Certified | None = None

    def __post_init__(self) -> None:
        field_name = "epsilon" if self.given == "delta" else "delta"
        object.__setattr__(self, field_name, _reportable(getattr(self, field_name)))

    def __repr__(self) -> str:
        """One line: the mechanism, the route and the answer (``str`` is the full statement)."""
        what, lo, hi = (("eps", self.eps_lower, self.eps_upper) if self.given == "delta"
                        else ("delta", self.delta_lower, self.delta_upper))
        given = self.delta if self.given == "delta" else self.epsilon
        if not self.pair_tight:
            answer = f"{what} <= {hi} (proven; the dominating pair's lower end {lo})"
        elif self.route == "bracket":
            answer = f"{what} in [{lo}, {hi}] (proven)"
        else:
            answer = f"{what} = {hi} (rounded up)"
        extra = ("" if self.mu is None else f", mu = {self.mu}") + (
            "" if self.clt is None else f", mu_clt = {self.clt.mu} (CLT approximation)")
        return f"Account({self.mechanism!r}, route={self.route!r}, {self.given}={double_text(given)}: {answer}{extra})"

    @property
    def method(self) -> str:
        """How the route computes (one phrase)."""
        return METHODS[self.route]

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
            return float_certified(x, digits, rounding)

        return end(value.lower, "down"), end(value.upper, "up")

    def _ends(self, value: Any) -> tuple[Any, Any]:
        if isinstance(value, Bound):
            return self.decimal_ends(value)
        if isinstance(value, Certified):
            return (lower_neighbour(value) if self.lower_end is None else self.lower_end), value
        return value, value

    @property
    def pair_tight(self) -> bool:
        """True when the lower ends (:attr:`eps_lower`, :attr:`delta_lower`, the honest mu's) hold
        for the mechanism; False when they hold only for its dominating pair (replace-one
        compositions: the mechanism's privacy is then proven only from above)."""
        return pair_tight(self.mechanism)

    @property
    def eps_lower(self) -> Any:
        """A proven lower bound on epsilon (rounded down): the mechanism's where
        :attr:`pair_tight`, else only its dominating pair's."""
        return self._ends(self.epsilon)[0]

    @property
    def eps_upper(self) -> Any:
        """A proven upper bound on epsilon (rounded up): the epsilon to report."""
        return self._ends(self.epsilon)[1]

    @property
    def delta_lower(self) -> Any:
        """A proven lower bound on delta (rounded down): the mechanism's where :attr:`pair_tight`,
        else only its dominating pair's."""
        return self._ends(self.delta)[0]

    @property
    def delta_upper(self) -> Any:
        """A proven upper bound on delta (rounded up): the delta to report."""
        return self._ends(self.delta)[1]

    def honest_mu(self) -> Certified | HonestMu | None:
        """The tightest GDP description: exact mu for Gaussian mechanisms, else (bracket route)
        the :class:`~gdpproof.accounting.composed.HonestMu` bracket with the delta range where it holds."""
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
        from .composed import HonestMu

        if not isinstance(h, HonestMu):
            return None
        lo, hi = self.decimal_ends(h.mu)
        return {"mu_lower": lo, "mu_upper": hi, "delta_min": float_certified(h.delta_min, 3, "up")}

    def statement(self, honest_mu: bool = False) -> str:
        """One sentence fit to paste into a paper: the guarantee, how it is proven (and under which
        assumptions), the sampling scheme and neighbouring relation where there is one, and with
        ``honest_mu=True`` on the bracket route the honest mu with the delta range where it holds
        (about a second more)."""
        if self.given == "delta":
            lo, hi = self.eps_lower, self.eps_upper
            main = f"(ε, δ)-DP with δ = {given_text(self.delta)} and ε = {hi}"
            what = "ε"
        else:
            lo, hi = self.delta_lower, self.delta_upper
            main = f"(ε, δ)-DP with ε = {given_text(self.epsilon)} and δ = {hi}"
            what = "δ"
        if self.given == "delta" and not Fraction(0) <= as_fraction(hi) < math.inf:
            return (f"The mechanism {self.mechanism!r} is (ε, δ)-DP for no finite ε at δ = {given_text(self.delta)}: "
                    f"δ is below the probability that it reveals the data (exact; route {self.route}; "
                    f"gdpproof {__version__}).")
        tight = pair_tight(self.mechanism)
        if self.route == "bracket":
            order = "" if self.ordering == "both" else f", worse ordering: {self.ordering}"
            assumed = self.assumptions
            tail = ("; the proof assumes " + " and ".join(assumed) if assumed
                    else "; in exact integer and ball arithmetic, no float assumption")
            doubles = " for the parameters as doubles" if self.rounded_parameters else ""
            where = (f"the exact {what}{doubles} lies in [{lo}, {hi}]" if tight else
                     f"the {what} of its dominating pair{doubles} lies in [{lo}, {hi}] (the mechanism's is at most {hi}; "
                     f"{lo} is a lower bound for the pair, not for the mechanism)")
            if self.given == "epsilon" and self.composition is None and as_fraction(hi) == 0:
                # nothing was composed: delta is 0 as eps is at least the largest loss (routes._bracket)
                how = (f"{where}: ε is at least the largest privacy loss of the composition, which no output "
                       f"exceeds; in exact rational arithmetic, no float assumption")
            else:
                how = (f"a proven upper bound; {where}, by numerical composition of "
                       f"privacy-loss distributions with a proven error bracket{order}{tail}")
        elif self.lower_end is not None:
            how = (f"an upper bound on the exact {what} rounded up to {self.digits} significant digits, which is at "
                   f"least {lo}, certified in ball arithmetic")
        elif tight:
            how = f"the exact {what} rounded up to {self.digits} significant digits, certified in ball arithmetic"
        else:
            how = (f"the {what} of its dominating pair (an upper bound for the mechanism) rounded up to "
                   f"{self.digits} significant digits, certified in ball arithmetic")
        gdp = f"; it is exactly μ-GDP with μ = {self.mu}" if self.mu is not None else ""
        if honest_mu and self.mu is None:
            h = self.honest_mu_decimals()
            if h is not None and tight:
                gdp = (f"; its honest μ (the smallest μ with the mechanism μ-GDP at every δ ≥ {h['delta_min']}) "
                       f"lies in [{h['mu_lower']}, {h['mu_upper']}]"
                       + (" (its lower end for the parameters as doubles)" if self.rounded_parameters else ""))
            elif h is not None:
                gdp = (f"; its honest μ (the smallest μ with the mechanism μ-GDP at every δ ≥ {h['delta_min']}) "
                       f"is at most {h['mu_upper']}, and its dominating pair's is at least {h['mu_lower']}")
        return (f"The mechanism {self.mechanism!r} satisfies {main} ({how}{gdp}{sampling_phrase(self.mechanism)}; "
                f"gdpproof {__version__}).")

    @property
    def assumptions(self) -> tuple[str, ...]:
        """The numerical assumptions the reported numbers rest on: none on the exact routes (ball
        arithmetic); on the bracket route those of its composition
        (:data:`~gdpproof.numeric.engine.bound.FLOAT_ROUTE_ASSUMPTIONS` for the float lattice), none when
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
        out["pair_tight"] = tight = pair_tight(self.mechanism)
        lower = "" if tight else "pair_"  # a lower end that holds for the dominating pair only says so
        if self.given == "delta":
            out["delta"] = given_text(self.delta)
            out[f"{lower}eps_lower"], out["eps_upper"] = str(self.eps_lower), str(self.eps_upper)
        else:
            out["epsilon"] = given_text(self.epsilon)
            out[f"{lower}delta_lower"], out["delta_upper"] = str(self.delta_lower), str(self.delta_upper)
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
        if self.route == "bracket" and self.clt is not None and self.clt.mu.digits > self.digits:
            out["digits_note"] = (f"the bracket's ends are doubles (from a float64 or integer lattice), shown to "
                                  f"{self.digits} significant digits (at most 17); the CLT values are closed forms, "
                                  f"certified to the {self.clt.mu.digits} digits asked")
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


def sampling_phrase(m: Mechanism) -> str:
    """"; Poisson sampling, add/remove neighbours" for the statement ("" without subsampling)."""
    scheme = m.sampling()
    return "" if scheme is None else f"; {_SCHEMES[scheme[0]]}, {_RELATIONS[scheme[1]]}"


def pair_tight(m: Mechanism) -> bool:
    """True when the composition of the dominating pairs is attained by the mechanism (its
    privacy lies in the reported bracket, not only below its upper end): add/remove subsampling,
    every mechanism without subsampling, and one fixed-size step under replace-one *standing
    alone*.  d12 shows that step's symmetric pair attained for eps >= 0 only; composed with
    anything (another step, or another mechanism) the pair's profile at negative eps enters,
    which is not shown attained, so the lower end then bounds the pair, not the mechanism."""
    leaves = m.leaves()
    subsampled = [(leaf, n) for leaf, n in leaves if isinstance(leaf, Subsampled)]
    if all(leaf.pair_is_tight(n) and leaf.neighbours == "add-remove" for leaf, n in subsampled):
        return True
    return len(leaves) == 1 and leaves[0][1] == 1 and leaves[0][0].pair_is_tight(1)


def as_fraction(c: Any) -> Any:
    """A decimal end as a Fraction, or math.inf for Infinity."""
    if isinstance(c, Certified):
        return c.to_fraction() if c.is_finite() else math.inf
    return c


def lower_neighbour(c: Certified) -> Any:
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
    return Certified(decimal(m, e, c.digits), digits=c.digits, rounding="down", method=c.method)
