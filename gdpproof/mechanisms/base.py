"""The base of every mechanism value: :class:`Mechanism`, what a whole value (a composition of
base mechanisms) answers, from what each base mechanism answers for itself.

Each route of :func:`gdpproof.account` asks the value one question (its closed-form trade-off,
its (eps, delta) groups, its finite pairs, its privacy losses); the value answers by walking its
leaves and asking each the same of itself.  A new mechanism is one class in
:mod:`gdpproof.mechanisms.values` that answers the leaf questions it can (the defaults here say
"not this way").
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..errors import MISSING, InvalidParameterError, NotSupportedError, SymbolicError, bad
from .._args import sympy_rational
from .numbers import exact_sqrt
from .numbers import symbolic_composition as _composition, symbolic_losses as _sl, symbolic_tradeoffs as _tradeoffs
from .numbers import sympy_module as _sympy

if TYPE_CHECKING:
    import sympy

    from ..symbolic import losses as sl
    from ..symbolic.tradeoff import TradeOff

__all__ = ["Mechanism", "MAX_NESTING", "MAX_RUNS", "MAX_PRODUCT_ATOMS", "LikelihoodAtom", "set_frozen"]

#: How deep mechanisms may nest (Composed, Repeated, subsampling), and the most runs of one
#: mechanism a nesting of Repeated may make (the product of their times): checked when a value is
#: built, so no walk over it recurses past Python's limit and no route is asked for 10^360 runs.
MAX_NESTING, MAX_RUNS = 100, 10**9

#: The most atoms (outputs of the composed pair) whose exact curve Mechanism.tradeoff builds for a
#: composition of finitely supported mechanisms: the curve has a vertex per atom, in sympy.
MAX_PRODUCT_ATOMS = 256

#: One output of a finite worst pair: (P(o), Q(o), r, c, eps), its likelihood ratio P(o)/Q(o)
#: written r e^{c eps} (r a Fraction, c an integer, eps a sympy number or None when c is 0);
#: r None is an output only P can give (ratio +inf), r = 0 one only Q can give.
LikelihoodAtom = tuple[Any, Any, Any, int, Any]


class Mechanism:
    """A description of what ran.  Subclasses are frozen dataclasses with exact parameters.

    Every value answers what the routes of :func:`gdpproof.account` ask of it (its closed form, its
    (eps, delta) groups, its finite pairs, its privacy losses), from what each of its base
    mechanisms (:meth:`leaves`) answers for itself.

    Examples:
        >>> from gdpproof.mechanisms import GDP, Repeated
        >>> m = Repeated(GDP(1), 4)
        >>> m.leaves(), m.gdp_mu()
        ([(GDP(mu=1), 4)], Fraction(2, 1))
    """

    #: nesting depth and the most runs of one leaf inside (set by the wrappers when built)
    _depth = 1
    _runs = 1

    def _nest(self, inner: tuple[Mechanism, ...], times: int = 1) -> None:
        """Record this wrapper's depth and runs from its ``inner`` mechanisms; refuse a value past
        MAX_NESTING or MAX_RUNS."""
        depth = 1 + max(m._depth for m in inner)
        runs = times * max(m._runs for m in inner)
        if depth > MAX_NESTING:
            raise InvalidParameterError(argument="mechanisms", value=MISSING,
                                        rule=f"nest {depth} deep, more than {MAX_NESTING}")
        if runs > MAX_RUNS:
            raise bad("times", times, f"makes {runs:,} runs of one mechanism with the repetitions inside it, "
                                      f"more than 10^9")
        object.__setattr__(self, "_depth", depth)
        object.__setattr__(self, "_runs", runs)

    def leaves(self) -> list[tuple[Mechanism, int]]:
        """The base mechanisms with their multiplicities (composition is commutative), equal
        leaves merged, in order of first appearance."""
        counts: dict[Mechanism, int] = {}
        for leaf, n in self._walk(1):
            counts[leaf] = counts.get(leaf, 0) + n
        return list(counts.items())

    def _walk(self, times: int) -> Iterator[tuple[Mechanism, int]]:
        yield self, times

    def gdp_mu(self) -> sympy.Expr | None:
        """The exact mu when the mechanism is exactly mu-GDP (Gaussian mechanisms and their
        compositions: G_mu1 (x) ... (x) G_mun = G_sqrt(sum mu_i^2)); None otherwise."""
        terms = []
        for leaf, n in self.leaves():
            m = leaf._leaf_mu()
            if m is None:
                return None
            terms.append(n * m**2)
        if all(isinstance(t, Fraction) for t in terms):  # rational mu_i: the exact sum without sympy
            total = sum(terms, Fraction(0))
            root = exact_sqrt(total) if max(total.numerator.bit_length(), total.denominator.bit_length()) <= 8192 \
                else None
            if root is not None:
                return root
        return _composition().root_of_sum([sympy_rational(t) for t in terms])

    def tradeoff(self) -> TradeOff:
        """The trade-off function in closed form, where gdpproof knows one.

        Raises NotSupportedError otherwise (then :func:`gdpproof.account` still gives a proven
        bracket)."""
        leaves = self.leaves()
        if len(leaves) == 1:
            leaf, n = leaves[0]
            return leaf._leaf_tradeoff() if n == 1 else leaf._repeated_tradeoff(n)
        try:
            comp = _composition()
            return comp.compose(*(comp.self_compose(leaf._leaf_tradeoff(), n) if n > 1 else leaf._leaf_tradeoff()
                                  for leaf, n in leaves))
        except NotSupportedError:
            f = _finite_product(leaves)  # finitely supported leaves: the product pair's exact curve
            if f is None:
                raise
            return f

    def closed_form(self) -> TradeOff | None:
        """The trade-off function the exact route evaluates, or None when this value is better
        accounted another way (no closed form, or one sympy would take long to evaluate while the
        exact-finite route composes the same pairs in integers and balls)."""
        mu = self.gdp_mu()
        if mu is not None:
            return _tradeoffs().gaussian(mu)
        leaves = self.leaves()
        if len(leaves) > 1 and self.finite_support():
            # a composition of different finitely supported mechanisms: its exact curve is a sympy Max
            # over every product outcome (minutes for four randomized responses)
            return None
        if any(leaf._closed_form_is_slow(n) for leaf, n in leaves):
            return None
        try:
            return self.tradeoff()
        except (NotSupportedError, SymbolicError, InvalidParameterError):
            return None

    def eps_delta_groups(self) -> list[tuple[sympy.Expr, sympy.Expr, int]] | None:
        """(eps, delta, count) for each leaf when every leaf is exactly some (eps, delta)-DP worst
        pair (:meth:`as_eps_delta`; delta = 0 is randomized response), else None."""
        groups = []
        for leaf, n in self.leaves():
            pair = leaf.as_eps_delta()
            if pair is None:
                return None
            groups.append((pair[0], pair[1], n))
        return groups

    def finite_pairs(self) -> tuple[list[tuple[tuple[LikelihoodAtom, ...], int]], bool] | None:
        """Each leaf's worst pair as likelihood atoms (:meth:`finite_pair`) with its count, and
        whether every pair is symmetric; None when some leaf's loss is not finitely supported or is
        better bracketed (:meth:`_exact_finite_is_slow`)."""
        leaves = []
        symmetric = True
        for leaf, n in self.leaves():
            atoms = None if leaf._exact_finite_is_slow() else leaf.finite_pair()
            if atoms is None:
                return None
            symmetric = symmetric and leaf.symmetric()
            leaves.append((atoms, n))
        return leaves, symmetric

    def privacy_losses(self) -> tuple[list[tuple[tuple[str, tuple[Any, ...]], int]], list[tuple[Any, Any, int]]]:
        """The leaves' privacy losses as (family, exact values) (:meth:`loss_parameters`) with their
        counts (leaves without privacy loss dropped), and the (eps, delta, count) of the leaves whose
        loss is infinite with probability delta (their finite part, randomized response with
        parameter eps, is among the laws); without sympy for rational parameters."""
        laws, revealing = [], []
        for leaf, n in self.leaves():
            pair = leaf.revealing()
            if pair is not None:
                revealing.append((pair[0], pair[1], n))
            law = leaf.finite_loss_parameters()
            if law is not None:
                laws.append((law, n))
        return laws, revealing

    def loss_parameters(self) -> tuple[str, tuple[Any, ...]]:
        """The family of a base mechanism's privacy loss and its exact parameter values, what the
        engines compose, without sympy.

        Returns:
            (family, values): a name of :mod:`gdpproof.symbolic.losses` and its parameters
            (Fractions, or sympy numbers where the user gave them).

        Raises:
            NotSupportedError: A composite value (use :meth:`leaves`), or a mechanism whose loss is
                infinite with positive probability ((eps, delta) with delta > 0).

        Examples:
            >>> from gdpproof.mechanisms import GaussianMechanism
            >>> GaussianMechanism(2).loss_parameters()
            ('gaussian', (Fraction(1, 2),))
        """
        raise NotSupportedError(f"{self!r} has no privacy-loss law of its own (it is not a base mechanism)")

    def loss_law(self) -> sl.LossLaw:
        """The laws of the privacy loss of a base mechanism's worst pair, in both orderings: the
        sympy expressions of its family (:meth:`loss_parameters`) at its parameters.

        Raises NotSupportedError for composite values (use :meth:`leaves`) and for mechanisms
        whose loss is infinite with positive probability ((eps, delta) with delta > 0)."""
        family, values = self.loss_parameters()
        sl = _sl()
        return sl.LossLaw(sl.FAMILIES[family], tuple(sympy_rational(v) for v in values))

    def dpsgd_parameters(self) -> tuple[sympy.Expr, sympy.Expr, int] | None:
        """(noise_multiplier, sample_rate, steps) when the value is DP-SGD (T runs of a subsampled
        Gaussian mechanism: Poisson or fixed-size batches, whose rate is B/N), else None; the
        noise multiplier is sigma over the sensitivity.  :meth:`sampling` names the scheme.

        >>> from gdpproof.mechanisms import dpsgd
        >>> dpsgd(1, "0.01", 100).dpsgd_parameters()
        (Fraction(1, 1), Fraction(1, 100), 100)
        """
        leaves = self.leaves()
        if len(leaves) != 1:
            return None
        leaf, steps = leaves[0]
        step = leaf._subsampled_gaussian()
        if step is None or step[0] == 0:
            return None
        return 1 / step[0], step[1], steps

    def sampling(self) -> tuple[str, str] | None:
        """(scheme, neighbours) of the subsampled parts: scheme "poisson" or "fixed-batch",
        neighbours "add-remove" or "replace-one"; "mixed" for either when the parts differ; None
        when nothing is subsampled.

        >>> from gdpproof.mechanisms import dpsgd
        >>> dpsgd(1, "0.01", 100, sampling="fixed-batch").sampling()
        ('fixed-batch', 'replace-one')
        """
        kinds = {k for k in (leaf._subsampling() for leaf, _ in self.leaves()) if k is not None}
        if not kinds:
            return None
        schemes, relations = {k[0] for k in kinds}, {k[1] for k in kinds}
        return (schemes.pop() if len(schemes) == 1 else "mixed", relations.pop() if len(relations) == 1 else "mixed")

    def finite_support(self) -> bool:
        """True when every base mechanism's privacy loss takes finitely many values."""
        return all(leaf._finite_loss for leaf, _ in self.leaves())

    # --- what a base mechanism answers for itself (the defaults: "not this way") -----------------

    #: whether the privacy loss takes finitely many values (then :meth:`finite_pair` gives them)
    _finite_loss = False

    def _leaf_mu(self) -> sympy.Expr | None:
        """mu when this base mechanism is exactly mu-GDP, else None."""
        return None

    def _leaf_tradeoff(self) -> TradeOff:
        raise NotSupportedError(f"{self!r} has no closed-form trade-off function in gdpproof")

    def _repeated_tradeoff(self, times: int) -> TradeOff:
        """The closed-form trade-off of ``times`` runs of this base mechanism."""
        return _composition().self_compose(self._leaf_tradeoff(), times)

    def _closed_form_is_slow(self, times: int) -> bool:
        """True when ``times`` runs are better composed exactly in integers and balls than through
        sympy's closed form."""
        return False

    def _exact_finite_is_slow(self) -> bool:
        """True when the numerical bracket is faster than the exact-finite route for this pair."""
        return False

    def as_eps_delta(self) -> tuple[sympy.Expr, sympy.Expr] | None:
        """(eps, delta) when this base mechanism's worst pair is exactly that of (eps, delta)-DP
        (randomized response on mass 1 - delta; Kairouz, Oh & Viswanath 2015), else None."""
        return None

    def finite_pair(self) -> tuple[LikelihoodAtom, ...] | None:
        """The worst pair as likelihood atoms (:data:`LikelihoodAtom`) when its privacy loss is
        finitely supported, else None."""
        return None

    def symmetric(self) -> bool:
        """True when swapping the worst pair's two laws gives the same trade-off (T(P, Q) = T(Q, P)),
        as it does for every named base mechanism that is not subsampled under add/remove."""
        return True

    def revealing(self) -> tuple[sympy.Expr, sympy.Expr] | None:
        """(eps, delta) when the privacy loss is infinite with probability delta > 0, else None."""
        return None

    def finite_loss_parameters(self) -> tuple[str, tuple[Any, ...]] | None:
        """The law of the finite part of the privacy loss as (family, exact values), as the
        numerical bracket composes it (:meth:`loss_parameters`; for (eps, delta) with delta > 0 its
        randomized response), or None when the loss is 0."""
        return self.loss_parameters()

    def _subsampled_gaussian(self) -> tuple[sympy.Expr, sympy.Expr] | None:
        """(mu, sample_rate) of a subsampled Gaussian step, else None."""
        return None

    def _subsampling(self) -> tuple[str, str] | None:
        """(scheme, neighbours) of a subsampled base mechanism, else None."""
        return None

    def sampler(self, times: int = 1, *, whole: Mechanism | None = None) -> Any:
        """The Monte Carlo sampler of ``times`` runs of this mechanism (a
        :class:`gdpproof.simulation.Sampler`, its parameters as doubles), so that ``simulate``
        and ``account`` take the same mechanism values.

        Args:
            times: How many runs the sampler composes.
            whole: The value the user gave, named in an error (``self`` when None).

        Returns:
            The sampler.

        Raises:
            NotSupportedError: The simulation has no sampler for this mechanism.
            InvalidParameterError: A parameter is not a finite double > 0.

        Examples:
            >>> from gdpproof.mechanisms import mechanism_from_spec
            >>> mechanism_from_spec("gaussian:sigma=2,times=4").sampler().name
            'gaussian_mechanism(sensitivity=1, sigma=2, dim=1, steps=4)'
        """
        raise NotSupportedError(f"{whole or self!r}: simulate has no sampler for it (it simulates gaussian, gdp, "
                                "gaussian with sample-rate under add-remove, laplace, rr, pure-dp and "
                                "discrete-gaussian)")


def set_frozen(obj: Any, **values: Any) -> None:
    """Set fields of a frozen dataclass value while it is being built (its validated parameters)."""
    for k, v in values.items():
        object.__setattr__(obj, k, v)


def _finite_product(leaves: list[tuple[Mechanism, int]]) -> TradeOff | None:
    """The exact trade-off of a composition of finitely supported leaves: the Neyman-Pearson curve
    of the product pair (:func:`~gdpproof.symbolic.tradeoff.finite_tradeoff`), piecewise linear;
    None when some leaf is not finitely supported or the product has more than MAX_PRODUCT_ATOMS
    outputs."""
    pairs = [(leaf.finite_pair(), n) for leaf, n in leaves]
    if any(p is None for p, _ in pairs):
        return None
    masses = [(tuple((a, b) for a, b, *_ in p), n) for p, n in pairs]  # type: ignore[union-attr]
    size = 1
    for m, n in masses:
        size *= len(m) ** n
        if size > MAX_PRODUCT_ATOMS:
            return None
    sympy = _sympy()
    product = [(sympy.Integer(1), sympy.Integer(1))]
    for m, n in masses:
        for _ in range(n):
            product = [(a * p, b * q) for a, b in product for p, q in m]
    return _tradeoffs().finite_tradeoff(product)

