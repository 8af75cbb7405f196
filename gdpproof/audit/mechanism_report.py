"""The result of a black-box audit, :class:`MechanismAudit`: the verdict, the bounds and the
test that gave them, printable and JSON-ready (numbers as decimal strings).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..numeric.engine.certify import Certified
from ..text import terminating_text

__all__ = ["MechanismAudit", "VIOLATION", "NO_EVIDENCE"]

VIOLATION = "violation"
NO_EVIDENCE = "no evidence of violation at this sample size"


@dataclass(frozen=True, slots=True)
class MechanismAudit:
    """The result of :func:`audit_mechanism`.

    Attributes:
        verdict (str): ``"violation"`` or ``"no evidence of violation at this sample size"``.
        violation (bool): The verdict as a bool.  A true claim is called a violation with probability at most
            1 - ``confidence``.
        claim (str): The claim audited, in words.
        claimed_mu (Fraction or None): The claim: a mu-GDP claim sets ``claimed_mu``; an (epsilon, delta)
            claim the other two.
        claimed_epsilon (Fraction or None): The claim: a mu-GDP claim sets ``claimed_mu``; an (epsilon, delta)
            claim the other two.
        claimed_delta (Fraction or None): The claim: a mu-GDP claim sets ``claimed_mu``; an (epsilon, delta)
            claim the other two.
        mu_low (Certified): Lower confidence bound on the mechanism's tightest mu, rounded down: max(0,
            Phi^{-1}(1 - fpr_upper) - Phi^{-1}(fnr_upper)).  P(mu_low > mu) <= 1 - confidence.
        delta_low (Certified or None): For an (epsilon, delta) claim, a lower confidence bound on the delta
            the mechanism needs at the claimed epsilon, rounded down; the claim is violated when delta_low >
            claimed_delta.
        detectable_mu (Decimal): The mu of a Gaussian pair of scores this sample size flags with probability
            about 1/2 (``docs/proofs/black_box.md``), 3 significant digits rounded up; Infinity if none is flagged.
        threshold (float, str): The test: reject S when the score is greater (``"greater"``) or less
            (``"less"``) than ``threshold``.
        direction (float, str): The test: reject S when the score is greater (``"greater"``) or less
            (``"less"``) than ``threshold``.
        score (str): How outputs became scores.
        false_positives (int): Outputs of M(S) rejected and outputs of M(S') accepted, out of
            ``estimation_samples`` each.
        false_negatives (int): Outputs of M(S) rejected and outputs of M(S') accepted, out of
            ``estimation_samples`` each.
        fpr_upper (Decimal): Their proven Clopper–Pearson upper bounds (10 digits, rounded up), each failing
            with probability (1 - confidence)/2.
        fnr_upper (Decimal): Their proven Clopper–Pearson upper bounds (10 digits, rounded up), each failing
            with probability (1 - confidence)/2.
        samples (int): Outputs per data set, and the two halves.
        selection_samples (int): Outputs per data set, and the two halves.
        estimation_samples (int): Outputs per data set, and the two halves.
        seed: int
        confidence: Fraction

    Examples:
        >>> import numpy as np, gdpproof
        >>> r = gdpproof.audit_mechanism(lambda rng, n: rng.standard_normal(n),
        ...                              lambda rng, n: rng.standard_normal(n) + 2.0,
        ...                              samples=20_000, seed=1, claimed_mu=1)
        >>> r.verdict, r.mu_low > 1
        ('violation', True)
    """

    verdict: str
    violation: bool
    claim: str
    claimed_mu: Fraction | None
    claimed_epsilon: Fraction | None
    claimed_delta: Fraction | None
    mu_low: Certified
    delta_low: Certified | None
    detectable_mu: Decimal
    threshold: float
    direction: str
    score: str
    false_positives: int
    false_negatives: int
    fpr_upper: Decimal
    fnr_upper: Decimal
    samples: int
    selection_samples: int
    estimation_samples: int
    seed: int
    confidence: Fraction

    def as_dict(self) -> dict[str, Any]:
        """The report as a dict of JSON-ready values (numbers as decimal strings), with ``digits``
        and ``certified`` (the methods) beside them."""
        out: dict[str, Any] = {}
        for k, v in asdict(self).items():
            if isinstance(v, (Fraction, Decimal)):
                v = terminating_text(v)
            elif isinstance(v, float):
                v = repr(v)
            elif isinstance(v, int) and not isinstance(v, bool):
                v = str(v)
            out[k] = v
        out["digits"] = self.mu_low.digits
        out["rounding"] = {"mu_low": "down", "delta_low": "down", "fpr_upper": "up", "fnr_upper": "up",
                           "detectable_mu": "up"}
        out["certified"] = {"mu_low": self.mu_low.method, "fpr_upper": "clopper-pearson, proven in arb",
                            "fnr_upper": "clopper-pearson, proven in arb",
                            "detectable_mu": "approximate (expected counts)"}
        return out

    def to_json(self) -> str:
        """One JSON object (numbers as decimal strings)."""
        return json.dumps(self.as_dict(), sort_keys=True)

    def __str__(self) -> str:
        n2 = self.estimation_samples
        sign = ">" if self.direction == "greater" else "<"
        conf = terminating_text(self.confidence)
        lines = [
            ("claim", self.claim),
            ("verdict", self.verdict),
            ("mu_low", f"{self.mu_low}   (lower bound on the mechanism's mu at confidence {conf}, rounded down)"),
        ]
        if self.delta_low is not None:
            lines.append(("delta_low", f"{self.delta_low}   (lower bound on the delta it needs at eps = "
                                       f"{terminating_text(self.claimed_epsilon)}, rounded down)"))
        lines += [
            ("detectable mu", f"{self.detectable_mu}   (a Gaussian pair with this mu is flagged with probability "
                              "about 1/2)"),
            ("test", f"reject S when score {sign} {self.threshold:.6g}   (score: {self.score})"),
            ("false positives", f"{self.false_positives:,} of {n2:,}   FPR <= {self.fpr_upper}"),
            ("false negatives", f"{self.false_negatives:,} of {n2:,}   FNR <= {self.fnr_upper}   "
                                "(Clopper-Pearson, one-sided)"),
            ("samples", f"{self.samples:,} per data set ({self.selection_samples:,} choose the test, "
                        f"{n2:,} measure it), seed {self.seed}"),
        ]
        return "\n".join(f"{k:<16}{v}" for k, v in lines)
