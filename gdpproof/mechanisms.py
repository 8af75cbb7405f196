r"""What was run: mechanisms as frozen values.

A mechanism value describes what ran, not how it is accounted (in the spirit of dp_accounting's
``DpEvent``).  One vocabulary is used everywhere (the API, ``gdpproof account --mechanism``,
spec files):

========================================  ===========================================================
``GaussianMechanism(sigma, sensitivity)``  adds N(0, sigma^2) to a query of L2-sensitivity Delta: exactly (Delta/sigma)-GDP
``GDP(mu)``                                any mu-GDP mechanism (its worst case: N(0,1) against N(mu,1))
``LaplaceMechanism(scale, sensitivity)``   adds Laplace(scale) noise to a query of L1-sensitivity Delta
``RandomizedResponse(epsilon)``            binary randomized response, trade-off f_{eps,0} exactly
``PureDP(epsilon)``                        any eps-DP mechanism (its worst case is randomized response)
``EpsDelta(epsilon, delta)``               any (eps, delta)-DP mechanism (trade-off f_{eps,delta})
``PoissonSampled(mechanism, sample_rate)``  the mechanism run on a Poisson subsample (add/remove neighbours)
``Composed(m1, m2, ...)``                  all of them run on the same data (adaptively or not)
``Repeated(mechanism, times)``             the same mechanism run ``times`` times
``dpsgd(noise_multiplier, sample_rate, steps)``  Repeated(PoissonSampled(GaussianMechanism(sigma), p), T)
========================================  ===========================================================

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
from .errors import MISSING, InvalidParameterError, NotSupportedError
from .symbolic import losses as sl
from .symbolic.composition import _count, compose, rr_composition, self_compose, subsample
from .symbolic.tradeoff import TradeOff, eps_delta, gaussian, laplace, randomized_response

__all__ = ["Mechanism", "GaussianMechanism", "GDP", "LaplaceMechanism", "RandomizedResponse", "PureDP", "EpsDelta",
           "PoissonSampled", "Composed", "Repeated", "dpsgd", "mechanism_from_spec", "mechanism_from_dict",
           "mechanism_from_file", "show_number"]


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
    if v.q != 1 and not (int(v.q) & (int(v.q) - 1)) and abs(v) < 2**1023:
        f = float(v)
        if sympy.Rational(f) == v and len(repr(f)) <= _MAX_TEXT:
            return repr(f)
    for text in (str(v), _decimal_text(v)):
        if text is not None and len(text) <= _MAX_TEXT:
            return text
    return f"≈{sympy.N(v, 8)}"


_show = show_number


class Mechanism:
    """A description of what ran.  Subclasses are frozen dataclasses with exact parameters."""

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
        total = sympy.Integer(0)
        for leaf, n in self.leaves():
            m = leaf._leaf_mu()
            if m is None:
                return None
            total += n * m**2
        return sympy.sqrt(total)

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
            if isinstance(leaf, (RandomizedResponse, PureDP)):
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
        """(noise_multiplier, sample_rate, steps) when the value is DP-SGD with Poisson sampling
        (T runs of a Poisson-subsampled Gaussian mechanism), else None.

        >>> dpsgd(1, "0.01", 100).dpsgd_parameters()
        (1, 1/100, 100)
        """
        leaves = self.leaves()
        if len(leaves) != 1:
            return None
        leaf, steps = leaves[0]
        if not isinstance(leaf, PoissonSampled) or not isinstance(leaf.mechanism, (GaussianMechanism, GDP)):
            return None
        mu = leaf.mechanism._leaf_mu()
        if mu == 0:
            return None
        return 1 / mu, leaf.sample_rate, steps

    def finite_support(self) -> bool:
        """True when every base mechanism's privacy loss takes finitely many values."""
        return all(isinstance(leaf, (RandomizedResponse, PureDP, EpsDelta)) for leaf, _ in self.leaves())


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
    """Binary randomized response: the true bit with probability e^eps/(1 + e^eps).

    Its trade-off is exactly f_{eps,0}."""

    epsilon: Any

    def __post_init__(self) -> None:
        _frozen(self, epsilon=_nonneg_finite("epsilon", self.epsilon))

    def __repr__(self) -> str:
        return f"RandomizedResponse(epsilon={_show(self.epsilon)})"

    def _leaf_tradeoff(self) -> TradeOff:
        return randomized_response(self.epsilon)

    def loss_law(self) -> sl.LossLaw:
        return sl.randomized_response_loss(self.epsilon)


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


@dataclass(frozen=True, repr=False)
class PoissonSampled(Mechanism):
    """``mechanism`` run on a Poisson subsample: each record enters with probability
    ``sample_rate`` (add/remove neighbours).  Trade-off C_p(f) (DRS Thm 4.2)."""

    mechanism: Mechanism
    sample_rate: Any

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise _bad("mechanism", self.mechanism, "must be a gdpproof mechanism value")
        q = probability("sample_rate", self.sample_rate, symbolic=False)
        if q == 0:
            raise _bad("sample_rate", self.sample_rate, "must be in (0, 1]")
        inner = self.mechanism
        if isinstance(inner, PoissonSampled):  # a Poisson subsample of a Poisson subsample: rate p q
            _frozen(self, mechanism=inner.mechanism, sample_rate=q * inner.sample_rate)
        else:
            _frozen(self, sample_rate=q)

    def __repr__(self) -> str:
        return f"PoissonSampled({self.mechanism!r}, sample_rate={_show(self.sample_rate)})"

    def _leaf_tradeoff(self) -> TradeOff:
        return subsample(self.mechanism.tradeoff(), self.sample_rate)

    def loss_law(self) -> sl.LossLaw:
        inner = self.mechanism
        if isinstance(inner, (GaussianMechanism, GDP)):
            mu = inner._leaf_mu()
            if mu == 0:
                raise NotSupportedError(f"{self!r}: the inner mechanism has no privacy loss")
            return sl.subsampled_gaussian_loss(1 / mu, self.sample_rate)
        raise NotSupportedError(f"{self!r}: gdpproof composes Poisson-subsampled Gaussian mechanisms "
                                "numerically; other subsampled mechanisms are not supported yet")


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
        if n > 10**9:
            raise _bad("times", self.times, "must be at most 10^9")
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
          batch_size: Any = None, dataset_size: Any = None) -> Repeated:
    """DP-SGD with Poisson sampling: ``steps`` steps, each the Gaussian mechanism with noise
    multiplier sigma (sensitivity 1 = the clipping norm) on a Poisson batch of rate p.

    The rate and the steps may also be given as a training script knows them, by ``epochs``,
    ``batch_size`` and ``dataset_size`` (:func:`dpsgd_schedule` gives the rule).

    >>> dpsgd(1.0, "0.01", 1000)
    Repeated(PoissonSampled(GaussianMechanism(sigma=1, sensitivity=1), sample_rate=1/100), 1000)
    >>> dpsgd("1.1", epochs=60, batch_size=256, dataset_size=60000)
    Repeated(PoissonSampled(GaussianMechanism(sigma=11/10, sensitivity=1), sample_rate=8/1875), 14063)
    """
    s = dpsgd_schedule(sample_rate=sample_rate, steps=steps, epochs=epochs, batch_size=batch_size,
                       dataset_size=dataset_size)
    return Repeated(PoissonSampled(GaussianMechanism(noise_multiplier), s.sample_rate), s.steps)


# ---------------------------------------------------------------------------------------------
# mechanisms from text: command-line specs and spec files
# ---------------------------------------------------------------------------------------------

#: kind -> (constructor, {key in specs: parameter name}).
_KINDS: dict[str, tuple[Any, dict[str, str]]] = {
    "gaussian": (GaussianMechanism, {"sigma": "sigma", "sensitivity": "sensitivity"}),
    "gdp": (GDP, {"mu": "mu"}),
    "laplace": (LaplaceMechanism, {"scale": "scale", "sensitivity": "sensitivity"}),
    "rr": (RandomizedResponse, {"epsilon": "epsilon", "eps": "epsilon"}),
    "randomized-response": (RandomizedResponse, {"epsilon": "epsilon", "eps": "epsilon"}),
    "pure-dp": (PureDP, {"epsilon": "epsilon", "eps": "epsilon"}),
    "eps-delta": (EpsDelta, {"epsilon": "epsilon", "eps": "epsilon", "delta": "delta"}),
    "dpsgd": (dpsgd, {"sigma": "noise_multiplier", "noise-multiplier": "noise_multiplier",
                      "sample-rate": "sample_rate", "steps": "steps", "epochs": "epochs",
                      "batch-size": "batch_size", "dataset-size": "dataset_size"}),
}
#: keys every kind accepts: a Poisson subsample around it, and repetitions.
_WRAPPERS = ("sample-rate", "times")


class SpecError(InvalidParameterError):
    """A mechanism spec that cannot be read; the message names the part at fault."""


def mechanism_from_dict(spec: Mapping[str, Any], *, where: str = "mechanism") -> Mechanism:
    """A mechanism from a mapping ``{"kind": KIND, param: value, ..., "times": N, "sample-rate": q}``.

    KIND is one of gaussian (sigma, sensitivity), gdp (mu), laplace (scale, sensitivity),
    rr / randomized-response (epsilon), pure-dp (epsilon), eps-delta (epsilon, delta) and dpsgd
    (sigma, sample-rate or batch-size and dataset-size, steps or epochs).  ``sample-rate`` wraps the mechanism in :class:`PoissonSampled`,
    then ``times`` in :class:`Repeated`.  Keys may use ``_`` for ``-``.

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
    wrap = {k: items.pop(k) for k in _WRAPPERS if k in items and not (kind == "dpsgd" and k == "sample-rate")}
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
    try:
        m = make(**kwargs)
        if "sample-rate" in wrap:
            m = PoissonSampled(m, wrap["sample-rate"])
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

