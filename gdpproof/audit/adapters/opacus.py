"""Opacus (Meta): its GDP accountant's formulas and its RDP and PRV accountants.

``opacus.accountants.analysis.gdp`` is numpy/scipy code, but ``import opacus`` imports torch,
so this adapter needs torch installed (not part of any gdpproof extra): without it
:class:`~gdpproof.audit.PeerNotInstalledError` says so.

Conventions (its docstrings): ``delta_eps_mu(*, eps, mu)`` is the GDP dual;
``eps_from_mu(*, mu, delta)`` inverts it; ``compute_mu_poisson(*, steps, noise_multiplier,
sample_rate)`` is the CLT mu of Poisson-sampled DP-SGD and ``compute_eps_poisson(..., delta)``
the epsilon of that mu (what its ``GaussianAccountant`` reports: a CLT approximation);
``RDPAccountant`` and ``PRVAccountant`` keep ``history``, a list of (noise_multiplier,
sample_rate, steps).
"""

from __future__ import annotations

from collections.abc import Callable

from ..peers import PeerFunction
from . import package_version, require

NAME = "opacus"
PACKAGE = "opacus"
EXTRA = None
NOTES = ("opacus: GaussianAccountant = the CLT of Bu et al.; compute_eps_poisson is audited as DP-SGD epsilon, where "
         "the CLT understates it",)


def version() -> str:
    """The installed opacus version."""
    return package_version(PACKAGE)


def functions() -> list[PeerFunction]:
    """Opacus's GDP formulas and its RDP and PRV accountants."""
    gdp = require("opacus.accountants.analysis.gdp", PACKAGE, EXTRA)
    accountants = require("opacus.accountants", PACKAGE, EXTRA)

    def with_history(cls: type) -> Callable[..., float]:
        def eps(sigma: float, p: float, steps: int, delta: float) -> float:
            acc = cls()
            acc.history = [(sigma, p, int(steps))]
            return acc.get_epsilon(delta=delta)
        return eps

    return [
        PeerFunction("accountants.analysis.gdp.delta_eps_mu", "delta_from_epsilon",
                     lambda mu, eps: gdp.delta_eps_mu(eps=eps, mu=mu)),
        PeerFunction("accountants.analysis.gdp.eps_from_mu", "epsilon_from_delta",
                     lambda mu, delta: gdp.eps_from_mu(mu=mu, delta=delta)),
        PeerFunction("accountants.analysis.gdp.compute_mu_poisson", "dpsgd_mu_clt",
                     lambda s, p, t: gdp.compute_mu_poisson(steps=int(t), noise_multiplier=s, sample_rate=p)),
        PeerFunction("accountants.analysis.gdp.compute_eps_poisson", "dpsgd_epsilon",
                     lambda s, p, t, d: gdp.compute_eps_poisson(steps=int(t), noise_multiplier=s, sample_rate=p,
                                                                delta=d)),
        PeerFunction("RDPAccountant", "dpsgd_epsilon", with_history(accountants.RDPAccountant)),
        PeerFunction("PRVAccountant", "dpsgd_epsilon", with_history(accountants.PRVAccountant)),
    ]
