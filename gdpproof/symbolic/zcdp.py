r"""Zero-concentrated DP (zCDP): the conversions to (epsilon, delta)-DP that agencies publish.

The U.S. Census Bureau states its 2020 guarantees as rho-zCDP and publishes an (epsilon, delta)
pair derived from rho.  Both conversions in use are upper bounds on the epsilon that rho gives at
delta: ``ZCDP_EPSILON_BUN_STEINKE``, epsilon = rho + 2 sqrt(rho log(1/delta)) (Bun & Steinke
2016, Prop. 1.3), and ``ZCDP_EPSILON_CKS_AT_ORDER``, the bound at one Renyi order a whose
infimum over a is the Bureau's conversion (Canonne, Kamath & Steinke 2020, Cor. 13).
``ZCDP_RHO_GAUSSIAN``: a (discrete) Gaussian mechanism of scale sigma on a query of L2
sensitivity Delta is (Delta^2 / (2 sigma^2))-zCDP.

The formulas with their references: ``docs/proofs/census.md``.
"""

from __future__ import annotations

import sympy
from sympy import log, sqrt

from .symbols import Delta, delta, order, rho, sigma

__all__ = ["ZCDP_EPSILON_BUN_STEINKE", "ZCDP_EPSILON_CKS_AT_ORDER", "ZCDP_EPSILON_CKS_SLOPE", "ZCDP_RHO_GAUSSIAN",
           "CONVERSIONS"]

ZCDP_EPSILON_BUN_STEINKE = rho + 2 * sqrt(rho * log(1 / delta))

ZCDP_EPSILON_CKS_AT_ORDER = order * rho + (log(1 / delta) + (order - 1) * log(1 - 1 / order) - log(order)) / (order - 1)

#: d epsilon_a / d a.  epsilon_a tends to +inf as a -> 1 and as a -> inf, so the infimum is
#: attained at a root of this slope (CKS 2020, Eq. 19; the Bureau bisects on the same derivative).
ZCDP_EPSILON_CKS_SLOPE = sympy.diff(ZCDP_EPSILON_CKS_AT_ORDER, order)

ZCDP_RHO_GAUSSIAN = Delta**2 / (2 * sigma**2)

#: The conversions by name: "cks" (the Bureau's), "bun-steinke" (the classical bound).
CONVERSIONS = ("cks", "bun-steinke")
