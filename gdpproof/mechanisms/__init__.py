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

**Neighbouring relations and sensitivity.**  ``sensitivity`` is the L2 sensitivity of the query
on a batch under the change the relation allows: for a sum of contributions clipped to norm C,
C when a record is added or removed, 2C when one is replaced.  Fixed-size batches always change
by a replacement (also when the datasets differ by adding or removing a record: the removed
record's slot is taken by another), so the inner mechanism of :class:`SampledWithoutReplacement`
carries the replace sensitivity (2C for a clipped sum) under either relation.  Under Poisson
sampling with replace-one neighbours a batch may also gain or lose the record, and the inner
sensitivity must bound both changes (2C for a clipped sum covers C).  A noise multiplier
(:func:`dpsgd`, ``sigma`` of a subsampled spec) is the noise over the clipping norm C, as in
Opacus and dp_accounting's DP-SGD, and the scheme and relation set the sensitivity
(:func:`dpsgd_sensitivity`: C for Poisson under add/remove, 2C otherwise).
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
>>> print(Repeated(GaussianMechanism(sigma=2), 4).gdp_mu())  # exact: a Fraction
1
"""

from __future__ import annotations

from .specs import MAX_SPEC_BYTES, MAX_SPEC_DEPTH, SpecError, mechanism_from_dict, mechanism_from_file, mechanism_from_spec
from .training import SAMPLINGS, Schedule, dpsgd, dpsgd_schedule, dpsgd_sensitivity, sensitivity_note
from .base import Mechanism
from .values import (
    GDP,
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    EpsDelta,
    FiniteMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    PureDP,
    RandomizedResponse,
)
from .wrappers import NEIGHBOURS, Composed, PoissonSampled, Repeated, SampledWithoutReplacement, Subsampled
from ..text import decimal_text, show_number  # re-exported: their public home before gdpproof.text
from .numbers import to_fraction

__all__ = ["Mechanism", "GaussianMechanism", "GDP", "LaplaceMechanism", "RandomizedResponse", "FiniteMechanism", "PureDP",
           "DiscreteGaussianMechanism", "DiscreteLaplaceMechanism", "EpsDelta", "PoissonSampled",
           "SampledWithoutReplacement", "Subsampled", "Composed", "Repeated", "dpsgd", "dpsgd_schedule", "Schedule",
           "dpsgd_sensitivity", "sensitivity_note", "mechanism_from_spec", "mechanism_from_dict", "mechanism_from_file",
           "SpecError", "MAX_SPEC_BYTES", "MAX_SPEC_DEPTH", "show_number", "decimal_text", "NEIGHBOURS", "SAMPLINGS",
           "to_fraction"]
