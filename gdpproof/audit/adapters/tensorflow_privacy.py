"""TF Privacy: its GDP accountant (``tensorflow_privacy.privacy.analysis.gdp_accountant``).

Importing ``tensorflow_privacy`` imports TensorFlow, which no gdpproof extra installs; without
it :class:`~gdpproof.audit.PeerNotInstalledError` says so.

Conventions (its source): ``compute_mu_poisson(epoch, noise_multi, N, batch_size)`` with
T = epoch N / batch_size steps and sampling rate batch_size / N; ``compute_eps_poisson(...,
delta)``, ``delta_eps_mu(eps, mu)`` and ``eps_from_mu(mu, delta)`` (brentq on [0, 500]).  The
adapter passes N = 1, batch_size = p and epoch = T p, so the library sees rate p exactly and
exactly T steps: epoch is the float nearest T p for which epoch / p == T (searched among the
neighbours of T p; a configuration without one raises ``ValueError`` in the adapter).
"""

from __future__ import annotations

import math

from ..peers import PeerFunction
from . import package_version, require

NAME = "tensorflow_privacy"
PACKAGE = "tensorflow-privacy"
EXTRA = None
NOTES = ("tensorflow_privacy: N = 1, batch_size = p, epoch = T p; compute_eps_poisson is the CLT approximation",)


def version() -> str:
    """The installed tensorflow-privacy version."""
    return package_version(PACKAGE)


def epoch_for(steps: int, p: float) -> float:
    """An epoch count e with e * 1.0 / p == steps in float64 (the library's T = epoch N / batch_size)."""
    e = float(steps) * p
    for direction in (math.inf, -math.inf):
        x = e
        for _ in range(4):
            if x * 1.0 / p == steps:
                return x
            x = math.nextafter(x, direction)
    raise ValueError(f"the adapter found no epoch count giving exactly steps={steps} at sample_rate={p!r}")


def functions() -> list[PeerFunction]:
    """TF Privacy's GDP formulas."""
    gdp = require("tensorflow_privacy.privacy.analysis.gdp_accountant", PACKAGE,
                  EXTRA)
    # the 2020 rewrite spells them compute_mu_poisson / compute_eps_poisson; 2019 releases capitalised
    mu_poisson = getattr(gdp, "compute_mu_poisson", None) or getattr(gdp, "compute_mu_Poisson")
    eps_poisson = getattr(gdp, "compute_eps_poisson", None) or getattr(gdp, "compute_eps_Poisson")
    return [
        PeerFunction("gdp_accountant.delta_eps_mu", "delta_from_epsilon", lambda mu, eps: gdp.delta_eps_mu(eps, mu)),
        PeerFunction("gdp_accountant.eps_from_mu", "epsilon_from_delta", lambda mu, delta: gdp.eps_from_mu(mu, delta)),
        PeerFunction("gdp_accountant.compute_mu_poisson", "dpsgd_mu_clt",
                     lambda s, p, t: mu_poisson(epoch_for(t, p), s, 1.0, p)),
        PeerFunction("gdp_accountant.compute_eps_poisson", "dpsgd_epsilon",
                     lambda s, p, t, d: eps_poisson(epoch_for(t, p), s, 1.0, p, d)),
    ]
