"""Mechanism values translated into the engines' inputs: each value describes itself (its
closed-form trade-off, its (eps, delta) groups, its finite pairs, its privacy-loss laws: methods of
:class:`~gdpproof.mechanisms.Mechanism`), and this module compiles the descriptions the engines
take: the finite pairs' atoms indexed by their distinct eps, the laws compiled into privacy
losses; and how the exact answer relates to the two orderings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..mechanisms import (
    DiscreteGaussianMechanism,
    Mechanism,
)
if TYPE_CHECKING:
    from .finite import FiniteAtom, FiniteGroup
    from .losses import PrivacyLoss


def finite_pairs(m: Mechanism) -> tuple[list[tuple[tuple[FiniteAtom, ...], int]], bool] | None:
    """The leaves as finite pairs for :func:`~gdpproof.accounting.finite.pairs_delta` (each atom's
    likelihood ratio written as r e^{c eps_j}, eps_j the j-th distinct eps), and whether every pair
    is symmetric; None when some leaf's loss is not finitely supported
    (:meth:`Mechanism.finite_pairs`)."""
    described = m.finite_pairs()
    if described is None:
        return None
    pairs, symmetric = described
    eps_index: dict[Any, int] = {}
    leaves = [(tuple((a, b, r, c, 0 if eps is None else eps_index.setdefault(eps, len(eps_index)))
                     for a, b, r, c, eps in atoms), n) for atoms, n in pairs]
    return leaves, symmetric


def privacy_losses(m: Mechanism) -> tuple[list[tuple[PrivacyLoss, int]], bool, list[FiniteGroup]]:
    """The compiled losses of the leaves (leaves without privacy loss dropped), whether every
    parameter was a double (else it was rounded to the less private side), and the (eps, delta)
    leaves whose loss is infinite with probability delta (their finite part, randomized response
    with parameter eps, is among the losses): :meth:`Mechanism.privacy_losses` (families at exact
    values), evaluated by the kernels generated from :mod:`gdpproof.symbolic.losses`."""
    from .losses import loss_from_parameters, rounded_exactly_values

    laws, revealing = m.privacy_losses()
    return ([(loss_from_parameters(*law), n) for law, n in laws],
            all(rounded_exactly_values(*law) for law, _ in laws), revealing)


def exact_ordering(m: Mechanism) -> str:
    """How the exact routes' answer relates to the two orderings (under replace-one C_p is the
    pair's own, symmetric, curve)."""
    if (m.sampling() or ("", ""))[1] in ("add-remove", "mixed"):  # some part subsampled under add/remove
        return "the worse of remove and add (C_p)"
    return "both"


def single_discrete_gaussian(m: Mechanism) -> DiscreteGaussianMechanism | None:
    leaves = m.leaves()
    if len(leaves) == 1 and leaves[0][1] == 1 and isinstance(leaves[0][0], DiscreteGaussianMechanism):
        return leaves[0][0]
    return None
