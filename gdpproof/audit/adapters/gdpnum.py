"""gdpnum (Gomez, Kulynych et al.): a numeric GDP mu of DP-SGD and its trade-off curve.

Conventions (its docstrings): ``dpsgd.get_mu_and_regret_for_dpsgd(noise_multiplier,
sample_rate, num_steps)`` returns "a pessimistic value for mu (i.e. so that f_mu <= T(P,Q))"
from dp_accounting's connect-the-dots PLD (Poisson sampling, discretization 1e-4);
``PLDConverter(pld).get_beta(alpha)`` is the symmetrized trade-off curve of that PLD and
``pld.get_delta_for_epsilon`` its own delta.
"""

from __future__ import annotations

import functools
from typing import Any

from ..peers import PeerCurve, PeerFunction
from . import connect_dots_pld, package_version, require

NAME = "gdpnum"
PACKAGE = "gdpnum"
EXTRA = "peers"
NOTES = ("gdpnum: mu and curves from dp_accounting's connect-the-dots PLD at discretization 1e-4; its mu is compared "
         "with the proven bracket of the tightest mu for delta >= delta_min, and with mu_tail, a proven lower bound "
         "over every delta, where that is larger (ComposedLoss.honest_mu)",)


def version() -> str:
    """The installed gdpnum version."""
    return package_version(PACKAGE)


def functions() -> list[PeerFunction]:
    """gdpnum's numeric mu of DP-SGD."""
    dpsgd = require("gdpnum.dpsgd", PACKAGE, EXTRA)
    return [PeerFunction("dpsgd.get_mu_and_regret_for_dpsgd", "dpsgd_mu",
                         lambda s, p, t: dpsgd.get_mu_and_regret_for_dpsgd(s, p, int(t))[0])]


def curves() -> list[PeerCurve]:
    """gdpnum's symmetrized DP-SGD trade-off curve with the delta of the same PLD."""
    converter = require("gdpnum.converter", PACKAGE, EXTRA)
    pld = connect_dots_pld(EXTRA)

    @functools.lru_cache(maxsize=8)
    def conv(sigma: float, p: float, steps: int) -> Any:
        return converter.PLDConverter(pld(sigma, p, steps))

    return [PeerCurve("converter.PLDConverter.get_beta", lambda s, p, t, a: conv(s, p, t).get_beta(a),
                      lambda s, p, t, e: pld(s, p, t).get_delta_for_epsilon(e))]
