"""Mechanisms built from mechanisms: a subsample of one (Poisson, or a fixed-size batch drawn
without replacement), several run on the same data, and one run several times.  What they answer
for the routes comes from the mechanisms inside them (:mod:`gdpproof.mechanisms.base`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..errors import NotSupportedError, bad
from ..text import show_number
from .._args import positive_double, positive_integer
from .numbers import exact_parameter, within_range
from .numbers import symbolic_composition as _composition

if TYPE_CHECKING:
    import sympy

    from ..symbolic.tradeoff import TradeOff
from .base import MAX_RUNS, Mechanism, set_frozen
from .values import GDP, GaussianMechanism

__all__ = ["NEIGHBOURS", "relation", "Subsampled", "PoissonSampled", "SampledWithoutReplacement", "Composed", "Repeated"]


#: The neighbouring relations of subsampled mechanisms.
NEIGHBOURS = ("add-remove", "replace-one")


def relation(value: Any) -> str:
    if not isinstance(value, str) or value not in NEIGHBOURS:
        raise bad("neighbours", value, "must be 'add-remove' or 'replace-one'")
    return value


class Subsampled(Mechanism):
    """What Poisson and fixed-size subsampling share: a rate, a relation and the laws of a
    subsampled Gaussian step (derivations/d12_sampling_schemes.py).  Built through its two kinds,
    :class:`PoissonSampled` and :class:`SampledWithoutReplacement`.

    Examples:
        >>> isinstance(PoissonSampled(GaussianMechanism(1), "0.01"), Subsampled)
        True
    """

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

    def _closed_form_is_slow(self, times: int) -> bool:
        # T > 1 steps of a subsampled Gaussian (DP-SGD) have no closed form (self_compose refuses
        # C_p(G_mu)): decided here, without building the curve
        inner = self.mechanism
        return times > 1 and self.sample_rate != 1 and isinstance(inner, (GaussianMechanism, GDP)) and \
            inner._leaf_mu() != 0

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        """The dominating pair's privacy loss: the subsampled Gaussian's (remove/add orderings)
        under add/remove, the symmetric pair of C_p(G_mu) under replace-one (d12)."""
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

    def symmetric(self) -> bool:
        return self.neighbours == "replace-one"  # the symmetric pair of C_p; add/remove's is not

    def _subsampled_gaussian(self) -> tuple[sympy.Expr, sympy.Expr] | None:
        inner = self.mechanism
        return (inner._leaf_mu(), self.sample_rate) if isinstance(inner, (GaussianMechanism, GDP)) else None

    def _subsampling(self) -> tuple[str, str]:
        return self._scheme, self.neighbours

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
    dominating pair is the symmetric pair of C_p(G_mu), an upper bound (d12).

    Args:
        mechanism: The mechanism run on the subsample (a Poisson subsample of one is merged: rate
            p q).
        sample_rate: The probability p that a record enters, in (0, 1].
        neighbours: ``"add-remove"`` or ``"replace-one"``.

    Raises:
        InvalidParameterError: The rate is not in (0, 1], the relation not one of the two, or it
            differs from an inner Poisson subsample's.

    Examples:
        >>> PoissonSampled(GaussianMechanism(1), "0.01")
        PoissonSampled(GaussianMechanism(sigma=1, sensitivity=1), sample_rate=1/100)
    """

    mechanism: Mechanism
    sample_rate: Any
    neighbours: str = "add-remove"
    _scheme = "poisson"

    def __post_init__(self) -> None:
        self._check_inner()
        q = exact_parameter("sample_rate", self.sample_rate, "rate")
        within_range("sample_rate", self.sample_rate, q, probability=True, zero=False)
        rel = relation(self.neighbours)
        inner = self.mechanism
        if isinstance(inner, PoissonSampled):  # a Poisson subsample of a Poisson subsample: rate p q
            if inner.neighbours != rel:
                raise bad("neighbours", rel, f"must match the inner subsample's ({inner.neighbours})")
            set_frozen(self, mechanism=inner.mechanism, sample_rate=q * inner.sample_rate, neighbours=rel)
        else:
            set_frozen(self, sample_rate=q, neighbours=rel)

    def __repr__(self) -> str:
        rel = "" if self.neighbours == "add-remove" else f", neighbours={self.neighbours!r}"
        return f"PoissonSampled({self.mechanism!r}, sample_rate={show_number(self.sample_rate)}{rel})"

    def _leaf_mu(self) -> sympy.Expr | None:
        # rate 1 takes every record: the mechanism itself (C_1(f) = f), under either relation
        return self.mechanism._leaf_mu() if self.sample_rate == 1 else None

    def sampler(self, times: int = 1, *, whole: Mechanism | None = None) -> Any:
        inner = self.mechanism
        if not isinstance(inner, GaussianMechanism) or self.neighbours != "add-remove":
            return super().sampler(times, whole=whole)
        from ..simulation.samplers import SubsampledGaussianSampler as Sampler

        return Sampler(positive_double("sigma", inner.sigma) / positive_double("sensitivity", inner.sensitivity),
                       positive_double("sample-rate", self.sample_rate), steps=times)


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

    Args:
        mechanism: The mechanism run on the batch.
        sample_size: The batch size B, a positive integer.
        dataset_size: The number of records N, at least B (more than B under add/remove).
        neighbours: ``"replace-one"`` or ``"add-remove"``.

    Raises:
        InvalidParameterError: A size is not a positive integer, N < B (N = B under add/remove), or
            the relation is not one of the two.

    Examples:
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
        b = positive_integer("sample_size", self.sample_size)
        n = positive_integer("dataset_size", self.dataset_size)
        rel = relation(self.neighbours)
        if n < b:
            raise bad("dataset_size", self.dataset_size, f"must be at least sample_size = {b}")
        if rel == "add-remove" and n == b:
            raise bad("dataset_size", self.dataset_size, f"must exceed sample_size = {b} under add-remove "
                       "neighbours (the dataset with a record fewer must still fill a batch)")
        set_frozen(self, sample_size=b, dataset_size=n, neighbours=rel)

    @property
    def sample_rate(self) -> Fraction:
        return Fraction(self.sample_size, self.dataset_size)

    def __repr__(self) -> str:
        return (f"SampledWithoutReplacement({self.mechanism!r}, sample_size={self.sample_size}, "
                f"dataset_size={self.dataset_size}, neighbours={self.neighbours!r})")


@dataclass(frozen=True, repr=False)
class Composed(Mechanism):
    """All of ``mechanisms`` run on the same data (adaptive composition).

    Args:
        *mechanisms: The mechanism values (or one list of them), at least one.

    Raises:
        InvalidParameterError: None is given, or one is not a mechanism value.

    Examples:
        >>> Composed(GDP(1), Repeated(GDP(1), 3)).gdp_mu()
        Fraction(2, 1)
    """

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

    def sampler(self, times: int = 1, *, whole: Mechanism | None = None) -> Any:
        raise NotSupportedError(f"{whole or self!r}: simulate runs one kind of mechanism (times= repeats it); "
                                "compose other kinds with account")


@dataclass(frozen=True, repr=False)
class Repeated(Mechanism):
    """``mechanism`` run ``times`` times (adaptively or not).

    Args:
        mechanism: The mechanism value.
        times: How many runs, a positive integer at most 10^9.

    Raises:
        InvalidParameterError: ``times`` is not a positive integer, or the runs exceed 10^9.

    Examples:
        >>> Repeated(GaussianMechanism(sigma=2), 4).gdp_mu()
        Fraction(1, 1)
    """

    mechanism: Mechanism
    times: Any

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise bad("mechanism", self.mechanism, "must be a gdpproof mechanism value")
        n = positive_integer("times", self.times)
        if n > MAX_RUNS:
            raise bad("times", self.times, "must be at most 10^9")
        self._nest((self.mechanism,), n)
        set_frozen(self, times=n)

    def __repr__(self) -> str:
        return f"Repeated({self.mechanism!r}, {self.times})"

    def _walk(self, times: int) -> Iterator[tuple[Mechanism, int]]:
        yield from self.mechanism._walk(times * self.times)

    def sampler(self, times: int = 1, *, whole: Mechanism | None = None) -> Any:
        return self.mechanism.sampler(times * self.times, whole=whole or self)
