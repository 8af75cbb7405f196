"""The audit of a peer's functions: every input of the plan evaluated and compared, and the
properties (monotonicity along the grid) that a correct function has.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .._progress import Progress
from ..errors import bad
from .compare import evaluate
from .findings import AuditReport, Finding
from .inputs import check_common, inputs_for
from .peers import PeerFunction
from .quantities import Quantity, quantity_named

__all__ = ["audit_function"]


#: For each quantity: which argument moves the value which way (+1 increasing, -1 decreasing).
_MONOTONE = {
    "delta_from_epsilon": {0: +1, 1: -1},
    "epsilon_from_delta": {0: +1, 1: -1},
    "mu_from_epsilon_delta": {0: +1, 1: +1},
    "sigma_from_epsilon_delta": {0: -1, 1: -1},
    "beta_from_mu": {0: -1, 1: -1},
    "dpsgd_mu_clt": {0: -1, 1: +1, 2: +1},
}


def _monotonicity(q: Quantity, label: str, values: dict[tuple[Any, ...], float], rtol: float) -> list[Finding]:
    """A finding for each adjacent grid pair where the peer moves against the quantity's direction."""
    out = []
    for axis, sign in _MONOTONE.get(q.name, {}).items():
        lines: dict[tuple[Any, ...], list[tuple[Any, float]]] = {}
        for args, v in values.items():
            key = args[:axis] + args[axis + 1:]
            lines.setdefault(key, []).append((args[axis], v))
        for key, pts in lines.items():
            pts.sort()
            for (a, va), (b, vb) in zip(pts, pts[1:]):
                if a == b or not (math.isfinite(va) and math.isfinite(vb)):
                    continue
                if (vb - va) * sign < 0:
                    args = key[:axis] + (b,) + key[axis:]
                    rel = (vb - va) / va if va else None
                    within = rel is not None and abs(rel) <= rtol
                    direction = "increasing" if sign > 0 else "decreasing"
                    out.append(Finding(label, q.name, tuple(zip(q.args, args)), vb, repr(va), "error", rel, within,
                                       "property", f"not {direction} in {q.args[axis]}: {q.args[axis]}={a!r} "
                                       f"gives {va!r}, {q.args[axis]}={b!r} gives {vb!r}"))
    return out


def audit_peer_functions(peer: str, functions: Sequence[PeerFunction], *, quick: bool, rtol: float, seed: int,
                          examples: int | None, properties: bool, progress: bool,
                          inputs: Sequence[tuple[Any, ...]] | None = None) -> AuditReport:
    rel_width = 0.01 if quick else 0.003
    plan = []
    for pf in functions:
        q = quantity_named(pf.quantity)
        pts = [(tuple(x), "given") for x in inputs] if inputs is not None else inputs_for(q, quick, seed, examples)
        plan.append((pf, q, pts))
    bar = Progress(sum(len(p[2]) for p in plan), f"audit {peer}", unit="inputs", enabled=progress)
    results: list[Finding] = []
    notes = [f"{pf.label}: {pf.note}" for pf in functions if pf.note]
    for pf, q, pts in plan:
        values: dict[tuple[Any, ...], float] = {}
        for x, source in pts:
            f = evaluate(q, pf, x, rtol, source, rel_width)
            bar.advance(1, note=f"{pf.label} {q.name}")
            if isinstance(f, str):
                notes.append(f)
                continue
            results.append(f)
            if source in ("grid", "given") and f.value is not None and f.kind != "error":
                values[x] = f.value
        if properties:
            results.extend(_monotonicity(q, pf.label, values, rtol))
        if q.name == "dpsgd_mu_clt":
            notes.append(f"{pf.label}: {q.note}")
    bar.close()
    return AuditReport(peer, tuple(results), rtol, tuple(dict.fromkeys(notes)))


def audit_function(fn: Callable[..., Any], quantity: str, *, label: str | None = None, quick: bool = True,
                   rtol: float = 0.0, seed: int = 0, examples: int | None = None,
                   inputs: Sequence[tuple[Any, ...]] | None = None, properties: bool = True,
                   progress: bool = False) -> AuditReport:
    """Audit one callable computing ``quantity`` (see :data:`QUANTITIES` for its signature).

    Args:
        fn (callable): The function under audit, called positionally with floats (and an int for steps).
        quantity (str): One of the keys of :data:`QUANTITIES`, for example ``"delta_from_epsilon"``.
        label (str, optional): Its name in the report (default: ``fn.__qualname__``).
        quick (bool): The small grid (seconds) instead of the full one (default True).
        rtol (float): Relative size below which a discrepancy is marked within tolerance (default 0: none).
        seed (int): Seed of the randomly drawn inputs.
        examples (int, optional): How many inputs are drawn (default 5 quick, 25 full; 0 for grids
            only).
        inputs (sequence of tuples, optional): Audit exactly these inputs instead of the grid and the drawn
            ones.
        properties (bool): Also check monotonicity along the grid (default True).
        progress: Whether to show progress on stderr.

    Returns:
        AuditReport

    Examples:
        >>> from gdpproof.audit import audit_function
        >>> r = audit_function(lambda mu, delta: 0.0, "epsilon_from_delta", label="zero", inputs=[(1.0, 1e-5)])
        >>> r.ok, r.results[0].kind, r.results[0].relative_error
        (False, 'unsafe', -1.0)
    """
    q = quantity_named(quantity)
    if not callable(fn):
        raise bad("fn", fn, "must be callable")
    rtol, seed, examples = check_common(rtol, seed, examples)
    name = label or getattr(fn, "__qualname__", None) or repr(fn)
    pf = PeerFunction(name, q.name, fn)
    return audit_peer_functions(name, [pf], quick=quick, rtol=rtol, seed=seed, examples=examples,
                                 properties=properties, progress=progress, inputs=inputs)
