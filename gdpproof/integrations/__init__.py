"""Adapters that let training loops use gdpproof's proven numbers as their privacy accountant.

Each adapter implements a peer library's accountant interface and answers with the proven upper
end of :func:`gdpproof.account` (rounded up), so a training loop that already speaks that
interface gets an epsilon that is never below the true one:

``gdpproof.integrations.dp_accounting``
    :class:`~gdpproof.integrations.dp_accounting.GdpproofAccountant`, a
    ``dp_accounting.PrivacyAccountant`` that takes ``DpEvent`` values (the ``peers`` extra
    installs dp_accounting), and :func:`~gdpproof.integrations.dp_accounting.mechanism_from_event`,
    the one mapping from events to gdpproof mechanism values.
``gdpproof.integrations.opacus``
    ``GdpproofAccountant``, an ``opacus.accountants.IAccountant`` (the ``opacus`` extra installs
    Opacus and a CPU build of torch); Opacus, and so torch, is imported only when the class is
    first used.

This package imports nothing itself: importing it costs nothing and needs neither library.
"""

from __future__ import annotations

__all__: list[str] = []
