"""The audit of a peer's DP-SGD trade-off curve: a valid trade-off function, consistent with the
delta its own library reports, and inside gdpproof's proven bracket.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .findings import AuditReport, Finding
from .functions import audit_peer_functions
from .inputs import DPSGD, DPSGD_QUICK, check_common
from .peers import PeerCurve, PeerFunction, call

__all__ = ["audit_curve"]


def audit_curve(curve: PeerCurve, *, quick: bool = True, rtol: float = 0.0) -> AuditReport:
    """Audit a DP-SGD trade-off curve: validity, consistency with its own delta, the proven bracket.

    For each configuration of the grid: the curve must be a trade-off function on a grid of
    alpha (values in [0, 1], non-increasing, convex, at most 1 - alpha; checked in exact
    arithmetic on the returned floats); the delta it implies, sup_alpha (1 - e^eps alpha -
    f(alpha)) over the grid, must not exceed the delta its own library reports at that eps;
    and its values are compared with gdpproof's proven bracket (quantity ``dpsgd_beta``).

    Args:
        curve: The :class:`PeerCurve`.
        quick: The small grid (seconds) instead of the full one.
        rtol: Relative size below which a discrepancy is marked within tolerance.

    Returns:
        The :class:`AuditReport`.

    Examples:
        >>> import gdpproof
        >>> from gdpproof.audit import PeerCurve, audit_curve
        >>> g1 = PeerCurve("G_1", lambda s, q, t, a: gdpproof.gaussian(1).evaluate_fast(a), lambda s, q, t, e: 0.1)
        >>> r = audit_curve(g1, quick=True)
        >>> [len(r.of_kind(k)) for k in ("unsafe", "error", "conservative")]   # G_1 is not a DP-SGD curve
        [0, 3, 2]
    """
    import numpy as np

    rtol, _, _ = check_common(rtol, 0, None)
    configs = DPSGD_QUICK if quick else DPSGD
    results: list[Finding] = []
    pf = PeerFunction(curve.label, "dpsgd_beta",
                      lambda s, p, t, a: float(np.asarray(curve.beta(s, p, t, np.array([a])), dtype=float)[0]))
    rep = audit_peer_functions(curve.label, [pf], quick=quick, rtol=rtol, seed=0, examples=0, properties=False,
                                progress=False)
    results.extend(rep.results)
    alphas = np.unique(np.concatenate([[0.0], np.logspace(-12, -1, 23), np.linspace(0, 1, 129), [1.0]]))
    for sigma, p, steps, _ in configs:
        names = (("noise_multiplier", sigma), ("sample_rate", p), ("steps", steps))
        value, err = call(lambda: np.asarray(curve.beta(sigma, p, steps, alphas), dtype=float), ())
        if not err and np.shape(value) != np.shape(alphas):  # zip would silently drop the missing points
            err = f"returned {np.size(value)} values for {len(alphas)} alphas"
        if err:
            results.append(Finding(curve.label, "dpsgd_beta", names, None, "a trade-off function", "error", None,
                                   False, "curve", err))
            continue
        problems = _validity(alphas, value)
        for text, rel in problems:
            results.append(Finding(curve.label, "dpsgd_beta", names, None, "a trade-off function", "error", rel,
                                   rel is not None and abs(rel) <= rtol, "curve", text))
        if not problems:
            results.append(Finding(curve.label, "dpsgd_beta", names, None, "a trade-off function", "agrees", None,
                                   True, "curve", f"valid trade-off function on {len(alphas)} points"))
        for eps in (0.0, 0.5, 1.0, 2.0, 4.0):
            results.append(_consistency(curve, sigma, p, steps, eps, alphas, value, rtol))
    return AuditReport(curve.label, tuple(results), rtol, (curve.note,) if curve.note else ())


def _validity(alphas: Any, betas: Any) -> list[tuple[str, float | None]]:
    """Violations of the trade-off properties, in exact arithmetic on the floats.

    One entry per violated property: the worst point, with the number of points violating it.
    """
    a = [Fraction(float(x)) for x in alphas]
    b = []
    for x, y in zip(alphas, betas):
        y = float(y)
        if not math.isfinite(y):
            return [(f"beta({float(x)!r}) = {y!r} is not finite", None)]
        b.append(Fraction(y))
    found: dict[str, list[tuple[Fraction, str]]] = {}
    for x, y in zip(a, b):
        if y < 0 or y > 1 - x:
            size = (y - (1 - x)) / (1 - x) if y > 1 - x and x < 1 else -y
            found.setdefault("range", []).append((size, f"beta({float(x)!r}) = {float(y)!r} is outside "
                                                        "[0, 1 - alpha]"))
    for i in range(len(a) - 1):
        if b[i + 1] > b[i]:
            found.setdefault("monotone", []).append(((b[i + 1] - b[i]) / b[i], f"increases between alpha="
                                                     f"{float(a[i])!r} and {float(a[i + 1])!r}: {float(b[i])!r} -> "
                                                     f"{float(b[i + 1])!r}"))
    for i in range(1, len(a) - 1):
        chord = b[i - 1] + (b[i + 1] - b[i - 1]) * (a[i] - a[i - 1]) / (a[i + 1] - a[i - 1])
        if b[i] > chord:
            found.setdefault("convex", []).append(((b[i] - chord) / chord if chord else Fraction(1),
                                                   f"not convex at alpha={float(a[i])!r}: {float(b[i])!r} above the "
                                                   f"chord {float(chord)!r}"))
    out: list[tuple[str, float | None]] = []
    for items in found.values():
        size, text = max(items, key=lambda t: abs(t[0]))
        more = f" (worst of {len(items)} points)" if len(items) > 1 else ""
        out.append((text + more, float(size)))
    return out


def _consistency(curve: PeerCurve, sigma: float, p: float, steps: int, eps: float, alphas: Any, betas: Any,
                 rtol: float) -> Finding:
    import mpmath

    names = (("noise_multiplier", sigma), ("sample_rate", p), ("steps", steps), ("epsilon", eps))
    theirs, err = call(curve.delta, (sigma, p, steps, eps))
    if err:
        return Finding(curve.label, "dpsgd_beta", names, None, "its own delta", "error", None, False, "curve",
                       f"delta: {err}")
    try:
        td = float(theirs)
    except (TypeError, ValueError):
        td = math.nan
    if not 0 <= td <= 1:  # NaN, negative, above 1: "implied > td" would be silently False for NaN
        return Finding(curve.label, "dpsgd_beta", names, None if math.isnan(td) else td, "its own delta", "error",
                       None, False, "curve", f"its own delta({eps}) = {theirs!r} is not a probability")
    ctx = mpmath.MPContext()
    ctx.dps = 50
    implied = max(ctx.mpf(1) - ctx.exp(ctx.mpf(eps)) * ctx.mpf(float(a)) - ctx.mpf(float(b))
                  for a, b in zip(alphas, betas))
    implied = max(implied, ctx.mpf(0))
    if implied > td:
        rel = float((implied - td) / td) if td > 0 else None
        return Finding(curve.label, "dpsgd_beta", names, td, f"curve implies delta >= {ctx.nstr(implied, 17)}",
                       "error", rel, rel is not None and abs(rel) <= rtol, "curve",
                       "the curve is less private than the delta its library reports")
    return Finding(curve.label, "dpsgd_beta", names, td, f"curve implies delta >= {ctx.nstr(implied, 17)}",
                   "agrees", None, True, "curve", "consistent with its own delta")
