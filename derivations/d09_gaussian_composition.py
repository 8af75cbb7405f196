"""d09: G_mu1 (x) G_mu2 = G_sqrt(mu1^2 + mu2^2), exactly; the privacy losses add.

Claim.  The composition of two GDP guarantees is GDP with the root sum of squares (Dong, Roth &
Su 2022, Cor. 3.3): T(N(0, I_2), N((mu1, mu2), I_2)) = G_sqrt(mu1^2 + mu2^2).  The
same statement in the privacy-loss view the numerical composition uses: the losses
L_i ~ N(mu_i^2/2, mu_i^2) (d11) are independent, so L_1 + L_2 ~ N(M^2/2, M^2) with
M^2 = mu1^2 + mu2^2, the loss of G_M.

Assumptions.  mu1, mu2 > 0.

Steps.
1. The product pair is a 2-dimensional Gaussian mechanism with shift (mu1, mu2) and sigma = 1:
   by d02 its trade-off is G_{||(mu1, mu2)||} (the log-likelihood ratio is affine in the
   projection, checked here for this pair).
2. Means and variances of independent normal losses add: (mu1^2 + mu2^2)/2 and mu1^2 + mu2^2,
   which is (M^2/2, M^2).
3. The shipped compose() returns gaussian(sqrt(mu1^2 + mu2^2)) with symbolic parameters.
"""

from __future__ import annotations

import sympy

import gdpproof


def main() -> None:
    m1, m2 = sympy.symbols("mu1 mu2", positive=True)
    x1, x2 = sympy.symbols("x1 x2", real=True)
    # 1. log dQ/dP of N((m1, m2), I) against N(0, I) is affine in the projection on (m1, m2)
    log_ratio = (-(x1 - m1) ** 2 - (x2 - m2) ** 2 + x1**2 + x2**2) / 2
    norm2 = m1**2 + m2**2
    assert sympy.simplify(sympy.expand(log_ratio - ((m1 * x1 + m2 * x2) - norm2 / 2))) == 0
    # 2. losses add
    M = sympy.sqrt(norm2)
    assert sympy.simplify((m1**2 / 2 + m2**2 / 2) - M**2 / 2) == 0
    assert sympy.simplify((m1**2 + m2**2) - M**2) == 0
    # 3. what ships
    c = gdpproof.compose(gdpproof.gaussian(m1), gdpproof.gaussian(m2))
    assert c.name == "gaussian" and sympy.simplify(c.parameters["mu"] - M) == 0
    print("d09: G_mu1 (x) G_mu2 = G_sqrt(mu1^2+mu2^2); the privacy losses add: verified")


if __name__ == "__main__":
    main()
