"""Mechanism values translated into the engines' inputs, in one place: the closed-form trade-off
(exact route), the finite pairs and (eps, delta) groups (exact-finite route), the compiled privacy
losses with the revealing (eps, delta) leaves (bracket route), and how the exact answer relates to
the two orderings.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import InvalidParameterError, NotSupportedError, SymbolicError
from ..mechanisms.numbers import sympy_rational
from ..mechanisms import (
    GDP,
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    EpsDelta,
    FiniteMechanism,
    GaussianMechanism,
    Mechanism,
    PureDP,
    RandomizedResponse,
    Subsampled,
)
from .losses import PrivacyLoss, loss_from_law, loss_from_parameters, rounded_exactly, rounded_exactly_values

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sympy

    from ..symbolic.tradeoff import TradeOff
    from .finite import FiniteAtom

#: The largest sensitivity of a discrete Laplace mechanism composed on the exact-finite route (its
#: pair has Delta + 1 outputs, each mass a ball of exponentials); beyond, the bracket.
MAX_DL_OUTPUTS = 256
#: A finite pair with more outcomes is not given the closed-form route (its sympy curve took 4 s at
#: 16 outcomes); the exact-finite route composes it.
CLOSED_FORM_OUTCOMES = 8


def closed_form(m: Mechanism) -> TradeOff | None:
    mu = m.gdp_mu()
    if mu is not None:
        from ..symbolic.tradeoff import gaussian

        return gaussian(mu)
    leaves = m.leaves()
    if len(leaves) > 1 and m.finite_support():
        # a composition of different finitely supported mechanisms: its exact curve is a sympy Max
        # over every product outcome (minutes for four randomized responses), while the
        # exact-finite route composes the same pairs in integers and balls
        return None
    for leaf, n in leaves:
        if isinstance(leaf, Subsampled) and n > 1 and leaf.sample_rate != 1 and \
                isinstance(leaf.mechanism, (GaussianMechanism, GDP)) and leaf.mechanism.gdp_mu() != 0:
            return None  # T steps of a subsampled Gaussian (DP-SGD): self_compose refuses C_p(G_mu), decided here
        if isinstance(leaf, DiscreteLaplaceMechanism):
            return None  # its curve's kinks are exponentials sympy orders slowly: exact-finite is faster
        if isinstance(leaf, FiniteMechanism) and len(leaf.P) > CLOSED_FORM_OUTCOMES:
            return None  # sympy's Max of its pieces compares them pairwise: exact-finite is faster
        # n copies of (eps, delta) carry (1 - delta)^n as an exact rational: millions of digits
        # for large n, which the exact-finite route evaluates in balls instead
        if isinstance(leaf, EpsDelta) and leaf.delta != 0 and n > 4096:
            return None
    try:
        return m.tradeoff()
    except (NotSupportedError, SymbolicError, InvalidParameterError):
        return None


def finite_groups(m: Mechanism) -> list[tuple[sympy.Expr, sympy.Expr, int]] | None:
    if not all(isinstance(leaf, (RandomizedResponse, PureDP, EpsDelta)) for leaf, _ in m.leaves()):
        return None
    import sympy

    groups = []
    for leaf, n in m.leaves():
        if isinstance(leaf, RandomizedResponse) and leaf.k != 2:
            return None
        if isinstance(leaf, (RandomizedResponse, PureDP)):
            groups.append((sympy_rational(leaf.epsilon), sympy.Integer(0), n))
        elif isinstance(leaf, EpsDelta):
            groups.append((sympy_rational(leaf.epsilon), sympy_rational(leaf.delta), n))
        else:
            return None
    return groups


def finite_pairs(m: Mechanism) -> tuple[list[tuple[tuple[FiniteAtom, ...], int]], bool] | None:
    """The leaves as finite pairs for :func:`~gdpproof.accounting.finite.pairs_delta` (each atom's
    likelihood ratio written as r e^{c eps_j}), and whether every pair is symmetric; None when
    some leaf's loss is not finitely supported."""
    if not m.finite_support():
        return None
    import sympy

    eps_index: dict[sympy.Expr, int] = {}
    leaves = []
    symmetric = True
    for leaf, n in m.leaves():
        if isinstance(leaf, FiniteMechanism):
            atoms = tuple((a, b, None if b == 0 else Fraction(int((a / b).p), int((a / b).q)), 0, 0)
                          for a, b in leaf.masses())
            symmetric = symmetric and leaf.symmetric()
        elif isinstance(leaf, DiscreteLaplaceMechanism) and leaf.sensitivity > MAX_DL_OUTPUTS:
            return None  # a ball per output and atom: beyond this the bracket is faster
        elif isinstance(leaf, DiscreteLaplaceMechanism):
            # the output x <= 0, x = 1..Delta - 1, x >= Delta has ratio e^{(Delta - 2 min(max(x, 0), Delta)) / scale}
            j = eps_index.setdefault(sympy_rational(1 / leaf.scale), len(eps_index))
            d = leaf.sensitivity
            atoms = tuple((a, b, Fraction(1), d - 2 * i, j) for i, (a, b) in enumerate(leaf.masses()))
        elif isinstance(leaf, (RandomizedResponse, PureDP, EpsDelta)):
            k = leaf.k if isinstance(leaf, RandomizedResponse) else 2
            j = eps_index.setdefault(sympy_rational(leaf.epsilon), len(eps_index))
            keep = 1 - sympy_rational(leaf.delta) if isinstance(leaf, EpsDelta) else sympy.Integer(1)
            rr = RandomizedResponse(leaf.epsilon, k).masses()
            # the outputs: the first true value (ratio e^eps), the second (e^-eps), the k - 2 others (1)
            atoms = tuple((keep * a, keep * b, Fraction(1), c, j) for (a, b), c in zip(rr, (1, -1, 0)))
            if isinstance(leaf, EpsDelta) and leaf.delta != 0:
                d = sympy_rational(leaf.delta)
                atoms += ((d, sympy.Integer(0), None, 0, 0), (sympy.Integer(0), d, Fraction(0), 0, 0))
        else:
            return None
        leaves.append((atoms, n))
    return leaves, symmetric


def privacy_losses(m: Mechanism) -> tuple[list[tuple[PrivacyLoss, int]], bool, list[tuple[sympy.Expr, sympy.Expr, int]]]:
    """The compiled losses of the leaves (leaves without privacy loss dropped), whether every
    parameter was a double (else it was rounded to the less private side), and the (eps, delta)
    leaves whose loss is infinite with probability delta (their finite part, randomized response
    with parameter eps, is among the losses)."""
    parts: list[tuple[PrivacyLoss, int]] = []
    exact = True
    revealing = []
    for leaf, n in m.leaves():
        if isinstance(leaf, (GDP, GaussianMechanism)) and leaf._leaf_mu() == 0:
            continue  # no privacy loss
        if isinstance(leaf, EpsDelta) and leaf.delta != 0:
            revealing.append((leaf.epsilon, leaf.delta, n))
            if leaf.epsilon == 0:
                continue
            params = RandomizedResponse(leaf.epsilon).loss_parameters()
        elif isinstance(leaf, (RandomizedResponse, PureDP, EpsDelta)) and leaf.epsilon == 0:
            continue
        else:
            params = leaf.loss_parameters()
        if params is None:  # a law built by sympy (the discrete families, exact parameters)
            law = leaf.loss_law()
            exact = exact and rounded_exactly(law)
            parts.append((loss_from_law(law), n))
            continue
        exact = exact and rounded_exactly_values(params[1])
        parts.append((loss_from_parameters(*params), n))
    return parts, exact, revealing


def exact_ordering(m: Mechanism) -> str:
    """How the exact routes' answer relates to the two orderings (under replace-one C_p is the
    pair's own, symmetric, curve)."""
    if any(isinstance(leaf, Subsampled) and leaf.neighbours == "add-remove" for leaf, _ in m.leaves()):
        return "the worse of remove and add (C_p)"
    return "both"


def single_discrete_gaussian(m: Mechanism) -> DiscreteGaussianMechanism | None:
    leaves = m.leaves()
    if len(leaves) == 1 and leaves[0][1] == 1 and isinstance(leaves[0][0], DiscreteGaussianMechanism):
        return leaves[0][0]
    return None
