r"""Audit of privacy accountants: a third-party function against gdpproof's certified values.

An accountant is a function computing one of the quantities below.  The audit evaluates it on
grids concentrated where implementations fail (delta down to 1e-300, epsilon in the hundreds,
mu from 1e-4 to 50, small noise, many steps) and on hypothesis-drawn inputs
(:mod:`gdpproof.strategies`, seeded), compares each value with gdpproof's reference **in exact
arithmetic** and classifies the difference.

Direction (which error understates the privacy loss):

=========================  =================================  ==============  ==================
quantity                   peer signature                     reference       unsafe when
=========================  =================================  ==============  ==================
delta_from_epsilon         ``(mu, epsilon) -> delta``         certified, up   delta too small
epsilon_from_delta         ``(mu, delta) -> epsilon``         certified, up   epsilon too small
mu_from_epsilon_delta      ``(epsilon, delta) -> mu``         certified, down mu too LARGE (a
                                                                              budget to stay in)
sigma_from_epsilon_delta   ``(epsilon, delta) -> sigma``      certified, up   sigma too small
beta_from_mu               ``(mu, alpha) -> beta``            certified, down beta too LARGE
dpsgd_epsilon              ``(sigma, p, steps, delta) -> eps`` proven bracket  eps below it
dpsgd_mu                   ``(sigma, p, steps) -> mu``        proven bracket  mu below it
dpsgd_beta                 ``(sigma, p, steps, alpha) -> b``  proven bracket  beta above it
dpsgd_mu_clt               ``(sigma, p, steps) -> mu``        certified, up   below the formula
=========================  =================================  ==============  ==================

Sensitivity (clipping norm) is 1 everywhere: the Gaussian mechanism with noise sigma is
(1/sigma)-GDP.  DP-SGD is Poisson sampling with rate p, add/remove neighbours, the worse of the
two orderings.  ``dpsgd_mu_clt`` is the CLT formula p sqrt(T (e^{1/sigma^2} - 1)) of Bu et al.
(2020): **an approximation, not a privacy guarantee** (it understates the true loss for
realistic parameters); the audit only checks that a peer computes that formula correctly.
``dpsgd_mu`` is a claim that DP-SGD is mu-GDP, compared with the proven bracket of
:meth:`gdpproof.ComposedLoss.honest_mu` (which holds for every delta >= its ``delta_min``).

Classification of a peer value v against the exact answer x:

``agrees``
    v is x rounded to a neighbouring float64 (|v - x| below one unit in the last place of v),
    or v lies inside the proven bracket;
``unsafe``
    v is on the side that understates the privacy loss (table above);
``conservative``
    v overstates it;
``error``
    an exception, NaN, an infinity where the answer is finite, a negative value or a
    probability above 1, or a violated property (monotonicity, a curve that is not a
    trade-off function, a curve inconsistent with its own library's delta).

Differences are classified strictly and reported with their relative size; ``rtol`` marks
those with ``|relative error| <= rtol`` as within tolerance.  The reference is certified to
30 digits and more digits are requested whenever they are needed to decide the comparison, so
every classification is proven.  Only the pytest helper (:func:`gdpproof.strategies.assert_accountant`)
and the command line turn a report into a failure.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

from .._progress import Progress
from ..errors import GdpproofError, InvalidParameterError, PrecisionError

__all__ = [
    "DeltaFromEpsilon",
    "EpsilonFromDelta",
    "MuFromEpsilonDelta",
    "SigmaFromEpsilonDelta",
    "BetaFromMu",
    "DPSGDEpsilon",
    "DPSGDMu",
    "DPSGDBeta",
    "QUANTITIES",
    "Quantity",
    "PeerFunction",
    "PeerCurve",
    "PeerNotInstalledError",
    "Finding",
    "AuditReport",
    "PEERS",
    "grid",
    "audit_function",
    "audit_curve",
    "audit_accountant",
]


# ---------------------------------------------------------------------------------------------
# the claims, one Protocol each
# ---------------------------------------------------------------------------------------------


class DeltaFromEpsilon(Protocol):
    """``delta = f(mu, epsilon)``: the delta of mu-GDP at epsilon."""

    def __call__(self, mu: float, epsilon: float, /) -> float: ...


class EpsilonFromDelta(Protocol):
    """``epsilon = f(mu, delta)``: the smallest epsilon of mu-GDP at delta."""

    def __call__(self, mu: float, delta: float, /) -> float: ...


class MuFromEpsilonDelta(Protocol):
    """``mu = f(epsilon, delta)``: the largest mu-GDP that is (epsilon, delta)-DP."""

    def __call__(self, epsilon: float, delta: float, /) -> float: ...


class SigmaFromEpsilonDelta(Protocol):
    """``sigma = f(epsilon, delta)``: the smallest Gaussian noise (sensitivity 1) for (epsilon, delta)-DP."""

    def __call__(self, epsilon: float, delta: float, /) -> float: ...


class BetaFromMu(Protocol):
    """``beta = f(mu, alpha)``: the trade-off value G_mu(alpha)."""

    def __call__(self, mu: float, alpha: float, /) -> float: ...


class DPSGDEpsilon(Protocol):
    """``epsilon = f(noise_multiplier, sample_rate, steps, delta)``: DP-SGD epsilon at delta."""

    def __call__(self, noise_multiplier: float, sample_rate: float, steps: int, delta: float, /) -> float: ...


class DPSGDMu(Protocol):
    """``mu = f(noise_multiplier, sample_rate, steps)``: a GDP mu of DP-SGD (numeric, or the CLT formula)."""

    def __call__(self, noise_multiplier: float, sample_rate: float, steps: int, /) -> float: ...


class DPSGDBeta(Protocol):
    """``beta = f(noise_multiplier, sample_rate, steps, alpha)``: DP-SGD's trade-off curve at alpha."""

    def __call__(self, noise_multiplier: float, sample_rate: float, steps: int, alpha: float, /) -> float: ...


@dataclass(frozen=True, slots=True)
class Quantity:
    """What a quantity is: its arguments, its result, and which error is unsafe.

    ``unsafe_when`` is ``"low"`` when a too small value understates the privacy loss (delta,
    epsilon, sigma, a mechanism's mu) and ``"high"`` when a too large one does (mu as a budget,
    a trade-off value beta).  ``reference`` is ``"certified"`` (a decimal proven to its last
    digit) or ``"bracket"`` (a proven interval).
    """

    name: str
    args: tuple[str, ...]
    result: str
    unsafe_when: str
    reference: str
    protocol: type
    note: str = ""


QUANTITIES: dict[str, Quantity] = {q.name: q for q in (
    Quantity("delta_from_epsilon", ("mu", "epsilon"), "delta", "low", "certified", DeltaFromEpsilon),
    Quantity("epsilon_from_delta", ("mu", "delta"), "epsilon", "low", "certified", EpsilonFromDelta),
    Quantity("mu_from_epsilon_delta", ("epsilon", "delta"), "mu", "high", "certified", MuFromEpsilonDelta,
             "mu is a budget: a larger mu than the exact one is not (epsilon, delta)-DP"),
    Quantity("sigma_from_epsilon_delta", ("epsilon", "delta"), "sigma", "low", "certified", SigmaFromEpsilonDelta,
             "sensitivity 1"),
    Quantity("beta_from_mu", ("mu", "alpha"), "beta", "high", "certified", BetaFromMu,
             "a trade-off value above G_mu(alpha) claims more privacy than mu-GDP gives"),
    Quantity("dpsgd_epsilon", ("noise_multiplier", "sample_rate", "steps", "delta"), "epsilon", "low", "bracket",
             DPSGDEpsilon, "Poisson sampling, add/remove neighbours, worse ordering; proven bracket"),
    Quantity("dpsgd_mu", ("noise_multiplier", "sample_rate", "steps"), "mu", "low", "bracket", DPSGDMu,
             "a claim that DP-SGD is mu-GDP; below the proven lower bound (the larger of the bracket's and "
             "mu_tail) is unsafe; above the bracket means conservative for delta >= delta_min"),
    Quantity("dpsgd_beta", ("noise_multiplier", "sample_rate", "steps", "alpha"), "beta", "high", "bracket",
             DPSGDBeta, "DP-SGD's symmetric trade-off curve; proven bracket"),
    Quantity("dpsgd_mu_clt", ("noise_multiplier", "sample_rate", "steps"), "mu", "low", "certified", DPSGDMu,
             "the CLT quantity p sqrt(T (e^(1/sigma^2) - 1)), an approximation, not a privacy guarantee"),
)}


# ---------------------------------------------------------------------------------------------
# peers
# ---------------------------------------------------------------------------------------------


class PeerNotInstalledError(GdpproofError, ImportError):
    """The library an adapter wraps is not installed (the message names the extra that installs it)."""


@dataclass(frozen=True)
class PeerFunction:
    """One function of a peer library, adapted to a quantity's signature.

    ``exact_inputs``, when given, maps the audit's inputs to the exact parameters the library
    actually received after the adapter converted conventions (for example sigma = 1/mu in
    float64): the reference is computed there, so the adapter's own rounding is never charged to
    the library.
    """

    label: str
    quantity: str
    fn: Callable[..., Any]
    note: str = ""
    exact_inputs: Callable[[tuple[Any, ...]], tuple[Any, ...]] | None = None


@dataclass(frozen=True)
class PeerCurve:
    """A peer's DP-SGD trade-off curve and its own delta(epsilon), to audit together.

    ``beta(noise_multiplier, sample_rate, steps, alphas)`` returns an array of beta;
    ``delta(noise_multiplier, sample_rate, steps, epsilon)`` the delta the same library reports.
    """

    label: str
    beta: Callable[..., Any]
    delta: Callable[..., float]
    note: str = ""


#: Peer name -> adapter module (``gdpproof.audit.adapters.<module>``).
PEERS: dict[str, str] = {
    "dp_accounting": "dp_accounting",
    "prv_accountant": "prv_accountant",
    "autodp": "autodp",
    "riskcal": "riskcal",
    "gdpnum": "gdpnum",
    "opendp": "opendp",
    "opacus": "opacus",
    "tensorflow_privacy": "tensorflow_privacy",
}


def _adapter(name: str) -> Any:
    if name not in PEERS:
        raise InvalidParameterError(f"peer={name!r} is not a known peer (known: {', '.join(sorted(PEERS))})")
    return importlib.import_module(f"gdpproof.audit.adapters.{PEERS[name]}")


# ---------------------------------------------------------------------------------------------
# findings and the report
# ---------------------------------------------------------------------------------------------

KINDS = ("unsafe", "conservative", "error", "agrees")


@dataclass(frozen=True, slots=True)
class Finding:
    """One comparison: the input, the peer's value, the reference and the verdict.

    ``kind`` is ``"agrees"``, ``"unsafe"``, ``"conservative"`` or ``"error"``;
    ``relative_error`` is (peer - reference) / reference (to the nearer end of a bracket), or
    None when it is undefined (an error, or a reference of 0 or infinity); ``source`` is
    ``"grid"``, ``"hypothesis"``, ``"property"`` or ``"curve"``.
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
                "within_tolerance": self.within_tolerance, "source": self.source, "detail": self.detail}


def _rel(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2e}"


@dataclass(frozen=True)
class AuditReport:
    """The outcome of an audit: every comparison, and summaries of them.

    Prints as a table (``str(report)``): one row per (function, quantity) with the number of
    inputs and of each kind, a verdict ("agrees on all N inputs" where the peer is right), the
    worst relative error of each kind with its input, and every unsafe and error finding.
    ``to_json()`` gives the same with numbers as decimal strings.

    Examples
    --------
    >>> from gdpproof.audit import audit_function
    >>> import math
    >>> r = audit_function(lambda mu, eps: 0.5 * math.erfc((eps / mu - mu / 2) / math.sqrt(2))
    ...                    - math.exp(eps) * 0.5 * math.erfc((eps / mu + mu / 2) / math.sqrt(2)),
    ...                    "delta_from_epsilon", label="erfc dual", inputs=[(1.0, 1.0), (0.5, 10.0)])
    >>> [(f.kind, f"{f.relative_error:.1e}") for f in r.results]
    [('unsafe', '-4.6e-16'), ('unsafe', '-7.9e-13')]
    >>> print(str(r).splitlines()[3])
    erfc dual  delta_from_epsilon       2       2      0         0  2 unsafe of 2
    """

    peer: str
    results: tuple[Finding, ...]
    rtol: float = 0.0
    notes: tuple[str, ...] = ()
    version: str = ""

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The comparisons that did not agree."""
        return tuple(f for f in self.results if f.kind != "agrees")

    def of_kind(self, kind: str) -> tuple[Finding, ...]:
        """The findings of one kind ("unsafe", "conservative", "error" or "agrees")."""
        if kind not in KINDS:
            raise InvalidParameterError(f"kind={kind!r} must be one of {', '.join(KINDS)}")
        return tuple(f for f in self.results if f.kind == kind)

    @property
    def unsafe_beyond_tolerance(self) -> tuple[Finding, ...]:
        """Unsafe findings with |relative error| above ``rtol`` (these fail the CLI and the helper)."""
        return tuple(f for f in self.results if f.kind == "unsafe" and not f.within_tolerance)

    @property
    def ok(self) -> bool:
        """True when no unsafe finding lies beyond the tolerance."""
        return not self.unsafe_beyond_tolerance

    def worst(self, kind: str) -> Finding | None:
        """The finding of that kind with the largest |relative error| (the first error for "error")."""
        found = self.of_kind(kind)
        if not found:
            return None
        return max(found, key=lambda f: -1.0 if f.relative_error is None else abs(f.relative_error))

    def summary(self) -> list[dict[str, Any]]:
        """One row per (function, quantity): counts of each kind and a verdict."""
        rows: dict[tuple[str, str], dict[str, Any]] = {}
        for f in self.results:
            row = rows.setdefault((f.function, f.quantity), {"function": f.function, "quantity": f.quantity,
                                                             "inputs": 0, **{k: 0 for k in KINDS}})
            row["inputs"] += 1
            row[f.kind] += 1
        for row in rows.values():
            n = row["inputs"]
            if row["agrees"] == n:
                row["verdict"] = f"agrees on all {n} inputs"
            else:
                parts = [f"{row[k]} {k}" for k in ("unsafe", "error", "conservative") if row[k]]
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
                "findings": [f.to_dict() for f in self.findings],
                "agreements": sum(f.kind == "agrees" for f in self.results)}

    def to_json(self) -> str:
        """One JSON object (all numbers as decimal strings)."""
        return json.dumps(self.to_dict(), sort_keys=True)

    def __str__(self) -> str:
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
                lines.append(f"worst {kind:<12} {_rel(f.relative_error):>10}  {f.call()} = {f.value!r}; "
                             f"reference {f.reference}" + (f"  [{f.detail}]" if f.detail else ""))
        listed = [f for f in self.results if f.kind in ("unsafe", "error")]
        if listed:
            lines.append("")
            lines.append("unsafe and error findings (relative error, call = value; reference):")
            for f in listed:
                tol = " (within rtol)" if f.within_tolerance and f.kind == "unsafe" else ""
                lines.append(f"  {f.kind:<6} {_rel(f.relative_error):>10}{tol}  {f.call()} = {f.value!r}; "
                             f"reference {f.reference}" + (f"  [{f.detail}]" if f.detail else ""))
        for n in self.notes:
            lines.append(f"note: {n}")
        return "\n".join(lines)


def _merge(peer: str, reports: Sequence[AuditReport], rtol: float, notes: Iterable[str] = (),
           version: str = "") -> AuditReport:
    results = tuple(f for r in reports for f in r.results)
    all_notes = tuple(dict.fromkeys([*notes, *(n for r in reports for n in r.notes)]))
    return AuditReport(peer, results, rtol, all_notes, version)


# ---------------------------------------------------------------------------------------------
# references
# ---------------------------------------------------------------------------------------------

#: Digits of the first reference evaluation; more are requested when a comparison needs them.
DIGITS = 30
_MAX_DIGITS = 240


def _certified(quantity: str, args: tuple[Any, ...], digits: int) -> Any:
    from .. import (beta_from_mu, delta_from_epsilon, dpsgd_mu, epsilon_from_delta, mu_from_epsilon_delta,
                    sigma_from_epsilon_delta)

    if quantity == "delta_from_epsilon":
        return delta_from_epsilon(args[0], args[1], digits=digits)
    if quantity == "epsilon_from_delta":
        return epsilon_from_delta(args[0], args[1], digits=digits)
    if quantity == "mu_from_epsilon_delta":
        return mu_from_epsilon_delta(args[0], args[1], digits=digits)
    if quantity == "sigma_from_epsilon_delta":
        return sigma_from_epsilon_delta(args[0], args[1], digits=digits)
    if quantity == "beta_from_mu":
        return beta_from_mu(args[0], args[1], digits=digits)
    if quantity == "dpsgd_mu_clt":
        return dpsgd_mu(args[0], args[1], int(args[2]), digits=digits, gamma=False, exact=False).mu_clt
    raise InvalidParameterError(f"quantity={quantity!r} has no certified reference")  # pragma: no cover


@functools.lru_cache(maxsize=16)
def _composition(sigma: float, p: float, steps: int) -> Any:
    from ..numeric.pld import SubsampledGaussianLoss, compose_losses

    return compose_losses([(SubsampledGaussianLoss(sigma, p), steps)], grid_step=1e-4)


@functools.lru_cache(maxsize=64)
def _bracket(quantity: str, args: tuple[Any, ...], rel_width: float) -> Any:
    from ..numeric.dpsgd import dpsgd_epsilon

    sigma, p, steps = float(args[0]), float(args[1]), int(args[2])
    if quantity == "dpsgd_epsilon":
        # near the float floor of delta a narrow bracket may be out of reach: accept a wider one
        for width in (rel_width, 0.01, 0.03, 0.1):
            try:
                return dpsgd_epsilon(sigma, p, steps, float(args[3]), rel_width=max(width, rel_width)).eps
            except PrecisionError:
                if width == 0.1:
                    raise
    if quantity == "dpsgd_mu":
        from ..numeric.pld import Bound

        honest = _composition(sigma, p, steps).honest_mu()
        # mu_tail is a proven lower bound on the tightest mu over every delta, which the bracket
        # (for delta >= delta_min only) may not reach: a claim below it is provably unsafe
        low = max(honest.mu.lower, honest.mu_tail)
        return Bound(low, max(honest.mu.upper, low))
    if quantity == "dpsgd_beta":
        return _composition(sigma, p, steps).tradeoff(float(args[3]))
    raise InvalidParameterError(f"quantity={quantity!r} has no bracket reference")  # pragma: no cover


def _float_neighbours(v: float) -> tuple[Fraction, Fraction]:
    """The interval of reals that round to v in float64 (half-way to each neighbour)."""
    lo, hi = math.nextafter(v, -math.inf), math.nextafter(v, math.inf)
    fv = Fraction(v)
    return (fv + Fraction(lo)) / 2 if math.isfinite(lo) else fv, (fv + Fraction(hi)) / 2 if math.isfinite(hi) else fv


def _direction_kind(q: Quantity, too_low: bool) -> str:
    return "unsafe" if too_low == (q.unsafe_when == "low") else "conservative"


def _probability_result(q: Quantity) -> bool:
    return q.result in ("delta", "beta")


def _check_value(q: Quantity, value: Any) -> tuple[float | None, str]:
    """(value as float, '') or (value or None, reason it is an error)."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        return None, f"returned {type(value).__name__} {value!r}, not a number"
    if math.isnan(v):
        return v, "NaN"
    if v < 0:
        return v, "negative value"
    if _probability_result(q) and 1 < v < math.inf:
        return v, f"{q.result} above 1"
    return v, ""


def _compare(q: Quantity, label: str, inputs: tuple[Any, ...], ref_inputs: tuple[Any, ...], value: Any,
             rtol: float, source: str, rel_width: float) -> Finding:
    names = tuple(zip(q.args, inputs))
    v, problem = _check_value(q, value)
    if q.reference == "bracket":
        b = _bracket(q.name, tuple(ref_inputs), rel_width)
        ref_text = f"[{b.lower!r}, {b.upper!r}]"
        if problem or v is None:
            return Finding(label, q.name, names, v, ref_text, "error", None, False, source, problem)
        if math.isinf(v):
            if q.unsafe_when == "low":  # an infinite loss is trivially safe, and useless
                return Finding(label, q.name, names, v, ref_text, "conservative", math.inf, False, source,
                               "infinite")
            return Finding(label, q.name, names, v, ref_text, "error", None, False, source, "infinite")
        if v < b.lower:
            rel = (v - b.lower) / b.lower if b.lower else None
            kind = _direction_kind(q, True)
        elif v > b.upper:
            rel = (v - b.upper) / b.upper if b.upper else None
            kind = _direction_kind(q, False)
        else:
            return Finding(label, q.name, names, v, ref_text, "agrees", 0.0, True, source, "inside the bracket")
        within = rel is not None and abs(rel) <= rtol
        return Finding(label, q.name, names, v, ref_text, kind, rel, within, source)
    digits = DIGITS
    while True:
        c = _certified(q.name, tuple(ref_inputs), digits)
        ref_text = str(c)
        if problem or v is None:
            return Finding(label, q.name, names, v, ref_text, "error", None, False, source, problem)
        if c.is_infinite():
            if math.isinf(v):
                return Finding(label, q.name, names, v, ref_text, "agrees", None, True, source)
            return Finding(label, q.name, names, v, ref_text, _direction_kind(q, True), None, False, source,
                           "finite where the answer is infinite")
        if math.isinf(v):
            return Finding(label, q.name, names, v, ref_text, "error", None, False, source,
                           "infinite where the answer is finite")
        lo, hi = c.enclosure()
        fv = Fraction(v)
        near_lo, near_hi = _float_neighbours(v)
        if near_lo <= lo and hi <= near_hi:
            return Finding(label, q.name, names, v, ref_text, "agrees", _relative(fv, lo, hi), True, source)
        if fv < lo or fv > hi:
            if not (near_lo <= hi and lo <= near_hi):  # the rounding interval of v misses the answer
                rel = _relative(fv, lo, hi)
                kind = _direction_kind(q, fv < lo)
                within = rel is not None and abs(rel) <= rtol
                return Finding(label, q.name, names, v, ref_text, kind, rel, within, source)
        if digits >= _MAX_DIGITS:  # pragma: no cover - the exact answer sits on a float rounding boundary
            raise PrecisionError(f"could not decide {label} at {names} with {digits} digits")
        digits *= 2


def _relative(v: Fraction, lo: Fraction, hi: Fraction) -> float | None:
    mid = (lo + hi) / 2
    if mid == 0:
        return None if v != 0 else 0.0
    return float((v - mid) / mid)


def _call(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, str]:
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args), ""
    except Exception as exc:  # noqa: BLE001 - any exception of the peer is a finding, not a crash
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return None, f"raised {type(exc).__name__}" + (f": {text[:160]}" if text else "")


def _evaluate(q: Quantity, pf: PeerFunction, inputs: tuple[Any, ...], rtol: float, source: str,
              rel_width: float) -> Finding | str:
    """The finding, or a note (str) when gdpproof itself could not bound the reference there."""
    value, err = _call(pf.fn, inputs)
    ref_inputs = pf.exact_inputs(inputs) if pf.exact_inputs is not None else inputs
    try:
        if err:
            names = tuple(zip(q.args, inputs))
            ref = _reference_text(q, ref_inputs, rel_width)
            return Finding(pf.label, q.name, names, None, ref, "error", None, False, source, err)
        return _compare(q, pf.label, inputs, ref_inputs, value, rtol, source, rel_width)
    except PrecisionError as exc:
        return f"{pf.label} at {dict(zip(q.args, inputs))} not audited: gdpproof could not bound the reference ({exc})"


def _reference_text(q: Quantity, ref_inputs: tuple[Any, ...], rel_width: float) -> str:
    if q.reference == "bracket":
        b = _bracket(q.name, tuple(ref_inputs), rel_width)
        return f"[{b.lower!r}, {b.upper!r}]"
    return str(_certified(q.name, tuple(ref_inputs), DIGITS))


# ---------------------------------------------------------------------------------------------
# grids
# ---------------------------------------------------------------------------------------------

_MUS = (1e-4, 1e-2, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0)
_MUS_QUICK = (1e-4, 0.5, 1.0, 5.0, 50.0)
_DELTAS = (0.5, 0.1, 1e-2, 1e-5, 1e-10, 1e-20, 1e-50, 1e-100, 1e-200, 1e-300)
_DELTAS_QUICK = (0.1, 1e-5, 1e-100, 1e-300)
_EPSILONS = (0.0, 0.01, 0.1, 0.5, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0)
_EPSILONS_QUICK = (0.01, 1.0, 10.0, 300.0)
_BUDGET_DELTAS = (0.5, 1e-3, 1e-5, 1e-10, 1e-30, 1e-100, 1e-300)
_BUDGET_DELTAS_QUICK = (1e-5, 1e-100, 1e-300)
_ALPHAS = (1e-300, 1e-100, 1e-10, 1e-5, 0.01, 0.1, 0.5, 0.9, 1 - 1e-6)
_ALPHAS_QUICK = (1e-100, 1e-5, 0.5, 1 - 1e-6)
#: z = epsilon/mu - mu/2: delta is about Phi(-z), so these keep delta above 1e-300.
_ZS = (-1.0, 0.0, 1.0, 3.0, 6.0, 10.0, 20.0, 36.0)
_ZS_QUICK = (0.0, 3.0, 20.0, 36.0)
_DPSGD = ((1.0, 0.01, 1000, 1e-5), (0.5, 0.01, 100, 1e-5), (2.0, 0.1, 100, 1e-10), (0.3, 0.001, 1000, 1e-5),
          (1.1, 256 / 60000, 14063, 1e-5), (0.8, 0.001, 10000, 1e-6))
_DPSGD_QUICK = ((1.0, 0.01, 1000, 1e-5),)
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

    Examples
    --------
    >>> from gdpproof.audit import grid
    >>> grid("sigma_from_epsilon_delta", quick=True)[:2]
    [(0.01, 1e-05), (0.01, 1e-100)]
    """
    _quantity(quantity)
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
    configs = _DPSGD_QUICK if quick else _DPSGD
    if quantity == "dpsgd_epsilon":
        return list(configs)
    if quantity == "dpsgd_mu":
        return [c[:3] for c in configs]
    return [c[:3] + (a,) for c in configs for a in (_CURVE_ALPHAS_QUICK if quick else _CURVE_ALPHAS)]


def _quantity(name: str) -> Quantity:
    if name not in QUANTITIES:
        raise InvalidParameterError(f"quantity={name!r} must be one of {', '.join(QUANTITIES)}")
    return QUANTITIES[name]


def _representable(q: Quantity, inputs: tuple[Any, ...]) -> bool:
    """False where the exact delta or beta is below TINY (left out: no float can be right)."""
    if q.name not in ("delta_from_epsilon", "beta_from_mu"):
        return True
    try:
        c = _certified(q.name, inputs, 5)
    except GdpproofError:
        return False
    return c.to_fraction() >= Fraction(TINY)


def _drawn(quantity: str, examples: int, seed: int) -> list[tuple[Any, ...]]:
    """Hypothesis-drawn inputs in the audited domain (seeded, so the same every run)."""
    if examples <= 0 or QUANTITIES[quantity].reference == "bracket":
        return []  # proven DP-SGD brackets cost ~1 s each: grids only
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    from .. import strategies as gs

    mus = gs.gdp_guarantees(min_mu=1e-4, max_mu=50.0)
    pairs = gs.epsilon_delta_pairs(max_epsilon=300.0, min_delta=1e-300, max_delta=0.5)
    strategy: Any
    if quantity == "delta_from_epsilon":
        strategy = st.tuples(mus, st.floats(-1.0, 36.0)).map(lambda t: (t[0], max(0.0, t[0] * t[1] + t[0] ** 2 / 2)))
    elif quantity == "epsilon_from_delta":
        strategy = st.tuples(mus, pairs.map(lambda p: p[1]))
    elif quantity in ("mu_from_epsilon_delta", "sigma_from_epsilon_delta"):
        strategy = pairs
    elif quantity == "beta_from_mu":
        strategy = st.tuples(mus, st.floats(1e-300, 1.0, exclude_max=True))
    else:
        strategy = gs.dpsgd_configurations(min_noise_multiplier=0.3, max_noise_multiplier=10.0,
                                           min_sample_rate=1e-4, max_sample_rate=1.0, max_steps=100_000)
    out: list[tuple[Any, ...]] = []

    @hseed(seed)
    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate], derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(x: Any) -> None:
        out.append(tuple(x))

    collect()
    return list(dict.fromkeys(out))


# ---------------------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------
# the audits
# ---------------------------------------------------------------------------------------------


def _check_common(rtol: Any, seed: Any, examples: Any) -> tuple[float, int, int | None]:
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)) or not (0 <= rtol < 1):
        raise InvalidParameterError(f"rtol={rtol!r} must be a number in [0, 1)")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameterError(f"seed={seed!r} must be an integer >= 0")
    if examples is not None and (isinstance(examples, bool) or not isinstance(examples, int) or examples < 0):
        raise InvalidParameterError(f"examples={examples!r} must be an integer >= 0")
    return float(rtol), seed, examples


def _inputs_for(q: Quantity, quick: bool, seed: int, examples: int | None) -> list[tuple[tuple[Any, ...], str]]:
    n = examples if examples is not None else (5 if quick else 25)
    on_grid = grid(q.name, quick=quick)
    pts = [(x, "grid") for x in on_grid]
    pts += [(x, "hypothesis") for x in _drawn(q.name, n, seed) if x not in set(on_grid)]
    return [(x, s) for x, s in pts if _representable(q, x)]


def _audit_peer_functions(peer: str, functions: Sequence[PeerFunction], *, quick: bool, rtol: float, seed: int,
                          examples: int | None, properties: bool, progress: bool,
                          inputs: Sequence[tuple[Any, ...]] | None = None) -> AuditReport:
    rel_width = 0.01 if quick else 0.003
    plan = []
    for pf in functions:
        q = _quantity(pf.quantity)
        pts = [(tuple(x), "given") for x in inputs] if inputs is not None else _inputs_for(q, quick, seed, examples)
        plan.append((pf, q, pts))
    bar = Progress(sum(len(p[2]) for p in plan), f"audit {peer}", unit="inputs", enabled=progress)
    results: list[Finding] = []
    notes = [f"{pf.label}: {pf.note}" for pf in functions if pf.note]
    for pf, q, pts in plan:
        values: dict[tuple[Any, ...], float] = {}
        for x, source in pts:
            f = _evaluate(q, pf, x, rtol, source, rel_width)
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

    Parameters
    ----------
    fn : callable
        The function under audit, called positionally with floats (and an int for steps).
    quantity : str
        One of the keys of :data:`QUANTITIES`, for example ``"delta_from_epsilon"``.
    label : str, optional
        Its name in the report (default: ``fn.__qualname__``).
    quick : bool
        The small grid (seconds) instead of the full one (default True).
    rtol : float
        Relative size below which a discrepancy is marked within tolerance (default 0: none).
    seed : int
        Seed of the hypothesis-drawn inputs.
    examples : int, optional
        How many inputs hypothesis draws (default 5 quick, 25 full; 0 for grids only).
    inputs : sequence of tuples, optional
        Audit exactly these inputs instead of the grid and the drawn ones.
    properties : bool
        Also check monotonicity along the grid (default True).

    Returns
    -------
    AuditReport

    Examples
    --------
    >>> from gdpproof.audit import audit_function
    >>> r = audit_function(lambda mu, delta: 0.0, "epsilon_from_delta", label="zero", inputs=[(1.0, 1e-5)])
    >>> r.ok, r.results[0].kind, r.results[0].relative_error
    (False, 'unsafe', -1.0)
    """
    q = _quantity(quantity)
    if not callable(fn):
        raise InvalidParameterError(f"fn={fn!r} must be callable")
    rtol, seed, examples = _check_common(rtol, seed, examples)
    name = label or getattr(fn, "__qualname__", None) or repr(fn)
    pf = PeerFunction(name, q.name, fn)
    return _audit_peer_functions(name, [pf], quick=quick, rtol=rtol, seed=seed, examples=examples,
                                 properties=properties, progress=progress, inputs=inputs)


def audit_curve(curve: PeerCurve, *, quick: bool = True, rtol: float = 0.0) -> AuditReport:
    """Audit a DP-SGD trade-off curve: validity, consistency with its own delta, the proven bracket.

    For each configuration of the grid: the curve must be a trade-off function on a grid of
    alpha (values in [0, 1], non-increasing, convex, at most 1 - alpha; checked in exact
    arithmetic on the returned floats); the delta it implies, sup_alpha (1 - e^eps alpha -
    f(alpha)) over the grid, must not exceed the delta its own library reports at that eps;
    and its values are compared with gdpproof's proven bracket (quantity ``dpsgd_beta``).
    """
    import numpy as np

    rtol, _, _ = _check_common(rtol, 0, None)
    configs = _DPSGD_QUICK if quick else _DPSGD
    results: list[Finding] = []
    pf = PeerFunction(curve.label, "dpsgd_beta",
                      lambda s, p, t, a: float(np.asarray(curve.beta(s, p, t, np.array([a])), dtype=float)[0]))
    rep = _audit_peer_functions(curve.label, [pf], quick=quick, rtol=rtol, seed=0, examples=0, properties=False,
                                progress=False)
    results.extend(rep.results)
    alphas = np.unique(np.concatenate([[0.0], np.logspace(-12, -1, 23), np.linspace(0, 1, 129), [1.0]]))
    for sigma, p, steps, _ in configs:
        names = (("noise_multiplier", sigma), ("sample_rate", p), ("steps", steps))
        value, err = _call(lambda: np.asarray(curve.beta(sigma, p, steps, alphas), dtype=float), ())
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
    theirs, err = _call(curve.delta, (sigma, p, steps, eps))
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


def audit_accountant(peer: str | Sequence[PeerFunction], *, quick: bool = False, rtol: float = 0.0, seed: int = 0,
                     examples: int | None = None, progress: bool = False) -> AuditReport:
    """Audit every function a peer library offers (or a list of :class:`PeerFunction`).

    ``peer`` is a name of :data:`PEERS` (its adapter is imported; :class:`PeerNotInstalledError`
    when the library is missing) or a sequence of adapted functions.  Full grids take minutes
    at most (progress on stderr with ``progress=True``); ``quick=True`` takes seconds.

    Examples
    --------
    >>> from gdpproof.audit import audit_accountant, PeerFunction
    >>> import math
    >>> mine = PeerFunction("mine", "sigma_from_epsilon_delta", lambda e, d: math.sqrt(2 * math.log(1.25 / d)) / e)
    >>> r = audit_accountant([mine], quick=True, examples=0)   # the textbook bound fails at large eps
    >>> r.ok, len(r.of_kind("unsafe")), r.worst("unsafe").call()
    (False, 4, 'mine(epsilon=300.0, delta=1e-05)')
    """
    rtol, seed, examples = _check_common(rtol, seed, examples)
    if isinstance(peer, str):
        mod = _adapter(peer)
        functions = mod.functions()
        curves = mod.curves() if hasattr(mod, "curves") else []
        name, version, notes = peer, mod.version(), tuple(getattr(mod, "NOTES", ()))
    else:
        functions, curves, name, version, notes = list(peer), [], "functions", "", ()
    rep = _audit_peer_functions(name, functions, quick=quick, rtol=rtol, seed=seed, examples=examples,
                                properties=True, progress=progress)
    parts = [rep] + [audit_curve(c, quick=quick, rtol=rtol) for c in curves]
    return _merge(name, parts, rtol, notes, version)
