r"""What was run: mechanisms as frozen values.

A mechanism value describes what ran, not how it is accounted (in the spirit of dp_accounting's
``DpEvent``), in one vocabulary used everywhere (the API, ``gdpproof account --mechanism``, spec
files): base mechanisms (:class:`GaussianMechanism`, :class:`GDP`, :class:`LaplaceMechanism`,
:class:`RandomizedResponse`, :class:`FiniteMechanism`, :class:`DiscreteGaussianMechanism`,
:class:`DiscreteLaplaceMechanism`, :class:`PureDP`, :class:`EpsDelta`), sampling
(:class:`PoissonSampled`, :class:`SampledWithoutReplacement`), composition (:class:`Composed`,
:class:`Repeated`) and :func:`dpsgd`.  Each value answers for itself what the routes need (its
closed-form trade-off, its privacy-loss laws, its finite pair); :func:`gdpproof.account` turns it
into a guarantee.  Parameters are exact: ``"10/3"`` is 10/3, ``0.1`` the double nearest 0.1.

The vocabulary with examples: ``docs/guides/account.md``; what ``sensitivity`` and a noise
multiplier mean under each sampling scheme and relation: ``docs/conventions.md``.
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
