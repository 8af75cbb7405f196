"""Audits: a black-box mechanism's privacy claim checked against samples of its outputs."""

from __future__ import annotations

from .mechanisms import MechanismAudit, audit_mechanism

__all__ = ["MechanismAudit", "audit_mechanism"]
