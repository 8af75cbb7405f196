"""Ball, mpmath and numpy implementations of the special functions of :mod:`gdpproof.symbolic.special`.

* ``implicit_inverse(g, v)``: a safeguarded Newton iteration on t -> g(t) - v.  In ball
  arithmetic every step keeps a bracket [lo, hi] whose ends are certified by the sign of
  g - v (g non-increasing), so the returned ball always contains the root; Newton only makes it
  narrow.  The mpmath and numpy versions are the same iteration on plain numbers.
* ``rr_composed``, ``rr_composed_slope``, ``rr_composed_delta``: the Neyman–Pearson curve of
  Binomial(n, q1) against Binomial(n, q0), q0 = 1/(1 + e^eps) = 1 - q1, through the
  regularized incomplete beta function: P(K < j) = I_{q0}(n - j + 1, j) and
  Q(K >= j) = I_{q0}(j, n - j + 1) (arb's ``beta_lower``; SciPy's ``betainc``; mpmath's
  ``betainc``), so n = 10^5 costs a few incomplete-beta calls, not 10^5 terms.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import flint
import numpy as np
import sympy

__all__ = [
    "compile_special",
    "arb_implicit_inverse",
    "mpmath_namespace",
    "numpy_namespace",
]

_Node = Callable[[Sequence[flint.arb]], Any]


# ---------------------------------------------------------------------------------------------
# ball arithmetic
# ---------------------------------------------------------------------------------------------


def compile_special(e: sympy.Basic, index: dict, compile_: Callable[[sympy.Basic, dict], _Node]) -> _Node | None:
    """The ball-arithmetic node for one of the special functions, or None if ``e`` is not one.

    The envelope and conjugate nodes (``symmetrized``, ...) are compiled by
    :mod:`gdpproof.numeric.engine.compiler`, which sits above :mod:`gdpproof.numeric.tradeoff.envelope`.
    """
    name = type(e).__name__
    if name == "implicit_inverse":
        (var,) = e.function.variables
        inner = dict(index)
        inner[var] = len(index)
        g = compile_(e.function.expr, inner)
        dg = compile_(e.derivative_function().expr, inner)
        v = compile_(e.args[1], index)

        def inverse(env: Sequence[flint.arb]) -> flint.arb:
            env = tuple(env)
            return arb_implicit_inverse(lambda t: g((*env, t)), lambda t: dg((*env, t)), v(env))

        return inverse
    if name == "apply_at":
        (var,) = e.function.variables
        inner = dict(index)
        inner[var] = len(index)
        h = compile_(e.function.expr, inner)
        x = compile_(e.args[1], index)

        def apply(env: Sequence[flint.arb]) -> flint.arb:
            return h((*tuple(env), x(env)))

        return apply
    if name in ("rr_composed", "rr_composed_slope", "rr_composed_delta"):
        args = [compile_(a, index) for a in e.args]
        fn = {"rr_composed": arb_rr_value, "rr_composed_slope": arb_rr_slope,
              "rr_composed_delta": arb_rr_delta}[name]
        return lambda env: fn(*(a(env) for a in args))
    return None


def _ball(lo: flint.arb, hi: flint.arb) -> flint.arb:
    return lo.union(hi)


def arb_implicit_inverse(g: Callable[[flint.arb], flint.arb], dg: Callable[[flint.arb], flint.arb],
                         v: flint.arb) -> flint.arb:
    """A ball containing inf{t in [0, 1] : g(t) <= v} for continuous non-increasing g.

    ``dg`` is g' (used only to propose Newton steps).  The bracket [lo, hi] starts as [0, 1]
    and moves only on certified comparisons: g(x) > v (for every point of the balls) puts the
    root right of x, g(x) <= v puts it at or left of x.
    """
    if not v.is_finite():
        return flint.arb.nan()
    zero, one = flint.arb(0), flint.arb(1)
    g0 = g(zero)
    if g0 <= v:
        return zero
    lo, hi = zero, one
    prec = flint.ctx.prec
    tol_rel = flint.arb(2) ** (-prec + 4)
    x = None
    undecided = 0
    for _ in range(4 * prec + 200):
        if x is None or not (lo < x < hi):
            # bisect, geometrically while the bracket spans orders of magnitude above 0
            x = hi / 1024 if (lo == 0 and hi > 0 and hi < 1) else (lo + hi) / 2
            x = flint.arb(x.mid())
        gx = g(x) - v
        if gx > 0:
            lo = x
        elif gx <= 0:
            hi = x
        else:
            # x is within rounding of the root: bracket it by x -+ h, widening h until decided
            undecided += 1
            h = abs(x) * tol_rel if x != 0 else tol_rel
            for _ in range(64):
                left, right = flint.arb((x - h).mid()), flint.arb((x + h).mid())
                if lo < left and g(left) - v > 0:
                    lo = left
                if right < hi and g(right) - v <= 0:
                    hi = right
                if (lo >= left or lo == left) and (hi <= right):
                    break
                h *= 4
            if undecided > 3:
                break
        width = hi - lo
        if width <= tol_rel * hi:
            break
        if lo == 0 and hi < tol_rel * tol_rel:
            break  # the root is 0 or below 2^(-2 prec): [0, hi] is the enclosure (exact zeros come from sympy)
        d = dg(x)
        if not (gx.is_finite() and d.is_finite()) or d.mid() == 0:
            x = None
            continue
        step = flint.arb(gx.mid()) / flint.arb(d.mid())
        nxt = flint.arb((x - step).mid())
        if not (lo < nxt < hi) or abs(step) > width / 2:
            x = None
            continue
        # Newton from the left of a convex g approaches monotonically: probe the other side too
        probe = flint.arb((nxt + 2 * abs(step) + tol_rel * abs(nxt)).mid())
        if lo < probe < hi:
            gp = g(probe) - v
            if gp <= 0:
                hi = probe
            elif gp > 0:
                lo = probe
        x = nxt
    return _ball(lo, hi)


def _q0(eps: flint.arb) -> flint.arb:
    return 1 / (1 + eps.exp())


def _n_of(n: flint.arb) -> int:
    k = n.unique_fmpz() if n.is_exact() else None
    if k is None:
        raise TypeError(f"no ball-arithmetic form for rr_composed with non-integer n={n}")
    return int(k)


#: Up to this n the vertices come from one table of binomial partial sums per (n, eps, precision)
#: (O(n) ball operations once, then lookups); beyond it from the incomplete beta function
#: (a few calls per value, each independent of n in cost).
TABLE_LIMIT = 20_000


def _ball_key(x: flint.arb) -> tuple:
    if not x.is_finite():  # man_exp refuses it: a ball with an infinite end (e^(10^999)) is its own key
        return ("not finite", str(x))
    return tuple(int(v) for v in (*x.mid().man_exp(), *x.rad().man_exp()))


_TABLES: dict[tuple, list[flint.arb]] = {}


def _rr_table(q0: flint.arb, n: int) -> list[flint.arb]:
    """alpha_j = P(K < j), j = 0..n+1, K ~ Binomial(n, 1 - q0), by partial sums in balls."""
    ratio = (1 - q0) / q0
    term = q0**n  # P(K = 0)
    out = [flint.arb(0)]
    acc = flint.arb(0)
    for k in range(n):
        acc = acc + term
        out.append(acc)
        term = term * ratio * (n - k) / (k + 1)
    out.append(flint.arb(1))
    return out


def _table(n: int, q0: flint.arb) -> list[flint.arb]:
    key = (n, _ball_key(q0), flint.ctx.prec)
    table = _TABLES.get(key)
    if table is None:
        if len(_TABLES) >= 32:
            _TABLES.pop(next(iter(_TABLES)))
        table = _TABLES[key] = _rr_table(q0, n)
    return table


def _rr_alpha(n: int, j: int, q0: flint.arb) -> flint.arb:
    """alpha_j = P(K < j), K ~ Binomial(n, 1 - q0)."""
    if j <= 0:
        return flint.arb(0)
    if j > n:
        return flint.arb(1)
    if n <= TABLE_LIMIT:
        return _table(n, q0)[j]
    return q0.beta_lower(n - j + 1, j, regularized=True)


def _rr_beta(n: int, j: int, q0: flint.arb) -> flint.arb:
    """beta_j = Q(K >= j), K ~ Binomial(n, q0); by symmetry Q(K >= j) = P(K <= n - j) = alpha_{n+1-j}."""
    return _rr_alpha(n, n + 1 - j, q0)


def _rr_segment_guess(n: int, eps: float, a: float) -> int:
    """A float estimate of the segment j with alpha_j <= a < alpha_{j+1}."""
    from scipy import stats

    q1 = 1.0 / (1.0 + math.exp(-eps)) if eps < 700 else 1.0
    if not (0.0 < a < 1.0):
        return 0 if a <= 0 else n
    # alpha_{j+1} = P(K <= j) > a: j = the a-quantile of Binomial(n, q1)
    j = int(stats.binom.ppf(a, n, q1))
    return min(max(j, 0), n)


def _rr_segments(n: int, eps: flint.arb, a: flint.arb) -> list[int]:
    """The segments j (alpha_j <= a <= alpha_{j+1}) that the ball a may fall in."""
    q0 = _q0(eps)
    guess = _rr_segment_guess(n, float(eps.mid()), float(a.mid()))

    def position(j: int) -> int:
        # -1: a < alpha_j for sure (go left); +1: a > alpha_{j+1} for sure (go right); 0: maybe here
        if _rr_alpha(n, j, q0) > a:
            return -1
        if j < n and _rr_alpha(n, j + 1, q0) < a:
            return 1
        return 0

    j, step = guess, 1
    pos = position(j)
    if pos != 0:
        # gallop to a bracket, then bisect
        direction = pos
        lo_j = hi_j = j
        while True:
            cand = min(max(j + direction * step, 0), n)
            p = position(cand)
            if p != direction or cand in (0, n):
                lo_j, hi_j = sorted((j, cand))
                break
            j, step = cand, step * 2
        while hi_j - lo_j > 1:
            mid = (lo_j + hi_j) // 2
            p = position(mid)
            if p < 0:
                hi_j = mid
            elif p > 0:
                lo_j = mid
            else:
                lo_j = hi_j = mid
        j = lo_j if position(lo_j) == 0 else hi_j
    out = [j]
    # a ball touching a vertex belongs to both neighbouring segments
    for k in (j - 1, j + 1):
        if 0 <= k <= n and position(k) == 0:
            out.append(k)
    return sorted(out)


def _union(values: list[flint.arb]) -> flint.arb:
    out = values[0]
    for v in values[1:]:
        out = out.union(v)
    return out


def _ends(x: flint.arb) -> tuple[flint.arb, flint.arb]:
    return flint.arb(x.lower()), flint.arb(x.upper())


def arb_rr_value(n_ball: flint.arb, eps: flint.arb, a: flint.arb) -> flint.arb:
    """Enclosure of the n-fold randomized-response trade-off at alpha = a."""
    n = _n_of(n_ball)
    if not (a >= 0 and a <= 1):
        return flint.arb.nan()
    if not a.is_exact():
        # a wide ball may span many segments: f is non-increasing, so f(a) lies between its
        # values at the ends of the ball (each computed at an exact point)
        lo, hi = _ends(a)
        return arb_rr_value(n_ball, eps, hi).union(arb_rr_value(n_ball, eps, lo))
    if a.is_exact() and a.is_zero():
        return flint.arb(1)  # f(0) = 1 exactly
    if a.is_exact() and a == 1:
        return flint.arb(0)
    q0 = _q0(eps)
    vals = []
    for j in _rr_segments(n, eps, a):
        if j == n:
            # last segment reaches (1, 0): beta = e^{-eps n} (1 - a)
            vals.append((-eps * n).exp() * (1 - a))
        else:
            b1 = _rr_beta(n, j + 1, q0)
            a1 = _rr_alpha(n, j + 1, q0)
            vals.append(b1 + (eps * (n - 2 * j)).exp() * (a1 - a))
    return _union(vals)


def arb_rr_slope(n_ball: flint.arb, eps: flint.arb, a: flint.arb) -> flint.arb:
    """|f'| on the segment(s) containing a: e^{eps (n - 2j)} (their hull at a vertex)."""
    n = _n_of(n_ball)
    if not a.is_exact():  # |f'| is non-increasing in alpha: its values at the ends bound it
        lo, hi = _ends(a)
        return arb_rr_slope(n_ball, eps, hi).union(arb_rr_slope(n_ball, eps, lo))
    return _union([(eps * (n - 2 * j)).exp() for j in _rr_segments(n, eps, a)])


def arb_rr_delta(n_ball: flint.arb, eps: flint.arb, eps_prime: flint.arb) -> flint.arb:
    """delta(eps') = Q(K < J) - e^{eps'} P(K < J), J = #{k : eps (n - 2k) > eps'}."""
    n = _n_of(n_ball)
    if eps == 0:
        return flint.arb(0)
    if not (eps > 0):
        return flint.arb.nan()
    r = (n - eps_prime / eps) / 2  # J = #{k >= 0 : k < r}
    if r.rad() > 0.25 and not (eps.is_exact() and eps_prime.is_exact()):
        # wide inputs: delta decreases in eps' and increases in eps; bound by the corners
        e_lo, e_hi = _ends(eps)
        p_lo, p_hi = _ends(eps_prime)
        return arb_rr_delta(n_ball, e_lo, p_hi).union(arb_rr_delta(n_ball, e_hi, p_lo))
    cands = set()
    if r <= 0:  # no k counts (eps' at or above eps n; r is -5e399 at eps' = 1e400, beyond a float)
        cands.add(0)
    elif r > n:  # every k of 0..n counts
        cands.add(n + 1)
    else:
        lo = math.floor(float(r.mid()))
        for k in range(lo - 2, lo + 3):
            # J = k + 1 when k < r <= k + 1
            if not (r <= k) and not (r > k + 1):
                cands.add(min(max(k + 1, 0), n + 1))
    if not cands:
        return flint.arb.nan()
    q0 = _q0(eps)
    q1 = 1 - q0
    vals = []
    for J in sorted(cands):
        if J == 0:
            vals.append(flint.arb(0))
            continue
        # Q(K < J) with K ~ Binomial(n, q0) = I_{q1}(n - J + 1, J); P(K < J) = alpha_J
        qk = flint.arb(1) if J > n else q1.beta_lower(n - J + 1, J, regularized=True)
        vals.append(qk - eps_prime.exp() * _rr_alpha(n, J, q0))
    return _union(vals)


# ---------------------------------------------------------------------------------------------
# mpmath (a private context is passed in)
# ---------------------------------------------------------------------------------------------


def newton_bracketed(g: Callable[[Any], Any], dg: Callable[[Any], Any], v: Any, zero: Any, one: Any,
                      tol: Any, iterations: int) -> Any:
    """inf{t in [0, 1] : g(t) <= v} for scalars (floats or mpf): safeguarded Newton."""
    if g(zero) <= v:
        return zero
    lo, hi = zero, one
    x = (lo + hi) / 2
    for _ in range(iterations):
        gx = g(x) - v
        if gx > 0:
            lo = x
        else:
            hi = x
        if hi - lo <= tol * hi:
            break
        d = dg(x)
        nxt = x - gx / d if d != 0 else None
        if nxt is None or not (lo < nxt < hi) or nxt != nxt:
            nxt = hi / 1024 if (lo == 0 and hi < 1) else (lo + hi) / 2
        elif abs(nxt - x) <= tol * abs(nxt):
            return nxt
        x = nxt
    return (lo + hi) / 2


def mpmath_namespace(ctx: Any) -> dict[str, Any]:
    """mpmath versions of the special functions, bound to the context ``ctx``.

    The envelope nodes (``symmetrized``, ...) are :func:`gdpproof.numeric.tradeoff.envelope.mpmath_namespace`.
    """

    def implicit_inverse(g: Any, dg: Any, v: Any) -> Any:
        tol = ctx.mpf(2) ** (-ctx.prec + 2)
        return newton_bracketed(g, dg, v, ctx.zero, ctx.one, tol, 4 * ctx.prec + 100)

    def betainc_reg(a: int, b: int, x: Any) -> Any:
        return ctx.betainc(a, b, 0, x, regularized=True)

    def parts(n: Any, eps: Any) -> tuple[int, Any]:
        return int(n), 1 / (1 + ctx.exp(eps))

    def alpha_j(n: int, j: int, q0: Any) -> Any:
        return ctx.zero if j <= 0 else ctx.one if j > n else betainc_reg(n - j + 1, j, q0)

    def beta_j(n: int, j: int, q0: Any) -> Any:
        return ctx.one if j <= 0 else ctx.zero if j > n else betainc_reg(j, n - j + 1, q0)

    def segment(n: int, q0: Any, a: Any) -> int:
        lo, hi = 0, n  # largest j with alpha_j <= a
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if alpha_j(n, mid, q0) <= a:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def rr_composed(n: Any, eps: Any, a: Any) -> Any:
        n, q0 = parts(n, eps)
        j = segment(n, q0, a)
        if j == n:
            return ctx.exp(-eps * n) * (1 - a)
        return beta_j(n, j + 1, q0) + ctx.exp(eps * (n - 2 * j)) * (alpha_j(n, j + 1, q0) - a)

    def rr_composed_slope(n: Any, eps: Any, a: Any) -> Any:
        n, q0 = parts(n, eps)
        return ctx.exp(eps * (n - 2 * segment(n, q0, a)))

    def rr_composed_delta(n: Any, eps: Any, eps_prime: Any) -> Any:
        n, q0 = parts(n, eps)
        if eps == 0:
            return ctx.zero
        J = min(max(int(ctx.ceil((n - eps_prime / eps) / 2)), 0), n + 1)
        if J == 0:
            return ctx.zero
        qk = ctx.one if J > n else betainc_reg(n - J + 1, J, 1 - q0)
        return qk - ctx.exp(eps_prime) * alpha_j(n, J, q0)

    return {"implicit_inverse": implicit_inverse, "rr_composed": rr_composed,
            "rr_composed_slope": rr_composed_slope, "rr_composed_delta": rr_composed_delta}


# ---------------------------------------------------------------------------------------------
# numpy (float64, vectorized)
# ---------------------------------------------------------------------------------------------


def np_implicit_inverse(g: Any, dg: Any, v: Any) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    with np.errstate(all="ignore"):
        g0 = np.broadcast_to(np.asarray(g(np.zeros_like(v)), dtype=np.float64), v.shape)
        lo = np.zeros_like(v)
        hi = np.ones_like(v)
        x = np.full_like(v, 0.5)
        for _ in range(200):
            gx = np.asarray(g(x), dtype=np.float64) - v
            right = gx > 0
            lo = np.where(right, x, lo)
            hi = np.where(right, hi, x)
            d = np.asarray(dg(x), dtype=np.float64)
            nxt = x - gx / d
            bad = ~((nxt > lo) & (nxt < hi))
            fallback = np.where((lo == 0) & (hi < 1), hi / 1024, (lo + hi) / 2)
            nxt = np.where(bad, fallback, nxt)
            done = (hi - lo <= 4e-16 * hi) | (np.abs(nxt - x) <= 2e-16 * np.abs(nxt))
            x = nxt
            if done.all():
                break
    return np.where(g0 <= v, 0.0, x)


def _np_rr_tables(n: int, eps: float) -> tuple[np.ndarray, np.ndarray]:
    from scipy import stats

    q0 = 1.0 / (1.0 + math.exp(eps)) if eps < 700 else 0.0
    j = np.arange(n + 2)
    alphas = stats.binom.cdf(j - 1, n, 1.0 - q0)  # P(K < j)
    betas = stats.binom.sf(j - 1, n, q0)  # Q(K >= j)
    alphas[0], betas[0], alphas[-1], betas[-1] = 0.0, 1.0, 1.0, 0.0
    return alphas, betas


def _np_rr_value(n: Any, eps: Any, a: Any) -> np.ndarray:
    n, eps = int(n), float(eps)
    alphas, betas = _np_rr_tables(n, eps)
    a = np.asarray(a, dtype=np.float64)
    j = np.clip(np.searchsorted(alphas, a, side="right") - 1, 0, n)
    with np.errstate(over="ignore"):
        out = betas[j + 1] + np.exp(eps * (n - 2 * j)) * (alphas[j + 1] - a)
    # exact ends (underflowed vertices tie at 0, and searchsorted would pick the last of them)
    return np.where(a <= 0, 1.0, np.where(a >= 1, 0.0, np.clip(out, 0.0, 1.0)))


def _np_rr_slope(n: Any, eps: Any, a: Any) -> np.ndarray:
    n, eps = int(n), float(eps)
    alphas, _ = _np_rr_tables(n, eps)
    j = np.clip(np.searchsorted(alphas, np.asarray(a, dtype=np.float64), side="right") - 1, 0, n)
    return np.exp(eps * (n - 2 * j))


def _np_rr_delta(n: Any, eps: Any, eps_prime: Any) -> np.ndarray:
    from scipy import stats

    n, eps = int(n), float(eps)
    e = np.asarray(eps_prime, dtype=np.float64)
    if eps == 0:
        return np.zeros_like(e)
    q0 = 1.0 / (1.0 + math.exp(eps)) if eps < 700 else 0.0
    J = np.clip(np.ceil((n - e / eps) / 2), 0, n + 1)
    out = stats.binom.cdf(J - 1, n, q0) - np.exp(e) * stats.binom.cdf(J - 1, n, 1 - q0)
    return np.where(J == 0, 0.0, np.maximum(out, 0.0))


def numpy_namespace() -> dict[str, Any]:
    """numpy versions of the special functions, for sympy's lambdify.

    The envelope nodes (``symmetrized``, ...) are :func:`gdpproof.numeric.tradeoff.envelope.numpy_namespace`.
    """
    return {"implicit_inverse": np_implicit_inverse, "rr_composed": _np_rr_value,
            "rr_composed_slope": _np_rr_slope, "rr_composed_delta": _np_rr_delta}
