"""Special functions sympy lacks, defined for the numerically safer forms of the formulas."""

from __future__ import annotations

import sympy
from sympy import S, erfc, exp, pi, sqrt

__all__ = ["erfcx"]


class erfcx(sympy.Function):
    r"""The scaled complementary error function, erfcx(z) = e^{z^2} erfc(z).

    erfc(z) underflows for z > 27 in double precision and loses relative accuracy in some ball
    libraries; erfcx(z) ~ 1/(z sqrt(pi)) is of moderate size for every z >= 0, so formulas
    rewritten through it neither underflow nor cancel in their exponential factors.  Its
    ``rewrite(erfc)`` form is how derivations prove such rewrites equal to the textbook forms.
    """

    nargs = 1

    @classmethod
    def eval(cls, z: sympy.Expr) -> sympy.Expr | None:
        if z is S.Zero:
            return S.One
        if z is S.Infinity:
            return S.Zero
        return None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        z = self.args[0]
        return 2 * z * erfcx(z) - 2 / sqrt(pi)

    def _eval_rewrite_as_erfc(self, z: sympy.Expr, **kwargs: object) -> sympy.Expr:
        return exp(z**2) * erfc(z)

    def _eval_is_positive(self) -> bool | None:
        return True if self.args[0].is_real else None
