r"""What was run: mechanisms as frozen values.

A mechanism value describes what ran, not how it is accounted (in the spirit of dp_accounting's
``DpEvent``).  One vocabulary is used everywhere (the API, ``gdpproof account --mechanism``,
spec files):

========================================  ===========================================================
``GaussianMechanism(sigma, sensitivity)``  adds N(0, sigma^2) to a query of L2-sensitivity Delta: exactly (Delta/sigma)-GDP
``GDP(mu)``                                any mu-GDP mechanism (its worst case: N(0,1) against N(mu,1))
``LaplaceMechanism(scale, sensitivity)``   adds Laplace(scale) noise to a query of L1-sensitivity Delta
``RandomizedResponse(epsilon, k=2)``       k-ary randomized response (k = 2: binary, trade-off f_{eps,0} exactly)
``FiniteMechanism(P, Q)``                  two distributions on a finite set, given exactly (rationals summing to 1)
``DiscreteGaussianMechanism(sigma, sensitivity)``  adds discrete Gaussian noise N_Z(0, sigma^2) to an integer query (Canonne, Kamath & Steinke 2020)
``DiscreteLaplaceMechanism(scale, sensitivity)``   adds discrete Laplace (two-sided geometric) noise to an integer query (Ghosh, Roughgarden & Sundararajan 2009)
``PureDP(epsilon)``                        any eps-DP mechanism (its worst case is randomized response)
``EpsDelta(epsilon, delta)``               any (eps, delta)-DP mechanism (trade-off f_{eps,delta})
``PoissonSampled(mechanism, sample_rate)``  the mechanism run on a Poisson subsample (add/remove neighbours, or ``neighbours="replace-one"``)
``SampledWithoutReplacement(m, B, N)``     the mechanism run on a batch of B of the N records drawn without replacement (replace-one, or add/remove)
``Composed(m1, m2, ...)``                  all of them run on the same data (adaptively or not)
``Repeated(mechanism, times)``             the same mechanism run ``times`` times
``dpsgd(noise_multiplier, sample_rate, steps)``  Repeated(PoissonSampled(GaussianMechanism(sigma), p), T); ``sampling="fixed-batch"``
========================================  ===========================================================

**Neighbouring relations and sensitivity.**  ``sensitivity`` (and a noise multiplier, sigma over
it) is the L2 sensitivity of the query on a batch under the change the relation allows, as in
dp_accounting (``GaussianDpEvent(noise_multiplier)``: noise standard deviation over "the
l2-sensitivity of the function to which it is added"): for a sum of contributions clipped to
norm C, C when a record is added or removed, 2C when one is replaced.  Fixed-size batches always
change by a replacement (also when the datasets differ by adding or removing a record), so the
inner mechanism of :class:`SampledWithoutReplacement` carries the replace sensitivity (2C for a
clipped sum).  Under Poisson sampling with replace-one neighbours a batch may also gain or lose
the record, and the inner sensitivity must bound both changes (2C for a clipped sum covers C).
Shuffled epochs ("shuffle and iterate": each record in exactly one batch per epoch) have no known
tight accounting and are not what these values describe (``derivations/d12_sampling_schemes.py``).

Every value knows its trade-off function where one exists in closed form (:meth:`~Mechanism.tradeoff`)
and, for each base mechanism, the laws of its privacy loss in both orderings as sympy expressions
(:meth:`~Mechanism.loss_law`, from :mod:`gdpproof.symbolic.losses`).  :func:`gdpproof.account`
turns a value into a privacy guarantee.  Parameters are exact: ``"10/3"`` is 10/3, ``0.1`` is the
double nearest 0.1.

Examples
--------
>>> from gdpproof.mechanisms import GaussianMechanism, LaplaceMechanism, Composed, Repeated
>>> m = Composed(Repeated(GaussianMechanism(sigma="10/3"), 10), Repeated(LaplaceMechanism(scale=10), 5))
>>> m
Composed(Repeated(GaussianMechanism(sigma=10/3, sensitivity=1), 10), Repeated(LaplaceMechanism(scale=10, sensitivity=1), 5))
>>> [(leaf, n) for leaf, n in m.leaves()]
[(GaussianMechanism(sigma=10/3, sensitivity=1), 10), (LaplaceMechanism(scale=10, sensitivity=1), 5)]
>>> Repeated(GaussianMechanism(sigma=2), 4).gdp_mu()
1
"""

from __future__ import annotations

import inspect
import json
from decimal import Context, Decimal
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import sympy

from ._args import _bad, nonnegative, positive, probability
from .errors import MISSING, InvalidParameterError, NotSupportedError, show
from .symbolic import losses as sl
from .symbolic.composition import _count, compose, root_of_sum, rr_composition, self_compose, subsample
from .symbolic.tradeoff import TradeOff, eps_delta, finite_tradeoff, gaussian, k_randomized_response, laplace, \
    randomized_response

__all__ = ["Mechanism", "GaussianMechanism", "GDP", "LaplaceMechanism", "RandomizedResponse", "FiniteMechanism", "PureDP",
           "DiscreteGaussianMechanism", "DiscreteLaplaceMechanism",
           "EpsDelta", "PoissonSampled", "SampledWithoutReplacement", "Composed", "Repeated", "dpsgd", "mechanism_from_spec",
           "mechanism_from_dict", "mechanism_from_file", "show_number", "NEIGHBOURS", "SAMPLINGS"]


#: Longest exact text of a number in a repr or a statement; longer ones are shown approximately.
_MAX_TEXT = 40


def _decimal_text(v: sympy.Rational) -> str | None:
    """The exact decimal of a rational whose denominator is 2^a 5^b (``"0.01"``, ``"1E-400"``)."""
    q, a, b = int(v.q), 0, 0
    while q % 2 == 0:
        q, a = q // 2, a + 1
    while q % 5 == 0:
        q, b = q // 5, b + 1
    if q != 1:
        return None
    k = max(a, b)
    m = int(v.p) * 10**k // int(v.q)
    exact = Context(prec=len(str(abs(m))) + 2)  # the default 28 digits would round
    d = exact.normalize(exact.scaleb(Decimal(m), -k))
    return format(d, "f") if -4 <= d.adjusted() <= 15 else format(d, "E")


def show_number(v: Any) -> str:
    """A parameter as the user most likely wrote it: a double as its repr, an exact rational as
    its fraction (``10/3``, ``1/100``: not to be confused with the double 0.01), a long one as
    its exact decimal (``1E-400``), and only beyond that approximately, marked ``≈``.

    >>> show_number(sympy.Rational(1, 100)), show_number(sympy.Rational(0.5)), show_number(sympy.Rational(1, 10**400))
    ('1/100', '0.5', '1E-400')
    """
    if not isinstance(v, sympy.Rational):
        text = str(v)
        return text if len(text) <= _MAX_TEXT else f"≈{sympy.N(v, 8)}"
    if max(int(v.p).bit_length(), int(v.q).bit_length()) > 10_000:  # no str() of ints beyond 3000 digits
        return show(v)
    if v.q != 1 and not (int(v.q) & (int(v.q) - 1)) and abs(v) < 2**1023:
        f = float(v)
        if sympy.Rational(f) == v and len(repr(f)) <= _MAX_TEXT:
            return repr(f)
    for text in (str(v), _decimal_text(v)):
        if text is not None and len(text) <= _MAX_TEXT:
            return text
    return f"≈{sympy.N(v, 8)}"


_show = show_number


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
            raise _bad("times", times, f"makes {runs:,} runs of one mechanism with the repetitions inside it, "
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
        return root_of_sum(terms)

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
                return rr_composition(leaf.epsilon, n)
            return self_compose(f, n)
        return compose(*(self_compose(leaf._leaf_tradeoff(), n) if n > 1 else leaf._leaf_tradeoff()
                         for leaf, n in leaves))

    def _leaf_tradeoff(self) -> TradeOff:
        raise NotSupportedError(f"{self!r} has no closed-form trade-off function in gdpproof")

    def loss_law(self) -> sl.LossLaw:
        """The laws of the privacy loss of a base mechanism's worst pair, in both orderings.

        Raises NotSupportedError for composite values (use :meth:`leaves`) and for mechanisms
        whose loss is infinite with positive probability ((eps, delta) with delta > 0)."""
        raise NotSupportedError(f"{self!r} has no privacy-loss law of its own (it is not a base mechanism)")

    def dpsgd_parameters(self) -> tuple[sympy.Expr, sympy.Expr, int] | None:
        """(noise_multiplier, sample_rate, steps) when the value is DP-SGD (T runs of a subsampled
        Gaussian mechanism: Poisson or fixed-size batches, whose rate is B/N), else None; the
        noise multiplier is sigma over the sensitivity.  :meth:`sampling` names the scheme.

        >>> dpsgd(1, "0.01", 100).dpsgd_parameters()
        (1, 1/100, 100)
        """
        leaves = self.leaves()
        if len(leaves) != 1:
            return None
        leaf, steps = leaves[0]
        if not isinstance(leaf, _Subsampled) or not isinstance(leaf.mechanism, (GaussianMechanism, GDP)):
            return None
        mu = leaf.mechanism._leaf_mu()
        if mu == 0:
            return None
        return 1 / mu, leaf.sample_rate, steps

    def sampling(self) -> tuple[str, str] | None:
        """(scheme, neighbours) of the subsampled parts: scheme "poisson" or "fixed-batch",
        neighbours "add-remove" or "replace-one"; "mixed" for either when the parts differ; None
        when nothing is subsampled.

        >>> dpsgd(1, "0.01", 100, sampling="fixed-batch").sampling()
        ('fixed-batch', 'replace-one')
        """
        kinds = {(leaf._scheme, leaf.neighbours) for leaf, _ in self.leaves() if isinstance(leaf, _Subsampled)}
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


def _positive_finite(name: str, value: Any) -> sympy.Expr:
    v = positive(name, value, symbolic=False)
    if not v.is_finite:
        raise _bad(name, value, "must be a finite number > 0")
    return v


def _nonneg_finite(name: str, value: Any) -> sympy.Expr:
    v = nonnegative(name, value, symbolic=False)
    if not v.is_finite:
        raise _bad(name, value, "must be a finite number >= 0")
    return v


@dataclass(frozen=True, repr=False)
class GaussianMechanism(Mechanism):
    """Gaussian noise N(0, sigma^2) added to a query of L2-sensitivity ``sensitivity``.

    Exactly (sensitivity/sigma)-GDP, tight (DRS Thm 2.7).

    >>> GaussianMechanism(sigma=2, sensitivity="1/2").gdp_mu()
    1/4
    """

    sigma: Any
    sensitivity: Any = 1

    def __post_init__(self) -> None:
        _frozen(self, sigma=_positive_finite("sigma", self.sigma),
                sensitivity=_positive_finite("sensitivity", self.sensitivity))

    def __repr__(self) -> str:
        return f"GaussianMechanism(sigma={_show(self.sigma)}, sensitivity={_show(self.sensitivity)})"

    def _leaf_mu(self) -> sympy.Expr:
        return self.sensitivity / self.sigma

    def _leaf_tradeoff(self) -> TradeOff:
        return gaussian(self._leaf_mu())

    def loss_law(self) -> sl.LossLaw:
        return sl.gaussian_loss(self._leaf_mu())


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
        return f"GDP(mu={_show(self.mu)})"

    def _leaf_mu(self) -> sympy.Expr:
        return self.mu

    def _leaf_tradeoff(self) -> TradeOff:
        return gaussian(self.mu)

    def loss_law(self) -> sl.LossLaw:
        return sl.gaussian_loss(self.mu)


@dataclass(frozen=True, repr=False)
class LaplaceMechanism(Mechanism):
    """Laplace noise of scale b added to a query of L1-sensitivity Delta (the pair Lap(0, 1),
    Lap(Delta/b, 1) after scaling; trade-off DESIGN §1.3)."""

    scale: Any
    sensitivity: Any = 1

    def __post_init__(self) -> None:
        _frozen(self, scale=_positive_finite("scale", self.scale),
                sensitivity=_positive_finite("sensitivity", self.sensitivity))

    def __repr__(self) -> str:
        return f"LaplaceMechanism(scale={_show(self.scale)}, sensitivity={_show(self.sensitivity)})"

    def _shift(self) -> sympy.Expr:
        return self.sensitivity / self.scale

    def _leaf_tradeoff(self) -> TradeOff:
        return laplace(self._shift())

    def loss_law(self) -> sl.LossLaw:
        return sl.laplace_loss(self._shift())


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
        k = _count("k", self.k)
        if k < 2:
            raise _bad("k", self.k, "must be an integer >= 2 (the number of values)")
        _frozen(self, epsilon=_nonneg_finite("epsilon", self.epsilon), k=k)

    def __repr__(self) -> str:
        tail = "" if self.k == 2 else f", k={self.k}"
        return f"RandomizedResponse(epsilon={_show(self.epsilon)}{tail})"

    def _leaf_tradeoff(self) -> TradeOff:
        if self.k == 2:
            return randomized_response(self.epsilon)
        return k_randomized_response(self.epsilon, self.k)

    def loss_law(self) -> sl.LossLaw:
        if self.k == 2:
            return sl.randomized_response_loss(self.epsilon)
        return sl.k_randomized_response_loss(self.epsilon, sympy.Integer(self.k))

    def masses(self) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
        """The worst pair as exact masses (P(o), Q(o)) of its kinds of outputs (the k - 2 other
        values merged: they have the same likelihood ratio 1)."""
        vals = {sl.epsilon: self.epsilon, sl.k: sympy.Integer(self.k)}
        return tuple((pm.xreplace(vals), qm.xreplace(vals)) for pm, qm in sl.K_RR_MASSES
                     if self.k > 2 or pm.xreplace(vals) != 0)


#: The most outcomes of a finite mechanism.
MAX_OUTCOMES = 10_000


def _mass_list(name: str, value: Any) -> tuple[sympy.Rational, ...]:
    """A distribution given exactly: a sequence of rationals >= 0 summing to 1 (a string
    ``"1/2;1/4;1/4"`` is split at ``;``)."""
    items = value.split(";") if isinstance(value, str) else value
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise _bad(name, value, "must be a sequence of probabilities (rationals summing to 1)")
    out = []
    for i, v in enumerate(items):
        if i == MAX_OUTCOMES:
            raise InvalidParameterError(argument=name, value=MISSING, rule=f"has more than {MAX_OUTCOMES:,} outcomes "
                                        "(a pair of 100,000 took a minute to account)")
        x = nonnegative(f"{name}[{i}]", v.strip() if isinstance(v, str) else v, symbolic=False)
        if not x.is_Rational:
            raise _bad(f"{name}[{i}]", v, "must be a rational number (a decimal or a fraction)")
        if x > 1:
            raise _bad(f"{name}[{i}]", v, "must be a probability in [0, 1]")
        out.append(sympy.Rational(x))
    if len(out) < 1:
        raise _bad(name, value, "must name at least one outcome")
    total = sum(out, sympy.Integer(0))
    if total != 1:
        raise _bad(name, value, f"must sum to 1 exactly (it sums to {_show(total)})")
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
            raise _bad("Q", self.Q, f"must have as many outcomes as P ({len(pm)}), not {len(qm)}")
        _frozen(self, P=pm, Q=qm)

    def __repr__(self) -> str:
        return (f"FiniteMechanism(P=({', '.join(_show(v) for v in self.P)}), "
                f"Q=({', '.join(_show(v) for v in self.Q)}))")

    def masses(self) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
        """The pair as masses (P(o), Q(o)), outcomes of zero mass under both dropped."""
        return tuple((a, b) for a, b in zip(self.P, self.Q) if a != 0 or b != 0)

    def symmetric(self) -> bool:
        """True when swapping P and Q permutes the outcomes (then T(P, Q) = T(Q, P))."""
        return sorted(self.masses()) == sorted((b, a) for a, b in self.masses())

    def _leaf_tradeoff(self) -> TradeOff:
        return finite_tradeoff(self.masses())

    def loss_law(self) -> sl.LossLaw:
        raise NotSupportedError(f"{self!r}: a finite pair is composed exactly (route exact-finite); "
                                "the numerical bracket takes the named families only")


def _integer_sensitivity(value: Any) -> int:
    """The sensitivity of an integer-valued query: a positive integer."""
    if isinstance(value, bool):
        raise _bad("sensitivity", value, "must be a positive integer (the query is integer-valued)")
    try:
        v = nonnegative("sensitivity", value, symbolic=False)
    except InvalidParameterError:
        raise _bad("sensitivity", value, "must be a positive integer (the query is integer-valued)") from None
    if not (v.is_Integer and v >= 1):
        raise _bad("sensitivity", value, "must be a positive integer (the query is integer-valued)")
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
        s = _positive_finite("sigma", self.sigma)
        if not (s**2).is_Rational:  # the pmf sees sigma^2 only: sqrt(r) keeps every cut exact
            raise _bad("sigma", self.sigma, "must be a rational number or the square root of one "
                       "(e.g. sympy.sqrt(sympy.Rational(5, 2)))")
        _frozen(self, sigma=s, sensitivity=_integer_sensitivity(self.sensitivity))

    def __repr__(self) -> str:
        return f"DiscreteGaussianMechanism(sigma={_show(self.sigma)}, sensitivity={self.sensitivity})"

    def _leaf_tradeoff(self) -> TradeOff:
        raise NotSupportedError(f"{self!r}: its trade-off curve is piecewise linear with infinitely many "
                                "kinks; gdpproof gives its privacy profile (gdpproof.account: delta(eps) "
                                "certified on the exact route) but no closed-form curve")

    def loss_law(self) -> sl.LossLaw:
        return sl.discrete_gaussian_loss(self.sigma, sympy.Integer(self.sensitivity))


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
        _frozen(self, scale=_positive_finite("scale", self.scale),
                sensitivity=_integer_sensitivity(self.sensitivity))

    def __repr__(self) -> str:
        return f"DiscreteLaplaceMechanism(scale={_show(self.scale)}, sensitivity={self.sensitivity})"

    def masses(self) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
        """The worst pair as exact masses (P(o), Q(o)) of its Delta + 1 kinds of outputs: x <= 0,
        x = 1, ..., Delta - 1, and x >= Delta (:func:`gdpproof.symbolic.losses.discrete_laplace_masses`)."""
        return sl.discrete_laplace_masses(1 / self.scale, self.sensitivity)

    def _leaf_tradeoff(self) -> TradeOff:
        return finite_tradeoff(self.masses())

    def loss_law(self) -> sl.LossLaw:
        return sl.discrete_laplace_loss(1 / self.scale, sympy.Integer(self.sensitivity))


@dataclass(frozen=True, repr=False)
class PureDP(Mechanism):
    """Any eps-DP mechanism: accounted by its worst case, randomized response (f_{eps,0})."""

    epsilon: Any

    def __post_init__(self) -> None:
        _frozen(self, epsilon=_nonneg_finite("epsilon", self.epsilon))

    def __repr__(self) -> str:
        return f"PureDP(epsilon={_show(self.epsilon)})"

    def _leaf_tradeoff(self) -> TradeOff:
        return eps_delta(self.epsilon, 0)

    def loss_law(self) -> sl.LossLaw:
        return sl.randomized_response_loss(self.epsilon)


@dataclass(frozen=True, repr=False)
class EpsDelta(Mechanism):
    """Any (eps, delta)-DP mechanism: trade-off f_{eps,delta}.

    Its worst pair reveals the data with probability delta and is randomized response
    otherwise, so its privacy loss is +-infinity with probability delta: the exact finite
    route composes it; the numerical bracket does not."""

    epsilon: Any
    delta: Any

    def __post_init__(self) -> None:
        d = probability("delta", self.delta, symbolic=False)
        _frozen(self, epsilon=_nonneg_finite("epsilon", self.epsilon), delta=d)

    def __repr__(self) -> str:
        return f"EpsDelta(epsilon={_show(self.epsilon)}, delta={_show(self.delta)})"

    def _leaf_tradeoff(self) -> TradeOff:
        return eps_delta(self.epsilon, self.delta)

    def loss_law(self) -> sl.LossLaw:
        if self.delta != 0:
            raise NotSupportedError(f"{self!r}: its privacy loss is infinite with probability delta = "
                                    f"{self.delta}, which a privacy-loss distribution cannot carry; the "
                                    "exact-finite route composes it")
        return sl.randomized_response_loss(self.epsilon)


#: The neighbouring relations of subsampled mechanisms.
NEIGHBOURS = ("add-remove", "replace-one")
#: The sampling schemes of :func:`dpsgd`.
SAMPLINGS = ("poisson", "fixed-batch")


def _relation(value: Any) -> str:
    if not isinstance(value, str) or value not in NEIGHBOURS:
        raise _bad("neighbours", value, "must be 'add-remove' or 'replace-one'")
    return value


class _Subsampled(Mechanism):
    """What Poisson and fixed-size subsampling share: a rate, a relation and the laws of a
    subsampled Gaussian step (derivations/d12_sampling_schemes.py)."""

    mechanism: Mechanism
    sample_rate: Any          # q (a field of PoissonSampled, B/N for fixed-size batches)
    neighbours: str
    _scheme = ""

    def _check_inner(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise _bad("mechanism", self.mechanism, "must be a gdpproof mechanism value")
        self._nest((self.mechanism,))

    def _leaf_tradeoff(self) -> TradeOff:
        return subsample(self.mechanism.tradeoff(), self.sample_rate)

    def loss_law(self) -> sl.LossLaw:
        """The dominating pair's privacy loss: the subsampled Gaussian's (remove/add orderings)
        under add/remove, the symmetric pair of C_p(G_mu) under replace-one (d12)."""
        inner = self.mechanism
        if isinstance(inner, (GaussianMechanism, GDP)):
            mu = inner._leaf_mu()
            if mu == 0:
                raise NotSupportedError(f"{self!r}: the inner mechanism has no privacy loss")
            if self.neighbours == "replace-one":
                return sl.symmetric_subsampled_gaussian_loss(1 / mu, self.sample_rate)
            return sl.subsampled_gaussian_loss(1 / mu, self.sample_rate)
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
class PoissonSampled(_Subsampled):
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
        q = probability("sample_rate", self.sample_rate, symbolic=False)
        if q == 0:
            raise _bad("sample_rate", self.sample_rate, "must be in (0, 1]")
        rel = _relation(self.neighbours)
        inner = self.mechanism
        if isinstance(inner, PoissonSampled):  # a Poisson subsample of a Poisson subsample: rate p q
            if inner.neighbours != rel:
                raise _bad("neighbours", rel, f"must match the inner subsample's ({inner.neighbours})")
            _frozen(self, mechanism=inner.mechanism, sample_rate=q * inner.sample_rate, neighbours=rel)
        else:
            _frozen(self, sample_rate=q, neighbours=rel)

    def __repr__(self) -> str:
        rel = "" if self.neighbours == "add-remove" else f", neighbours={self.neighbours!r}"
        return f"PoissonSampled({self.mechanism!r}, sample_rate={_show(self.sample_rate)}{rel})"

    def _leaf_mu(self) -> sympy.Expr | None:
        # rate 1 takes every record: the mechanism itself (C_1(f) = f), under either relation
        return self.mechanism._leaf_mu() if self.sample_rate == 1 else None


@dataclass(frozen=True, repr=False)
class SampledWithoutReplacement(_Subsampled):
    """``mechanism`` run on a batch of ``sample_size`` records drawn without replacement from the
    ``dataset_size`` records (rate q = B/N).  The inner sensitivity is the query's change when one
    record of the batch is replaced (2C for a sum clipped to C).

    ``neighbours="replace-one"`` (default; N is public): trade-off C_q(f) (DRS Thm 4.2); the
    dominating pair is the symmetric pair of C_q(G_mu), attained at each step in either ordering,
    an upper bound once composed (d12).  ``neighbours="add-remove"``: datasets of N and N - 1
    records (N + 1 is dominated, its rate being smaller); the pair (q P + (1 - q) Q, Q) and its
    reverse, tight (d12).

    >>> SampledWithoutReplacement(GaussianMechanism(1), 600, 60000).sample_rate
    1/100
    """

    mechanism: Mechanism
    sample_size: Any
    dataset_size: Any
    neighbours: str = "replace-one"
    _scheme = "fixed-batch"

    def __post_init__(self) -> None:
        self._check_inner()
        b = _count("sample_size", self.sample_size)
        n = _count("dataset_size", self.dataset_size)
        rel = _relation(self.neighbours)
        if n < b:
            raise _bad("dataset_size", self.dataset_size, f"must be at least sample_size = {b}")
        if rel == "add-remove" and n == b:
            raise _bad("dataset_size", self.dataset_size, f"must exceed sample_size = {b} under add-remove "
                       "neighbours (the dataset with a record fewer must still fill a batch)")
        _frozen(self, sample_size=b, dataset_size=n, neighbours=rel)

    @property
    def sample_rate(self) -> sympy.Expr:
        return sympy.Rational(self.sample_size, self.dataset_size)

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
            raise _bad("mechanisms", "()", "must name at least one mechanism")
        for m in mechanisms:
            if not isinstance(m, Mechanism):
                raise _bad("mechanisms", m, "must be gdpproof mechanism values")
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
            raise _bad("mechanism", self.mechanism, "must be a gdpproof mechanism value")
        n = _count("times", self.times)
        if n > MAX_RUNS:
            raise _bad("times", self.times, "must be at most 10^9")
        self._nest((self.mechanism,), n)
        _frozen(self, times=n)

    def __repr__(self) -> str:
        return f"Repeated({self.mechanism!r}, {self.times})"

    def _walk(self, times: int) -> Iterator[tuple[Mechanism, int]]:
        yield from self.mechanism._walk(times * self.times)


@dataclass(frozen=True)
class Schedule:
    """How many DP-SGD steps ran, and at which sampling rate, with the rule that gave them.

    Built by :func:`dpsgd_schedule` from what a training script knows: a sampling rate and a
    number of steps, or epochs, a batch size and a dataset size.

    Attributes
    ----------
    sample_rate : sympy.Rational
        q, exact (B/N when given as a batch of B records out of N).
    steps : int
        T (ceil(E N / B), or ceil(E / q), when given in epochs).
    rule : str
        The rule, with its numbers, for the output ("" when q and T were given directly).
    """

    sample_rate: Any
    steps: int
    rule: str = ""
    epochs: Any = None
    batch_size: int | None = None
    dataset_size: int | None = None


def _missing(name: str, rule: str) -> InvalidParameterError:
    return InvalidParameterError(argument=name, value=MISSING, rule=rule)


def _positive_int(name: str, value: Any) -> int:
    n = _count(name, value)
    if n < 1:
        raise _bad(name, value, "must be an integer >= 1")
    return n


def dpsgd_schedule(*, sample_rate: Any = None, steps: Any = None, epochs: Any = None, batch_size: Any = None,
                   dataset_size: Any = None) -> Schedule:
    """The sampling rate q and number of steps T of a DP-SGD run, from what its script knows.

    q is ``sample_rate``, or ``batch_size / dataset_size`` (B/N); T is ``steps``, or
    ``ceil(epochs * N / B)`` (that is ceil(E / q)) when given in epochs.  Give q one way and T
    one way; a sampling rate and a batch size that disagree are refused.

    >>> s = dpsgd_schedule(epochs=60, batch_size=256, dataset_size=60000)
    >>> s.sample_rate, s.steps
    (8/1875, 14063)
    >>> print(s.rule)
    sample rate q = B/N = 256/60000 = 8/1875; steps T = ceil(E N / B) = ceil(60 * 60000 / 256) = 14063
    >>> dpsgd_schedule(sample_rate="0.01", epochs=500).steps
    50000
    """
    if batch_size is not None or dataset_size is not None:
        if dataset_size is None:
            raise _missing("dataset_size", "is needed with batch_size (the sampling rate is B/N)")
        n = _positive_int("dataset_size", dataset_size)
        if batch_size is None:
            if sample_rate is None:
                raise _missing("batch_size", "is needed with dataset_size (the sampling rate is B/N)")
            b = None
        else:
            b = _positive_int("batch_size", batch_size)
            if b > n:
                raise _bad("batch_size", batch_size, f"must be at most dataset_size={n}")
    else:
        n = b = None
    if b is not None:
        q = sympy.Rational(b, n)
        if sample_rate is not None:
            given = probability("sample_rate", sample_rate, symbolic=False)
            if given != q:
                raise _bad("sample_rate", sample_rate, f"must equal batch_size/dataset_size = {b}/{n} when both "
                           "are given (give one of them)")
        q_rule = f"sample rate q = B/N = {b}/{n}" + ("" if str(q) == f"{b}/{n}" else f" = {_decimal_text(q) or _show(q)}")
    elif sample_rate is None:
        raise _missing("sample_rate", "is needed: give sample_rate, or batch_size and dataset_size")
    else:
        q = probability("sample_rate", sample_rate, symbolic=False)
        if q == 0:
            raise _bad("sample_rate", sample_rate, "must be in (0, 1]")
        q_rule = ""
    if steps is None and epochs is None:
        raise _missing("steps", "is needed: give steps, or epochs")
    if steps is not None and epochs is not None:
        raise _bad("epochs", epochs, f"cannot be given with steps={steps!r}: give one of them")
    if steps is not None:
        t = _positive_int("steps", steps)
        t_rule = ""
        e = None
    else:
        e = _positive_finite("epochs", epochs)
        if not e.is_Rational:
            raise _bad("epochs", epochs, "must be a rational number (a decimal or a fraction)")
        t = int(sympy.ceiling(e / q))
        if b is not None:
            t_rule = f"steps T = ceil(E N / B) = ceil({_show(e)} * {n} / {b}) = {t}"
        else:
            t_rule = f"steps T = ceil(E / q) = ceil({_show(e)} / {_decimal_text(q) or _show(q)}) = {t}"
        if t > 10**9:
            raise _bad("epochs", epochs, f"gives {t} steps, more than 10^9")
    rule = "; ".join(r for r in (q_rule, t_rule) if r)
    return Schedule(q, t, rule, e, b, n)


def dpsgd(noise_multiplier: Any, sample_rate: Any = None, steps: Any = None, *, epochs: Any = None,
          batch_size: Any = None, dataset_size: Any = None, sampling: str = "poisson",
          neighbours: str | None = None) -> Repeated:
    """DP-SGD: ``steps`` steps, each the Gaussian mechanism with noise multiplier sigma (noise
    standard deviation over the sensitivity) on a batch sampled at rate p.

    ``sampling="poisson"`` (each record enters with probability p; default neighbours
    add-remove, where the sensitivity is the clipping norm C) or ``"fixed-batch"`` (B of the N
    records drawn without replacement, p = B/N; default neighbours replace-one).  As in
    dp_accounting, sigma is the noise over the sensitivity under the relation: with replace-one
    neighbours a clipped sum moves by up to 2C, so noise of standard deviation s C is
    ``noise_multiplier = s/2`` there.  With fixed-size batches the privacy depends on B and N only
    through B/N, and this function records the rate as its reduced fraction (600/60000 as 1 of 100);
    :class:`SampledWithoutReplacement` keeps the sizes as given.  Shuffled epochs ("shuffle and
    iterate") have no known tight accounting: gdpproof does not account them, and accounting them
    as either scheme is not justified (d12).

    The rate and the steps may also be given as a training script knows them, by ``epochs``,
    ``batch_size`` and ``dataset_size`` (:func:`dpsgd_schedule` gives the rule).

    >>> dpsgd(1.0, "0.01", 1000)
    Repeated(PoissonSampled(GaussianMechanism(sigma=1, sensitivity=1), sample_rate=1/100), 1000)
    >>> dpsgd("1.1", epochs=60, batch_size=256, dataset_size=60000)
    Repeated(PoissonSampled(GaussianMechanism(sigma=11/10, sensitivity=1), sample_rate=8/1875), 14063)
    >>> dpsgd(1.0, "0.01", 1000, sampling="fixed-batch")
    Repeated(SampledWithoutReplacement(GaussianMechanism(sigma=1, sensitivity=1), sample_size=1, dataset_size=100, neighbours='replace-one'), 1000)
    >>> dpsgd(1.0, batch_size=600, dataset_size=60000, steps=1000, sampling="fixed-batch")
    Repeated(SampledWithoutReplacement(GaussianMechanism(sigma=1, sensitivity=1), sample_size=600, dataset_size=60000, neighbours='replace-one'), 1000)
    """
    if not isinstance(sampling, str) or sampling not in SAMPLINGS:
        raise _bad("sampling", sampling, "must be 'poisson' or 'fixed-batch'")
    s = dpsgd_schedule(sample_rate=sample_rate, steps=steps, epochs=epochs, batch_size=batch_size,
                       dataset_size=dataset_size)
    step = GaussianMechanism(noise_multiplier)
    if sampling == "poisson":
        return Repeated(PoissonSampled(step, s.sample_rate, "add-remove" if neighbours is None else neighbours),
                        s.steps)
    rel = "replace-one" if neighbours is None else neighbours
    if s.batch_size is not None and s.dataset_size is not None:  # the sizes as given
        return Repeated(SampledWithoutReplacement(step, s.batch_size, s.dataset_size, rel), s.steps)
    q = s.sample_rate
    if not q.is_Rational:
        raise _bad("sample_rate", sample_rate, "must be a rational number B/N in (0, 1] for fixed-size batches")
    q = sympy.Rational(q)
    return Repeated(SampledWithoutReplacement(step, int(q.p), int(q.q), rel), s.steps)


# ---------------------------------------------------------------------------------------------
# mechanisms from text: command-line specs and spec files
# ---------------------------------------------------------------------------------------------

#: kind -> (constructor, {key in specs: parameter name}).
_KINDS: dict[str, tuple[Any, dict[str, str]]] = {
    "gaussian": (GaussianMechanism, {"sigma": "sigma", "sensitivity": "sensitivity"}),
    "gdp": (GDP, {"mu": "mu"}),
    "laplace": (LaplaceMechanism, {"scale": "scale", "sensitivity": "sensitivity"}),
    "rr": (RandomizedResponse, {"epsilon": "epsilon", "eps": "epsilon", "k": "k"}),
    "randomized-response": (RandomizedResponse, {"epsilon": "epsilon", "eps": "epsilon", "k": "k"}),
    "finite": (FiniteMechanism, {"p": "P", "q": "Q"}),
    "discrete-gaussian": (DiscreteGaussianMechanism, {"sigma": "sigma", "sensitivity": "sensitivity"}),
    "discrete-laplace": (DiscreteLaplaceMechanism, {"scale": "scale", "sensitivity": "sensitivity"}),
    "pure-dp": (PureDP, {"epsilon": "epsilon", "eps": "epsilon"}),
    "eps-delta": (EpsDelta, {"epsilon": "epsilon", "eps": "epsilon", "delta": "delta"}),
    "dpsgd": (dpsgd, {"sigma": "noise_multiplier", "noise-multiplier": "noise_multiplier",
                      "sample-rate": "sample_rate", "steps": "steps", "epochs": "epochs",
                      "batch-size": "batch_size", "dataset-size": "dataset_size", "sampling": "sampling",
                      "neighbours": "neighbours"}),
}
#: keys every kind accepts: a Poisson subsample (sample-rate) or a fixed-size batch (sample-size and
#: dataset-size) around it, with its neighbouring relation, and repetitions.
_WRAPPERS = ("sample-rate", "sample-size", "dataset-size", "neighbours", "times")


class SpecError(InvalidParameterError):
    """A mechanism spec that cannot be read; the message names the part at fault."""


def mechanism_from_dict(spec: Mapping[str, Any], *, where: str = "mechanism") -> Mechanism:
    """A mechanism from a mapping ``{"kind": KIND, param: value, ..., "times": N, "sample-rate": q}``.

    KIND is one of gaussian (sigma, sensitivity), gdp (mu), laplace (scale, sensitivity),
    rr / randomized-response (epsilon, k), finite (p, q: probabilities separated by ``;``, as in
    ``finite:p=1/2;1/4;1/4,q=1/4;1/4;1/2``), discrete-gaussian (sigma, sensitivity), discrete-laplace
    (scale, sensitivity), pure-dp (epsilon), eps-delta (epsilon, delta) and dpsgd
    (sigma, sample-rate or batch-size and dataset-size, steps or epochs, sampling, neighbours).
    ``sample-rate`` wraps the mechanism in :class:`PoissonSampled`, or ``sample-size`` and
    ``dataset-size`` in :class:`SampledWithoutReplacement` (``neighbours`` naming the relation of
    either), then ``times`` in :class:`Repeated`.  Keys may use ``_`` for ``-``.

    >>> mechanism_from_dict({"kind": "gaussian", "sigma": "10/3", "times": 10})
    Repeated(GaussianMechanism(sigma=10/3, sensitivity=1), 10)
    """
    if not isinstance(spec, Mapping):
        raise SpecError(f"{where}: must be a table of kind and parameters, got {spec!r}")
    items: dict[str, Any] = {}
    for k, v in spec.items():
        key = str(k).replace("_", "-")
        if key in items:
            raise SpecError(f"{where}: {key!r} is given twice")
        items[key] = v
    kind = items.pop("kind", None)
    if not isinstance(kind, str) or kind not in _KINDS:
        raise SpecError(f"{where}: kind={kind!r} must be one of {', '.join(sorted(_KINDS))}")
    make, keys = _KINDS[kind]
    wrap = {k: items.pop(k) for k in _WRAPPERS if k in items and not (kind == "dpsgd" and k in keys)}
    unknown = [k for k in items if k not in keys]
    if unknown:
        allowed = sorted(set(keys) | set(_WRAPPERS))
        raise SpecError(f"{where}: {unknown[0]!r} is not a parameter of {kind} (it takes {', '.join(allowed)})")
    kwargs = {keys[k]: v for k, v in items.items()}
    required = [name for name, par in inspect.signature(make).parameters.items()
                if par.default is inspect.Parameter.empty and name not in kwargs]
    if required:
        spelled = [next(k for k, v in keys.items() if v == name) for name in required]
        raise SpecError(f"{where}: {kind} needs {', '.join(spelled)}")
    fixed = [k for k in ("sample-size", "dataset-size") if k in wrap]
    if fixed and "sample-rate" in wrap:
        raise SpecError(f"{where}: give sample-rate (Poisson) or sample-size and dataset-size (fixed-size batches), "
                        "not both")
    if len(fixed) == 1:
        raise SpecError(f"{where}: fixed-size batches need both sample-size and dataset-size")
    if "neighbours" in wrap and not (fixed or "sample-rate" in wrap):
        raise SpecError(f"{where}: neighbours applies to a subsample (sample-rate, or sample-size and dataset-size)")
    try:
        m = make(**kwargs)
        relation = {"neighbours": wrap["neighbours"]} if "neighbours" in wrap else {}
        if "sample-rate" in wrap:
            m = PoissonSampled(m, wrap["sample-rate"], **relation)
        if fixed:
            m = SampledWithoutReplacement(m, wrap["sample-size"], wrap["dataset-size"], **relation)
        if "times" in wrap:
            m = Repeated(m, wrap["times"])
    except InvalidParameterError as exc:
        raise SpecError(f"{where}: {exc}") from None
    return m


def mechanism_from_spec(text: str) -> Mechanism:
    """A mechanism from a command-line spec ``KIND:key=value,key=value``.

    >>> mechanism_from_spec("laplace:scale=10,times=5")
    Repeated(LaplaceMechanism(scale=10, sensitivity=1), 5)
    >>> mechanism_from_spec("gaussian:sigma=1,sample-rate=0.01,times=1000")
    Repeated(PoissonSampled(GaussianMechanism(sigma=1, sensitivity=1), sample_rate=1/100), 1000)
    >>> mechanism_from_spec("gaussian:sigma=1,sample-size=600,dataset-size=60000,neighbours=replace-one,times=1000")
    Repeated(SampledWithoutReplacement(GaussianMechanism(sigma=1, sensitivity=1), sample_size=600, dataset_size=60000, neighbours='replace-one'), 1000)
    """
    if not isinstance(text, str):
        raise SpecError(f"mechanism {text!r}: a spec is a string KIND:key=value,...")
    kind, _, rest = text.strip().partition(":")
    spec: dict[str, Any] = {"kind": kind.strip()}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise SpecError(f"mechanism {text!r}: {part!r} must be key=value")
        name = key.strip().replace("_", "-")
        if name in spec or name == "kind":
            raise SpecError(f"mechanism {text!r}: {name!r} is given twice")
        spec[name] = value.strip()
    return mechanism_from_dict(spec, where=f"mechanism {text!r}")


def mechanism_from_file(path: str) -> Mechanism:
    """A mechanism from a TOML or JSON file: a list ``mechanisms`` of tables as in
    :func:`mechanism_from_dict` (composed), e.g. in TOML::

        [[mechanisms]]
        kind = "gaussian"
        sigma = "10/3"
        times = 10
    """
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise SpecError(f"spec file {path!r}: {exc.strerror or exc}") from None
    try:
        if path.endswith(".json"):
            data = json.loads(raw.decode("utf-8"), parse_float=str, parse_int=str)
        else:
            import tomllib

            data = tomllib.loads(raw.decode("utf-8"), parse_float=str)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SpecError(f"spec file {path!r}: not valid {'JSON' if path.endswith('.json') else 'TOML'} ({exc})") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("mechanisms"), list) or not data["mechanisms"]:
        raise SpecError(f"spec file {path!r}: needs a non-empty list 'mechanisms' of tables")
    parts = [mechanism_from_dict(d, where=f"spec file {path!r}, mechanisms[{i}]")
             for i, d in enumerate(data["mechanisms"])]
    return parts[0] if len(parts) == 1 else Composed(*parts)

