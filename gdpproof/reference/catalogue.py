"""The catalogue of reference tables shipped inside the package (``reference/data``).

Each entry of :data:`SHIPPED` is the exact specification of one file, and :func:`shipped_path`
says where that file lies.  This module only describes what ships: reading a table by name
(:func:`gdpproof.reference.table.read_table`) needs it, rebuilding and checking the files
(:mod:`gdpproof.reference.shipped`) builds on it.  The grids concentrate where implementations
fail: tiny delta (down to 1e-300), large eps, mu near 0 and large, small noise.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import bad

__all__ = ["SHIPPED", "shipped_path"]

SHIPPED: dict[str, dict[str, Any]] = {
    "gdp_delta": dict(kind="delta", digits=40, mu="0.01,0.1,0.5,1,2,5,10,30", eps="0,0.1,0.5,1,2,5,20,100"),
    "gdp_epsilon": dict(kind="epsilon", digits=40, mu="0.01,0.1,0.5,1,2,5,10",
                        delta="1e-300,1e-100,1e-30,1e-10,1e-5,0.001,0.1"),
    "gdp_mu": dict(kind="mu", digits=40, eps="0.01,0.1,0.5,1,2,8,50",
                   delta="1e-300,1e-30,1e-10,1e-5,0.001,0.1"),
    "gaussian_sigma": dict(kind="sigma", digits=40, eps="0.01,0.1,1,3,10,100", delta="1e-300,1e-12,1e-5,0.01",
                           sensitivity="1"),
    "gaussian_tradeoff": dict(kind="tradeoff", digits=40, mu="0.01,0.5,1,3,10",
                              alpha="1e-300,1e-10,0.001,0.05,0.25,0.5,0.75,0.95,0.999"),
    "subsampled_gaussian_tradeoff": dict(kind="subsampled", digits=30, mu="0.5,1,4", sample_rate="0.001,0.01,0.5",
                                         alpha="1e-10,0.01,0.2,0.5,0.9"),
    "rr_composition": dict(kind="rr-composition", digits=30, eps="0.1,1", n="1,10,100,1000",
                           alpha="0.001,0.05,0.2,0.5,0.9"),
    "discrete_gaussian_delta": dict(kind="discrete-gaussian-delta", digits=30, sigma="0.5,1,1.5,5,20",
                                    sensitivity="1,2", eps="0,0.5,1,3"),
    "dpsgd": dict(kind="dpsgd", digits=20, sigma="0.8,1,2", sample_rate="0.01", steps="1000", delta="1e-5"),
}


def shipped_path(name: str) -> Path:
    """The file of a shipped table."""
    if name not in SHIPPED:
        raise bad("name", name, f"is not a shipped table ({', '.join(SHIPPED)})")
    return Path(str(resources.files("gdpproof.reference") / "data" / f"{name}.csv"))

