"""Audits: other implementations checked against gdpproof.

* :mod:`gdpproof.audit.accountants` compares a peer's functions (delta from (mu, eps), eps from
  (mu, delta), mu and sigma from (eps, delta), DP-SGD epsilon and mu, trade-off curves) with the
  certified references and classifies every discrepancy as unsafe, conservative or an error;
  :mod:`gdpproof.audit.adapters` adapts the libraries people use.
* :mod:`gdpproof.audit.mechanisms` checks a black-box mechanism's privacy claim against samples
  of its outputs (a lower confidence bound on its mu).
* :mod:`gdpproof.audit.scores` audits a training run from its canary attack scores: threshold
  tests (:mod:`~gdpproof.audit.thresholds`), one-run (eps, delta) and f-DP audits
  (:mod:`~gdpproof.audit.onerun`) and attack summaries (:mod:`~gdpproof.audit.roc`), every bound
  proven.
"""

from __future__ import annotations

from .accountants import (
    PEERS,
    QUANTITIES,
    AuditReport,
    Finding,
    PeerCurve,
    PeerFunction,
    PeerNotInstalledError,
    audit_accountant,
    audit_curve,
    audit_function,
    grid,
)
from .mechanisms import MechanismAudit, audit_mechanism
from .onerun import fdp_family_epsilon, fdp_mu, fdp_p_value, fdp_rejects, one_run_epsilon, one_run_p_value
from .scores import ScoreAudit, audit_scores
from .thresholds import threshold_audit

__all__ = [
    "PEERS",
    "QUANTITIES",
    "AuditReport",
    "Finding",
    "MechanismAudit",
    "PeerCurve",
    "PeerFunction",
    "PeerNotInstalledError",
    "audit_accountant",
    "audit_curve",
    "audit_function",
    "audit_mechanism",
    "audit_scores",
    "fdp_family_epsilon",
    "fdp_mu",
    "fdp_p_value",
    "fdp_rejects",
    "grid",
    "one_run_epsilon",
    "one_run_p_value",
    "ScoreAudit",
    "threshold_audit",
]
