"""The outcome of an accountant audit: one :class:`Finding` per comparison, gathered in an
:class:`AuditReport` (a printed table, JSON with every number as a decimal string), and the
merging of the reports of a peer's functions and curves into one.

A finding that is not an agreement is ranked by its relative error: ``material`` (1 % or more,
an error, or a value that is not finite), ``minor`` (below 1 %, :data:`MINOR_BELOW`),
``negligible`` (below :data:`NEGLIGIBLE_BELOW`), ``float-level`` (within :data:`FLOAT_ULPS`
float64 ulps of the reference, or the audit's ``rtol``), and ``degenerate`` apart (an input at
the edge of the domain: epsilon = 0, mu = 0, delta >= 1).  Findings are listed by severity, then
by size; only material unsafe findings make a report fail (``ok`` False, exit code 1).

The severities as a user reads them: ``docs/guides/auditing.md``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import bad
from .quantities import QUANTITIES

__all__ = ["KINDS", "SEVERITIES", "FLOAT_ULPS", "MINOR_BELOW", "NEGLIGIBLE_BELOW", "Finding", "AuditReport"]


KINDS = ("unsafe", "conservative", "error", "agrees")

#: The severities of a finding that is not an agreement, most severe first (module docstring).
SEVERITIES = ("material", "minor", "negligible", "float-level", "degenerate")

#: A difference of at most this many float64 units in the last place of the peer's value is float-level.
FLOAT_ULPS = 4

#: Relative errors below these are negligible, and minor; from MINOR_BELOW on, material.
NEGLIGIBLE_BELOW = 1e-9
MINOR_BELOW = 0.01

#: Inputs whose value makes a finding degenerate: (names, predicate).
_DEGENERATE = ((("epsilon", "eps", "mu", "target_epsilon"), lambda v: v == 0),
               (("delta", "target_delta"), lambda v: v >= 1))


def _degenerate(inputs: tuple[tuple[str, Any], ...]) -> bool:
    """Whether an input sits at the edge of the domain (epsilon = 0, mu = 0, delta >= 1)."""
    for name, value in inputs:
        for names, edge in _DEGENERATE:
            if name.lower() in names:
                try:
                    if edge(float(value)):
                        return True
                except (TypeError, ValueError, OverflowError):
                    pass
    return False


@dataclass(frozen=True, slots=True)
class Finding:
    """One comparison: the input, the peer's value, the reference and the verdict.

    ``kind`` is ``"agrees"``, ``"unsafe"``, ``"conservative"`` or ``"error"``;
    ``relative_error`` is (peer - reference) / reference (to the nearer end of a bracket), or
    None when it is undefined (an error, or a reference of 0 or infinity); ``source`` is
    ``"grid"``, ``"drawn"``, ``"property"`` or ``"curve"``.  ``severity`` (a property) is one
    of :data:`SEVERITIES` for a finding that is not an agreement, ``""`` for one that is.

    Args:
        function: The peer function's name.
        quantity: The quantity compared.
        inputs: (name, value) pairs of the input.
        value: The peer's value, or None on an error.
        reference: gdpproof's value or bracket, as text.
        kind: ``"agrees"``, ``"unsafe"``, ``"conservative"`` or ``"error"``.
        relative_error: (peer - reference) / reference, or None when undefined.
        within_tolerance: Whether the discrepancy is below the audit's rtol.
        source: ``"grid"``, ``"drawn"`` (seeded random inputs), ``"property"`` or ``"curve"``.
        detail: What went wrong, in words, when the kind says so.

    Examples:
        >>> from gdpproof.audit import audit_function
        >>> r = audit_function(lambda mu, eps: 0.0, "delta_from_epsilon", quick=True, examples=0, properties=False)
        >>> f = r.results[0]
        >>> f.kind, f.inputs, f.relative_error
        ('unsafe', (('mu', 0.0001), ('epsilon', 0.0)), -1.0)
    """

    function: str
    quantity: str
    inputs: tuple[tuple[str, Any], ...]
    value: float | None
    reference: str
    kind: str
    relative_error: float | None
    within_tolerance: bool
    source: str = "grid"
    detail: str = ""

    @property
    def severity(self) -> str:
        """One of :data:`SEVERITIES` or, for an agreement, ``""`` (module docstring)."""
        if self.kind == "agrees":
            return ""
        if _degenerate(self.inputs):
            return "degenerate"
        if self.kind == "error" or self.relative_error is None or not math.isfinite(self.relative_error):
            return "material"
        if self.within_tolerance:
            return "float-level"
        v = self.value
        if v is None or not math.isfinite(v):
            return "material"
        rel = abs(self.relative_error)
        if rel >= MINOR_BELOW:
            return "material"
        # |v - x| = |rel| |x| and |x| <= |v| / (1 - |rel|): the bound below keeps the test on the safe side
        if rel * abs(v) <= FLOAT_ULPS * math.ulp(v) * (1 - rel):
            return "float-level"
        return "negligible" if rel < NEGLIGIBLE_BELOW else "minor"

    def rank(self) -> tuple[int, int, float]:
        """The listing order: severity (material first), unsafe before errors before conservative
        findings, then size (largest first; an error has none)."""
        size = -1.0 if self.relative_error is None or math.isnan(self.relative_error) else abs(self.relative_error)
        return (SEVERITIES.index(self.severity) if self.severity else len(SEVERITIES),
                ("unsafe", "error", "conservative", "agrees").index(self.kind), -size)

    def call(self) -> str:
        """The call as text: ``label(name=value, ...)``."""
        return f"{self.function}({', '.join(f'{k}={v!r}' for k, v in self.inputs)})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every number as a decimal string."""
        return {"function": self.function, "quantity": self.quantity,
                "inputs": {k: repr(v) for k, v in self.inputs},
                "value": None if self.value is None else repr(self.value), "reference": self.reference,
                "kind": self.kind,
                "relative_error": None if self.relative_error is None else f"{self.relative_error:.3e}",
                "within_tolerance": self.within_tolerance, "severity": self.severity, "source": self.source,
                "detail": self.detail}


def _rel(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2e}"


@dataclass(frozen=True)
class AuditReport:
    """The outcome of an audit: every comparison, and summaries of them.

    Prints as a table (``str(report)``): one row per (function, quantity) with the number of
    inputs and of each kind, a verdict ("agrees on all N inputs" where the peer is right), the
    worst relative error of each kind with its input, and every unsafe and error finding.
    ``to_json()`` gives the same with numbers as decimal strings.

    Args:
        peer: The audited library's name.
        results: Every comparison.
        rtol: The relative tolerance of the audit.
        notes: Notes printed with the report.
        version: The audited library's version.

    Examples:
        >>> from gdpproof.audit import audit_function
        >>> import math
        >>> r = audit_function(lambda mu, eps: 0.5 * math.erfc((eps / mu - mu / 2) / math.sqrt(2))
        ...                    - math.exp(eps) * 0.5 * math.erfc((eps / mu + mu / 2) / math.sqrt(2)),
        ...                    "delta_from_epsilon", label="erfc dual", inputs=[(1.0, 1.0), (0.5, 10.0)])
        >>> [(f.kind, f"{f.relative_error:.1e}") for f in r.results]
        [('unsafe', '-4.6e-16'), ('unsafe', '-7.9e-13')]
        >>> print(str(r).splitlines()[3])
        erfc dual  delta_from_epsilon       2       2      0         0  2 unsafe (0 material) of 2
        >>> [f.severity for f in r.results], r.ok   # 4.6e-16 is float rounding; 7.9e-13 is ~3,500 ulps
        (['float-level', 'negligible'], True)
    """

    peer: str
    results: tuple[Finding, ...]
    rtol: float = 0.0
    notes: tuple[str, ...] = ()
    version: str = ""

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The comparisons that did not agree, by severity (material first), then size (largest first)."""
        return tuple(sorted((f for f in self.results if f.kind != "agrees"), key=Finding.rank))

    def of_kind(self, kind: str) -> tuple[Finding, ...]:
        """The findings of one kind ("unsafe", "conservative", "error" or "agrees")."""
        if kind not in KINDS:
            raise bad("kind", kind, f"must be one of {', '.join(KINDS)}")
        return tuple(f for f in self.results if f.kind == kind)

    @property
    def unsafe_beyond_tolerance(self) -> tuple[Finding, ...]:
        """Unsafe findings with |relative error| above ``rtol``."""
        return tuple(f for f in self.results if f.kind == "unsafe" and not f.within_tolerance)

    def of_severity(self, severity: str) -> tuple[Finding, ...]:
        """The findings (not agreements) of one severity (:data:`SEVERITIES`), largest first."""
        if severity not in SEVERITIES:
            raise bad("severity", severity, f"must be one of {', '.join(SEVERITIES)}")
        return tuple(f for f in self.findings if f.severity == severity)

    @property
    def material_unsafe(self) -> tuple[Finding, ...]:
        """Unsafe findings beyond float rounding and ``rtol`` (these fail the command line)."""
        return tuple(f for f in self.results if f.kind == "unsafe" and f.severity == "material")

    @property
    def ok(self) -> bool:
        """True when no unsafe finding is material (the other severities never fail a report)."""
        return not self.material_unsafe

    def counts(self) -> dict[str, dict[str, int]]:
        """For each kind but "agrees": how many findings are of each severity."""
        out = {k: {s: 0 for s in SEVERITIES} for k in ("unsafe", "conservative", "error")}
        for f in self.findings:
            out[f.kind][f.severity] += 1
        return out

    def worst(self, kind: str) -> Finding | None:
        """The finding of that kind with the largest |relative error| (the first error for "error"),
        leaving out those at degenerate inputs (eps = 0, mu = 0, delta >= 1: reported apart) while
        there is another."""
        found = [f for f in self.of_kind(kind) if f.severity != "degenerate"] or self.of_kind(kind)
        if not found:
            return None
        return max(found, key=lambda f: -1.0 if f.relative_error is None else abs(f.relative_error))

    def worst_label(self, kind: str) -> str:
        """How :meth:`worst` of ``kind`` is named: "worst unsafe", or "worst unsafe (degenerate
        input)" when every finding of the kind is at a degenerate input."""
        f = self.worst(kind)
        return f"worst {kind}" + (" (degenerate input)" if f is not None and f.severity == "degenerate" else "")

    def summary(self) -> list[dict[str, Any]]:
        """One row per (function, quantity): counts of each kind, of the material ones, and a verdict."""
        rows: dict[tuple[str, str], dict[str, Any]] = {}
        for f in self.results:
            row = rows.setdefault((f.function, f.quantity), {"function": f.function, "quantity": f.quantity,
                                                             "inputs": 0, **{k: 0 for k in KINDS},
                                                             "material": {k: 0 for k in KINDS[:3]}})
            row["inputs"] += 1
            row[f.kind] += 1
            if f.severity == "material":
                row["material"][f.kind] += 1
        for row in rows.values():
            n = row["inputs"]
            if row["agrees"] == n:
                row["verdict"] = f"agrees on all {n} inputs"
            else:
                parts = [f"{row[k]} {k}" + ("" if k == "error" else f" ({row['material'][k]} material)")
                         for k in ("unsafe", "error", "conservative") if row[k]]
                row["verdict"] = ", ".join(parts) + f" of {n}"
            if QUANTITIES[row["quantity"]].name == "dpsgd_mu_clt":
                row["verdict"] += " (CLT quantity, not a privacy guarantee)"
        return list(rows.values())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary (numbers as decimal strings)."""
        worst = {k: (None if (w := self.worst(k)) is None else w.to_dict()) for k in ("unsafe", "conservative",
                                                                                       "error")}
        return {"peer": self.peer, "version": self.version, "rtol": repr(self.rtol), "ok": self.ok,
                "digits": 30, "certified": "arb (points), pld (brackets)",
                "summary": self.summary(), "worst": worst, "notes": list(self.notes),
                "float_ulps": str(FLOAT_ULPS), "severities": list(SEVERITIES),
                "thresholds": {"negligible_below": repr(NEGLIGIBLE_BELOW), "minor_below": repr(MINOR_BELOW)},
                "counts": {k: {s: str(n) for s, n in c.items()} for k, c in self.counts().items()},
                "findings": [f.to_dict() for f in self.findings],
                "agreements": sum(f.kind == "agrees" for f in self.results)}

    def to_json(self) -> str:
        """One JSON object (all numbers as decimal strings)."""
        return json.dumps(self.to_dict(), sort_keys=True)

    def __str__(self) -> str:
        return self.text()

    def text(self, *, every: bool = False) -> str:
        """The printed table; it lists the material unsafe and error findings, or every finding with
        ``every=True`` (the command line's ``--all``)."""
        head = f"Audit of {self.peer}" + (f" {self.version}" if self.version else "") + \
            f" against gdpproof (rtol {self.rtol:g})"
        rows = self.summary()
        w = max([len("function")] + [len(r["function"]) for r in rows])
        q = max([len("quantity")] + [len(r["quantity"]) for r in rows])
        lines = [head, "",
                 f"{'function':<{w}}  {'quantity':<{q}}  {'inputs':>6}  {'unsafe':>6}  {'error':>5}  "
                 f"{'conserv.':>8}  verdict"]
        for r in rows:
            lines.append(f"{r['function']:<{w}}  {r['quantity']:<{q}}  {r['inputs']:>6}  {r['unsafe']:>6}  "
                         f"{r['error']:>5}  {r['conservative']:>8}  {r['verdict']}")
        lines.append("")
        for kind in ("unsafe", "conservative", "error"):
            f = self.worst(kind)
            if f is not None:
                lines.append(f"{self.worst_label(kind):<18} {_rel(f.relative_error):>10}  {f.call()} = {f.value!r}; "
                             f"reference {f.reference}" + (f"  [{f.detail}]" if f.detail else ""))
        counts = self.counts()
        lines.append("")
        lines.append(f"severity by relative error (material >= {MINOR_BELOW:g}; minor below; negligible below "
                     f"{NEGLIGIBLE_BELOW:g}; float-level within {FLOAT_ULPS} float64 ulps or rtol {self.rtol:g}; "
                     "degenerate: at eps = 0, mu = 0 or delta >= 1, apart)")
        lines.append(f"  {'':<12} " + "  ".join(f"{s:>11}" for s in SEVERITIES))
        for kind, c in counts.items():
            lines.append(f"  {kind:<12} " + "  ".join(f"{c[s]:>11}" for s in SEVERITIES))
        lines.append(f"  {'verdict':<12} " + ("no material unsafe finding" if self.ok else
                                              f"{len(self.material_unsafe)} material unsafe finding(s)"))
        ordered = self.findings
        listed = [f for f in ordered if every or (f.kind in ("unsafe", "error") and f.severity == "material")]
        apart = [] if every else [f for f in ordered if f.kind in ("unsafe", "error") and f.severity == "degenerate"]
        hidden = sum(f.kind in ("unsafe", "error") and f.severity not in ("material", "degenerate") for f in ordered)
        for title, group in ((("every finding, by severity then size" if every else
                               "material unsafe and error findings, largest first"), listed),
                             ("unsafe and error findings at degenerate inputs (eps = 0, mu = 0, delta >= 1), "
                              "reported apart", apart)):
            if group:
                lines.append("")
                lines.append(f"{title} (relative error, call = value; reference):")
                for f in group:
                    sev = f" ({f.severity})" if every else ""
                    lines.append(f"  {f.kind:<6} {_rel(f.relative_error):>10}{sev}  {f.call()} = {f.value!r}; "
                                 f"reference {f.reference}" + (f"  [{f.detail}]" if f.detail else ""))
        if hidden and not every:
            lines.append(f"({hidden} minor, negligible or float-level unsafe finding(s) not listed: --all lists "
                         "them, --json has every finding)")
        for n in self.notes:
            lines.append(f"note: {n}")
        return "\n".join(lines)


def merge(peer: str, reports: Sequence[AuditReport], rtol: float, notes: Iterable[str] = (),
           version: str = "") -> AuditReport:
    results = tuple(f for r in reports for f in r.results)
    all_notes = tuple(dict.fromkeys([*notes, *(n for r in reports for n in r.notes)]))
    return AuditReport(peer, results, rtol, all_notes, version)
