"""d04: the privacy profile of G_mu, its touching point, and the safer forms gdpproof evaluates.

Claim.  For G_mu, delta(eps) = 1 + G_mu*(-e^eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
(Dong, Roth & Su 2022, Prop. 2.12 and Cor. 2.13), the supporting line 1 - delta - e^eps alpha
touching G_mu at alpha* = Phi(-eps/mu - mu/2).  The shipped rewrites equal it: the erfcx form
e^{-x^2/2}(erfcx(x/sqrt 2) - erfcx((x + mu)/sqrt 2))/2 with x = eps/mu - mu/2, and the log form
(log1p of the complementary probability when x < 0, the erfcx form's logarithm otherwise).

Assumptions.  mu > 0, eps >= 0.

Steps.
1. G_mu'(alpha*) = -e^eps: the stationarity condition of sup_alpha(-e^eps alpha - G_mu(alpha)).
2. 1 + (-e^eps alpha* - G_mu(alpha*)) simplifies to the shipped GAUSSIAN_DUAL.
3. GAUSSIAN_DUAL_SCALED rewritten through erfc equals GAUSSIAN_DUAL (sympy closes it).
4. Both branches of GAUSSIAN_LOG_DUAL equal log(GAUSSIAN_DUAL): sympy shows the log1p argument
   is delta - 1; the logarithms themselves are checked at 50 digits on each side of x = 0
   (sympy does not simplify the log of a difference).
"""

from __future__ import annotations

import sympy
from sympy.codegen.cfunctions import log1p

from gdpproof.symbolic.duality import GAUSSIAN_TOUCHING_ALPHA
from gdpproof.symbolic.special import erfcx
from gdpproof.symbolic.tradeoff import GAUSSIAN, GAUSSIAN_DUAL, GAUSSIAN_DUAL_SCALED, GAUSSIAN_LOG_DUAL
from gdpproof.symbols import alpha, epsilon, mu

try:
    from ._check import agree, random_points
except ImportError:  # run as a script
    from _check import agree, random_points


def _erfcinv_of_erfc(e: sympy.Expr) -> sympy.Expr:
    return e.replace(lambda t: isinstance(t, sympy.erfcinv) and isinstance(t.args[0], sympy.erfc),
                     lambda t: t.args[0].args[0])


def main() -> None:
    a_star = GAUSSIAN_TOUCHING_ALPHA
    # 1. stationarity at the touching point
    slope = _erfcinv_of_erfc(sympy.diff(GAUSSIAN, alpha).xreplace({alpha: a_star}))
    assert sympy.simplify(slope + sympy.exp(epsilon)) == 0

    # 2. the conjugate at the touching point gives the closed form
    g_at = _erfcinv_of_erfc(GAUSSIAN.xreplace({alpha: a_star}))
    profile = 1 - sympy.exp(epsilon) * a_star - g_at
    assert sympy.simplify((profile - GAUSSIAN_DUAL).rewrite(sympy.erf)) == 0

    # 3. the erfcx form
    assert sympy.simplify(GAUSSIAN_DUAL_SCALED.rewrite(sympy.erfc) - GAUSSIAN_DUAL) == 0

    # 4. the log form, both branches
    near_one, tail = GAUSSIAN_LOG_DUAL.args[0][0], GAUSSIAN_LOG_DUAL.args[1][0]
    # the log1p argument is delta - 1 (sympy closes this after erfc -> erf)
    (inner,) = near_one.args
    assert isinstance(near_one, log1p)
    assert sympy.simplify((inner - (GAUSSIAN_DUAL - 1)).rewrite(sympy.erf)) == 0
    below = random_points(4, 6, mu=("2", "9"), epsilon=("0", "1"))  # x = eps/mu - mu/2 < 0
    above = random_points(5, 6, mu=("0.05", "3"), epsilon=("2", "40"))  # x > 0
    agree(near_one, sympy.log(GAUSSIAN_DUAL), below)
    agree(tail.replace(erfcx, lambda z: sympy.exp(z**2) * sympy.erfc(z)), sympy.log(GAUSSIAN_DUAL), above)
    agree(GAUSSIAN_LOG_DUAL, sympy.log(GAUSSIAN_DUAL), below + above)
    print("d04: delta(eps) = 1 + G_mu*(-e^eps), touching at Phi(-eps/mu - mu/2); erfcx and log forms: verified")


if __name__ == "__main__":
    main()
