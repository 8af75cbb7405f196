"""autodp (Zhu, Wang et al.): the analytic Gaussian mechanism, RDP and phi-function accountants.

Conventions (its docstrings): ``sigma`` is "the std of the noise divided by the l2
sensitivity", so mu = 1/sigma.  Audited:

* ``dp_bank.get_logdelta_ana_gaussian(sigma, eps)`` (exponentiated) and
  ``dp_bank.get_eps_ana_gaussian(sigma, delta)``: the analytic route;
* ``GaussianMechanism(sigma).get_approxDP(delta)``: the RDP route (an upper bound);
* ``eps_delta_calibrator()(ExactGaussianMechanism, eps, delta, [0, 100])``: noise calibration
  with the bracket [0, 100] its README uses;
* DP-SGD: ``NoisySGD_Mechanism(prob, sigma, niter)`` (RDP) and the phi-function route
  ``SubsampleGaussianMechanism({'prob', 'sigma', 'coeff'}, phi_off=False, RDP_off=True,
  neighboring=...)``, the maximum of 'add_only' and 'remove_only' as its docstring prescribes.
"""

from __future__ import annotations

import math

from ..peers import PeerFunction
from . import package_version, require, sigma_inputs

NAME = "autodp"
PACKAGE = "autodp"
EXTRA = "peers"
NOTES = ("autodp: sigma is the noise std over the L2 sensitivity (mu = 1/sigma); DP-SGD with Poisson sampling",)


def version() -> str:
    """The installed autodp version."""
    return package_version(PACKAGE)


def functions() -> list[PeerFunction]:
    """autodp's analytic, RDP and phi-function routes."""
    dp_bank = require("autodp.dp_bank", PACKAGE, EXTRA)
    zoo = require("autodp.mechanism_zoo", PACKAGE, EXTRA)
    calibrators = require("autodp.calibrator_zoo", PACKAGE, EXTRA)

    def rdp_eps(mu: float, delta: float) -> float:
        return zoo.GaussianMechanism(1.0 / mu, approxDP_off=True).get_approxDP(delta)

    def calibrate(eps: float, delta: float) -> float:
        mech = calibrators.eps_delta_calibrator()(zoo.ExactGaussianMechanism, eps, delta, [0, 100], name="GM")
        return float(mech.params["sigma"])

    def sgd_rdp(sigma: float, p: float, steps: int, delta: float) -> float:
        return zoo.NoisySGD_Mechanism(p, sigma, int(steps)).get_approxDP(delta)

    def sgd_phi(sigma: float, p: float, steps: int, delta: float) -> float:
        params = {"prob": p, "sigma": sigma, "coeff": int(steps)}
        return max(zoo.SubsampleGaussianMechanism(params, phi_off=False, RDP_off=True,
                                                  neighboring=n).get_approxDP(delta)
                   for n in ("add_only", "remove_only"))

    return [
        PeerFunction("dp_bank.get_logdelta_ana_gaussian (exp)", "delta_from_epsilon",
                     lambda mu, eps: math.exp(dp_bank.get_logdelta_ana_gaussian(1.0 / mu, eps)),
                     exact_inputs=sigma_inputs),
        PeerFunction("dp_bank.get_eps_ana_gaussian", "epsilon_from_delta",
                     lambda mu, delta: dp_bank.get_eps_ana_gaussian(1.0 / mu, delta), exact_inputs=sigma_inputs),
        PeerFunction("GaussianMechanism (RDP).get_approxDP", "epsilon_from_delta", rdp_eps,
                     exact_inputs=sigma_inputs),
        PeerFunction("eps_delta_calibrator(ExactGaussianMechanism)", "sigma_from_epsilon_delta", calibrate,
                     note="bracket [0, 100] as in autodp's README"),
        PeerFunction("NoisySGD_Mechanism (RDP)", "dpsgd_epsilon", sgd_rdp),
        PeerFunction("SubsampleGaussianMechanism (phi)", "dpsgd_epsilon", sgd_phi),
    ]
