"""Mechanism values: what ran, as frozen data (the classes; the table of them is in
``docs/guides/account.md``, the conventions in ``docs/conventions.md``).  Each knows its trade-off function where one exists in closed form and the
laws of its privacy loss in both orderings.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..errors import bad
from ..errors import MISSING, InvalidParameterError, NotSupportedError
from ..text import show_number
from .base import LikelihoodAtom, Mechanism, set_frozen
from .._args import positive_double, positive_integer
from .._args import sympy_rational
from .numbers import exact_parameter, within_range
from .numbers import symbolic_composition as _composition, symbolic_losses as _sl, symbolic_tradeoffs as _tradeoffs
from .numbers import sympy_module as _sympy

if TYPE_CHECKING:
    import sympy

    from ..symbolic import losses as sl
    from ..symbolic.tradeoff import TradeOff

__all__ = ["GaussianMechanism", "GDP", "LaplaceMechanism", "RandomizedResponse", "FiniteMechanism", "PureDP",
           "DiscreteGaussianMechanism", "DiscreteLaplaceMechanism",
           "EpsDelta", "positive_finite", "rr_atoms", "CLOSED_FORM_OUTCOMES", "MAX_DL_OUTPUTS", "MAX_OUTCOMES"]


def positive_finite(name: str, value: Any) -> Any:
    """A mechanism's parameter, exactly: finite, > 0 and within the families' range [1e-100, 1e100]
    (a sigma of 1e999999 squared its mu = 1e-999999 for minutes).

    Args:
        name: The parameter's name, for the error.
        value: The parameter as given (a number or a decimal string).

    Returns:
        The exact value (a Fraction; a sympy argument that is not rational, as given).

    Raises:
        InvalidParameterError: It is not a finite number > 0, or lies outside [1e-100, 1e100].

    Examples:
        >>> positive_finite("sigma", "0.5")
        Fraction(1, 2)
        >>> positive_finite("sigma", "1e-999999")
        Traceback (most recent call last):
        ...
        gdpproof.errors.InvalidParameterError: sigma='1e-999999' must be within [1e-100, 1e100]
    """
    return within_range(name, value, exact_parameter(name, value, "positive"), zero=False)


def _nonneg_finite(name: str, value: Any) -> Any:
    return within_range(name, value, exact_parameter(name, value, "nonnegative"))


@dataclass(frozen=True, repr=False)
class GaussianMechanism(Mechanism):
    """Gaussian noise N(0, sigma^2) added to a query of L2-sensitivity ``sensitivity``.

    Exactly (sensitivity/sigma)-GDP, tight (DRS Thm 2.7).

    Args:
        sigma: The noise's standard deviation, finite and > 0 (exact: ``"10/3"`` is 10/3).
        sensitivity: The query's L2 sensitivity, finite and > 0.

    Raises:
        InvalidParameterError: A parameter is not a finite number > 0.

    Examples:
        >>> GaussianMechanism(sigma=2, sensitivity="1/2").gdp_mu()
        Fraction(1, 4)
    """

    sigma: Any
    sensitivity: Any = 1

    def __post_init__(self) -> None:
        set_frozen(self, sigma=positive_finite("sigma", self.sigma),
                sensitivity=positive_finite("sensitivity", self.sensitivity))

    def __repr__(self) -> str:
        return f"GaussianMechanism(sigma={show_number(self.sigma)}, sensitivity={show_number(self.sensitivity)})"

    def _leaf_mu(self) -> sympy.Expr:
        return self.sensitivity / self.sigma

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().gaussian(self._leaf_mu())

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        return "gaussian", (self._leaf_mu(),)

    def finite_loss_parameters(self) -> tuple[str, tuple[Any, ...]] | None:
        return None if self._leaf_mu() == 0 else self.loss_parameters()

    def sampler(self, times: int = 1, *, whole: Mechanism | None = None) -> Any:
        from ..simulation.samplers import GaussianSampler as Sampler

        return Sampler(positive_double("sensitivity", self.sensitivity), positive_double("sigma", self.sigma),
                       steps=times)


@dataclass(frozen=True, repr=False)
class GDP(Mechanism):
    """Any mu-GDP mechanism, accounted by its worst case N(0, 1) against N(mu, 1).

    Args:
        mu: The GDP parameter, finite and >= 0.

    Raises:
        InvalidParameterError: mu is not a finite number >= 0.

    Examples:
        >>> GDP("0.3")
        GDP(mu=3/10)
    """

    mu: Any

    def __post_init__(self) -> None:
        set_frozen(self, mu=_nonneg_finite("mu", self.mu))

    def __repr__(self) -> str:
        return f"GDP(mu={show_number(self.mu)})"

    def _leaf_mu(self) -> sympy.Expr:
        return self.mu

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().gaussian(self.mu)

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        return "gaussian", (self.mu,)

    def finite_loss_parameters(self) -> tuple[str, tuple[Any, ...]] | None:
        return None if self.mu == 0 else self.loss_parameters()

    def sampler(self, times: int = 1, *, whole: Mechanism | None = None) -> Any:
        from ..simulation.samplers import GaussianSampler as Sampler

        return Sampler(1.0, 1.0 / positive_double("mu", self.mu), steps=times)


@dataclass(frozen=True, repr=False)
class LaplaceMechanism(Mechanism):
    """Laplace noise of scale b added to a query of L1-sensitivity Delta (the pair Lap(0, 1),
    Lap(Delta/b, 1) after scaling; trade-off: Dong, Roth & Su 2022, Example after Prop. 2.4).

    Args:
        scale: The noise's scale b, finite and > 0.
        sensitivity: The query's L1 sensitivity Delta, finite and > 0.

    Raises:
        InvalidParameterError: A parameter is not a finite number > 0.

    Examples:
        >>> LaplaceMechanism(scale=2)
        LaplaceMechanism(scale=2, sensitivity=1)
        >>> LaplaceMechanism(scale=2).tradeoff()
        laplace(mu=1/2)
    """

    scale: Any
    sensitivity: Any = 1

    def __post_init__(self) -> None:
        set_frozen(self, scale=positive_finite("scale", self.scale),
                sensitivity=positive_finite("sensitivity", self.sensitivity))

    def __repr__(self) -> str:
        return f"LaplaceMechanism(scale={show_number(self.scale)}, sensitivity={show_number(self.sensitivity)})"

    def _shift(self) -> sympy.Expr:
        return self.sensitivity / self.scale

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().laplace(self._shift())

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        return "laplace", (self._shift(),)

    def sampler(self, times: int = 1, *, whole: Mechanism | None = None) -> Any:
        if times != 1:
            return super().sampler(times, whole=whole)
        from ..simulation.samplers import LaplaceSampler as Sampler

        return Sampler(positive_double("sensitivity", self.sensitivity), positive_double("scale", self.scale))


@dataclass(frozen=True, repr=False)
class RandomizedResponse(Mechanism):
    """k-ary randomized response: the true value (one of k) with probability e^eps/(e^eps + k - 1),
    each other value with probability 1/(e^eps + k - 1).  ``k = 2`` (default) is binary randomized
    response.

    Its worst pair is two different true values; the privacy loss is +-eps or 0 (0 on the k - 2
    other values), so the mechanism is eps-DP and its trade-off is the piecewise-linear curve
    max{0, 1 - e^eps a, 1 - (e^eps - 1)/Z - a, e^-eps (1 - a)}, Z = e^eps + k - 1: exactly
    f_{eps,0} for k = 2, above it for k > 2 (:mod:`gdpproof.symbolic.losses`).

    Args:
        epsilon: eps, finite and >= 0.
        k: The number of values, an integer >= 2.

    Raises:
        InvalidParameterError: epsilon is not a finite number >= 0, or k not an integer >= 2.

    Examples:
        >>> RandomizedResponse(1, k=4)
        RandomizedResponse(epsilon=1, k=4)
    """

    epsilon: Any
    k: Any = 2

    def __post_init__(self) -> None:
        k = positive_integer("k", self.k)
        if k < 2:
            raise bad("k", self.k, "must be an integer >= 2 (the number of values)")
        set_frozen(self, epsilon=_nonneg_finite("epsilon", self.epsilon), k=k)

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

    _finite_loss = True

    def _repeated_tradeoff(self, times: int) -> TradeOff:
        return _composition().rr_composition(self.epsilon, times) if self.k == 2 else super()._repeated_tradeoff(times)

    def as_eps_delta(self) -> tuple[sympy.Expr, sympy.Expr] | None:
        return (sympy_rational(self.epsilon), _sympy().Integer(0)) if self.k == 2 else None

    def finite_pair(self) -> tuple[LikelihoodAtom, ...]:
        return rr_atoms(self.epsilon, self.k)

    def sampler(self, times: int = 1, *, whole: Mechanism | None = None) -> Any:
        from ..simulation.samplers import RandomizedResponseSampler as Sampler

        return Sampler(positive_double("epsilon", self.epsilon), n=times, k=int(self.k))

    def finite_loss_parameters(self) -> tuple[str, tuple[Any, ...]] | None:
        return None if self.epsilon == 0 else self.loss_parameters()

    def masses(self) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
        """The worst pair as exact masses (P(o), Q(o)) of its kinds of outputs (the k - 2 other
        values merged: they have the same likelihood ratio 1)."""
        sympy, sl = _sympy(), _sl()
        vals = {sl.epsilon: sympy_rational(self.epsilon), sl.k: sympy.Integer(self.k)}
        return tuple((pm.xreplace(vals), qm.xreplace(vals)) for pm, qm in sl.K_RR_MASSES
                     if self.k > 2 or pm.xreplace(vals) != 0)


def rr_atoms(epsilon: Any, k: int = 2, delta: Any = 0) -> tuple[LikelihoodAtom, ...]:
    """The worst pair of k-ary randomized response as likelihood atoms: the first true value
    (ratio e^eps), the second (e^-eps), the k - 2 others (1); with ``delta`` > 0 the pair of
    (eps, delta)-DP (Kairouz, Oh & Viswanath 2015): those on mass 1 - delta, and an output of mass
    delta under each law revealing it."""
    sympy = _sympy()
    epsilon, delta = sympy_rational(epsilon), sympy_rational(Fraction(delta) if isinstance(delta, int) else delta)
    keep = 1 - delta
    rr = RandomizedResponse(epsilon, k).masses()
    atoms = tuple((keep * a, keep * b, Fraction(1), c, epsilon) for (a, b), c in zip(rr, (1, -1, 0)))
    if delta != 0:
        atoms += ((delta, sympy.Integer(0), None, 0, None), (sympy.Integer(0), delta, Fraction(0), 0, None))
    return atoms


#: The most outcomes of a finite mechanism.
MAX_OUTCOMES = 10_000
#: A finite pair with more outcomes is not given the closed-form route (its sympy curve costs
#: seconds from 16 outcomes on, and grows with them); the exact-finite route composes it.
CLOSED_FORM_OUTCOMES = 8
#: The largest sensitivity of a discrete Laplace mechanism composed on the exact-finite route (its
#: pair has Delta + 1 outputs, each mass a ball of exponentials); beyond, the bracket.
MAX_DL_OUTPUTS = 256


def _mass_list(name: str, value: Any) -> tuple[sympy.Rational, ...]:
    """A distribution given exactly: a sequence of rationals >= 0 summing to 1 (a string
    ``"1/2;1/4;1/4"`` is split at ``;``)."""
    sympy = _sympy()
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

    Args:
        P: The output distribution on one dataset: rationals >= 0 summing to 1 exactly (a sequence,
            or a string ``"1/2;1/4;1/4"``), at most 10,000 outcomes.
        Q: The output distribution on the neighbouring dataset, as many outcomes as ``P``.

    Raises:
        InvalidParameterError: A mass is not a rational in [0, 1], the masses do not sum to 1, or
            P and Q differ in length.

    Examples:
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
        set_frozen(self, P=pm, Q=qm)

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

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        raise NotSupportedError(f"{self!r}: a finite pair is composed exactly (route exact-finite); "
                                "the numerical bracket takes the named families only")

    _finite_loss = True

    def _closed_form_is_slow(self, times: int) -> bool:
        return len(self.P) > CLOSED_FORM_OUTCOMES  # sympy's Max of its pieces compares them pairwise

    def finite_pair(self) -> tuple[LikelihoodAtom, ...]:
        return tuple((a, b, None if b == 0 else Fraction(int((a / b).p), int((a / b).q)), 0, None)
                     for a, b in self.masses())


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
    the standard deviation: Var Z < sigma^2 (CKS Prop. 19).

    Its dominating pair is (N_Z(0, sigma^2), N_Z(Delta, sigma^2)) (the family has a monotone
    likelihood ratio; ``derivations/d14_discrete_mechanisms.py``); the privacy loss
    L(x) = (Delta^2 - 2 Delta x)/(2 sigma^2) is a lattice law with infinitely many atoms.  A single
    mechanism is accounted exactly (route ``exact``: a certified sum with a proven tail bound),
    compositions by the proven bracket.

    Args:
        sigma: The scale, finite and > 0: a rational or the square root of one.
        sensitivity: The query's sensitivity Delta, a positive integer.

    Raises:
        InvalidParameterError: sigma^2 is not a positive rational, or the sensitivity not a positive
            integer.

    Examples:
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
        set_frozen(self, sigma=s, sensitivity=_integer_sensitivity(self.sensitivity))

    def __repr__(self) -> str:
        return f"DiscreteGaussianMechanism(sigma={show_number(self.sigma)}, sensitivity={self.sensitivity})"

    def _leaf_tradeoff(self) -> TradeOff:
        raise NotSupportedError(f"{self!r}: its trade-off curve is piecewise linear with infinitely many "
                                "kinks; gdpproof gives its privacy profile (gdpproof.account: delta(eps) "
                                "certified on the exact route) but no closed-form curve")

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        return "discrete_gaussian", (self.sigma, Fraction(self.sensitivity))

    def loss_law(self) -> sl.LossLaw:
        return _sl().discrete_gaussian_loss(sympy_rational(self.sigma), _sympy().Integer(self.sensitivity))

    def sampler(self, times: int = 1, *, whole: Mechanism | None = None) -> Any:
        from ..simulation.samplers import DiscreteGaussianSampler as Sampler

        return Sampler(positive_double("sigma", self.sigma), int(self.sensitivity), steps=times)


@dataclass(frozen=True, repr=False)
class DiscreteLaplaceMechanism(Mechanism):
    """Discrete Laplace (two-sided geometric) noise added to an integer-valued query f with
    |f(D) - f(D')| <= Delta: P[Z = z] = (1 - r)/(1 + r) r^|z|, r = e^{-1/scale} (Ghosh, Roughgarden
    & Sundararajan 2009, the geometric mechanism; Canonne, Kamath & Steinke 2020, Def. 4).

    The privacy loss of the pair (P_0, P_Delta) takes the Delta + 1 values (Delta - 2x)/scale,
    x = 0..Delta: a finite pair (:meth:`masses`), composed exactly (route ``exact-finite``) where
    the table of losses allows, and by the proven bracket beyond (or mixed with mechanisms whose
    loss is not finite); it is (Delta/scale)-DP.

    Args:
        scale: The scale, finite and > 0 (r = e^{-1/scale}).
        sensitivity: The query's sensitivity Delta, a positive integer.

    Raises:
        InvalidParameterError: The scale is not a finite number > 0, or the sensitivity not a
            positive integer.

    Examples:
        >>> DiscreteLaplaceMechanism(scale=2, sensitivity=3).masses()[0]
        (1/(exp(-1/2) + 1), exp(-3/2)/(exp(-1/2) + 1))
    """

    scale: Any
    sensitivity: Any = 1

    def __post_init__(self) -> None:
        set_frozen(self, scale=positive_finite("scale", self.scale),
                sensitivity=_integer_sensitivity(self.sensitivity))

    def __repr__(self) -> str:
        return f"DiscreteLaplaceMechanism(scale={show_number(self.scale)}, sensitivity={self.sensitivity})"

    def masses(self) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
        """The worst pair as exact masses (P(o), Q(o)) of its Delta + 1 kinds of outputs: x <= 0,
        x = 1, ..., Delta - 1, and x >= Delta (:func:`gdpproof.symbolic.losses.discrete_laplace_masses`)."""
        return _sl().discrete_laplace_masses(sympy_rational(1 / self.scale), self.sensitivity)

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().finite_tradeoff(self.masses())

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        return "discrete_laplace", (1 / self.scale, Fraction(self.sensitivity))

    def loss_law(self) -> sl.LossLaw:
        return _sl().discrete_laplace_loss(sympy_rational(1 / self.scale), _sympy().Integer(self.sensitivity))

    _finite_loss = True

    def _closed_form_is_slow(self, times: int) -> bool:
        return True  # its curve's kinks are exponentials sympy orders slowly: exact-finite is faster

    def _exact_finite_is_slow(self) -> bool:
        return self.sensitivity > MAX_DL_OUTPUTS  # a ball per output and atom: beyond, the bracket

    def finite_pair(self) -> tuple[LikelihoodAtom, ...]:
        # the output x <= 0, x = 1..Delta - 1, x >= Delta has ratio e^{(Delta - 2 min(max(x, 0), Delta)) / scale}
        d = self.sensitivity
        return tuple((a, b, Fraction(1), d - 2 * i, 1 / self.scale) for i, (a, b) in enumerate(self.masses()))


@dataclass(frozen=True, repr=False)
class PureDP(Mechanism):
    """Any eps-DP mechanism: accounted by its worst case, randomized response (f_{eps,0}).

    Args:
        epsilon: eps, finite and >= 0.

    Raises:
        InvalidParameterError: epsilon is not a finite number >= 0.

    Examples:
        >>> PureDP(1).tradeoff()
        eps_delta(epsilon=1, delta=0)
    """

    epsilon: Any

    def __post_init__(self) -> None:
        set_frozen(self, epsilon=_nonneg_finite("epsilon", self.epsilon))

    def __repr__(self) -> str:
        return f"PureDP(epsilon={show_number(self.epsilon)})"

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().eps_delta(self.epsilon, 0)

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        return "randomized_response", (self.epsilon,)

    _finite_loss = True

    def _repeated_tradeoff(self, times: int) -> TradeOff:
        return _composition().rr_composition(self.epsilon, times)

    def as_eps_delta(self) -> tuple[sympy.Expr, sympy.Expr]:
        return sympy_rational(self.epsilon), _sympy().Integer(0)

    def finite_pair(self) -> tuple[LikelihoodAtom, ...]:
        return rr_atoms(self.epsilon)

    def sampler(self, times: int = 1, *, whole: Mechanism | None = None) -> Any:
        from ..simulation.samplers import RandomizedResponseSampler as Sampler

        return Sampler(positive_double("epsilon", self.epsilon), n=times, k=2)

    def finite_loss_parameters(self) -> tuple[str, tuple[Any, ...]] | None:
        return None if self.epsilon == 0 else self.loss_parameters()


@dataclass(frozen=True, repr=False)
class EpsDelta(Mechanism):
    """Any (eps, delta)-DP mechanism: trade-off f_{eps,delta}.

    Its worst pair reveals the data with probability delta and is randomized response
    otherwise, so its privacy loss is +-infinity with probability delta: the exact finite
    route composes it; the numerical bracket does not.

    Args:
        epsilon: eps, finite and >= 0.
        delta: delta, in [0, 1].

    Raises:
        InvalidParameterError: epsilon is not a finite number >= 0, or delta not in [0, 1].

    Examples:
        >>> EpsDelta(1, "1e-5")
        EpsDelta(epsilon=1, delta=1/100000)
    """

    epsilon: Any
    delta: Any

    def __post_init__(self) -> None:
        d = exact_parameter("delta", self.delta, "probability")
        set_frozen(self, epsilon=_nonneg_finite("epsilon", self.epsilon), delta=d)

    def __repr__(self) -> str:
        return f"EpsDelta(epsilon={show_number(self.epsilon)}, delta={show_number(self.delta)})"

    def _leaf_tradeoff(self) -> TradeOff:
        return _tradeoffs().eps_delta(self.epsilon, self.delta)

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        if self.delta != 0:
            raise NotSupportedError(f"{self!r}: its privacy loss is infinite with probability delta = "
                                    f"{self.delta}, which a privacy-loss distribution cannot carry; the "
                                    "exact-finite route composes it")
        return "randomized_response", (self.epsilon,)

    _finite_loss = True

    def _closed_form_is_slow(self, times: int) -> bool:
        # n copies carry (1 - delta)^n as an exact rational: millions of digits for large n, which
        # the exact-finite route evaluates in balls instead
        return self.delta != 0 and times > 4096

    def as_eps_delta(self) -> tuple[sympy.Expr, sympy.Expr]:
        return sympy_rational(self.epsilon), sympy_rational(self.delta)

    def finite_pair(self) -> tuple[LikelihoodAtom, ...]:
        return rr_atoms(self.epsilon, 2, self.delta)

    def revealing(self) -> tuple[sympy.Expr, sympy.Expr] | None:
        return (sympy_rational(self.epsilon), sympy_rational(self.delta)) if self.delta != 0 else None

    def finite_loss_parameters(self) -> tuple[str, tuple[Any, ...]] | None:
        if self.epsilon == 0:
            return None
        return "randomized_response", (self.epsilon,)  # the finite part when delta > 0
