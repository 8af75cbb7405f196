"""Audits: other implementations checked against gdpproof.

* :mod:`gdpproof.audit.accountants` compares a peer's functions (delta from (mu, eps), eps from
  (mu, delta), mu and sigma from (eps, delta), DP-SGD epsilon and mu, trade-off curves) with the
  certified references and classifies every discrepancy as unsafe, conservative or an error;
  :mod:`gdpproof.audit.adapters` adapts the libraries people use.
* :mod:`gdpproof.audit.mechanisms` checks a black-box mechanism's privacy claim against samples
  of its outputs (a lower confidence bound on its mu).
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
    "grid",
]
