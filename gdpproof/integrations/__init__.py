"""Adapters that let training loops use gdpproof's proven numbers as their privacy accountant.

Each adapter implements a peer library's accountant interface and answers with the proven upper
end of :func:`gdpproof.account` (rounded up), so a training loop that already speaks that
interface gets an epsilon that is never below the true one:
:mod:`gdpproof.integrations.dp_accounting` (a ``dp_accounting.PrivacyAccountant`` taking
``DpEvent`` values; the ``peers`` extra installs dp_accounting) and
:mod:`gdpproof.integrations.opacus` (an ``opacus.accountants.IAccountant``; the ``opacus``
extra installs Opacus and a CPU build of torch, imported only when the class is first used).
This package imports nothing itself: importing it costs nothing and needs neither library.

How to use them: ``docs/guides/dpsgd.md`` ("Inside a training loop").
"""

from __future__ import annotations

__all__: list[str] = []
