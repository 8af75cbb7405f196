"""Audits: third-party accountants against gdpproof's certified values.

:mod:`gdpproof.audit.accountants` compares a peer's functions (delta from (mu, eps), eps from
(mu, delta), mu and sigma from (eps, delta), DP-SGD epsilon and mu, trade-off curves) with the
certified references and classifies every discrepancy as unsafe, conservative or an error;
:mod:`gdpproof.audit.adapters` adapts the libraries people use.
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

__all__ = [
    "PEERS",
    "QUANTITIES",
    "AuditReport",
    "Finding",
    "PeerCurve",
    "PeerFunction",
    "PeerNotInstalledError",
    "audit_accountant",
    "audit_curve",
    "audit_function",
    "grid",
]
