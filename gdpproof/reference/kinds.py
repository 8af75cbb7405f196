"""What each reference table holds: its grid variables, its value columns and how a row is computed.

A row is computed by the package's certified functions, each value with its rounding direction
(the safe one for a privacy quantity: docs/architecture.md).  This module holds no mathematics of its own:
it names which public function computes which column.

The delta(eps) kinds (``delta`` of G_mu, ``rr-delta`` of k-ary randomized response, ``dp-delta``
of the (eps0, delta0)-DP curve, which at delta0 = 0 is binary randomized response) take every
real eps.  At eps < 0, delta(eps) = 1 + f*(-e^eps) (Dong, Roth & Su 2022, Prop. 2.12) is the
hockey-stick divergence H_{e^eps}(P || Q) = sup_S P(S) - e^eps Q(S) of the worst pair, the
smallest delta with P(S) <= e^eps Q(S) + delta for every S; it is at least 1 - e^eps > 0 (take S
the whole space), with equality once eps <= -(the pure-DP level) for the finite mechanisms.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import bad
from ..numeric.engine.certify import Certified

__all__ = ["Column", "Kind", "KINDS", "kind_for_columns"]


@dataclass(frozen=True)
class Column:
    """A value column: its name, the direction its last digit is rounded and what it means."""

    name: str
    rounding: str
    meaning: str
    certified: bool = True   # False: a proven bound printed with fewer digits (the DP-SGD bracket)


@dataclass(frozen=True)
class Kind:
    """A table kind: grid variables (in row-major order), value columns and the row function."""

    name: str
    title: str
    variables: tuple[str, ...]
    integer: frozenset[str]
    columns: tuple[Column, ...]
    compute: Callable[[dict[str, str], int], list[Certified]]
    defaults: tuple[tuple[str, str], ...] = ()
    real: frozenset[str] = frozenset()  # variables that take any real value (eps of delta(eps))

    @property
    def header(self) -> tuple[str, ...]:
        return self.variables + tuple(c.name for c in self.columns)


def _delta(row: dict[str, str], digits: int) -> list[Certified]:
    from ..numeric.tradeoff.solve import delta_from_epsilon

    return [delta_from_epsilon(row["mu"], row["eps"], digits=digits)]


def _epsilon(row: dict[str, str], digits: int) -> list[Certified]:
    from ..numeric.tradeoff.solve import epsilon_from_delta

    return [epsilon_from_delta(row["mu"], row["delta"], digits=digits)]


def _mu(row: dict[str, str], digits: int) -> list[Certified]:
    from ..numeric.tradeoff.solve import mu_from_epsilon_delta

    return [mu_from_epsilon_delta(row["eps"], row["delta"], digits=digits)]


def _sigma(row: dict[str, str], digits: int) -> list[Certified]:
    from ..numeric.tradeoff.solve import sigma_from_epsilon_delta

    return [sigma_from_epsilon_delta(row["eps"], row["delta"], row["sensitivity"], digits=digits)]


def _tradeoff(row: dict[str, str], digits: int) -> list[Certified]:
    from ..numeric.tradeoff.solve import beta_from_mu

    return [beta_from_mu(row["mu"], row["alpha"], digits=digits)]


@functools.lru_cache(maxsize=64)
def _subsampled_curve(mu: str, p: str) -> Any:
    from ..symbolic.composition import subsample
    from ..symbolic.tradeoff import gaussian

    return subsample(gaussian(mu), p)


def _subsampled(row: dict[str, str], digits: int) -> list[Certified]:
    return [_subsampled_curve(row["mu"], row["sample_rate"]).evaluate(row["alpha"], digits=digits, rounding="down")]


def _integer(row: dict[str, str], name: str) -> int:
    from decimal import Decimal, InvalidOperation

    try:
        d = Decimal(row[name])
    except InvalidOperation:
        d = Decimal("NaN")
    if not d.is_finite() or d != d.to_integral_value():
        raise bad(name, row[name], "must be an integer")
    return int(d)


@functools.lru_cache(maxsize=64)
def _rr_curve(eps: str, n: int) -> Any:
    from ..symbolic.composition import rr_composition

    return rr_composition(eps, n)


def _rr(row: dict[str, str], digits: int) -> list[Certified]:
    return [_rr_curve(row["eps"], _integer(row, "n")).evaluate(row["alpha"], digits=digits, rounding="down")]


@functools.lru_cache(maxsize=64)
def _k_rr_curve(eps0: str, k: int) -> Any:
    from ..mechanisms import RandomizedResponse

    return RandomizedResponse(eps0, k=k).tradeoff()


def _rr_delta(row: dict[str, str], digits: int) -> list[Certified]:
    return [_k_rr_curve(row["eps0"], _integer(row, "k")).delta(row["eps"], digits=digits)]


@functools.lru_cache(maxsize=64)
def _dp_curve(eps0: str, delta0: str) -> Any:
    from ..symbolic.tradeoff import eps_delta

    return eps_delta(eps0, delta0)


def _dp_delta(row: dict[str, str], digits: int) -> list[Certified]:
    return [_dp_curve(row["eps0"], row["delta0"]).delta(row["eps"], digits=digits)]


def _dpsgd(row: dict[str, str], digits: int) -> list[Certified]:
    from ..errors import PrecisionError
    from ..accounting import dpsgd_mu

    acc = dpsgd_mu(row["sigma"], row["sample_rate"], _integer(row, "steps"), delta=row["delta"], digits=digits,
                   gamma=False)
    if acc.eps_lower is None or acc.eps_upper is None:
        raise PrecisionError("the proven epsilon bracket is not available for this configuration")
    return [acc.mu_clt, acc.eps_clt, acc.eps_lower, acc.eps_upper]


def _discrete_gaussian_delta(row: dict[str, str], digits: int) -> list[Certified]:
    from .._args import exact
    from ..accounting import discrete_gaussian_delta

    return [discrete_gaussian_delta(exact("sigma", row["sigma"], symbolic=False), _integer(row, "sensitivity"),
                                    exact("eps", row["eps"], symbolic=False), digits=digits)]


_LOSS_UP = "rounded up: a privacy loss is never understated"
_TRADEOFF_DOWN = "rounded down: no test does better than the tabulated type II error"

KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("delta", "delta(eps) of mu-GDP (Dong, Roth & Su 2022, Cor. 2.13)", ("mu", "eps"), frozenset(),
         (Column("delta", "up", _LOSS_UP),), _delta, real=frozenset({"eps"})),
    Kind("rr-delta", "delta(eps) of k-ary randomized response RandomizedResponse(eps0, k) (exact: the "
                     "hockey-stick divergence of its worst pair; every real eps)", ("eps0", "k", "eps"),
         frozenset({"k"}), (Column("delta", "up", _LOSS_UP),), _rr_delta, real=frozenset({"eps"})),
    Kind("dp-delta", "delta(eps) of the (eps0, delta0)-DP trade-off curve f_{eps0,delta0} (delta0 = 0: binary "
                     "randomized response; Dong, Roth & Su 2022, Prop. 2.12; every real eps)",
         ("eps0", "delta0", "eps"), frozenset(), (Column("delta", "up", _LOSS_UP),), _dp_delta,
         real=frozenset({"eps"})),
    Kind("epsilon", "the smallest eps with delta(eps) <= delta under mu-GDP", ("mu", "delta"), frozenset(),
         (Column("eps", "up", _LOSS_UP),), _epsilon),
    Kind("mu", "the largest mu whose G_mu is (eps, delta)-DP", ("eps", "delta"), frozenset(),
         (Column("mu", "down", "rounded down: a budget is never overstated"),), _mu),
    Kind("sigma", "the smallest Gaussian noise sigma for (eps, delta)-DP at L2 sensitivity Delta "
                  "(Balle & Wang 2018, Thm. 8)", ("eps", "delta", "sensitivity"), frozenset(),
         (Column("sigma", "up", "rounded up: the noise is never too small"),), _sigma,
         defaults=(("sensitivity", "1"),)),
    Kind("tradeoff", "G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)", ("mu", "alpha"), frozenset(),
         (Column("beta", "down", _TRADEOFF_DOWN),), _tradeoff),
    Kind("subsampled", "C_p(G_mu)(alpha), Poisson subsampling (Dong, Roth & Su 2022, Thm. 4.2)",
         ("mu", "sample_rate", "alpha"), frozenset(), (Column("beta", "down", _TRADEOFF_DOWN),), _subsampled),
    Kind("rr-composition", "n-fold randomized response f_{eps,0}^{(x)n} (the two binomials' Neyman-Pearson curve)",
         ("eps", "n", "alpha"), frozenset({"n"}), (Column("beta", "down", _TRADEOFF_DOWN),), _rr),
    Kind("discrete-gaussian-delta", "delta(eps) of the discrete Gaussian mechanism N_Z(0, sigma^2) at integer "
                                    "sensitivity Delta (Canonne, Kamath & Steinke 2020; sigma the scale, not the "
                                    "standard deviation)", ("sigma", "sensitivity", "eps"), frozenset({"sensitivity"}),
         (Column("delta", "up", _LOSS_UP),), _discrete_gaussian_delta, defaults=(("sensitivity", "1"),)),
    Kind("dpsgd", "DP-SGD (Poisson sampling): the CLT mu and eps (an approximation, Bu, Dong, Long & Su 2020) "
                  "beside the proven eps bracket of the numerical composition",
         ("sigma", "sample_rate", "steps", "delta"), frozenset({"steps"}),
         (Column("mu_clt", "up", "the CLT approximation p sqrt(T (e^{1/sigma^2} - 1)), certified digits of the "
                                 "formula, rounded up; not a privacy guarantee"),
          Column("eps_clt", "up", "eps at delta of G_{mu_clt}, certified digits, rounded up; an approximation, "
                                  "not a guarantee"),
          Column("eps_lower", "down", "a proven lower bound on the true eps (6 digits, rounded down)", False),
          Column("eps_upper", "up", "a proven upper bound on the true eps (6 digits, rounded up)", False)),
         _dpsgd),
)}


def kind_for_columns(columns: Sequence[str]) -> Kind:
    """The kind whose header is ``columns`` (tables without a gdpproof header)."""
    cols = tuple("eps" if c == "epsilon" else c for c in columns)
    for kind in KINDS.values():
        if kind.header == cols:
            return kind
    raise bad("columns", ",".join(columns), "match no table kind (known headers: "
              + "; ".join(",".join(k.header) for k in KINDS.values()) + ")")
