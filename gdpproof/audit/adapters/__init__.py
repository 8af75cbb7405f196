"""Adapters: the functions of peer DP libraries in the signatures of :mod:`gdpproof.audit.quantities`.

One module per library.  Each imports its library lazily (inside :func:`functions`), raises
:class:`~gdpproof.audit.PeerNotInstalledError` naming the extra that installs it when the
library is missing, converts conventions (sigma = 1/mu for sensitivity 1, epochs and batch
sizes to sampling rate and steps) and records, through ``exact_inputs``, the exact parameters
the library received, so that the reference is computed there.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
from fractions import Fraction
from typing import Any

from ..peers import PeerNotInstalledError

__all__ = ["require", "package_version", "sigma_inputs", "connect_dots_pld"]


def require(module: str, package: str, extra: str | None) -> Any:
    """Import ``module`` or raise PeerNotInstalledError saying how to install it."""
    how = f"pip install 'gdpproof[{extra}]'" if extra else f"pip install {package}"
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise PeerNotInstalledError(f"{package} is not installed (importing {module} failed: "
                                    f"{exc.name or module} missing); install it with {how}") from None
    except Exception as exc:  # noqa: BLE001 - a broken install (a torch ABI mismatch) raises anything
        raise PeerNotInstalledError(f"{package} is installed but importing {module} failed "
                                    f"({type(exc).__name__}: {exc}); reinstall it with {how}") from None


def package_version(package: str) -> str:
    """The installed version of a distribution ('' if unknown)."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return ""


def sigma_inputs(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """(mu, x) -> (1/fl(1/mu), x): the exact mu a library sees when it is passed sigma = 1/mu in float64."""
    sigma = 1.0 / float(args[0])
    return (1 / Fraction(sigma), *args[1:])


def connect_dots_pld(extra: str | None) -> Any:
    """A cached (sigma, p, steps) -> PLD: dp_accounting's connect-the-dots PLD of DP-SGD.

    ``from_gaussian_mechanism(sigma, sampling_prob=p, use_connect_dots=True,
    value_discretization_interval=1e-4)`` composed ``steps`` times, as riskcal and gdpnum build it.
    """
    pldm = require("dp_accounting.pld.privacy_loss_distribution", "dp-accounting", extra)

    @functools.lru_cache(maxsize=8)
    def pld(sigma: float, p: float, steps: int) -> Any:
        return pldm.from_gaussian_mechanism(standard_deviation=sigma, sampling_prob=p, use_connect_dots=True,
                                            value_discretization_interval=1e-4).self_compose(int(steps))

    return pld
