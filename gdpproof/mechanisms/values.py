"""Mechanism values: what ran, as frozen data (the classes; the package docstring has the table
and the conventions).  Each knows its trade-off function where one exists in closed form and the
laws of its privacy loss in both orderings.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..errors import bad
from ..errors import MISSING, InvalidParameterError, NotSupportedError
from .numbers import count, decimal_text, exact_parameter, exact_sqrt, show_number, sympy_rational
from .numbers import symbolic_composition as _composition, symbolic_losses as _sl, symbolic_tradeoffs as _tradeoffs
from .numbers import sympy_module as _sympy

if TYPE_CHECKING:
    import sympy

    from ..symbolic import losses as sl
    from ..symbolic.tradeoff import TradeOff

__all__ = ["Mechanism", "GaussianMechanism", "GDP", "LaplaceMechanism", "RandomizedResponse", "FiniteMechanism", "PureDP",
           "DiscreteGaussianMechanism", "DiscreteLaplaceMechanism",
           "EpsDelta", "PoissonSampled", "SampledWithoutReplacement", "Composed", "Repeated", "NEIGHBOURS", "Subsampled",
           "decimal_text", "show_number"]


#: How deep mechanisms may nest (Composed, Repeated, subsampling), and the most runs of one
#: mechanism a nesting of Repeated may make (the product of their times): checked when a value is
#: built, so no walk over it recurses past Python's limit and no route is asked for 10^360 runs.
MAX_NESTING, MAX_RUNS = 100, 10**9


class Mechanism:
    """A description of what ran.  Subclasses are frozen dataclasses with exact parameters."""

    #: nesting depth and the most runs of one leaf inside (set by the wrappers when built)
    _depth = 1
    _runs = 1

    def _nest(self, inner: tuple[Mechanism, ...], times: int = 1) -> None:
        """Record this wrapper's depth and runs from its ``inner`` mechanisms; refuse a value past
        MAX_NESTING or MAX_RUNS."""
        depth = 1 + max(m._depth for m in inner)
        runs = times * max(m._runs for m in inner)
        if depth > MAX_NESTING:
            raise InvalidParameterError(argument="mechanisms", value=MISSING,
                                        rule=f"nest {depth} deep, more than {MAX_NESTING}")
        if runs > MAX_RUNS:
            raise bad("times", times, f"makes {runs:,} runs of one mechanism with the repetitions inside it, "
                                      f"more than 10^9")
        object.__setattr__(self, "_depth", depth)
        object.__setattr__(self, "_runs", runs)

    def leaves(self) -> list[tuple[Mechanism, int]]:
        """The base mechanisms with their multiplicities (composition is commutative), equal
        leaves merged, in order of first appearance."""
        counts: dict[Mechanism, int] = {}
        for leaf, n in self._walk(1):
            counts[leaf] = counts.get(leaf, 0) + n
        return list(counts.items())

    def _walk(self, times: int) -> Iterator[tuple[Mechanism, int]]:
        yield self, times

    def gdp_mu(self) -> sympy.Expr | None:
        """The exact mu when the mechanism is exactly mu-GDP (Gaussian mechanisms and their
        compositions: G_mu1 (x) ... (x) G_mun = G_sqrt(sum mu_i^2)); None otherwise."""
        terms = []
        for leaf, n in self.leaves():
            m = leaf._leaf_mu()
            if m is None:
                return None
            terms.append(n * m**2)
        if all(isinstance(t, Fraction) for t in terms):
            total = sum(terms, Fraction(0))
            root = exact_sqrt(total) if total.numerator.bit_length() <= 8192 and total.denominator.bit_length() <= 8192 \
                else None
            if root is not None:
                return root
        return _composition().root_of_sum([_sympy().Rational(t.numerator, t.denominator) if isinstance(t, Fraction)
                                           else t for t in terms])

    def _leaf_mu(self) -> sympy.Expr | None:
        return None

    def tradeoff(self) -> TradeOff:
        """The trade-off function in closed form, where gdpproof knows one.

        Raises NotSupportedError otherwise (then :func:`gdpproof.account` still gives a proven
        bracket)."""
        leaves = self.leaves()
        if len(leaves) == 1:
            leaf, n = leaves[0]
            f = leaf._leaf_tradeoff()
            if n == 1:
                return f
            if isinstance(leaf, PureDP) or (isinstance(leaf, RandomizedResponse) and leaf.k == 2):
                return _composition().rr_composition(leaf.epsilon, n)
            return _composition().self_compose(f, n)
        try:
            comp = _composition()
            return comp.compose(*(comp.self_compose(leaf._leaf_tradeoff(), n) if n > 1 else leaf._leaf_tradeoff()
                             for leaf, n in leaves))
        except NotSupportedError:
            f = _finite_product(leaves)  # finitely supported leaves: the product pair's exact curve
            if f is None:
                raise
            return f

    def _leaf_tradeoff(self) -> TradeOff:
        raise NotSupportedError(f"{self!r} has no closed-form trade-off function in gdpproof")

    def loss_law(self) -> sl.LossLaw:
        """The laws of the privacy loss of a base mechanism's worst pair, in both orderings.

        Raises NotSupportedError for composite values (use :meth:`leaves`) and for mechanisms
        whose loss is infinite with positive probability ((eps, delta) with delta > 0)."""
        raise NotSupportedError(f"{self!r} has no privacy-loss law of its own (it is not a base mechanism)")

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]] | None:
        """The family of :meth:`loss_law` (a name of :mod:`gdpproof.symbolic.losses`) and its exact
        values, without sympy; None for the families whose law is built by sympy (discrete ones).

        Raises NotSupportedError as :meth:`loss_law` does.

        >>> GaussianMechanism(2).loss_parameters()
        ('gaussian', (Fraction(1, 2),))
        """
        raise NotSupportedError(f"{self!r} has no privacy-loss law of its own (it is not a base mechanism)")

    def _law_from_parameters(self) -> sl.LossLaw:
        family, values = self.loss_parameters()  # type: ignore[misc]
        sl = _sl()
        return sl.LossLaw(sl.FAMILIES[family], tuple(sympy_rational(v) for v in values))

    def dpsgd_parameters(self) -> tuple[sympy.Expr, sympy.Expr, int] | None:
        """(noise_multiplier, sample_rate, steps) when the value is DP-SGD (T runs of a subsampled
        Gaussian mechanism: Poisson or fixed-size batches, whose rate is B/N), else None; the
        noise multiplier is sigma over the sensitivity.  :meth:`sampling` names the scheme.

        >>> from gdpproof.mechanisms import dpsgd
        >>> dpsgd(1, "0.01", 100).dpsgd_parameters()
        (Fraction(1, 1), Fraction(1, 100), 100)
        """
        leaves = self.leaves()
        if len(leaves) != 1:
            return None
        leaf, steps = leaves[0]
        if not isinstance(leaf, Subsampled) or not isinstance(leaf.mechanism, (GaussianMechanism, GDP)):
            return None
        mu = leaf.mechanism._leaf_mu()
        if mu == 0:
            return None
        return 1 / mu, leaf.sample_rate, steps

    def sampling(self) -> tuple[str, str] | None:
        """(scheme, neighbours) of the subsampled parts: scheme "poisson" or "fixed-batch",
        neighbours "add-remove" or "replace-one"; "mixed" for either when the parts differ; None
        when nothing is subsampled.

        >>> from gdpproof.mechanisms import dpsgd
        >>> dpsgd(1, "0.01", 100, sampling="fixed-batch").sampling()
        ('fixed-batch', 'replace-one')
        """
        kinds = {(leaf._scheme, leaf.neighbours) for leaf, _ in self.leaves() if isinstance(leaf, Subsampled)}
        if not kinds:
            return None
        schemes, relations = {k[0] for k in kinds}, {k[1] for k in kinds}
        return (schemes.pop() if len(schemes) == 1 else "mixed", relations.pop() if len(relations) == 1 else "mixed")

    def finite_support(self) -> bool:
        """True when every base mechanism's privacy loss takes finitely many values."""
        return all(isinstance(leaf, (RandomizedResponse, PureDP, EpsDelta, FiniteMechanism, DiscreteLaplaceMechanism))
                   for leaf, _ in self.leaves())


def _frozen(obj: Any, **values: Any) -> None:
    for k, v in values.items():
        object.__setattr__(obj, k, v)


def positive_finite(name: str, value: Any) -> Any:
    return exact_parameter(name, value, "positive")


def _nonneg_finite(name: str, value: Any) -> Any:
    return exact_parameter(name, value, "nonnegative")


@dataclass(frozen=True, repr=False)
class GaussianMechanism(Mechanism):
    """Gaussian noise N(0, sigma^2) added to a query of L2-sensitivity ``sensitivity``.

    Exactly (sensitivity/sigma)-GDP, tight (DRS Thm 2.7).

    >>> GaussianMechanism(sigma=2, sensitivity="1/2").gdp_mu()
    Fraction(1, 4)
    """

    sigma: Any
    sensitivity: Any = 1

    def __post_init__(self) -> None:
        _frozen(self, sigma=positive_finite("sigma", self.sigma),
                sensitivity=positive_finite("sensitivity", self.sensitivity))

    def __repr__(self) -> str:
        return f"GaussianMechanism(sigma={show_number(self.sigma)}, sensitivity={show_number(self.sensitivity)})"

    def _leaf_mu(self) -> sympy.Expr:
        return self.sensitivity / self.sigma

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().gaussian(self._leaf_mu())

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        return "gaussian", (self._leaf_mu(),)

    def loss_law(self) -> sl.LossLaw:
        return self._law_from_parameters()


@dataclass(frozen=True, repr=False)
class GDP(Mechanism):
    """Any mu-GDP mechanism, accounted by its worst case N(0, 1) against N(mu, 1).

    >>> GDP("0.3")
    GDP(mu=3/10)
    """

    mu: Any

    def __post_init__(self) -> None:
        _frozen(self, mu=_nonneg_finite("mu", self.mu))

    def __repr__(self) -> str:
        return f"GDP(mu={show_number(self.mu)})"

    def _leaf_mu(self) -> sympy.Expr:
        return self.mu

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().gaussian(self.mu)

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        return "gaussian", (self.mu,)

    def loss_law(self) -> sl.LossLaw:
        return self._law_from_parameters()


@dataclass(frozen=True, repr=False)
class LaplaceMechanism(Mechanism):
    """Laplace noise of scale b added to a query of L1-sensitivity Delta (the pair Lap(0, 1),
    Lap(Delta/b, 1) after scaling; trade-off: Dong, Roth & Su 2022, Example after Prop. 2.4)."""

    scale: Any
    sensitivity: Any = 1

    def __post_init__(self) -> None:
        _frozen(self, scale=positive_finite("scale", self.scale),
                sensitivity=positive_finite("sensitivity", self.sensitivity))

    def __repr__(self) -> str:
        return f"LaplaceMechanism(scale={show_number(self.scale)}, sensitivity={show_number(self.sensitivity)})"

    def _shift(self) -> sympy.Expr:
        return self.sensitivity / self.scale

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().laplace(self._shift())

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        return "laplace", (self._shift(),)

    def loss_law(self) -> sl.LossLaw:
        return self._law_from_parameters()


@dataclass(frozen=True, repr=False)
class RandomizedResponse(Mechanism):
    """k-ary randomized response: the true value (one of k) with probability e^eps/(e^eps + k - 1),
    each other value with probability 1/(e^eps + k - 1).  ``k = 2`` (default) is binary randomized
    response.

    Its worst pair is two different true values; the privacy loss is +-eps or 0 (0 on the k - 2
    other values), so the mechanism is eps-DP and its trade-off is the piecewise-linear curve
    max{0, 1 - e^eps a, 1 - (e^eps - 1)/Z - a, e^-eps (1 - a)}, Z = e^eps + k - 1: exactly
    f_{eps,0} for k = 2, above it for k > 2 (:mod:`gdpproof.symbolic.losses`).

    >>> RandomizedResponse(1, k=4)
    RandomizedResponse(epsilon=1, k=4)
    """

    epsilon: Any
    k: Any = 2

    def __post_init__(self) -> None:
        k = count("k", self.k)
        if k < 2:
            raise bad("k", self.k, "must be an integer >= 2 (the number of values)")
        _frozen(self, epsilon=_nonneg_finite("epsilon", self.epsilon), k=k)

    def __repr__(self) -> str:
        tail = "" if self.k == 2 else f", k={self.k}"
        return f"RandomizedResponse(epsilon={show_number(self.epsilon)}{tail})"

    def _leaf_tradeoff(self) -> TradeOff:
        if self.k == 2:
            return _tradeoffs().randomized_response(self.epsilon)
        return _tradeoffs().k_randomized_response(self.epsilon, self.k)

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        if self.k == 2:
            return "randomized_response", (self.epsilon,)
        return "k_randomized_response", (self.epsilon, Fraction(self.k))

    def loss_law(self) -> sl.LossLaw:
        return self._law_from_parameters()

    def masses(self) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
        """The worst pair as exact masses (P(o), Q(o)) of its kinds of outputs (the k - 2 other
        values merged: they have the same likelihood ratio 1)."""
        sympy, sl = _sympy(), _sl()
        vals = {sl.epsilon: sympy_rational(self.epsilon), sl.k: sympy.Integer(self.k)}
        return tuple((pm.xreplace(vals), qm.xreplace(vals)) for pm, qm in sl.K_RR_MASSES
                     if self.k > 2 or pm.xreplace(vals) != 0)


#: The most outcomes of a finite mechanism.
MAX_OUTCOMES = 10_000


def _mass_list(name: str, value: Any) -> tuple[sympy.Rational, ...]:
    sympy = _sympy()
    """A distribution given exactly: a sequence of rationals >= 0 summing to 1 (a string
    ``"1/2;1/4;1/4"`` is split at ``;``)."""
    items = value.split(";") if isinstance(value, str) else value
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise bad(name, value, "must be a sequence of probabilities (rationals summing to 1)")
    out = []
    for i, v in enumerate(items):
        if i == MAX_OUTCOMES:
            raise InvalidParameterError(argument=name, value=MISSING, rule=f"has more than {MAX_OUTCOMES:,} outcomes "
                                        "(a pair of 100,000 took a minute to account)")
        x = sympy_rational(exact_parameter(f"{name}[{i}]", v.strip() if isinstance(v, str) else v, "nonnegative"))
        if not x.is_Rational:
            raise bad(f"{name}[{i}]", v, "must be a rational number (a decimal or a fraction)")
        if x > 1:
            raise bad(f"{name}[{i}]", v, "must be a probability in [0, 1]")
        out.append(sympy.Rational(x))
    if len(out) < 1:
        raise bad(name, value, "must name at least one outcome")
    total = sum(out, sympy.Integer(0))
    if total != 1:
        raise bad(name, value, f"must sum to 1 exactly (it sums to {show_number(total)})")
    return tuple(out)


@dataclass(frozen=True, repr=False)
class FiniteMechanism(Mechanism):
    """A mechanism given by its outputs' distributions P and Q on two neighbouring datasets, on a
    finite set: ``P[i]``, ``Q[i]`` the probabilities of output i, exact rationals summing to 1.

    Both orderings are accounted (the worse one is reported).  Its trade-off is the
    piecewise-linear Neyman–Pearson curve of the pair, symmetrized (min{T(P, Q), T(Q, P)}**,
    DRS Prop 2.9) when the pair is not symmetric.

    >>> m = FiniteMechanism(["1/2", "1/4", "1/4"], ["1/4", "1/4", "1/2"])
    >>> m
    FiniteMechanism(P=(0.5, 0.25, 0.25), Q=(0.25, 0.25, 0.5))
    >>> m.symmetric()
    True
    """

    P: Any
    Q: Any

    def __post_init__(self) -> None:
        pm, qm = _mass_list("P", self.P), _mass_list("Q", self.Q)
        if len(pm) != len(qm):
            raise bad("Q", self.Q, f"must have as many outcomes as P ({len(pm)}), not {len(qm)}")
        _frozen(self, P=pm, Q=qm)

    def __repr__(self) -> str:
        return (f"FiniteMechanism(P=({', '.join(show_number(v) for v in self.P)}), "
                f"Q=({', '.join(show_number(v) for v in self.Q)}))")

    def masses(self) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
        """The pair as masses (P(o), Q(o)), outcomes of zero mass under both dropped."""
        return tuple((a, b) for a, b in zip(self.P, self.Q) if a != 0 or b != 0)

    def symmetric(self) -> bool:
        """True when swapping P and Q permutes the outcomes (then T(P, Q) = T(Q, P))."""
        return sorted(self.masses()) == sorted((b, a) for a, b in self.masses())

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().finite_tradeoff(self.masses())

    def loss_law(self) -> sl.LossLaw:
        raise NotSupportedError(f"{self!r}: a finite pair is composed exactly (route exact-finite); "
                                "the numerical bracket takes the named families only")

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]] | None:
        self.loss_law()
        return None


#: The most atoms (outputs of the composed pair) whose exact curve Mechanism.tradeoff builds for a
#: composition of finitely supported mechanisms: the curve has a vertex per atom, in sympy.
MAX_PRODUCT_ATOMS = 256


def _finite_masses(leaf: Mechanism) -> tuple[tuple[sympy.Expr, sympy.Expr], ...] | None:
    """A leaf's worst pair as exact masses (P(o), Q(o)), or None when it is not finitely supported.
    (eps, delta)-DP is the pair of Kairouz, Oh & Viswanath (2015): randomized response with
    parameter eps on mass 1 - delta, and an output of mass delta under each law revealing it."""
    if isinstance(leaf, (FiniteMechanism, DiscreteLaplaceMechanism, RandomizedResponse)):
        return leaf.masses()
    if isinstance(leaf, (PureDP, EpsDelta)):
        rr = RandomizedResponse(leaf.epsilon).masses()
        sympy = _sympy()
        d = sympy_rational(leaf.delta) if isinstance(leaf, EpsDelta) else sympy.Integer(0)
        if d == 0:
            return rr
        return tuple(((1 - d) * a, (1 - d) * b) for a, b in rr) + ((d, sympy.Integer(0)), (sympy.Integer(0), d))
    return None


def _finite_product(leaves: list[tuple[Mechanism, int]]) -> TradeOff | None:
    """The exact trade-off of a composition of finitely supported leaves: the Neyman-Pearson curve
    of the product pair (:func:`~gdpproof.symbolic.tradeoff.finite_tradeoff`), piecewise linear;
    None when some leaf is not finitely supported or the product has more than MAX_PRODUCT_ATOMS
    outputs."""
    masses = [(_finite_masses(leaf), n) for leaf, n in leaves]
    if any(m is None for m, _ in masses):
        return None
    size = 1
    for m, n in masses:
        size *= len(m) ** n  # type: ignore[arg-type]
        if size > MAX_PRODUCT_ATOMS:
            return None
    sympy = _sympy()
    product = [(sympy.Integer(1), sympy.Integer(1))]
    for m, n in masses:
        for _ in range(n):
            product = [(a * p, b * q) for a, b in product for p, q in m]  # type: ignore[union-attr]
    return _tradeoffs().finite_tradeoff(product)


def _integer_sensitivity(value: Any) -> int:
    """The sensitivity of an integer-valued query: a positive integer."""
    if isinstance(value, bool):
        raise bad("sensitivity", value, "must be a positive integer (the query is integer-valued)")
    try:
        v = exact_parameter("sensitivity", value, "nonnegative")
    except InvalidParameterError:
        raise bad("sensitivity", value, "must be a positive integer (the query is integer-valued)") from None
    if not (isinstance(v, Fraction) and v.denominator == 1 and v >= 1):
        raise bad("sensitivity", value, "must be a positive integer (the query is integer-valued)")
    return int(v)


@dataclass(frozen=True, repr=False)
class DiscreteGaussianMechanism(Mechanism):
    """Discrete Gaussian noise added to an integer-valued query f with |f(D) - f(D')| <= Delta.

    M(D) = f(D) + Z with P[Z = z] = exp(-z^2/(2 sigma^2)) / S(sigma), z in Z, S the sum of the
    numerators over all integers (Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for
    Differential Privacy", Def. 1).  ``sigma`` is the *scale* parameter of N_Z(0, sigma^2), not
    the standard deviation: Var Z < sigma^2 (CKS Prop. 19).  ``sensitivity`` is a positive integer.

    Its dominating pair is (N_Z(0, sigma^2), N_Z(Delta, sigma^2)) (the family has a monotone
    likelihood ratio; ``derivations/d14_discrete_mechanisms.py``); the privacy loss
    L(x) = (Delta^2 - 2 Delta x)/(2 sigma^2) is a lattice law with infinitely many atoms.  A single
    mechanism is accounted exactly (route ``exact``: a certified sum with a proven tail bound),
    compositions by the proven bracket.

    >>> DiscreteGaussianMechanism(sigma="10/3", sensitivity=2)
    DiscreteGaussianMechanism(sigma=10/3, sensitivity=2)
    """

    sigma: Any
    sensitivity: Any = 1

    def __post_init__(self) -> None:
        s = positive_finite("sigma", self.sigma)
        if not (isinstance(s, Fraction) or (s**2).is_Rational):  # the pmf sees sigma^2 only: sqrt(r) keeps every cut exact
            raise bad("sigma", self.sigma, "must be a rational number or the square root of one "
                       "(e.g. sympy.sqrt(sympy.Rational(5, 2)))")
        _frozen(self, sigma=s, sensitivity=_integer_sensitivity(self.sensitivity))

    def __repr__(self) -> str:
        return f"DiscreteGaussianMechanism(sigma={show_number(self.sigma)}, sensitivity={self.sensitivity})"

    def _leaf_tradeoff(self) -> TradeOff:
        raise NotSupportedError(f"{self!r}: its trade-off curve is piecewise linear with infinitely many "
                                "kinks; gdpproof gives its privacy profile (gdpproof.account: delta(eps) "
                                "certified on the exact route) but no closed-form curve")

    def loss_parameters(self) -> None:
        return None

    def loss_law(self) -> sl.LossLaw:
        return _sl().discrete_gaussian_loss(sympy_rational(self.sigma), _sympy().Integer(self.sensitivity))


@dataclass(frozen=True, repr=False)
class DiscreteLaplaceMechanism(Mechanism):
    """Discrete Laplace (two-sided geometric) noise added to an integer-valued query f with
    |f(D) - f(D')| <= Delta: P[Z = z] = (1 - r)/(1 + r) r^|z|, r = e^{-1/scale} (Ghosh, Roughgarden
    & Sundararajan 2009, the geometric mechanism; Canonne, Kamath & Steinke 2020, Def. 4).

    The privacy loss of the pair (P_0, P_Delta) takes the Delta + 1 values (Delta - 2x)/scale,
    x = 0..Delta: a finite pair (:meth:`masses`), composed exactly (route ``exact-finite``) where
    the table of losses allows, and by the proven bracket beyond (or mixed with mechanisms whose
    loss is not finite); it is (Delta/scale)-DP.

    >>> DiscreteLaplaceMechanism(scale=2, sensitivity=3).masses()[0]
    (1/(exp(-1/2) + 1), exp(-3/2)/(exp(-1/2) + 1))
    """

    scale: Any
    sensitivity: Any = 1

    def __post_init__(self) -> None:
        _frozen(self, scale=positive_finite("scale", self.scale),
                sensitivity=_integer_sensitivity(self.sensitivity))

    def __repr__(self) -> str:
        return f"DiscreteLaplaceMechanism(scale={show_number(self.scale)}, sensitivity={self.sensitivity})"

    def masses(self) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
        """The worst pair as exact masses (P(o), Q(o)) of its Delta + 1 kinds of outputs: x <= 0,
        x = 1, ..., Delta - 1, and x >= Delta (:func:`gdpproof.symbolic.losses.discrete_laplace_masses`)."""
        return _sl().discrete_laplace_masses(sympy_rational(1 / self.scale), self.sensitivity)

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().finite_tradeoff(self.masses())

    def loss_parameters(self) -> None:
        return None

    def loss_law(self) -> sl.LossLaw:
        return _sl().discrete_laplace_loss(sympy_rational(1 / self.scale), _sympy().Integer(self.sensitivity))


@dataclass(frozen=True, repr=False)
class PureDP(Mechanism):
    """Any eps-DP mechanism: accounted by its worst case, randomized response (f_{eps,0})."""

    epsilon: Any

    def __post_init__(self) -> None:
        _frozen(self, epsilon=_nonneg_finite("epsilon", self.epsilon))

    def __repr__(self) -> str:
        return f"PureDP(epsilon={show_number(self.epsilon)})"

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().eps_delta(self.epsilon, 0)

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        return "randomized_response", (self.epsilon,)

    def loss_law(self) -> sl.LossLaw:
        return self._law_from_parameters()


@dataclass(frozen=True, repr=False)
class EpsDelta(Mechanism):
    """Any (eps, delta)-DP mechanism: trade-off f_{eps,delta}.

    Its worst pair reveals the data with probability delta and is randomized response
    otherwise, so its privacy loss is +-infinity with probability delta: the exact finite
    route composes it; the numerical bracket does not."""

    epsilon: Any
    delta: Any

    def __post_init__(self) -> None:
        d = exact_parameter("delta", self.delta, "probability")
        _frozen(self, epsilon=_nonneg_finite("epsilon", self.epsilon), delta=d)

    def __repr__(self) -> str:
        return f"EpsDelta(epsilon={show_number(self.epsilon)}, delta={show_number(self.delta)})"

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().eps_delta(self.epsilon, self.delta)

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        self.loss_law()
        return "randomized_response", (self.epsilon,)

    def loss_law(self) -> sl.LossLaw:
        if self.delta != 0:
            raise NotSupportedError(f"{self!r}: its privacy loss is infinite with probability delta = "
                                    f"{self.delta}, which a privacy-loss distribution cannot carry; the "
                                    "exact-finite route composes it")
        return _sl().randomized_response_loss(self.epsilon)


#: The neighbouring relations of subsampled mechanisms.
NEIGHBOURS = ("add-remove", "replace-one")


def relation(value: Any) -> str:
    if not isinstance(value, str) or value not in NEIGHBOURS:
        raise bad("neighbours", value, "must be 'add-remove' or 'replace-one'")
    return value


class Subsampled(Mechanism):
    """What Poisson and fixed-size subsampling share: a rate, a relation and the laws of a
    subsampled Gaussian step (derivations/d12_sampling_schemes.py)."""

    mechanism: Mechanism
    sample_rate: Any          # q (a field of PoissonSampled, B/N for fixed-size batches)
    neighbours: str
    _scheme = ""

    def _check_inner(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise bad("mechanism", self.mechanism, "must be a gdpproof mechanism value")
        self._nest((self.mechanism,))

    def _leaf_tradeoff(self) -> TradeOff:
        return _composition().subsample(self.mechanism.tradeoff(), self.sample_rate)

    def loss_law(self) -> sl.LossLaw:
        """The dominating pair's privacy loss: the subsampled Gaussian's (remove/add orderings)
        under add/remove, the symmetric pair of C_p(G_mu) under replace-one (d12)."""
        return self._law_from_parameters()

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        inner = self.mechanism
        if isinstance(inner, (GaussianMechanism, GDP)):
            mu = inner._leaf_mu()
            if mu == 0:
                raise NotSupportedError(f"{self!r}: the inner mechanism has no privacy loss")
            if self.neighbours == "replace-one":
                return "symmetric_subsampled_gaussian", (1 / mu, self.sample_rate)
            return "subsampled_gaussian", (1 / mu, self.sample_rate)
        raise NotSupportedError(f"{self!r}: gdpproof composes subsampled Gaussian mechanisms "
                                "numerically; other subsampled mechanisms are not supported yet")

    def pair_is_tight(self, times: int = 1) -> bool:
        """True when ``times`` runs of the dominating pair of :meth:`loss_law` are attained by some
        neighbouring datasets (a lower bound for the pair is then one for the mechanism): always
        under add/remove; under replace-one only one step of fixed-size batches standing alone
        (both orderings are attained for eps >= 0); composed with anything, the orderings can
        alternate and the symmetric pair's profile at negative eps enters, so the pair is an upper
        bound (``gdpproof.account`` asks this of the whole mechanism); with Poisson sampling a
        clipped sum does not attain it (d12)."""
        if self.neighbours == "add-remove":
            return True
        return self._scheme == "fixed-batch" and times == 1


@dataclass(frozen=True, repr=False)
class PoissonSampled(Subsampled):
    """``mechanism`` run on a Poisson subsample: each record enters with probability
    ``sample_rate``.  Trade-off C_p(f) (DRS Thm 4.2).

    ``neighbours="add-remove"`` (default): the pair (p P + (1 - p) Q, Q) and its reverse, tight.
    ``neighbours="replace-one"``: the mechanism's sensitivity must bound the change of the query
    when a record is replaced, added or removed in a batch (2C for a sum clipped to C); the
    dominating pair is the symmetric pair of C_p(G_mu), an upper bound (d12)."""

    mechanism: Mechanism
    sample_rate: Any
    neighbours: str = "add-remove"
    _scheme = "poisson"

    def __post_init__(self) -> None:
        self._check_inner()
        q = exact_parameter("sample_rate", self.sample_rate, "probability")
        if q == 0:
            raise bad("sample_rate", self.sample_rate, "must be in (0, 1]")
        rel = relation(self.neighbours)
        inner = self.mechanism
        if isinstance(inner, PoissonSampled):  # a Poisson subsample of a Poisson subsample: rate p q
            if inner.neighbours != rel:
                raise bad("neighbours", rel, f"must match the inner subsample's ({inner.neighbours})")
            _frozen(self, mechanism=inner.mechanism, sample_rate=q * inner.sample_rate, neighbours=rel)
        else:
            _frozen(self, sample_rate=q, neighbours=rel)

    def __repr__(self) -> str:
        rel = "" if self.neighbours == "add-remove" else f", neighbours={self.neighbours!r}"
        return f"PoissonSampled({self.mechanism!r}, sample_rate={show_number(self.sample_rate)}{rel})"

    def _leaf_mu(self) -> sympy.Expr | None:
        # rate 1 takes every record: the mechanism itself (C_1(f) = f), under either relation
        return self.mechanism._leaf_mu() if self.sample_rate == 1 else None


@dataclass(frozen=True, repr=False)
class SampledWithoutReplacement(Subsampled):
    """``mechanism`` run on a batch of ``sample_size`` records drawn without replacement from the
    ``dataset_size`` records (rate q = B/N).  The inner sensitivity is the query's change when one
    record of the batch is replaced (2C for a sum clipped to C), under either relation.

    ``neighbours="replace-one"`` (default; N is public): trade-off C_q(f) (DRS Thm 4.2); the
    dominating pair is the symmetric pair of C_q(G_mu), attained at each step in either ordering,
    an upper bound once composed (d12).  ``neighbours="add-remove"``: datasets of N and N - 1
    records (N + 1 is dominated, its rate being smaller); the pair (q P + (1 - q) Q, Q) and its
    reverse, tight (d12).

    >>> SampledWithoutReplacement(GaussianMechanism(1), 600, 60000).sample_rate
    Fraction(1, 100)
    """

    mechanism: Mechanism
    sample_size: Any
    dataset_size: Any
    neighbours: str = "replace-one"
    _scheme = "fixed-batch"

    def __post_init__(self) -> None:
        self._check_inner()
        b = count("sample_size", self.sample_size)
        n = count("dataset_size", self.dataset_size)
        rel = relation(self.neighbours)
        if n < b:
            raise bad("dataset_size", self.dataset_size, f"must be at least sample_size = {b}")
        if rel == "add-remove" and n == b:
            raise bad("dataset_size", self.dataset_size, f"must exceed sample_size = {b} under add-remove "
                       "neighbours (the dataset with a record fewer must still fill a batch)")
        _frozen(self, sample_size=b, dataset_size=n, neighbours=rel)

    @property
    def sample_rate(self) -> Fraction:
        return Fraction(self.sample_size, self.dataset_size)

    def __repr__(self) -> str:
        return (f"SampledWithoutReplacement({self.mechanism!r}, sample_size={self.sample_size}, "
                f"dataset_size={self.dataset_size}, neighbours={self.neighbours!r})")


@dataclass(frozen=True, repr=False)
class Composed(Mechanism):
    """All of ``mechanisms`` run on the same data (adaptive composition)."""

    mechanisms: tuple[Mechanism, ...]

    def __init__(self, *mechanisms: Mechanism) -> None:
        if len(mechanisms) == 1 and isinstance(mechanisms[0], (list, tuple)):
            mechanisms = tuple(mechanisms[0])
        if not mechanisms:
            raise bad("mechanisms", "()", "must name at least one mechanism")
        for m in mechanisms:
            if not isinstance(m, Mechanism):
                raise bad("mechanisms", m, "must be gdpproof mechanism values")
        self._nest(mechanisms)
        object.__setattr__(self, "mechanisms", tuple(mechanisms))

    def __repr__(self) -> str:
        return f"Composed({', '.join(repr(m) for m in self.mechanisms)})"

    def _walk(self, times: int) -> Iterator[tuple[Mechanism, int]]:
        for m in self.mechanisms:
            yield from m._walk(times)


@dataclass(frozen=True, repr=False)
class Repeated(Mechanism):
    """``mechanism`` run ``times`` times (adaptively or not)."""

    mechanism: Mechanism
    times: Any

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise bad("mechanism", self.mechanism, "must be a gdpproof mechanism value")
        n = count("times", self.times)
        if n > MAX_RUNS:
            raise bad("times", self.times, "must be at most 10^9")
        self._nest((self.mechanism,), n)
        _frozen(self, times=n)

    def __repr__(self) -> str:
        return f"Repeated({self.mechanism!r}, {self.times})"

    def _walk(self, times: int) -> Iterator[tuple[Mechanism, int]]:
        yield from self.mechanism._walk(times * self.times)
