r"""Audit a training run from its canary scores: every bound proven, its method and confidence stated.

:func:`audit_scores` takes the attack scores of held-in and held-out canaries (any number that
should be higher for held-in canaries) and reports, each as its own statement at the stated
confidence: threshold tests (:mod:`~gdpproof.audit.thresholds`: mu and epsilon lower bounds, the
envelope), one-run (epsilon, delta) and f-DP bounds (:mod:`~gdpproof.audit.onerun`), and attack
summaries (:mod:`~gdpproof.audit.roc`).  A claim (a mechanism value, a number mu, or a symmetric
:class:`~gdpproof.TradeOff`) gets one verdict, by the one method named in ``method``: "refuted"
means the data are impossible under the claim except with probability at most 1 - confidence.

How to use it: ``docs/guides/auditing.md``; the statistics: ``docs/proofs/thresholds.md`` and
``docs/proofs/one_run.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import NotSupportedError, bad
from ..numeric.engine.certify import Certified
from ..numeric.engine.certified import certify_fraction
from ._exact import decimal_string, fraction_of, level_of
from .hypotheses import Curve, curve_of
from .onerun import (
    FAMILY_MAX_RATIO,
    FamilyBound,
    Guesses,
    check_rule,
    mmc_mu,
    mmc_p,
    rejects,
    snj_epsilon,
    default_rules,
    fdp_family_epsilon,
    guesses_from_scores,
    mmc_statistic,
)
from .roc import Summary, summarize
from .thresholds import DEFAULT_THRESHOLDS, ThresholdAudit, ThresholdTest, threshold_audit

__all__ = ["audit_scores", "ScoreAudit", "OneRunAudit", "Verdict", "METHODS", "REFUTED", "NOT_REFUTED"]

METHODS = ("threshold", "one-run", "fdp")
REFUTED = "refuted"
NOT_REFUTED = "not refuted at this confidence"

_THRESHOLD_ASSUMPTION = ("threshold tests and summaries: every score is an independent draw (one canary per training "
                         "run, or canaries that do not interact); the direction of the test is fixed in advance")
_ONE_RUN_ASSUMPTION = ("one run: each canary was included independently with probability 1/2, and the guess counts "
                       "(k+, k-) were fixed before the scores were seen (ties are ordered by a seeded shuffle, never "
                       "by the labels)")
_FDP_ASSUMPTION = "one run, f-DP: the claimed trade-off curve is symmetric (it holds for both orderings of neighbours)"


@dataclass(frozen=True)
class OneRunAudit:
    """The one-run analyses of :func:`audit_scores`.

    ``rules``: the guesses made (one per (k+, k-) fixed in advance); each test runs at ``level``
    = (1 - confidence) / len(rules) (Bonferroni).  ``epsilon_low`` (Steinke–Nasr–Jagielski, at
    ``delta``) and ``mu_low`` (Mahloujifar–Melis–Chaudhuri against G_mu), each the largest over the
    rules, rounded down, with the rule that gave it.  With a claim: ``claim_rejected`` (some rule
    rejects the claim's curve at ``level``), ``claim_p_value`` (the smallest p-value over the
    rules times their number, rounded up) and, for a DP-SGD claim with ``delta``, ``family``."""

    rules: tuple[Guesses, ...]
    confidence: Fraction
    level: Fraction
    delta: Fraction
    epsilon_low: Certified
    epsilon_rule: Guesses | None
    mu_low: Certified
    mu_rule: Guesses | None
    claim_rejected: bool | None = None
    claim_rule: Guesses | None = None
    claim_p_value: Certified | None = None
    family: FamilyBound | None = None


@dataclass(frozen=True)
class Verdict:
    """The verdict on a claim: ``refuted`` by ``method`` at ``confidence``, with the evidence in words."""

    claim: str
    curve: str
    method: str
    confidence: Fraction
    refuted: bool
    evidence: str

    @property
    def text(self) -> str:
        """"refuted" or "not refuted at this confidence"."""
        return REFUTED if self.refuted else NOT_REFUTED


@dataclass(frozen=True)
class ScoreAudit:
    """The result of :func:`audit_scores`: each part its own statement at ``confidence``.

    ``str()`` is the labelled report, :meth:`as_dict` the JSON-ready one, :meth:`plot` the figure.

    Attributes:
        held_in: How many held-in canaries were scored.
        held_out: How many held-out canaries were scored.
        direction: ``"greater"`` when held-in canaries score higher, ``"less"`` when lower.
        confidence: The confidence of every statement.
        delta: The delta of the (eps, delta) statements, or None.
        method: The method that decides the verdict.
        threshold: The :class:`~gdpproof.audit.thresholds.ThresholdAudit`, or None when not asked for.
        one_run: The :class:`OneRunAudit`, or None when not asked for.
        summary: The :class:`~gdpproof.audit.roc.Summary`, or None when not asked for.
        verdict: The :class:`Verdict` on the claim, when a claim was given.
        assumptions: What the methods used need, in words.
        curve: The claimed curve, when a claim was given (for the figure).
        scores: The two score arrays, kept for the figure.

    Examples:
        >>> import numpy as np
        >>> from gdpproof.audit import audit_scores
        >>> rng = np.random.default_rng(7)
        >>> r = audit_scores(rng.normal(1, 1, 3000), rng.normal(0, 1, 3000), claim=1, methods=("threshold",),
        ...                  summaries=False)
        >>> r.held_in, r.held_out, r.one_run is None, r.refuted
        (3000, 3000, True, False)
    """

    held_in: int
    held_out: int
    direction: str
    confidence: Fraction
    delta: Fraction | None
    method: str
    threshold: ThresholdAudit | None
    one_run: OneRunAudit | None
    summary: Summary | None
    verdict: Verdict | None
    assumptions: tuple[str, ...]
    curve: Curve | None = field(default=None, repr=False, compare=False)
    scores: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    @property
    def refuted(self) -> bool:
        """True when a claim was given and the deciding method refutes it."""
        return self.verdict is not None and self.verdict.refuted

    # -- JSON --------------------------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready values: every number a decimal string, with its rounding and
        how it was certified."""
        conf = decimal_string(self.confidence)
        out: dict[str, Any] = {
            "held_in": str(self.held_in), "held_out": str(self.held_out), "direction": self.direction,
            "confidence": conf, "delta": decimal_string(self.delta), "method": self.method,
            "assumptions": list(self.assumptions),
        }
        if self.verdict is not None:
            v = self.verdict
            out["verdict"] = {"claim": v.claim, "curve": v.curve, "method": v.method, "confidence": conf,
                              "refuted": v.refuted, "verdict": v.text, "evidence": v.evidence}
        if self.threshold is not None:
            t = self.threshold
            out["threshold"] = {
                "strategy": t.strategy, "selection": t.selection, "confidence": conf,
                "level_per_bound": decimal_string(t.level),
                "mu_low": str(t.mu_low), "mu_test": _test_dict(t.mu_test),
                "epsilon_low": None if t.epsilon_low is None else str(t.epsilon_low),
                "epsilon_test": _test_dict(t.epsilon_test),
                "envelope": [[decimal_string(a), decimal_string(b)] for a, b in t.envelope()],
                "tests": [_test_dict(x) for x in t.tests],
                "rounding": {"mu_low": "down", "epsilon_low": "down", "fpr_upper": "up", "fnr_upper": "up"},
                "certified": {"mu_low": t.mu_low.method, "epsilon_low": "arb",
                              "fpr_upper": "clopper-pearson, proven in arb", "fnr_upper": "clopper-pearson, proven in arb"},
                "method": "Jagielski, Ullman & Oprea 2020 (epsilon); Nasr et al. 2023 (mu)",
            }
        if self.one_run is not None:
            o = self.one_run
            out["one_run"] = {
                "confidence": conf, "level_per_rule": decimal_string(o.level), "delta": decimal_string(o.delta),
                "rules": [_rule_dict(g) for g in o.rules],
                "epsilon_low": str(o.epsilon_low), "epsilon_rule": _rule_dict(o.epsilon_rule),
                "epsilon_method": "Steinke, Nasr & Jagielski 2023",
                "mu_low": str(o.mu_low), "mu_rule": _rule_dict(o.mu_rule),
                "mu_method": "Mahloujifar, Melis & Chaudhuri 2025, against G_mu",
                "claim_rejected": o.claim_rejected, "claim_rule": _rule_dict(o.claim_rule),
                "claim_p_value": None if o.claim_p_value is None else str(o.claim_p_value),
                "rounding": {"epsilon_low": "down", "mu_low": "down", "claim_p_value": "up"},
                "certified": {"epsilon_low": "arb", "mu_low": "arb, recursion in integers",
                              "claim_p_value": "arb, recursion in integers"},
            }
            if o.family is not None:
                out["one_run"]["family"] = {"sigma": str(o.family.sigma), "epsilon_low": str(o.family.epsilon),
                                            "delta": decimal_string(o.family.delta),
                                            "claimed_sigma": decimal_string(o.family.claimed_sigma),
                                            "claimed_sigma_rejected": o.family.rejected,
                                            "rounding": {"sigma": "up", "epsilon_low": "down"}}
        if self.summary is not None:
            s = self.summary
            out["summary"] = {
                "confidence": conf, "auroc": decimal_string(s.auroc), "best_accuracy": decimal_string(s.best_accuracy),
                "best_accuracy_threshold": repr(s.best_accuracy_threshold),
                "tpr_at_fpr": [{"fpr_target": decimal_string(r.target), "threshold": repr(r.threshold),
                                "fpr": decimal_string(r.fpr), "fpr_upper": str(r.fpr_upper),
                                "tpr": decimal_string(r.tpr), "tpr_lower": str(r.tpr_lower),
                                "tpr_upper": str(r.tpr_upper)} for r in s.tpr_at_fpr],
                "roc_band": [{"threshold": repr(b.threshold), "fpr": decimal_string(b.fpr),
                              "fpr_lower": str(b.fpr_lower), "fpr_upper": str(b.fpr_upper),
                              "tpr": decimal_string(b.tpr), "tpr_lower": str(b.tpr_lower),
                              "tpr_upper": str(b.tpr_upper)} for b in s.band],
                "certified": "exact counts; clopper-pearson bounds proven in arb",
            }
        out["digits"] = self._digits()
        return out

    def _digits(self) -> int:
        for part in (self.threshold and self.threshold.mu_low, self.one_run and self.one_run.epsilon_low):
            if part:
                return part.digits
        return 6

    def to_json(self) -> str:
        """One JSON object (numbers as decimal strings)."""
        return json.dumps(self.as_dict(), sort_keys=True)

    # -- text --------------------------------------------------------------------------------

    def __str__(self) -> str:
        conf = decimal_string(self.confidence)
        side = "higher" if self.direction == "greater" else "lower"
        cmp = ">" if self.direction == "greater" else "<"
        if self.scores is None and self.one_run is not None:  # from a guess file
            g = self.one_run.rules[0]
            lines = [("guesses", f"{g.canaries:,} canaries: {g.k_plus:,} guessed in, {g.k_minus:,} out, "
                                 f"{g.correct:,} of the {g.guesses:,} guesses right")]
        else:
            lines = [("scores", f"{self.held_in:,} held-in, {self.held_out:,} held-out (held-in canaries expected "
                                f"to score {side})")]
        lines.append(("confidence", f"{conf}: each statement below holds with at least this probability"))
        if self.verdict is not None:
            v = self.verdict
            lines += [("claim", v.claim), ("claimed curve", v.curve),
                      ("verdict", f"{v.text} (method: {v.method}, confidence {conf}): {v.evidence}")]
        if self.threshold is not None:
            t = self.threshold
            lines.append(("threshold tests", f"{t.strategy}: {t.selection}"))
            lines.append(("  mu_low", f"{t.mu_low}   (the training is not mu-GDP for any smaller mu; rounded down; "
                                       f"Nasr et al. 2023){_test_text(t.mu_test, cmp)}"))
            if t.epsilon_low is not None:
                lines.append(("  eps_low", f"{t.epsilon_low}   at delta = {decimal_string(t.delta)} (not (eps, delta)-DP "
                                           f"for any smaller eps; rounded down; Jagielski et al. 2020)"
                                           f"{_test_text(t.epsilon_test, cmp)}"))
            hull = t.envelope()
            lines.append(("  envelope", f"every trade-off curve of the training lies below the convex hull of "
                                        f"{len(hull) - 2} bounded points (FPR upper, FNR upper), (0, 1) and (1, 0) "
                                        "(--json or --plot)"))
        if self.one_run is not None:
            o = self.one_run
            lines.append(("one run", f"{len(o.rules)} guess rule(s) fixed in advance, each tested at "
                                     f"(1 - confidence)/{len(o.rules)} (Bonferroni)"))
            lines.append(("  eps_low", f"{o.epsilon_low}   at delta = {decimal_string(o.delta)} (rounded down; "
                                       f"Steinke, Nasr & Jagielski 2023){_rule_text(o.epsilon_rule)}"))
            lines.append(("  mu_low", f"{o.mu_low}   (largest mu-GDP rejected, rounded down; Mahloujifar, Melis & "
                                      f"Chaudhuri 2025){_rule_text(o.mu_rule)}"))
            if o.claim_rejected is not None:
                p = "" if o.claim_p_value is None else f"; p-value <= {o.claim_p_value} (Bonferroni-adjusted, rounded up)"
                lines.append(("  claim (f-DP)", f"{'rejected' if o.claim_rejected else 'not rejected'}{p}"
                                                f"{_rule_text(o.claim_rule)}"))
            if o.family is not None:
                f = o.family
                if f.sigma.is_finite():
                    lines.append(("  eps_low DP-SGD", f"{f.epsilon}   at delta = {decimal_string(f.delta)}: the "
                                                      f"claimed schedule with noise multiplier {f.sigma} (rounded up) "
                                                      "or more is rejected; its proven epsilon lower end, rounded down "
                                                      f"(the claimed noise multiplier {decimal_string(f.claimed_sigma)}"
                                                      f" is {'' if f.rejected else 'not '}rejected)"))
                else:
                    lines.append(("  eps_low DP-SGD", f"0   (no noise multiplier up to {FAMILY_MAX_RATIO} times the "
                                                      "claimed one is rejected)"))
        if self.summary is not None:
            s = self.summary
            lines.append(("summaries", f"exact counts; Clopper-Pearson bounds at confidence {conf}"))
            lines.append(("  AUROC", f"{float(s.auroc):.6g}   (Mann-Whitney, exact {s.auroc.numerator}/"
                                     f"{s.auroc.denominator})"))
            lines.append(("  best accuracy",
                          f"{float(s.best_accuracy):.6g}   at score {cmp} {s.best_accuracy_threshold:.6g}"))
            for r in s.tpr_at_fpr:
                lines.append((f"  TPR @ FPR {float(r.target):g}",
                              f"{float(r.tpr):.6g} in [{r.tpr_lower}, {r.tpr_upper}]   (score {cmp} {r.threshold:.6g}; "
                              f"FPR {float(r.fpr):.6g} <= {r.fpr_upper})"))
            lines.append(("  ROC band", f"{len(s.band)} thresholds, simultaneous over every threshold (--json or "
                                        "--plot)"))
        lines += [("assumptions" if i == 0 else "", f"- {a}") for i, a in enumerate(self.assumptions)]
        width = max(len(k) for k, _ in lines) + 2
        # a value's continuation lines ("\n\t...") are indented under the value
        return "\n".join(f"{k:<{width}}{v}".replace("\n\t", "\n" + " " * (width + 2)) for k, v in lines)

    # -- figure ------------------------------------------------------------------------------

    def plot(self, path: str | None = None, *, ax: Any = None) -> Any:
        """The figure: the empirical ROC, its simultaneous band, the threshold tests' bounded
        points and the claimed curve, on log axes (matplotlib).  Written to ``path`` (the format
        from its suffix) when given; drawn into ``ax`` (a notebook's axes) when given; returns the axes."""
        if ax is None:
            import matplotlib

            if path is not None:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            fig, ax = plt.subplots(figsize=(6.5, 5.5))
        else:
            fig = ax.figure
        from .roc import roc_points

        if self.scores is not None:
            inside, outside = self.scores
            if self.direction == "less":
                inside, outside = -inside, -outside
            _, fp, tp = roc_points(inside, outside)
            ax.step(fp / len(outside), tp / len(inside), where="post", lw=1.2, label="empirical ROC")
        if self.summary is not None and self.summary.band:
            band = self.summary.band
            ax.plot([float(b.fpr_upper) for b in band], [float(b.tpr_lower) for b in band], "C1--", lw=1,
                    label=f"simultaneous band ({decimal_string(self.confidence)})")
            ax.plot([float(b.fpr_lower) for b in band], [float(b.tpr_upper) for b in band], "C1--", lw=1)
        if self.threshold is not None:
            pts = [t.point for t in self.threshold.tests]
            ax.plot([float(a) for a, _ in pts], [1 - float(b) for _, b in pts], "k.", ms=4,
                    label=f"threshold tests: (FPR upper, TPR lower), {self.threshold.strategy}")
        if self.curve is not None:
            grid = np.geomspace(1e-6, 1, 400)
            ax.plot(grid, 1 - self.curve.lower_float(grid), "C3", lw=1.2, label="claimed: TPR <= 1 - f(FPR)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(max(1e-6, 0.5 / max(self.held_out, 1)), 1)
        ax.set_ylim(max(1e-6, 0.5 / max(self.held_in, 1)), 1.05)
        ax.set_xlabel("false positive rate")
        ax.set_ylabel("true positive rate")
        ax.legend(fontsize=8, loc="lower right")
        ax.set_title("canary scores: ROC, band, claim")
        if path is not None:
            fig.tight_layout()
            fig.savefig(path)
            import matplotlib.pyplot as plt

            plt.close(fig)
        return ax


def _test_dict(t: ThresholdTest | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {"threshold": repr(t.threshold), "false_positives": str(t.false_positives), "held_out": str(t.held_out),
            "false_negatives": str(t.false_negatives), "held_in": str(t.held_in), "fpr_upper": str(t.fpr_upper),
            "fnr_upper": str(t.fnr_upper), "rank": None if t.rank is None else str(t.rank)}


def _test_text(t: ThresholdTest | None, cmp: str = ">") -> str:
    if t is None:
        return ""
    return (f"\n\ttest: score {cmp} {t.threshold:.6g}: FP {t.false_positives:,}/{t.held_out:,}, FPR <= {t.fpr_upper}; "
            f"FN {t.false_negatives:,}/{t.held_in:,}, FNR <= {t.fnr_upper}")


def _rule_dict(g: Guesses | None) -> dict[str, str] | None:
    if g is None:
        return None
    return {"k_plus": str(g.k_plus), "k_minus": str(g.k_minus), "canaries": str(g.canaries),
            "guesses": str(g.guesses), "correct": str(g.correct)}


def _rule_text(g: Guesses | None) -> str:
    if g is None:
        return ""
    return (f"\n\tguesses: top {g.k_plus:,} in, bottom {g.k_minus:,} out: {g.correct:,} of {g.guesses:,} right "
            f"(m = {g.canaries:,})")


def _claim_text(claim: Any) -> str:
    from ..mechanisms import show_number

    if isinstance(claim, (int, float, Fraction, str)) and not isinstance(claim, bool):
        return f"mu-GDP with mu = {show_number(claim) if not isinstance(claim, str) else claim}"
    return repr(claim)


def audit_scores(held_in: Any, held_out: Any, *, confidence: Any = "0.95", delta: Any = None,
                 method: str = "threshold", methods: tuple[str, ...] | None = None, claim: Any = None,
                 threshold: Any = "bonferroni", thresholds: int | str = DEFAULT_THRESHOLDS, seed: int = 0,
                 direction: str = "greater", guesses: list[tuple[int, int]] | None = None,
                 family: bool | None = None, summaries: bool = True, digits: int = 6) -> ScoreAudit:
    r"""Audit a training run from held-in and held-out canary scores.

    Args:
        held_in (array of real): Attack scores of canaries that were in the training data and of canaries that
            were not (any lengths, ties allowed).
        held_out (array of real): Attack scores of canaries that were in the training data and of canaries
            that were not (any lengths, ties allowed).
        confidence (real in (0, 1)): Each statement holds with probability at least this (default 0.95).
        delta (real in [0, 1), optional): Where the epsilon lower bounds are given (the one-run (eps, delta)
            bound uses 0 without it).
        method ("threshold", "one-run" or "fdp"): The method whose verdict decides on ``claim``.
        methods (tuple of str, optional): The methods to run (default: all three).  ``method`` is always run.
        claim (mechanism value, number or TradeOff, optional): The privacy claimed: a
            :mod:`gdpproof.mechanisms` value (``gdpproof.dpsgd(...)``), mu (mu-GDP) or a symmetric trade-off
            function.
        threshold ("bonferroni", "split" or a number): How the threshold tests pick thresholds
            (:func:`~gdpproof.audit.threshold_audit`).
        thresholds (int or "all"): The number of Bonferroni thresholds (default 100).
        seed (int): Seeds the split and the order of tied scores in the one-run guesses.
        direction ("greater" or "less"): Whether held-in canaries score higher (default) or lower.
        guesses (list of (k_plus, k_minus), optional): The one-run guess rules, fixed before seeing the scores
            (default: the top 1%, 2%, 5%, 10%, 20% and 50% guessed in).
        family (bool, optional): For a DP-SGD claim with ``delta``, bound epsilon against the claimed
            schedule's own curves (:func:`~gdpproof.audit.fdp_family_epsilon`; seconds).  Default: when
            ``method`` is "fdp".
        summaries (bool): Compute the attack summaries (ROC band, TPR at FPR, AUROC, best accuracy).
        digits (int): Digits of the threshold tests' bounds (the one-run epsilon too; mu from one run gets 4).

    Returns:
        ScoreAudit

    Raises:
        InvalidParameterError: Bad arguments: the message names the argument, its value and the rule.

    References:
        Jagielski, Ullman & Oprea (2020), NeurIPS; Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski,
        Carlini & Terzis (2023), USENIX Security; Steinke, Nasr & Jagielski (2023), NeurIPS;
        Mahloujifar, Melis & Chaudhuri (2025), ICML; Clopper & Pearson (1934), Biometrika.

    Examples:
        >>> import numpy as np
        >>> from gdpproof.audit import audit_scores
        >>> rng = np.random.default_rng(7)
        >>> r = audit_scores(rng.normal(1, 1, 3000), rng.normal(0, 1, 3000), claim=1, methods=("threshold",),
        ...                  summaries=False)
        >>> r.threshold.mu_low, r.verdict.text
        (Certified('0.803955', digits=6, rounding='down'), 'not refuted at this confidence')
    """
    if method not in METHODS:
        raise bad("method", method, f"must be one of {', '.join(METHODS)}")
    run = set(METHODS if methods is None else methods) | {method}
    if not run <= set(METHODS):
        raise bad("methods", methods, f"must name methods among {', '.join(METHODS)}")
    level = level_of(confidence)
    conf = 1 - level
    d = None if delta is None else fraction_of("delta", delta, open_high=True)
    from .thresholds import oriented

    inside = oriented("held_in", held_in)
    outside = oriented("held_out", held_out)
    if direction not in ("greater", "less"):
        raise bad("direction", direction, "must be 'greater' (held-in canaries score higher) or 'less'")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise bad("seed", seed, "must be an integer >= 0")
    curve = _claimed_curve(claim, d)
    thr = None
    if "threshold" in run:
        thr = threshold_audit(inside, outside, confidence=conf, threshold=threshold, thresholds=thresholds,
                              direction=direction, delta=d, seed=seed, digits=digits)
    one = None
    if "one-run" in run or "fdp" in run:
        sign = 1.0 if direction == "greater" else -1.0
        m = len(inside) + len(outside)
        rules = default_rules(m) if guesses is None else [check_rule(g) for g in guesses]
        if not rules:
            raise bad("guesses", guesses, "must hold at least one (k_plus, k_minus) rule")
        made = guesses_from_scores(sign * inside, sign * outside, rules, seed=int(seed))
        want_family = (method == "fdp") if family is None else family
        one = _one_run(made, level, d, curve if "fdp" in run else None, claim, want_family, digits)
    summary = (summarize(*(_orient(inside, outside, direction)), level=level,
                         sign=1.0 if direction == "greater" else -1.0) if summaries else None)
    verdict = None
    if claim is not None:
        verdict = _verdict(method, claim, curve, thr, one, conf, d)
    assumptions = []
    if thr is not None or summary is not None:
        assumptions.append(_THRESHOLD_ASSUMPTION)
    if one is not None:
        assumptions.append(_ONE_RUN_ASSUMPTION)
        if curve is not None:
            assumptions.append(_FDP_ASSUMPTION)
    if curve is not None and getattr(curve, "composition", None) is not None:
        assumptions.append("the claimed curve is read from below: the lower curve of gdpproof.account's proven bracket")
    return ScoreAudit(len(inside), len(outside), direction, conf, d, method, thr, one, summary, verdict,
                      tuple(assumptions), curve, (inside, outside))


def audit_guesses(canaries: int, k_plus: int, k_minus: int, correct: int, *, held_in: int | None = None,
                  confidence: Any = "0.95", delta: Any = None, method: str = "fdp", claim: Any = None,
                  family: bool | None = None, digits: int = 6) -> ScoreAudit:
    """A one-run audit from its guesses alone: m canaries, k+ guessed in, k- guessed out,
    ``correct`` of the guesses right (a guess file; no scores).  ``method`` is "one-run" or
    "fdp"; the rest as :func:`audit_scores` (one rule, so no Bonferroni correction).

    Examples:
        >>> from gdpproof.audit.scores import audit_guesses
        >>> r = audit_guesses(1000, 100, 0, 90, delta="1e-5", claim=1)
        >>> r.one_run.epsilon_low, r.verdict.text
        (Certified('1.62614', digits=6, rounding='down'), 'not refuted at this confidence')
    """
    from ._exact import counts

    if method not in ("one-run", "fdp"):
        raise bad("method", method, "must be 'one-run' or 'fdp' for guesses (threshold tests need scores)")
    m, _, _ = counts(canaries, k_plus, 0, ("canaries", "k_plus", "correct"))
    m, r, v = counts(canaries, k_plus + k_minus, correct)
    level = level_of(confidence)
    d = None if delta is None else fraction_of("delta", delta, open_high=True)
    curve = _claimed_curve(claim, d)
    rule = Guesses(k_plus, k_minus, m, r, v)
    want_family = (method == "fdp") if family is None else family
    one = _one_run([rule], level, d, curve, claim, want_family, digits)
    verdict = None if claim is None else _verdict(method, claim, curve, None, one, 1 - level, d)
    assumptions = [_ONE_RUN_ASSUMPTION] + ([_FDP_ASSUMPTION] if curve is not None else [])
    n_in = -1 if held_in is None else held_in
    return ScoreAudit(n_in, m - n_in if held_in is not None else -1, "greater", 1 - level, d, method, None, one,
                      None, verdict, tuple(assumptions), curve, None)


def _claimed_curve(claim: Any, d: Fraction | None) -> Curve | None:
    """The claim's curve (None without a claim); a claim with no usable curve is a bad argument."""
    if claim is None:
        return None
    try:
        return curve_of(claim, delta=d if d else Fraction(1, 10**6))
    except NotSupportedError as exc:
        raise bad("claim", claim, f"cannot be audited: {exc}") from None


def _orient(inside: np.ndarray, outside: np.ndarray, direction: str) -> tuple[np.ndarray, np.ndarray]:
    return (inside, outside) if direction == "greater" else (-inside, -outside)


def _one_run(made: list[Guesses], level: Fraction, d: Fraction | None, curve: Curve | None, claim: Any,
             want_family: bool, digits: int) -> OneRunAudit:
    per = level / len(made)
    dd = Fraction(0) if d is None else d
    from .onerun import snj_float

    # the best rule by a float estimate; only it is certified (any certified value is valid)
    lv = float(per)

    def snj_estimate(g: Guesses) -> float:
        if g.correct == 0 or snj_float(g.canaries, g.guesses, g.correct, 0.0, float(dd)) > lv:
            return 0.0
        return _eps_estimate(g, dd, lv)

    eps_best, eps_rule = Certified(0, digits=digits, rounding="down", method="arb"), None
    ranked = sorted(made, key=snj_estimate, reverse=True)
    if ranked and snj_estimate(ranked[0]) > 0:
        g = ranked[0]
        eps_best, eps_rule = snj_epsilon(g.canaries, g.guesses, g.correct, dd, per, digits), g
    mu_best, mu_rule = Certified(0, digits=4, rounding="down", method="arb"), None
    mu_ranked = sorted(made, key=lambda g: _mu_estimate(g, lv), reverse=True)
    if mu_ranked and _mu_estimate(mu_ranked[0], lv) > 0:
        g = mu_ranked[0]
        mu_best, mu_rule = mmc_mu(g.canaries, g.guesses, g.correct, per, 4), g
    rejected = rule = p_adj = fam = None
    if curve is not None:
        rejected = False
        stats = [(mmc_statistic(lv, g.canaries, g.guesses, g.correct, curve.g_float) - g.guesses / g.canaries, g)
                 for g in made if g.correct > 0]
        for _, g in sorted(stats, key=lambda x: x[0], reverse=True):
            if rejects(g.canaries, g.guesses, g.correct, curve, per):
                rejected, rule = True, g
                break
        best = rule or (max(stats, key=lambda x: x[0])[1] if stats else None)
        if best is not None:
            p = mmc_p(best.canaries, best.guesses, best.correct, curve, 3)
            p_adj = certify_fraction(min(Fraction(1), p.to_fraction() * len(made)), digits=3, rounding="up",
                                     method="arb")
        if want_family and d is not None and d > 0 and getattr(claim, "dpsgd_parameters", lambda: None)() is not None:
            fam = fdp_family_epsilon([(g.canaries, g.guesses, g.correct) for g in made], claim, delta=d, level=per)
    return OneRunAudit(tuple(made), 1 - level, per, dd, eps_best, eps_rule, mu_best, mu_rule, rejected, rule, p_adj,
                       fam)


def _eps_estimate(g: Guesses, d: Fraction, lv: float) -> float:
    from .onerun import float_root, snj_float

    hi = 1.0
    while snj_float(g.canaries, g.guesses, g.correct, hi, float(d)) <= lv and hi < 1e6:
        hi *= 2
    return float_root(lambda e: snj_float(g.canaries, g.guesses, g.correct, e, float(d)) <= lv, 0.0, hi, 1e-6)


def _mu_estimate(g: Guesses, lv: float) -> float:
    from .onerun import float_root, gaussian_g

    if g.correct == 0:
        return 0.0
    target = g.guesses / g.canaries

    def rejected(mu: float) -> bool:
        return mmc_statistic(lv, g.canaries, g.guesses, g.correct, gaussian_g(mu)) > target

    if not rejected(1e-9):
        return 0.0
    hi = 1.0
    while rejected(hi) and hi < 64:
        hi *= 2
    return float_root(rejected, 0.0, hi, 1e-4)


def _verdict(method: str, claim: Any, curve: Curve | None, thr: ThresholdAudit | None, one: OneRunAudit | None,
             conf: Fraction, d: Fraction | None) -> Verdict:
    text, label = _claim_text(claim), curve.label if curve is not None else ""
    if method == "threshold" and thr is not None and curve is not None:
        refuted, test = thr.refutes(curve)
        if refuted:
            a, b = test.point
            cmp = ">" if thr.direction == "greater" else "<"
            ev = (f"the test score {cmp} {test.threshold:.6g} has FPR <= {test.fpr_upper} and FNR <= {test.fnr_upper}, below "
                  f"the claimed curve (f(FPR upper) >= {float(curve.lower(a)):.6g} > FNR upper, or the same for the "
                  "other ordering)")
        else:
            ev = f"all {len(thr.tests)} bounded error pairs lie on or above the claimed curve"
        return Verdict(text, label, "threshold tests (Clopper-Pearson)", conf, refuted, ev)
    if one is None:  # pragma: no cover - audit_scores always runs the deciding method
        raise bad("method", method, "was not run")
    if method == "fdp":
        if one.claim_rejected:
            g = one.claim_rule
            ev = (f"top {g.k_plus:,} in / bottom {g.k_minus:,} out: {g.correct:,} of {g.guesses:,} right (m = "
                  f"{g.canaries:,}); the one-run f-DP test rejects the claimed curve at level (1 - confidence)/"
                  f"{len(one.rules)} (adjusted p-value <= {one.claim_p_value})")
        else:
            ev = (f"no guess rule rejects it at level (1 - confidence)/{len(one.rules)}"
                  + ("" if one.claim_p_value is None else f" (adjusted p-value <= {one.claim_p_value})"))
        return Verdict(text, label, "one run, f-DP (Mahloujifar, Melis & Chaudhuri 2025)", conf,
                       bool(one.claim_rejected), ev)
    # one-run (eps, delta): the claim's epsilon at delta, against the largest rejected epsilon
    if d is None or d == 0:
        raise bad("delta", d, "must be given, in (0, 1), to test a claim by the one-run (eps, delta) method")
    eps_claim = _claimed_epsilon(claim, d)
    refuted = one.epsilon_low.to_fraction() > eps_claim if one.epsilon_low.is_finite() else True
    ev = (f"eps_low = {one.epsilon_low} {'>' if refuted else '<='} the claim's eps = {float(eps_claim):.6g} at delta = "
          f"{decimal_string(d)} (its proven upper end)")
    return Verdict(text, label, "one run, (eps, delta) (Steinke, Nasr & Jagielski 2023)", conf, refuted, ev)


def _claimed_epsilon(claim: Any, d: Fraction) -> Fraction:
    """The claim's epsilon at delta: the proven upper end (an eps the claim promises)."""
    from ..accounting import account
    from ..mechanisms import GDP, Mechanism

    m = claim if isinstance(claim, Mechanism) else GDP(claim) if not hasattr(claim, "template") else None
    if m is None:
        c = claim.epsilon(d, digits=12) if hasattr(claim, "epsilon") else None
        if c is None:
            raise bad("claim", claim, "must be a mechanism value or a number (mu) for the one-run (eps, delta) verdict")
        return c.to_fraction()
    acc = account(m, delta=d)
    up = acc.eps_upper
    return up.to_fraction() if hasattr(up, "to_fraction") else Fraction(up)

