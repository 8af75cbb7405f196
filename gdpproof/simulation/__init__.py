"""Monte Carlo of real mechanisms: empirical trade-off curves with simultaneous confidence bands.

numpy only: this layer never imports gdpproof's symbolic or numeric layers, so it is an
independent oracle for them (docs/architecture.md).  Each sampler names the mechanism it runs in
the vocabulary of ``gdpproof account`` (``Sampler.spec``); its theory is computed above this layer
(:mod:`gdpproof.audit.theory`).  The old class names (``GaussianMechanism``, ...) still work and
warn: they clashed with :mod:`gdpproof.mechanisms` (CHANGELOG.md).
"""

from __future__ import annotations

from .curves import CurveCheck, EmpiricalCurve, dkw_half_width
from .runner import simulate
from .samplers import (
    DiscreteGaussianSampler,
    GaussianSampler,
    LaplaceSampler,
    RandomizedResponseSampler,
    Sampler,
    SubsampledGaussianSampler,
    UserSampler,
)

__all__ = [
    "CurveCheck",
    "DiscreteGaussianSampler",
    "EmpiricalCurve",
    "GaussianSampler",
    "LaplaceSampler",
    "RandomizedResponseSampler",
    "Sampler",
    "SubsampledGaussianSampler",
    "UserSampler",
    "dkw_half_width",
    "simulate",
]

#: The names these classes had up to 0.1.0 (deprecated aliases, listed in CHANGELOG.md).
_RENAMED = {"Mechanism": "Sampler", "GaussianMechanism": "GaussianSampler",
            "SubsampledGaussianMechanism": "SubsampledGaussianSampler", "LaplaceMechanism": "LaplaceSampler",
            "RandomizedResponse": "RandomizedResponseSampler", "DiscreteGaussianMechanism": "DiscreteGaussianSampler",
            "UserMechanism": "UserSampler"}


def __getattr__(name: str) -> object:
    if name in _RENAMED:
        import warnings

        new = _RENAMED[name]
        warnings.warn(f"gdpproof.simulation.{name} is deprecated: use gdpproof.simulation.{new} (the samplers "
                      "were renamed so as not to clash with gdpproof.mechanisms)", DeprecationWarning, stacklevel=2)
        return globals()[new]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
