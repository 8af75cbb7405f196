"""The report's figures, one per topic, each with a caption that says what to look at: trade-off
functions, delta curves, the CLT band, subsampling and (full run) DP-SGD.

Every plotted value comes from the library; this module only lays the values out.  Without
matplotlib (the ``plot`` extra) there are no figures and :func:`topic_figures` returns ``[]``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numeric.tradeoff.clt import berry_esseen
from ..accounting import dpsgd_epsilon, dpsgd_mu
from ..numeric.engine.fast import delta_from_epsilon as fast_delta_from_epsilon
from ..symbolic.composition import rr_composition, subsample
from ..symbolic.tradeoff import gaussian, randomized_response
from .checks import families

__all__ = ["DPSGDData", "Figure", "Y_LOW", "dpsgd_caption", "dpsgd_data", "topic_figures"]

#: The lowest delta the DP-SGD figure's right panel shows.
Y_LOW = 1e-9


@dataclass(frozen=True)
class Figure:
    """One topic's figure: a title, a caption that says what to look at, and the PNG bytes."""

    title: str
    caption: str
    png: bytes


def topic_figures(*, quick: bool = False) -> list[Figure]:
    """One figure per topic (trade-off functions, GDP as (epsilon, delta)-DP, the CLT, subsampling and,
    full run only, DP-SGD), each with its caption; an empty list without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []

    def draw(title: str, caption: str, plot: Any, panels: int = 1) -> Figure:
        fig, axes = plt.subplots(1, panels, figsize=(5.2 * panels, 4.3))
        plot(axes)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100)
        plt.close(fig)
        return Figure(title, caption, buf.getvalue())

    out = [
        draw("Trade-off functions", "Each curve is beta = f(alpha), the smallest type II error of any test at type I "
             "error alpha. Look at the distance below the dotted diagonal 1 - alpha (perfect privacy): the lower the "
             "curve, the easier the two data sets are told apart, the less private the mechanism.", _tradeoffs),
        draw("GDP as (epsilon, delta)-DP", "delta(epsilon) of mu-GDP, certified and rounded up, on a log scale. Look "
             "at the spacing of the curves: at the same delta, a larger mu needs a much larger epsilon.", _duals),
        draw("The central limit theorem", "The exact 100-fold composition of randomized response (eps = 0.1, "
             "dashed) against its CLT approximation G_mu and the Berry-Esseen band around it. Look whether the "
             "dashed curve stays inside the shaded band: the band is the proven error of the approximation.", _clt),
        draw("Subsampling", "C_p(G_1), the trade-off of G_1 run on a Poisson sample of rate p. Look at the curves "
             "rising toward the dotted diagonal as p falls: sampling amplifies privacy.", _subsampling),
    ]
    if not quick:
        data = dpsgd_data()
        out.append(draw("DP-SGD: proven bracket against the CLT", dpsgd_caption(data),
                        lambda axes: _plot_dpsgd(axes, data), panels=2))
    return out


@dataclass(frozen=True)
class DPSGDData:
    """What the DP-SGD figure plots (sigma = 1, p = 0.01, T = 1000): the composition, the CLT mu,
    and the proven delta(epsilon) band at ``eps`` with the float lattice's ``floor`` under it."""

    composition: Any
    mu_clt: float
    eps: Any
    lower: list[float]
    upper: list[float]
    floor: float


def dpsgd_data() -> DPSGDData:
    """The DP-SGD figure's values, from the library (the float lattice's composition at delta 1e-5)."""
    c = dpsgd_epsilon(1.0, 0.01, 1000, 1e-5).composition
    eps = np.linspace(0, 4, 81)
    band = [c.delta(float(e)) for e in eps]
    return DPSGDData(c, float(dpsgd_mu(1.0, 0.01, 1000, digits=8, gamma=False).mu_clt), eps,
                     [b.lower for b in band], [b.upper for b in band], c.delta_floor())


def dpsgd_caption(data: DPSGDData) -> str:
    """The DP-SGD figure's caption: what to look at, and the float lattice's floor at its value."""
    floor = f"{data.floor:.0e}".replace("e-0", "e-")
    return ("sigma = 1, p = 0.01, T = 1000. Left: the proven bracket of the composed trade-off curve minus the "
            "CLT's G_mu; look where the band lies below zero: there DP-SGD is less private than the CLT says. "
            "Right: the proven delta(epsilon) bracket against the CLT; look where the dashed CLT line falls below "
            "the band at small delta: there the CLT understates the privacy loss. The band is composed on the "
            f"float64 lattice, whose additive error puts a floor under it (the dotted line, near {floor}): where "
            "the band goes flat at that line it shows the floor, not DP-SGD (gdpproof.account takes the exact "
            "integer lattice, which has no floor, for delta below 1e-7).")


def _tradeoffs(ax: Any) -> None:
    a = np.linspace(0, 1, 401)
    for f in families():
        ax.plot(a, f.evaluate_fast(a), label=repr(f))
    ax.plot(a, 1 - a, "k:", label="Id (perfect privacy)")
    ax.set_xlabel("type I error alpha")
    ax.set_ylabel("type II error beta = f(alpha)")
    ax.legend(fontsize=7)


def _duals(ax: Any) -> None:
    eps = np.linspace(0, 4, 41)
    for m in ("0.5", "1", "2"):
        f = gaussian(m)
        d = [float(f.delta(float(e), digits=8)) for e in eps]
        ax.semilogy(eps, d, label=f"mu = {m}")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta(epsilon) (certified, rounded up)")
    ax.legend()


def _clt(ax: Any) -> None:
    berry_esseen(randomized_response("0.1"), n=100, digits=8).plot(ax, exact=rr_composition("0.1", 100))


def _subsampling(ax: Any) -> None:
    a = np.linspace(0, 1, 401)
    ax.plot(a, gaussian(1).evaluate_fast(a), "k", label="G_1")
    for q in ("0.05", "0.2", "0.5"):
        ax.plot(a, subsample(gaussian(1), q).evaluate_fast(a), label=f"C_p(G_1), p = {q}")
    ax.plot(a, 1 - a, "k:", lw=0.8)
    ax.set_xlabel("type I error alpha")
    ax.set_ylabel("type II error beta")
    ax.legend(fontsize=8)


def _plot_dpsgd(axes: Any, data: DPSGDData) -> None:
    """DP-SGD (sigma = 1, p = 0.01, T = 1000): the proven trade-off and delta brackets against the CLT."""
    c, mu_clt = data.composition, data.mu_clt
    hm = c.honest_mu()
    pts = np.linspace(0, 1, 121)
    br = [c.tradeoff(float(x)) for x in pts]
    clt = gaussian(mu_clt).evaluate_fast(pts)
    ax = axes[0]
    ax.fill_between(pts, [b.lower for b in br] - clt, [b.upper for b in br] - clt, color="C0", alpha=0.5,
                    label="proven bracket of the composed curve f")
    ax.axhline(0, color="C3", ls="--", label=f"G_mu, CLT mu = {mu_clt:.3f}")
    ax.plot(pts, gaussian(hm.mu.upper).evaluate_fast(pts) - clt, "k", lw=0.8,
            label=f"G_mu, honest mu = {hm.mu.upper:.3f} (delta >= {hm.delta_min:.0e})")
    ax.set_xlabel("type I error alpha")
    ax.set_ylabel("beta minus G_mu_CLT(alpha)")
    ax.set_title("the composed curve f against the CLT's G_mu", fontsize=9)
    ax.legend(fontsize=7)
    ax = axes[1]
    eps = data.eps
    ax.fill_between(eps, data.lower, data.upper, color="C0", alpha=0.5, label="proven bracket (worse of add/remove)")
    ax.semilogy(eps, data.upper, "C0", lw=0.6)
    ax.semilogy(eps, fast_delta_from_epsilon(np.full_like(eps, mu_clt), eps), "C3--", label="CLT (approximation)")
    floor = data.floor
    ax.axhline(floor, color="0.4", ls=":", lw=0.8, label=f"float lattice's floor ({floor:.1e}): below it, not resolved")
    ax.set_ylim(Y_LOW, 1)
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta(epsilon)")
    ax.set_title("The CLT understates delta at small delta")
    ax.legend(fontsize=7)
