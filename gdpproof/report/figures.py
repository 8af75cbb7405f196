"""The report's figure: trade-off functions, delta curves, the CLT band, subsampling and (full run) DP-SGD.

Every plotted value comes from the library; this module only lays the values out.  Without
matplotlib (the ``plot`` extra) there is no figure and :func:`figure_png` returns ``None``.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from ..numeric.clt import berry_esseen
from ..numeric.dpsgd import dpsgd_epsilon, dpsgd_mu
from ..numeric.fast import delta_from_epsilon as fast_delta_from_epsilon
from ..symbolic.composition import rr_composition, subsample
from ..symbolic.tradeoff import gaussian, randomized_response
from .checks import families

__all__ = ["figure_png"]


def figure_png(*, quick: bool = False) -> bytes | None:
    """The report's figure as PNG bytes (``None`` without matplotlib); ``quick`` leaves out the DP-SGD row."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None

    fig, grid = plt.subplots(2 if quick else 3, 2, figsize=(10, 8.6 if quick else 12.9))
    axes = grid[0]
    a = np.linspace(0, 1, 401)
    for f in families():
        axes[0].plot(a, f.evaluate_fast(a), label=repr(f))
    axes[0].plot(a, 1 - a, "k:", label="Id (perfect privacy)")
    axes[0].set_xlabel("type I error alpha")
    axes[0].set_ylabel("type II error beta = f(alpha)")
    axes[0].set_title("Trade-off functions")
    axes[0].legend(fontsize=7)
    eps = np.linspace(0, 4, 41)
    for m in ("0.5", "1", "2"):
        f = gaussian(m)
        d = [float(f.delta(float(e), digits=8)) for e in eps]
        axes[1].semilogy(eps, d, label=f"mu = {m}")
    axes[1].set_xlabel("epsilon")
    axes[1].set_ylabel("delta(epsilon) (certified, rounded up)")
    axes[1].set_title("GDP as (epsilon, delta)-DP")
    axes[1].legend()
    rr = rr_composition("0.1", 100)
    berry_esseen(randomized_response("0.1"), n=100, digits=8).plot(grid[1][0], exact=rr)
    grid[1][0].set_title("CLT: 100-fold randomized response, eps = 0.1")
    ax = grid[1][1]
    ax.plot(a, gaussian(1).evaluate_fast(a), "k", label="G_1")
    for q in ("0.05", "0.2", "0.5"):
        ax.plot(a, subsample(gaussian(1), q).evaluate_fast(a), label=f"C_p(G_1), p = {q}")
    ax.plot(a, 1 - a, "k:", lw=0.8)
    ax.set_xlabel("type I error alpha")
    ax.set_ylabel("type II error beta")
    ax.set_title("Subsampling amplifies privacy")
    ax.legend(fontsize=8)
    if not quick:
        _plot_dpsgd(grid[2])
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


def _plot_dpsgd(axes: Any) -> None:
    """DP-SGD (sigma = 1, p = 0.01, T = 1000): the proven trade-off and delta brackets against the CLT."""
    r = dpsgd_epsilon(1.0, 0.01, 1000, 1e-5)
    c = r.composition
    hm = c.honest_mu()
    mu_clt = float(dpsgd_mu(1.0, 0.01, 1000, digits=8, gamma=False).mu_clt)
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
    ax.set_title("DP-SGD sigma = 1, p = 0.01, T = 1000: the composed curve f against the CLT's G_mu", fontsize=9)
    ax.legend(fontsize=7)
    ax = axes[1]
    eps = np.linspace(0, 4, 81)
    lo = [c.delta(float(e)).lower for e in eps]
    hi = [c.delta(float(e)).upper for e in eps]
    ax.fill_between(eps, lo, hi, color="C0", alpha=0.5, label="proven bracket (worse of add/remove)")
    ax.semilogy(eps, hi, "C0", lw=0.6)
    ax.semilogy(eps, fast_delta_from_epsilon(np.full_like(eps, mu_clt), eps), "C3--", label="CLT (approximation)")
    ax.set_ylim(1e-9, 1)
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta(epsilon)")
    ax.set_title("The CLT understates delta at small delta")
    ax.legend(fontsize=7)
