"""dp_accounting (Google): the analytic Gaussian mechanism and the DP-SGD accountants.

Conventions (from its documentation and source): ``get_epsilon_gaussian(sigma, delta)``,
``get_sigma_gaussian(epsilon, delta)`` and ``GaussianPrivacyLoss(standard_deviation,
sensitivity=1)`` are the Gaussian mechanism with L2 sensitivity 1, so mu = 1/sigma (Balle &
Wang 2018).  DP-SGD is ``PoissonSampledDpEvent(p, GaussianDpEvent(sigma))`` composed T times;
``PLDAccountant`` and ``RdpAccountant`` default to add-or-remove-one neighbours.
"""

from __future__ import annotations

from typing import Any

from ..peers import PeerFunction
from . import package_version, require, sigma_inputs

NAME = "dp_accounting"
PACKAGE = "dp-accounting"
EXTRA = "peers"
NOTES = ("dp_accounting: sensitivity 1 (mu = 1/sigma); DP-SGD = Poisson-sampled Gaussian events, add-or-remove "
         "neighbours; PLD accountant at its default discretization 1e-4",)


def version() -> str:
    """The installed dp-accounting version."""
    return package_version(PACKAGE)


def functions() -> list[PeerFunction]:
    """dp_accounting's Gaussian-mechanism conversions and its PLD and RDP DP-SGD accountants."""
    dpa = require("dp_accounting", PACKAGE, EXTRA)
    gm = require("dp_accounting.gaussian_mechanism", PACKAGE, EXTRA)
    plm = require("dp_accounting.pld.privacy_loss_mechanism", PACKAGE, EXTRA)

    def delta(mu: float, eps: float) -> float:
        return plm.GaussianPrivacyLoss(1.0 / mu, sensitivity=1).get_delta_for_epsilon(eps)

    def event(sigma: float, p: float) -> Any:
        return dpa.PoissonSampledDpEvent(p, dpa.GaussianDpEvent(sigma))

    def pld_eps(sigma: float, p: float, steps: int, d: float) -> float:
        acc = dpa.pld.PLDAccountant()
        return acc.compose(event(sigma, p), int(steps)).get_epsilon(d)

    def rdp_eps(sigma: float, p: float, steps: int, d: float) -> float:
        acc = dpa.rdp.RdpAccountant()
        return acc.compose(event(sigma, p), int(steps)).get_epsilon(d)

    return [
        PeerFunction("GaussianPrivacyLoss.get_delta_for_epsilon", "delta_from_epsilon", delta,
                     exact_inputs=sigma_inputs),
        PeerFunction("get_epsilon_gaussian", "epsilon_from_delta", lambda mu, d: gm.get_epsilon_gaussian(1.0 / mu, d),
                     exact_inputs=sigma_inputs),
        PeerFunction("get_sigma_gaussian", "sigma_from_epsilon_delta", gm.get_sigma_gaussian),
        PeerFunction("PLDAccountant", "dpsgd_epsilon", pld_eps),
        PeerFunction("RdpAccountant", "dpsgd_epsilon", rdp_eps),
    ]
