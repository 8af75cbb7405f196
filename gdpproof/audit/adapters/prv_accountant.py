"""prv_accountant (Microsoft): the PRV accountant for DP-SGD (Gopi, Lee & Wutschitz 2021).

Conventions: ``PoissonSubsampledGaussianMechanism(noise_multiplier, sampling_probability)``
composed ``num_self_compositions`` times; ``compute_epsilon(delta, T)`` returns (lower,
estimate, upper) with the requested ``eps_error`` and ``delta_error``.  The adapter asks for
eps_error = 0.01 and delta_error = delta / 1000 (the values its documentation suggests) and
audits the upper bound (its claim) and the estimate separately.

Its Gaussian-mechanism PRV on its own is not audited: for delta <= 1e-100 it raises
"Floating point errors will dominate" (after 190 s at mu = 50, delta = 1e-300).
"""

from __future__ import annotations

from ..peers import PeerFunction
from . import package_version, require

NAME = "prv_accountant"
PACKAGE = "prv-accountant"
EXTRA = "peers"
NOTES = ("prv_accountant: eps_error = 0.01, delta_error = delta/1000; the upper bound is its claim, the estimate "
         "is audited as well",)


def version() -> str:
    """The installed prv-accountant version."""
    return package_version(PACKAGE)


def functions() -> list[PeerFunction]:
    """The PRV accountant's upper bound and estimate of DP-SGD epsilon."""
    prv = require("prv_accountant", PACKAGE, EXTRA)

    def compute(sigma: float, p: float, steps: int, d: float) -> tuple[float, float, float]:
        acc = prv.PRVAccountant(prvs=prv.PoissonSubsampledGaussianMechanism(noise_multiplier=sigma,
                                                                            sampling_probability=p),
                                max_self_compositions=int(steps), eps_error=0.01, delta_error=d / 1000)
        return acc.compute_epsilon(delta=d, num_self_compositions=int(steps))

    return [
        PeerFunction("PRVAccountant (upper)", "dpsgd_epsilon", lambda s, p, t, d: compute(s, p, t, d)[2]),
        PeerFunction("PRVAccountant (estimate)", "dpsgd_epsilon", lambda s, p, t, d: compute(s, p, t, d)[1],
                     note="the estimate is not claimed as a bound by prv_accountant"),
    ]
