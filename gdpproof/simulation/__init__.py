"""Monte Carlo of real mechanisms: empirical trade-off curves with simultaneous confidence bands.

numpy only: this layer never imports gdpproof's symbolic or numeric layers, so it is an
independent oracle for them (docs/architecture.md).  The theory to compare with is passed in by the caller
as a plain function of alpha.
"""

from __future__ import annotations

from .curves import CurveCheck, EmpiricalCurve, dkw_half_width
from .mechanisms import (
    DiscreteGaussianMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RandomizedResponse,
    SubsampledGaussianMechanism,
    UserMechanism,
)
from .runner import simulate

__all__ = [
    "CurveCheck",
    "DiscreteGaussianMechanism",
    "EmpiricalCurve",
    "GaussianMechanism",
    "LaplaceMechanism",
    "Mechanism",
    "RandomizedResponse",
    "SubsampledGaussianMechanism",
    "UserMechanism",
    "dkw_half_width",
    "simulate",
]
