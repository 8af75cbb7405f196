"""Type aliases shared by the public API."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import TypeAlias, Union

import sympy
from mpmath import mpf

#: A real number in any of the forms every public numeric argument accepts.  A ``str`` is a
#: decimal (or ``p/q``) literal taken exactly: ``"0.1"`` is 1/10, not the nearest double.
Real: TypeAlias = Union[int, float, Fraction, Decimal, mpf, str]

#: A parameter of a symbolic object: a real number or a sympy expression.
Param: TypeAlias = Union[Real, sympy.Expr]

__all__ = ["Real", "Param"]
