"""Where an accountant is audited: fixed grids concentrated where implementations fail, and
inputs drawn at random in the same domains (seeded, so the same on every run and in every
process).

Points whose exact delta or beta is below :data:`TINY` are left out (no float64 answer can be
right there).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .._args import count, seed as checked_seed
from ..errors import GdpproofError, bad
from .compare import certified
from .quantities import QUANTITIES, Quantity, quantity_named

__all__ = ["TINY", "grid"]


_MUS = (1e-4, 1e-2, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0)
_MUS_QUICK = (1e-4, 0.5, 1.0, 5.0, 50.0)
_DELTAS = (0.5, 0.1, 1e-2, 1e-5, 1e-10, 1e-20, 1e-50, 1e-100, 1e-200, 1e-300)
_DELTAS_QUICK = (0.1, 1e-5, 1e-100, 1e-300)
_EPSILONS = (0.0, 0.01, 0.1, 0.5, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0)
_EPSILONS_QUICK = (0.0, 0.01, 1.0, 10.0, 300.0)
_BUDGET_DELTAS = (0.5, 1e-3, 1e-5, 1e-10, 1e-30, 1e-100, 1e-300)
_BUDGET_DELTAS_QUICK = (1e-5, 1e-100, 1e-300)
_ALPHAS = (1e-300, 1e-100, 1e-10, 1e-5, 0.01, 0.1, 0.5, 0.9, 1 - 1e-6)
_ALPHAS_QUICK = (1e-100, 1e-5, 0.5, 1 - 1e-6)
#: z = epsilon/mu - mu/2: delta is about Phi(-z), so these keep delta above 1e-300.
_ZS = (-1.0, 0.0, 1.0, 3.0, 6.0, 10.0, 20.0, 36.0)
_ZS_QUICK = (0.0, 3.0, 20.0, 36.0)
DPSGD = ((1.0, 0.01, 1000, 1e-5), (0.5, 0.01, 100, 1e-5), (2.0, 0.1, 100, 1e-10), (0.3, 0.001, 1000, 1e-5),
          (1.1, 256 / 60000, 14063, 1e-5), (0.8, 0.001, 10000, 1e-6))
DPSGD_QUICK = ((1.0, 0.01, 1000, 1e-5),)
_CURVE_ALPHAS = (1e-6, 1e-3, 0.01, 0.1, 0.3)
_CURVE_ALPHAS_QUICK = (1e-3, 0.1)
#: Smallest exact answer audited for a probability: below it float64 has no room to be right.
TINY = 1e-300


def grid(quantity: str, *, quick: bool = False) -> list[tuple[Any, ...]]:
    """The audit grid of a quantity: inputs concentrated where implementations fail.

    Tiny delta (down to 1e-300), epsilon up to hundreds (thousands for mu = 50), mu from 1e-4 to
    50, alpha down to 1e-300, noise multipliers down to 0.3, steps up to 10^5 for the CLT
    quantity.  ``quick`` gives a subset (seconds).  Points whose exact delta or beta is below
    1e-300 are left out of delta_from_epsilon and beta_from_mu (no float64 answer can be right
    there).

    Args:
        quantity: A key of :data:`QUANTITIES`.
        quick: A subset that runs in seconds.

    Returns:
        The input tuples.

    Raises:
        InvalidParameterError: The quantity is not known.

    Examples:
        >>> from gdpproof.audit import grid
        >>> grid("sigma_from_epsilon_delta", quick=True)[:2]
        [(0.0, 1e-05), (0.0, 1e-100)]
    """
    quantity_named(quantity)
    mus = _MUS_QUICK if quick else _MUS
    if quantity == "delta_from_epsilon":
        pts = []
        for mu in mus:
            for z in (_ZS_QUICK if quick else _ZS):
                eps = mu * z + mu * mu / 2
                if eps >= 0:
                    pts.append((mu, eps))
            pts.append((mu, 0.0))
        return sorted(set(pts))
    if quantity == "epsilon_from_delta":
        return [(mu, d) for mu in mus for d in (_DELTAS_QUICK if quick else _DELTAS)]
    if quantity in ("mu_from_epsilon_delta", "sigma_from_epsilon_delta"):
        return [(e, d) for e in (_EPSILONS_QUICK if quick else _EPSILONS)
                for d in (_BUDGET_DELTAS_QUICK if quick else _BUDGET_DELTAS)]
    if quantity == "beta_from_mu":
        return [(mu, a) for mu in mus for a in (_ALPHAS_QUICK if quick else _ALPHAS)]
    if quantity == "dpsgd_mu_clt":
        sig = (0.3, 1.0) if quick else (0.3, 0.5, 1.0, 2.0, 5.0)
        ps = (0.01,) if quick else (1e-4, 0.01, 0.1, 1.0)
        ts = (100, 100_000) if quick else (1, 100, 10_000, 100_000)
        return [(s, p, t) for s in sig for p in ps for t in ts]
    configs = DPSGD_QUICK if quick else DPSGD
    if quantity == "dpsgd_epsilon":
        return list(configs)
    if quantity == "dpsgd_mu":
        return [c[:3] for c in configs]
    return [c[:3] + (a,) for c in configs for a in (_CURVE_ALPHAS_QUICK if quick else _CURVE_ALPHAS)]


def _representable(q: Quantity, inputs: tuple[Any, ...]) -> bool:
    """False where the exact delta or beta is below TINY (left out: no float can be right)."""
    if q.name not in ("delta_from_epsilon", "beta_from_mu"):
        return True
    try:
        c = certified(q.name, inputs, 5)
    except GdpproofError:
        return False
    return c.to_fraction() >= Fraction(TINY)


def _spread(rng: Any, lo: float, hi: float, n: int, *, zero: bool = False) -> list[float]:
    """n doubles log-uniform in [lo, hi], each end (and 0 when ``zero``) taken with probability 1/8:
    the ends of a domain are where implementations break."""
    import numpy as np

    values = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    pick = rng.integers(0, 8, n)
    values = np.where(pick == 0, lo, np.where(pick == 1, hi, values))
    if zero:
        values = np.where(pick == 2, 0.0, values)
    return [float(min(max(v, 0.0 if zero else lo), hi)) for v in values]


def _drawn(quantity: str, examples: int, seed: int) -> list[tuple[Any, ...]]:
    """Inputs drawn at random in the audited domain by numpy's generator seeded with (seed, the
    quantity's name), so the same on every run whatever else the process has loaded (hypothesis's
    own draws also depend on the constants of the modules loaded, and write a cache to the current
    folder, so the audit does not use it)."""
    if examples <= 0 or QUANTITIES[quantity].reference == "bracket":
        return []  # proven DP-SGD brackets cost ~1 s each: grids only
    import zlib

    import numpy as np

    rng = np.random.default_rng([seed, zlib.crc32(quantity.encode())])
    n = examples
    if quantity == "delta_from_epsilon":
        mus, zs = _spread(rng, 1e-4, 50.0, n), rng.uniform(-1.0, 36.0, n)
        out = [(m, max(0.0, m * float(z) + m * m / 2)) for m, z in zip(mus, zs)]
    elif quantity == "epsilon_from_delta":
        out = list(zip(_spread(rng, 1e-4, 50.0, n), _spread(rng, 1e-300, 0.5, n)))
    elif quantity in ("mu_from_epsilon_delta", "sigma_from_epsilon_delta"):
        # eps from [1e-6, 300] (and 0), and with probability 1/8 from the tiny eps in [1e-300, 1e-6]
        # where a solver's bracket or starting point can collapse
        eps = np.array(_spread(rng, 1e-6, 300.0, n, zero=True))
        tiny = np.exp(rng.uniform(np.log(1e-300), np.log(1e-6), n))
        eps = np.where(rng.integers(0, 8, n) == 0, tiny, eps)
        out = list(zip((float(e) for e in eps), _spread(rng, 1e-300, 0.5, n)))
    elif quantity == "beta_from_mu":
        out = list(zip(_spread(rng, 1e-4, 50.0, n), _spread(rng, 1e-300, float(np.nextafter(1.0, 0.0)), n)))
    else:
        steps = [int(round(t)) for t in _spread(rng, 1.0, 1e5, n)]
        out = list(zip(_spread(rng, 0.3, 10.0, n), _spread(rng, 1e-4, 1.0, n), steps))
    return list(dict.fromkeys(out))


def check_common(rtol: Any, seed: Any, examples: Any) -> tuple[float, int, int | None]:
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)) or not (0 <= rtol < 1):
        raise bad("rtol", rtol, "must be a number in [0, 1)")
    return float(rtol), checked_seed("seed", seed), None if examples is None else count("examples", examples, low=0)


def inputs_for(q: Quantity, quick: bool, seed: int, examples: int | None) -> list[tuple[tuple[Any, ...], str]]:
    n = examples if examples is not None else (5 if quick else 25)
    on_grid = grid(q.name, quick=quick)
    pts = [(x, "grid") for x in on_grid]
    pts += [(x, "drawn") for x in _drawn(q.name, n, seed) if x not in set(on_grid)]
    return [(x, s) for x, s in pts if _representable(q, x)]
