r"""The 2020 U.S. Census redistricting data (P.L. 94-171, persons), re-accounted with f-DP.

From the Bureau's production allocations (``data/census2020_pl94_persons.json``: its production
code at commit ``289ee46``, with the file of each number), per geographic level:
:func:`level_mechanism` builds the mechanism that ran (two unit-sensitivity discrete Gaussians
per marginal query under replace-one neighbours, sigma_q^2 = 1/rho_q exactly);
:func:`account_level` computes its proven epsilon at delta = 1e-10 and the unused budget against
the published epsilon (rho converted by the Bureau's CKS formula or by Bun–Steinke's), and the
common noise-variance reduction that still meets it (:func:`gdpproof.calibration.calibrate_variance`);
both are repeated with continuous Gaussians as a cross-check.

The method, what is proven and what is evidence: ``docs/proofs/census.md``; the results:
``docs/guides/census.md``.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from typing import Any, TextIO

import sympy

from ..errors import bad
from ..accounting import Account, account
from ..calibration import Calibration, calibrate_variance
from ..mechanisms import GDP, Composed, DiscreteGaussianMechanism, GaussianMechanism, Mechanism, Repeated
from ..text import percent_text, significant_text
from ..numeric.tradeoff.solve import mu_from_epsilon_delta
from ..numeric.tradeoff.zcdp import epsilon_from_zcdp
from ..symbolic.symbols import Delta, sigma
from ..symbolic.zcdp import CONVERSIONS, ZCDP_RHO_GAUSSIAN

__all__ = ["Query", "Level", "Allocation", "Comparison", "LevelAccount", "load_allocation", "level_mechanism", "account_level",
           "reaccount", "format_table", "DATA_FILE"]

#: The shipped allocation file (inside ``gdpproof/reference/data``).
DATA_FILE = "census2020_pl94_persons.json"

#: Digits of the published epsilon (certified, rounded down and up).
_PUBLISHED_DIGITS = 15

#: Digits of the continuous cross-check's epsilon (certified, its ends rounded outward).
_CONTINUOUS_DIGITS = 12


@dataclass(frozen=True)
class Query:
    """One measured query of a level: its name in the DAS strategy, its share of the level's
    rho, and its rho (rho_global x level share x query share)."""

    name: str
    proportion: Fraction
    rho: Fraction


@dataclass(frozen=True)
class Level:
    """One geographic level: its share of the global rho, its rho and its queries."""

    name: str
    proportion: Fraction
    rho: Fraction
    queries: tuple[Query, ...]


@dataclass(frozen=True)
class Allocation:
    """The production allocation and where it came from (``provenance``: repository, commit,
    the file of each number, and the paper)."""

    what: str
    provenance: dict[str, Any] = field(repr=False)
    global_scale: Fraction
    global_rho: Fraction
    delta: Fraction
    neighbours: str
    levels: tuple[Level, ...]

    def level(self, name: str) -> Level:
        """The level called ``name`` ("US", "State", "County", "Tract", "Block_Group", "Block")."""
        for lv in self.levels:
            if lv.name == name:
                return lv
        raise bad("level", name, f"must be one of {', '.join(lv.name for lv in self.levels)}")


def load_allocation() -> Allocation:
    """The shipped 2020 redistricting persons allocation (:data:`DATA_FILE`), as exact rationals.

    Checks what the file claims of itself: rho = 1 / global_scale^2, the level shares and each
    level's query shares sum to 1.

    >>> a = load_allocation()
    >>> [lv.name for lv in a.levels], a.global_rho, a.delta
    (['US', 'State', 'County', 'Tract', 'Block_Group', 'Block'], Fraction(293764, 114921), Fraction(1, 10000000000))
    >>> a.provenance["commit"]
    '289ee463936a6f0efcf2e378abe410ec01d0e140'
    """
    raw = json.loads(resources.files("gdpproof.reference").joinpath("data", DATA_FILE).read_text())
    scale, rho = Fraction(raw["global_scale"]), Fraction(raw["global_rho"])
    if rho != 1 / scale**2:
        raise ValueError(f"{DATA_FILE}: global_rho {rho} is not 1/global_scale^2")
    levels = []
    for lv in raw["levels"]:
        g = Fraction(lv["geolevel_prop"])
        qs = tuple(Query(name, Fraction(q), rho * g * Fraction(q)) for name, q in lv["queries"])
        if sum(q.proportion for q in qs) != 1:
            raise ValueError(f"{DATA_FILE}: the query shares of {lv['name']} do not sum to 1")
        levels.append(Level(lv["name"], g, rho * g, qs))
    if sum(lv.proportion for lv in levels) != 1:
        raise ValueError(f"{DATA_FILE}: the level shares do not sum to 1")
    return Allocation(raw["what"], raw["provenance"], scale, rho, Fraction(raw["delta"]), raw["neighbours"],
                      tuple(levels))


def _rational(x: Any, name: str = "value") -> Fraction:
    try:
        r = sympy.Rational(x)
    except (TypeError, ValueError, sympy.SympifyError):
        raise bad(name, x, "must be an exact real number (a decimal, a fraction or an int)") from None
    return Fraction(int(r.p), int(r.q))


def _sigma_squared(rho_q: Fraction, c: Fraction) -> Fraction:
    """sigma^2 of each of a query's two unit-sensitivity coordinates, times c: each carries rho_q/2
    and rho = Delta^2 / (2 sigma^2) (symbolic/zcdp)."""
    unit = _rational(ZCDP_RHO_GAUSSIAN.subs({Delta: 1, sigma: 1}))  # rho of sigma = 1, Delta = 1
    return c * unit / (rho_q / 2)


def level_mechanism(level: Level, *, variance_factor: Any = 1, continuous: bool = False) -> Mechanism:
    """The mechanism that ran at one level: per query, two discrete Gaussian coordinates of
    sensitivity 1 and scale sigma_q (sigma_q^2 = c / rho_q with c = ``variance_factor``).

    ``continuous=True`` gives Gaussian mechanisms of the same (exact) sigmas instead, a
    composition that is exactly G_mu with mu^2 = 2 rho_level / c.

    >>> lv = load_allocation().level("US")
    >>> m = level_mechanism(lv, continuous=True)
    >>> m.gdp_mu()**2 == 2 * sympy.Rational(lv.rho.numerator, lv.rho.denominator)
    True
    >>> level_mechanism(lv).leaves()[0]
    (DiscreteGaussianMechanism(sigma=339*sqrt(33587206)/56368, sensitivity=1), 2)
    """
    c = _rational(variance_factor, "variance_factor")
    if not c > 0:
        raise bad("variance_factor", variance_factor, "must be > 0")
    parts = []
    for q in level.queries:
        s2 = _sigma_squared(q.rho, c)
        if continuous:
            m: Mechanism = GaussianMechanism(sigma=sympy.sqrt(sympy.Rational(s2.numerator, s2.denominator)))
        else:
            m = DiscreteGaussianMechanism(sigma=sympy.sqrt(sympy.Rational(s2.numerator, s2.denominator)))
        parts.append(Repeated(m, 2))
    return Composed(*parts)


@dataclass(frozen=True)
class Comparison:
    """A level's f-DP account against one published conversion of its rho.

    Attributes:
        conversion: How the published epsilon was derived from rho ("cks" or "bun-steinke").
        published: The published epsilon at delta, rounded down and up (:data:`_PUBLISHED_DIGITS` digits).
        unused: An interval on 1 - epsilon_fDP / epsilon_published (exact; from both ends of the bracket
            and of the published value), proven given the published value's digits (certified for
            "bun-steinke", two agreeing mpmath precisions for "cks": ``published[0].method``); None
            when the discrete Gaussians were not accounted.
        continuous_unused: The same for continuous Gaussians of the same sigmas.
        variance: A variance factor c (rounded up) whose proven epsilon meets the published one, the next
            value down not proven to (c is not proven the smallest); None when not searched.
        continuous_variance_factor: The same for continuous Gaussians, in closed form: (mu / mu_target)^2, rounded up at
            ``variance_digits`` decimals (c < 1).
    """

    conversion: str
    published: tuple[Any, Any]
    unused: tuple[Fraction, Fraction] | None
    continuous_unused: tuple[Fraction, Fraction]
    variance: Calibration | None = field(repr=False)
    continuous_variance_factor: Fraction

    @property
    def variance_reduction(self) -> Fraction | None:
        """1 - c: a noise-variance reduction that provably keeps the published epsilon."""
        if self.variance is None:
            return None
        return 1 - _rational(self.variance.value)

    @property
    def continuous_variance_reduction(self) -> Fraction:
        return 1 - self.continuous_variance_factor

    def to_dict(self) -> dict[str, Any]:
        d = {"conversion": self.conversion, "published_eps": [str(self.published[0]), str(self.published[1])],
             "unused_percent": _percent_interval(self.unused) if self.unused else None,
             "continuous_unused_percent": _percent_interval(self.continuous_unused),
             "continuous_variance_reduction_percent": percent_text(self.continuous_variance_reduction, "down")}
        if self.variance is not None:
            d["variance_factor"] = self.variance.text
            d["variance_reduction_percent"] = percent_text(self.variance_reduction, "down")
        return d


@dataclass(frozen=True)
class LevelAccount:
    """One level re-accounted: the proven account of its discrete Gaussians, the exact account of
    continuous Gaussians of the same sigmas, and one :class:`Comparison` per conversion."""

    level: Level
    account: Account | None = field(repr=False)
    continuous: Account = field(repr=False)
    comparisons: dict[str, Comparison] = field(repr=False)
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready values (numbers as decimal strings, percentages with 2 decimals, lower ends
        rounded down and upper ends up)."""
        return {"level": self.level.name, "rho": str(self.level.rho), "rho_decimal": f"{float(self.level.rho):.6f}",
                "queries": len(self.level.queries), "measurements": 2 * len(self.level.queries),
                "eps_fdp": [str(self.account.eps_lower), str(self.account.eps_upper)] if self.account else None,
                "continuous_eps": [significant_text(Fraction(self.continuous.eps_lower), "down"),
                                   significant_text(Fraction(self.continuous.eps_upper), "up")],
                "comparisons": {k: v.to_dict() for k, v in self.comparisons.items()},
                "seconds": round(self.seconds, 2)}


def _percent_interval(iv: tuple[Fraction, Fraction]) -> list[str]:
    return [percent_text(iv[0], "down"), percent_text(iv[1], "up")]


def _published(level: Level, delta: Fraction, conversion: str) -> tuple[Any, Any]:
    return tuple(epsilon_from_zcdp(str(level.rho), str(delta), conversion=conversion, digits=_PUBLISHED_DIGITS,
                                   rounding=r) for r in ("down", "up"))  # type: ignore[return-value]


def _unused(a: Account, pub: tuple[Any, Any]) -> tuple[Fraction, Fraction]:
    lo, hi = Fraction(a.eps_lower), Fraction(a.eps_upper)
    return 1 - hi / Fraction(pub[0]), 1 - lo / Fraction(pub[1])


def account_level(level: Level, *, delta: Any = None, conversions: Any = CONVERSIONS, rel_width: float = 1e-3,
                  discrete: bool = True, variance: bool = True, variance_digits: int = 4, variance_width: float | None = None,
                  progress: bool | TextIO = False) -> LevelAccount:
    """Re-account one level (the method: ``docs/proofs/census.md``).

    Args:
        level: The :class:`Level`.
        delta: The delta of the comparison (the allocation's, 1e-10, by default).
        conversions: The published conversions to compare with: "cks" (the Bureau's DAS code) and/or
            "bun-steinke".
        rel_width: Relative width of the proven bracket on epsilon_fDP.
        discrete: Account the discrete Gaussians (the bracket route; seconds per level).  False keeps only
            the continuous cross-check (exact, a fraction of a second).
        variance: Also search a variance reduction per conversion (the calibration's) (several compositions each:
            the costly part).
        variance_digits: Significant digits of the variance factor c (rounded up).
        variance_width: The bracket width of that search (``rel_width`` by default).
        progress: Report the steps of the variance search.

    Returns:
        The :class:`LevelAccount`.
    """
    conversions = (conversions,) if isinstance(conversions, str) else tuple(conversions)
    for conv in conversions:
        if conv not in CONVERSIONS:
            raise bad("conversions", conv, f"must be among {', '.join(CONVERSIONS)}")
    start = time.perf_counter()
    d = load_allocation().delta if delta is None else _rational(delta, "delta")
    if not 0 < d < 1:
        raise bad("delta", delta, "must be in (0, 1)")
    dtext = str(sympy.Rational(d.numerator, d.denominator))
    proven = account(level_mechanism(level), delta=dtext, route="bracket", rel_width=rel_width) if discrete else None
    mu = level_mechanism(level, continuous=True).gdp_mu()
    cont = account(GDP(mu), delta=dtext, digits=_CONTINUOUS_DIGITS)  # the same value: G_mu exactly
    comparisons = {}
    for conv in conversions:
        pub = _published(level, d, conv)
        mu_target = mu_from_epsilon_delta(pub[0], dtext, digits=variance_digits + 8)  # rounded down
        c_cont = _rational(mu**2) / Fraction(mu_target) ** 2
        c_cont_up = Fraction(math.ceil(c_cont * 10**variance_digits), 10**variance_digits)
        calib = None
        if variance and discrete:
            calib = calibrate_variance(lambda c: level_mechanism(level, variance_factor=c), Fraction(pub[0]), dtext,
                                       guess=float(c_cont), digits=variance_digits,
                                       rel_width=variance_width or rel_width, lowest=1e-3, highest=1e3,
                                       progress=progress)
        comparisons[conv] = Comparison(conv, pub, _unused(proven, pub) if proven else None, _unused(cont, pub), calib,
                                       c_cont_up)
    return LevelAccount(level, proven, cont, comparisons, time.perf_counter() - start)


def reaccount(levels: Any = None, **options: Any) -> list[LevelAccount]:
    """:func:`account_level` for each named level (all six by default), top-down."""
    alloc = load_allocation()
    names = [lv.name for lv in alloc.levels] if levels is None else list(levels)
    return [account_level(alloc.level(n), **options) for n in names]


def format_table(rows: list[LevelAccount], conversion: str = "cks") -> str:
    """The per-level table against one conversion, as plain text (percentages: lower ends rounded
    down, upper ends up; a variance reduction rounded down)."""
    head = ("level", "rho", "published eps", "f-DP eps (proven)", "unused %", "var. red. %",
            "Gaussian eps", "Gaussian unused %", "Gaussian var. red. %")
    lines = [head]
    for r in rows:
        d = r.to_dict()
        c = d["comparisons"][conversion]
        dg = d["eps_fdp"] is not None
        lines.append((r.level.name, d["rho_decimal"], significant_text(Fraction(r.comparisons[conversion].published[0]), "down"),
                      "[{}, {}]".format(*d["eps_fdp"]) if dg else "-",
                      "[{}, {}]".format(*c["unused_percent"]) if dg else "-",
                      c.get("variance_reduction_percent", "-"), "[{}, {}]".format(*d["continuous_eps"]),
                      "[{}, {}]".format(*c["continuous_unused_percent"]), c["continuous_variance_reduction_percent"]))
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in lines)
