"""dp_accounting's accountant interface, answered with gdpproof's proven bracket.

:class:`GdpproofAccountant` is a ``dp_accounting.PrivacyAccountant``: compose ``DpEvent`` values
as with dp_accounting's own accountants, then ask ``get_epsilon(target_delta)`` or
``get_delta(target_epsilon)``.  The answer is the **proven upper end** of :func:`gdpproof.account`
for the composed run, as a float rounded up; ``get_epsilon_bracket`` and ``get_delta_bracket``
return the whole :class:`~gdpproof.Account`.  :func:`mechanism_from_event` is the one mapping from
events to mechanism values (Gaussian, Laplace, discrete Laplace, Poisson-sampled Gaussian,
sampled without replacement, self-composed, composed, no-op and non-private events), under
``ADD_OR_REMOVE_ONE`` (the default) or ``REPLACE_ONE``.  Other events are unsupported in
dp_accounting's convention: :class:`EventNotSupportedError`.

The events table, the sensitivity each relation gives, and an example:
``docs/guides/dpsgd.md`` ("Inside a training loop").
"""

from __future__ import annotations

import math
from typing import Any

import sympy
from dp_accounting import dp_event, privacy_accountant

from ..accounting import Account
from ..errors import InvalidParameterError, NotSupportedError
from ..mechanisms import (GDP, Composed, DiscreteLaplaceMechanism, GaussianMechanism, LaplaceMechanism, Mechanism,
                          PoissonSampled, SampledWithoutReplacement)
from ._common import (
    REVEALS,
    cached_account,
    check_rel_width,
    gaussian,
    noise_parameter,
    poisson_sampled,
    proven_upper,
    run_mechanism,
)

__all__ = ["GdpproofAccountant", "EventNotSupportedError", "mechanism_from_event"]

NeighboringRelation = privacy_accountant.NeighboringRelation
_RELATIONS = (NeighboringRelation.ADD_OR_REMOVE_ONE, NeighboringRelation.REPLACE_ONE)


class EventNotSupportedError(NotSupportedError, privacy_accountant.UnsupportedEventError):
    """A ``DpEvent`` that gdpproof does not account (yet); ``event`` is the offending sub-event.

    It is both gdpproof's :class:`~gdpproof.errors.NotSupportedError` and dp_accounting's
    ``UnsupportedEventError``, so either ``except`` catches it."""

    def __init__(self, message: str, event: Any = None) -> None:
        super().__init__(message)
        self.event = event


def _relation(relation: NeighboringRelation) -> str:
    """gdpproof's name of a dp_accounting neighbouring relation."""
    return "replace-one" if relation is NeighboringRelation.REPLACE_ONE else "add-remove"


def _without_replacement(event: dp_event.SampledWithoutReplacementDpEvent,
                         relation: NeighboringRelation) -> Mechanism | None:
    """A fixed-size batch of ``sample_size`` of ``source_dataset_size`` records, under either
    relation (:class:`~gdpproof.mechanisms.SampledWithoutReplacement`, derivation d12).  The batch
    changes by a replacement under either relation (a removed record's slot is taken by another),
    so the inner event is read with the replace-one sensitivity (2 in units of the clip)."""
    inner = mechanism_from_event(event.event, neighboring_relation=NeighboringRelation.REPLACE_ONE)
    b = _count(event.sample_size, "SampledWithoutReplacementDpEvent.sample_size")
    n = _count(event.source_dataset_size, "SampledWithoutReplacementDpEvent.source_dataset_size")
    if inner is None or b == 0:
        return None
    mu = inner.gdp_mu()
    if mu is None or any(leaf == REVEALS for leaf, _ in inner.leaves()):
        raise EventNotSupportedError(f"SampledWithoutReplacementDpEvent of {event.event}: gdpproof accounts "
                                     "fixed-size batches of Gaussian mechanisms only", event)
    step = inner if isinstance(inner, GaussianMechanism) else GDP(mu)
    return SampledWithoutReplacement(step, b, n, _relation(relation))


def _noise(event: Any, name: str, relation: NeighboringRelation) -> Mechanism | None:
    """The mechanism of a Gaussian or Laplace event (None: infinite noise; reveals: s = 0)."""
    s = noise_parameter(event.noise_multiplier, f"{type(event).__name__}.noise_multiplier")
    sensitivity = 2 if relation is NeighboringRelation.REPLACE_ONE else 1
    if name == "gaussian" or s == 0 or math.isinf(s):
        return gaussian(s, sensitivity)
    return LaplaceMechanism(scale=s, sensitivity=sensitivity)


def _discrete_laplace(event: Any, relation: NeighboringRelation) -> Mechanism:
    """The discrete Laplace event: pmf proportional to exp(-a |x|), so scale 1/a; a = 0 (no
    distribution: dp_accounting counts it as non-private) and a = infinity (no noise) reveal the data."""
    a = noise_parameter(event.noise_parameter, "DiscreteLaplaceDpEvent.noise_parameter")
    c = event.sensitivity
    if isinstance(c, bool) or not isinstance(c, int) or c < 1:
        raise InvalidParameterError(argument="DiscreteLaplaceDpEvent.sensitivity", value=c,
                                    rule="must be a positive integer")
    if a == 0 or math.isinf(a):
        return REVEALS
    sensitivity = 2 * c if relation is NeighboringRelation.REPLACE_ONE else c
    return DiscreteLaplaceMechanism(scale=1 / sympy.Rational(a), sensitivity=sensitivity)


def _count(n: Any, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidParameterError(argument=what, value=n, rule="must be an integer >= 0")
    return n


def _poisson(event: dp_event.PoissonSampledDpEvent, relation: NeighboringRelation) -> Mechanism | None:
    inner = mechanism_from_event(event.event, neighboring_relation=relation)
    try:
        m = poisson_sampled(inner, event.sampling_probability, "PoissonSampledDpEvent.sampling_probability")
    except NotSupportedError as exc:
        raise EventNotSupportedError(f"PoissonSampledDpEvent of {event.event}: {exc}", event) from None
    if isinstance(m, PoissonSampled) and relation is NeighboringRelation.REPLACE_ONE:
        # the inner mechanism already has the replace-one sensitivity (2 in units of the clip)
        return PoissonSampled(m.mechanism, m.sample_rate, "replace-one")
    return m


def mechanism_from_event(event: dp_event.DpEvent, *,
                         neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
                         ) -> Mechanism | None:
    """The gdpproof mechanism value that a dp_accounting ``DpEvent`` describes.

    Args:
        event: A ``dp_accounting.DpEvent``: Gaussian, Laplace, discrete Laplace,
            Poisson-sampled (of Gaussian events), sampled without replacement, self-composed,
            composed, no-op or non-private (the table in ``docs/guides/dpsgd.md``).
        neighboring_relation: ``ADD_OR_REMOVE_ONE`` or ``REPLACE_ONE``.

    Returns:
        The mechanism value, or None when the event has no privacy effect (a no-op, zero
        repetitions, sampling probability 0, infinite noise).  Parameters are the exact doubles
        the event holds.

    Raises:
        EventNotSupportedError: For events gdpproof does not account (it names the event).
        InvalidParameterError: For events with parameters outside their domain (a negative noise
            multiplier, a count that is not a non-negative integer).

    Examples:
        >>> import dp_accounting as dpa
        >>> mechanism_from_event(dpa.ComposedDpEvent([dpa.GaussianDpEvent(2.0), dpa.LaplaceDpEvent(0.5)]))
        Composed(GaussianMechanism(sigma=2, sensitivity=1), LaplaceMechanism(scale=0.5, sensitivity=1))
        >>> mechanism_from_event(dpa.PoissonSampledDpEvent(0.5, dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(2.0), 4)))
        PoissonSampled(GDP(mu=1), sample_rate=0.5)
        >>> mechanism_from_event(dpa.NoOpDpEvent()) is None
        True
        >>> step = dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0))
        >>> mechanism_from_event(dpa.SelfComposedDpEvent(step, 1000))
        Repeated(PoissonSampled(GaussianMechanism(sigma=1, sensitivity=1), sample_rate=0.01), 1000)
    """
    if neighboring_relation not in _RELATIONS:
        raise InvalidParameterError(argument="neighboring_relation", value=neighboring_relation,
                                    rule="must be ADD_OR_REMOVE_ONE or REPLACE_ONE")
    rel = neighboring_relation
    if isinstance(event, dp_event.NoOpDpEvent):
        return None
    if isinstance(event, dp_event.NonPrivateDpEvent):
        return REVEALS
    if isinstance(event, dp_event.GaussianDpEvent):
        return _noise(event, "gaussian", rel)
    if isinstance(event, dp_event.LaplaceDpEvent):
        return _noise(event, "laplace", rel)
    if isinstance(event, dp_event.DiscreteLaplaceDpEvent):
        return _discrete_laplace(event, rel)
    if isinstance(event, dp_event.PoissonSampledDpEvent):
        return _poisson(event, rel)
    if isinstance(event, dp_event.SelfComposedDpEvent):
        inner = mechanism_from_event(event.event, neighboring_relation=rel)
        n = _count(event.count, "SelfComposedDpEvent.count")
        return None if inner is None or n == 0 else run_mechanism([(inner, n)])
    if isinstance(event, dp_event.ComposedDpEvent):
        parts = [mechanism_from_event(e, neighboring_relation=rel) for e in event.events]
        present = [m for m in parts if m is not None]
        return None if not present else present[0] if len(present) == 1 else Composed(*present)
    if isinstance(event, dp_event.SampledWithoutReplacementDpEvent):
        return _without_replacement(event, rel)
    if isinstance(event, dp_event.DpEvent):
        raise EventNotSupportedError(f"{type(event).__name__}: gdpproof does not account this event", event)
    raise InvalidParameterError(argument="event", value=event, rule="must be a dp_accounting DpEvent")


class GdpproofAccountant(privacy_accountant.PrivacyAccountant):
    """A dp_accounting ``PrivacyAccountant`` whose answers are gdpproof's proven upper ends.

    ``get_epsilon`` and ``get_delta`` return floats rounded up from the proven upper end (an
    exact route's certified value where one applies); ``math.inf`` when a composed event reveals
    the data.  Invalid targets (delta outside (0, 1), epsilon < 0) raise
    :class:`~gdpproof.errors.InvalidParameterError`.

    Args:
        neighboring_relation: ``ADD_OR_REMOVE_ONE`` (default) or ``REPLACE_ONE`` (Gaussian and
            Laplace events then have sensitivity 2; sampled events keep the relation).
        rel_width: The relative width asked of a numerical bracket, in [1e-4, 10]: smaller is
            tighter and slower; the upper end is proven at any width.

    Examples:
        >>> from decimal import Decimal
        >>> import dp_accounting as dpa
        >>> step = dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0))
        >>> acc = GdpproofAccountant().compose(step, 1000)
        >>> eps = acc.get_epsilon(1e-5)
        >>> bracket = acc.get_epsilon_bracket(1e-5)
        >>> bracket.route, bracket.eps_lower < Decimal(eps), 1.8 < eps < 1.9
        ('bracket', True, True)
        >>> eps == bracket.epsilon.upper and Decimal(eps) <= bracket.eps_upper  # the upper end, a double
        True
    """

    def __init__(self, neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
                 *, rel_width: float = 0.01) -> None:
        if neighboring_relation not in _RELATIONS:
            raise InvalidParameterError(argument="neighboring_relation", value=neighboring_relation,
                                        rule="must be ADD_OR_REMOVE_ONE or REPLACE_ONE")
        super().__init__(neighboring_relation)
        self._rel_width = check_rel_width(rel_width)
        self._parts: list[tuple[Mechanism, int]] = []

    def _maybe_compose(self, event: dp_event.DpEvent, count: int,
                       do_compose: bool) -> privacy_accountant.PrivacyAccountant.CompositionErrorDetails | None:
        try:
            m = mechanism_from_event(event, neighboring_relation=self.neighboring_relation)
        except EventNotSupportedError as exc:
            return self.CompositionErrorDetails(invalid_event=exc.event, error_message=str(exc))
        if do_compose and m is not None:
            self._parts.append((m, _count(count, "count")))
        return None

    def compose(self, event: dp_event.DpEvent, count: int = 1) -> GdpproofAccountant:
        """Account for ``count`` runs of ``event`` (see dp_accounting's ``PrivacyAccountant.compose``).

        Raises :class:`EventNotSupportedError` for events gdpproof does not account."""
        try:
            super().compose(event, count)
        except privacy_accountant.UnsupportedEventError as exc:
            raise EventNotSupportedError(str(exc), event) from None
        return self

    def as_mechanism(self) -> Mechanism:
        """The gdpproof mechanism value of everything composed so far (``GDP(0)`` when nothing ran)."""
        return run_mechanism(self._parts)

    def get_epsilon_bracket(self, target_delta: Any) -> Account:
        """:func:`gdpproof.account` of the run at ``target_delta``: route, proven ends, notes."""
        return cached_account(self.as_mechanism(), "delta", target_delta, self._rel_width)

    def get_delta_bracket(self, target_epsilon: Any) -> Account:
        """:func:`gdpproof.account` of the run at ``target_epsilon``."""
        return cached_account(self.as_mechanism(), "epsilon", target_epsilon, self._rel_width)

    def get_epsilon(self, target_delta: float) -> float:
        """The proven upper end of epsilon at ``target_delta``, rounded up to a float."""
        return proven_upper(self.get_epsilon_bracket(target_delta))

    def get_delta(self, target_epsilon: float) -> float:
        """The proven upper end of delta at ``target_epsilon``, rounded up to a float."""
        return proven_upper(self.get_delta_bracket(target_epsilon))

