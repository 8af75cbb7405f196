"""OpenDP: the Gaussian mechanism's privacy profile through zero-concentrated DP.

Conventions (its documentation): ``make_gaussian(vector_domain(atom_domain(T=float)),
l2_distance(T=float), scale=sigma)`` is rho-zCDP with rho = (d_in / sigma)^2 / 2;
``make_zCDP_to_approxDP`` turns it into a privacy profile whose ``epsilon(delta)`` and
``delta(epsilon)`` are audited at d_in = 1 (so mu = 1/sigma).  The zCDP-to-(eps, delta)
conversion is a valid bound but not the exact Gaussian curve: it is expected to be conservative.
"""

from __future__ import annotations

import functools
from typing import Any

from ..peers import PeerFunction
from . import package_version, require, sigma_inputs

NAME = "opendp"
PACKAGE = "opendp"
EXTRA = "peers"
NOTES = ("opendp: Gaussian mechanism through rho-zCDP and make_zCDP_to_approxDP, d_in = 1 (mu = 1/scale)",)


def version() -> str:
    """The installed opendp version."""
    return package_version(PACKAGE)


def functions() -> list[PeerFunction]:
    """OpenDP's zCDP privacy profile of the Gaussian mechanism."""
    dp = require("opendp.prelude", PACKAGE, EXTRA)
    dp.enable_features("contrib")

    @functools.lru_cache(maxsize=256)
    def profile(mu: float) -> Any:
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float)
        return dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(*space, scale=1.0 / mu)).map(1.0)

    return [
        PeerFunction("make_zCDP_to_approxDP(make_gaussian).delta", "delta_from_epsilon",
                     lambda mu, eps: profile(mu).delta(eps), exact_inputs=sigma_inputs),
        PeerFunction("make_zCDP_to_approxDP(make_gaussian).epsilon", "epsilon_from_delta",
                     lambda mu, delta: profile(mu).epsilon(delta), exact_inputs=sigma_inputs),
    ]
