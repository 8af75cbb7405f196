"""Accounts over a range of step counts (epsilon or delta against epochs): :func:`account_steps`.

DP-SGD's compositions of T1 < T2 < ... steps share their steps: on the grid the search chose for
the largest count, each composition is the one before convolved with the increment's power
(:func:`~gdpproof.accounting.compose.compose_prefixes`), so a curve of 60 points costs about one
composition and a convolution a point, not 60 compositions.  Every point's bracket is proven as
:func:`~gdpproof.accounting.routes.account`'s; a point whose bracket misses the relative width
asked on the shared grid is accounted on its own (its own grid search).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from ..errors import bad
from ..mechanisms import Mechanism, Repeated
from .compose import compose_prefixes
from .composed import FLOAT_ROUTE, check_refinement
from .result import BRACKET_DIGITS, Account
from .routes import account, bracket_account, route_notes, zero_lower_note
from .search import delta_at, eps_at, rel_width_of
from .translate import privacy_losses

__all__ = ["account_steps"]


def _counts(steps: Any) -> list[int]:
    try:
        counts = [int(c) for c in steps]
        ok = all(not isinstance(c, bool) and int(c) == c for c in steps)
    except (TypeError, ValueError):
        counts, ok = [], False
    if not ok or not counts or any(c < 1 for c in counts) or any(b <= a for a, b in zip(counts, counts[1:])):
        raise bad("steps", steps, "must be a non-empty increasing list of integers >= 1")
    return counts


def account_steps(mechanism: Mechanism, steps: Iterable[int], *, delta: Any = None, epsilon: Any = None,
                  digits: int | None = None, rel_width: float = 0.01,
                  progress: Callable[[int, Account], None] | None = None) -> list[Account]:
    r"""The accounts of ``Repeated(step, T)`` for each T of ``steps``: epsilon (or delta) against
    the number of steps, one call.

    Args:
        mechanism (Mechanism): One step, or a :class:`~gdpproof.mechanisms.Repeated` value whose inner
            mechanism is the step (its count is not used): ``dpsgd(...)`` gives one.
        steps (iterable of int): Increasing step counts, each >= 1.
        delta: As for :func:`~gdpproof.account`.
        epsilon: As for :func:`~gdpproof.account`.
        digits: As for :func:`~gdpproof.account`.
        rel_width: As for :func:`~gdpproof.account`.
        progress (callable, optional): Called with (index, Account) as each point is done.

    Returns:
        list of Account: One per count, each as :func:`~gdpproof.account` returns it (route, proven bracket or
            certified value, CLT beside it for DP-SGD).  On the bracket route (the float lattice), with
            ``delta`` or an ``epsilon`` >= 0, the compositions are built incrementally on the grid chosen for
            the largest count, so the list costs about one composition; a point that grid does not resolve
            to ``rel_width`` (with ``epsilon``: a delta near or below the float lattice's floor, about 1e-9,
            early in a run) and every point elsewhere is accounted on its own.

    Examples:
        >>> from gdpproof.accounting import account_steps
        >>> from gdpproof.mechanisms import dpsgd
        >>> accounts = account_steps(dpsgd(1.0, 0.01, 1), [250, 500, 1000], delta="1e-5")
        >>> [a.mechanism.dpsgd_parameters()[2] for a in accounts]
        [250, 500, 1000]
        >>> [round(float(a.epsilon), 2) for a in accounts], all(a.epsilon.relative_width <= 0.01 for a in accounts)
        ([0.99, 1.33, 1.83], True)
    """
    if not isinstance(mechanism, Mechanism):
        raise bad("mechanism", mechanism, "must be a gdpproof mechanism value (see gdpproof.mechanisms)")
    step = mechanism.mechanism if isinstance(mechanism, Repeated) else mechanism
    counts = _counts(steps)
    width = check_refinement(rel_width, 5)
    kwargs = dict(delta=delta, epsilon=epsilon, digits=digits, rel_width=rel_width)
    last = account(Repeated(step, counts[-1]), **kwargs)
    out: list[Account] = []
    comp = last.composition
    parts, doubles, revealing = privacy_losses(Repeated(step, 1))
    query = last.delta if last.given == "delta" else last.epsilon
    shared = (last.route == "bracket" and comp is not None and comp.route == FLOAT_ROUTE
              and comp.step_laws is not None and len(parts) == 1 and not revealing and len(counts) > 1
              and isinstance(query, Fraction) and (last.given == "delta" or query >= 0))
    if not shared:
        for i, c in enumerate(counts[:-1]):
            out.append(account(Repeated(step, c), **kwargs))
            if progress is not None:
                progress(i, out[-1])
    else:
        assert comp is not None
        vq = query
        shown = BRACKET_DIGITS if digits is None else min(digits, 17)
        prefixes = compose_prefixes(comp, counts[:-1])
        for i, (c, prefix) in enumerate(zip(counts[:-1], prefixes)):
            m = Repeated(step, c)
            if last.given == "delta":
                b, notes = eps_at(prefix, vq), route_notes(prefix)
            else:  # as account's bracket route: the ends at the doubles either side of eps
                b = delta_at(prefix, vq)
                notes = zero_lower_note(prefix, b) + route_notes(prefix)
            rw = rel_width_of(b) if last.given == "delta" else (b.width / b.upper if b.upper > 0 else 0.0)
            prefix.rel_width_reached, prefix.rel_width_asked, prefix.target_met = rw, width, rw <= width
            if rw <= width:
                out.append(bracket_account(m, [(parts[0][0], c)], doubles, last.given, query, b, prefix, notes, shown))
            else:  # the shared grid is too coarse here: this point's own search
                out.append(account(m, **kwargs))
            if progress is not None:
                progress(i, out[-1])
    out.append(last)
    if progress is not None:
        progress(len(counts) - 1, last)
    return out
