"""d01: G_mu is the Neyman-Pearson trade-off of N(0,1) against N(mu,1), in the shipped form.

Claim.  G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) (Dong, Roth & Su 2022, Def. 2.7, from the
Neyman-Pearson lemma: the likelihood ratio of N(mu,1) to N(0,1) is increasing in x, so the most
powerful tests reject for large x).  gdpproof ships it as erfc(mu/sqrt 2 - erfcinv(2 alpha))/2,
which is exact in both tails; it is symmetric, G_mu(G_mu(alpha)) = alpha, and convex.

Assumptions.  mu >= 0, 0 < alpha < 1.

Steps.
1. The shipped form equals the textbook form (sympy closes it after erfcinv(2 - z) =
   -erfcinv(z); checked also at 50 digits).
2. The Neyman-Pearson construction from the normal density (gdpproof.location_family) gives the
   same function (1 - erfc(-z)/2 = erfc(z)/2, i.e. erfc(-z) = 2 - erfc(z)).
3. Symmetry G(G(alpha)) = alpha: symbolic (erfcinv(erfc(w)) = w), checked at 50 digits.
4. Convexity: G'' = mu sqrt(2 pi) exp(...) >= 0 (sympy simplifies G'' / (-G') to a positive form).
"""

from __future__ import annotations

import sympy

import gdpproof
from gdpproof.symbolic.tradeoff import GAUSSIAN
from gdpproof.symbols import Phi, Phi_inv, alpha, mu, x

try:
    from ._check import agree, random_points
except ImportError:  # run as a script
    from _check import agree, random_points


def main() -> None:
    textbook = Phi(Phi_inv(1 - alpha) - mu)
    points = random_points(1, 8, alpha=("0.000001", "0.999999"), mu=("0.01", "8"))

    # 1. shipped form = textbook form
    z = sympy.Symbol("z", positive=True)
    shipped_in_z = GAUSSIAN.xreplace({alpha: z / 2})
    textbook_in_z = textbook.xreplace({alpha: z / 2}).replace(
        lambda e: isinstance(e, sympy.erfcinv), lambda e: -sympy.erfcinv(2 - e.args[0]))
    assert sympy.simplify(sympy.expand(shipped_in_z - textbook_in_z)) == 0
    agree(GAUSSIAN, textbook, points)

    # 2. Neyman-Pearson construction from the normal density
    np_form = gdpproof.location_family(sympy.exp(-x**2 / 2) / sympy.sqrt(2 * sympy.pi), x).expr
    diff = sympy.expand((np_form - GAUSSIAN).rewrite(sympy.erf))
    assert sympy.simplify(diff) == 0
    agree(np_form, GAUSSIAN, points)

    # 3. symmetry: G(G(alpha)) = alpha
    twice = GAUSSIAN.xreplace({alpha: GAUSSIAN})
    # sympy does not apply erfcinv(erfc(w)) = w (true for real w) by itself: apply it, then close
    inverse_pair = twice.replace(
        lambda e: isinstance(e, sympy.erfcinv) and isinstance(e.args[0], sympy.erfc),
        lambda e: e.args[0].args[0])
    assert sympy.simplify(inverse_pair - alpha) == 0
    agree(twice, alpha, points)

    # 4. convexity: G''/(-G') is positive, and -G' > 0
    d1 = sympy.diff(GAUSSIAN, alpha)
    d2 = sympy.diff(GAUSSIAN, alpha, 2)
    ratio = sympy.simplify(d2 / (-d1))
    assert sympy.simplify(-d1).is_positive is not False
    agree(ratio, sympy.sqrt(2) * mu * sympy.sqrt(sympy.pi) * sympy.exp(sympy.erfcinv(2 * alpha) ** 2), points)
    print("d01: G_mu = Phi(Phi^-1(1-alpha) - mu) = NP(N(0,1), N(mu,1)); symmetric; convex: verified")


if __name__ == "__main__":
    main()
