"""riskcal (Kulynych et al.): trade-off curves of GDP and of DP-SGD.

Conventions (its docstrings): ``analysis.get_beta_from_gdp(mu, alpha)`` is G_mu(alpha);
``calibration.dpsgd.get_beta_for_dpsgd(noise_multiplier, sample_rate, num_steps, alpha)`` is the
trade-off curve of Poisson-sampled DP-SGD from dp_accounting's connect-the-dots PLD
(``from_gaussian_mechanism(sigma, sampling_prob=p, use_connect_dots=True,
value_discretization_interval=1e-4)`` composed T times), whose own delta(eps) is that PLD's
``get_delta_for_epsilon``; ``accountants.CTDAccountant`` gives epsilon.
"""

from __future__ import annotations

from ..peers import PeerCurve, PeerFunction
from . import connect_dots_pld, package_version, require

NAME = "riskcal"
PACKAGE = "riskcal"
EXTRA = "peers"
NOTES = ("riskcal: DP-SGD curves from dp_accounting's connect-the-dots PLD at discretization 1e-4",)


def version() -> str:
    """The installed riskcal version."""
    return package_version(PACKAGE)


def functions() -> list[PeerFunction]:
    """riskcal's GDP trade-off value and its CTD accountant's epsilon."""
    analysis = require("riskcal.analysis", PACKAGE, EXTRA)
    accountants = require("riskcal.accountants", PACKAGE, EXTRA)

    def ctd_eps(sigma: float, p: float, steps: int, delta: float) -> float:
        acc = accountants.CTDAccountant()
        acc.history = [(sigma, p, int(steps))]  # what T calls of acc.step record
        return acc.get_epsilon(delta=delta)

    return [
        PeerFunction("analysis.get_beta_from_gdp", "beta_from_mu", lambda mu, a: float(analysis.get_beta_from_gdp(mu, a))),
        PeerFunction("CTDAccountant.get_epsilon", "dpsgd_epsilon", ctd_eps),
    ]


def curves() -> list[PeerCurve]:
    """riskcal's DP-SGD trade-off curve with the delta of the same PLD.

    ``get_beta_for_dpsgd`` builds the connect-the-dots PLD and calls
    ``analysis.get_beta_from_pld`` on it; the adapter builds that PLD once per configuration
    (as :func:`connect_dots_pld`) and calls ``get_beta_from_pld``, so the curve is the same
    without composing the PLD again for every alpha.
    """
    analysis = require("riskcal.analysis", PACKAGE, EXTRA)
    pld = connect_dots_pld(EXTRA)
    return [PeerCurve("analysis.get_beta_from_pld (get_beta_for_dpsgd)",
                      lambda s, p, t, a: analysis.get_beta_from_pld(pld(s, p, t), alpha=a),
                      lambda s, p, t, e: pld(s, p, t).get_delta_for_epsilon(e))]
