"""Certified digits: sympy expressions evaluated in arb ball arithmetic, rounded safely.

An expression is compiled once into a tree of arb operations (:func:`arb_function`).  To get
``digits`` significant digits, :func:`certify` evaluates it at a working precision of about
``3.33 * digits + 32`` bits and doubles the precision until every number in the resulting ball
rounds to the same ``digits``-digit decimal in the requested direction.  That decimal is then
right by construction: rounding is monotone, and the exact value lies in the ball.

When the ball never decides (the exact value *is* a ``digits``-digit decimal, such as
``f(0) = 1``, or an endpoint where an intermediate is infinite), the expression is evaluated
exactly by sympy; if that gives a rational number it is rounded exactly.  Otherwise
:class:`~gdpproof.errors.PrecisionError` is raised.  Nothing is returned that was not proven.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal

import flint
import sympy

from .._args import exact_floats
from ..errors import InvalidParameterError, PrecisionError
from ._mp import arb_endpoints, arb_from_exact, arb_precision
from ..symbolic.special import fold

__all__ = [
    "Certified",
    "Rounding",
    "arb_function",
    "certify",
    "certify_enclosure",
    "round_fraction",
    "working_bits",
]

Rounding = Literal["up", "down", "nearest"]
_ROUNDINGS = ("up", "down", "nearest")

#: Precision ceiling in bits for the doubling loop (about 20,000 decimal digits).
MAX_BITS = 1 << 16
#: Largest number of digits a result may have (Python refuses to print ints above 4300 digits).
MAX_DIGITS = 4000


class Certified(Decimal):
    """A decimal number whose every printed digit is proven.

    A :class:`decimal.Decimal` (so it prints, compares and converts exactly) that also records
    how it was obtained:

    ``digits``
        the number of significant digits certified;
    ``rounding``
        ``"up"``: the value is the exact result rounded towards +inf (an upper bound);
        ``"down"``: rounded towards -inf (a lower bound); ``"nearest"``: error at most half a
        unit in the last place;
    ``method``
        ``"arb"`` (ball arithmetic), ``"exact"`` (exact rational arithmetic) or
        ``"mpmath-2prec"`` (agreement of two mpmath precisions).

    Arithmetic on a ``Certified`` gives a plain ``Decimal``: a derived number is no longer
    certified.

    Examples
    --------
    >>> import gdpproof
    >>> v = gdpproof.gaussian(1).evaluate("0.05", digits=12)
    >>> v
    Certified('0.740488977158', digits=12, rounding='down')
    >>> v.rounding, v.method
    ('down', 'arb')
    """

    __slots__ = ("digits", "rounding", "method")

    digits: int
    rounding: str
    method: str

    def __new__(cls, value: Any, *, digits: int, rounding: str, method: str) -> "Certified":
        obj = super().__new__(cls, value)
        obj.digits = digits
        obj.rounding = rounding
        obj.method = method
        return obj

    def __repr__(self) -> str:
        return f"Certified('{self}', digits={self.digits}, rounding='{self.rounding}')"

    def __reduce__(self) -> Any:
        return (_rebuild, (str(self), self.digits, self.rounding, self.method))

    def to_fraction(self) -> Fraction:
        """The exact rational value of the printed decimal."""
        num, den = self.as_integer_ratio()
        return Fraction(num, den)

    def enclosure(self) -> tuple[Fraction, Fraction]:
        """An interval [lo, hi] of rationals that contains the exact value (finite values only).

        From the rounding: up gives [c - ulp, c], down [c, c + ulp], nearest [c - ulp/2,
        c + ulp/2], with ulp one unit in the last of ``digits`` digits; an exact value or zero
        (a non-zero value never rounds to zero) gives [c, c].

        Examples
        --------
        >>> import gdpproof
        >>> gdpproof.delta_from_epsilon(1, 1, digits=3).enclosure()
        (Fraction(63, 500), Fraction(127, 1000))
        """
        if not self.is_finite():
            raise InvalidParameterError(f"{self!r} is not finite: it has no rational enclosure")
        x = self.to_fraction()
        if self.method == "exact" or x == 0:
            return x, x
        ulp = Fraction(10) ** (self.adjusted() - self.digits + 1)
        if self.rounding == "up":
            return x - ulp, x
        if self.rounding == "down":
            return x, x + ulp
        return x - ulp / 2, x + ulp / 2


def _rebuild(text: str, digits: int, rounding: str, method: str) -> Certified:
    return Certified(text, digits=digits, rounding=rounding, method=method)


def working_bits(digits: int) -> int:
    """The first working precision tried for ``digits`` decimal digits."""
    return int(math.ceil(digits * 3.3219280948873626)) + 32


# ---------------------------------------------------------------------------------------------
# Directed decimal rounding of exact rationals
# ---------------------------------------------------------------------------------------------


def _floor_log10_int(n: int, d: int) -> int:
    """floor(log10(n/d)) for positive integers, exactly."""
    e = int((n.bit_length() - d.bit_length()) * 0.30102999566398120)
    # the estimate is off by at most one or two; settle it with integer comparisons
    while (n * 10 ** -e < d) if e < 0 else (n < d * 10**e):
        e -= 1
    while (n * 10 ** (-e - 1) >= d) if e + 1 <= 0 else (n >= d * 10 ** (e + 1)):
        e += 1
    return e


def round_fraction(x: Fraction, digits: int, rounding: str) -> tuple[int, int]:
    """Round ``x`` to ``digits`` significant decimal digits; returns ``(m, e)``, value ``m*10**e``.

    ``rounding`` is ``"up"`` (towards +inf), ``"down"`` (towards -inf) or ``"nearest"``
    (ties to even).  Integer arithmetic only.
    """
    n, d = x.numerator, x.denominator
    if n == 0:
        return 0, 0
    e = _floor_log10_int(abs(n), d) - digits + 1
    if e >= 0:
        num, den = n, d * 10**e
    else:
        num, den = n * 10**-e, d
    q, r = divmod(num, den)  # floor division: q = floor(x / 10**e)
    if rounding == "up":
        m = q + (r != 0)
    elif rounding == "down":
        m = q
    else:
        twice = 2 * r
        m = q + (twice > den or (twice == den and q % 2 == 1))
    if abs(m) >= 10**digits:  # rounding carried into a new digit: 10**digits * 10**e
        m //= 10
        e += 1
    return m, e


#: Python's Decimal holds exponents up to about 1e18 in magnitude.
_DECIMAL_EXPONENT_LIMIT = 10**17


def _decimal(m: int, e: int, digits: int) -> Decimal:
    if m == 0:
        return Decimal(0)
    if abs(e) > _DECIMAL_EXPONENT_LIMIT:
        raise PrecisionError(
            f"the value is about 10^({e}), beyond what a Decimal can hold; "
            "use its logarithm (for delta: log_delta_from_epsilon)"
        )
    sign = 0 if m > 0 else 1
    text = str(abs(m))
    pad = digits - len(text)
    if pad > 0:  # keep trailing zeros: they are certified digits too
        text += "0" * pad
        e -= pad
    return Decimal((sign, tuple(int(c) for c in text), e))


def _same(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a == b:
        return True
    (ma, ea), (mb, eb) = a, b
    if ea > eb:
        (ma, ea), (mb, eb) = (mb, eb), (ma, ea)
    return ma == mb * 10 ** (eb - ea)


def _decide(lo: Fraction, hi: Fraction, digits: int, rounding: str) -> Decimal | None:
    a = round_fraction(lo, digits, rounding)
    b = round_fraction(hi, digits, rounding)
    if not _same(a, b):
        return None
    return _decimal(a[0], a[1], digits)


#: Balls whose binary exponent exceeds this are rounded in arb (no giant Fractions).
_HUGE_EXPONENT = 1 << 14


def _is_extreme(x: flint.arb) -> bool:
    if not x.is_finite() or x.is_zero():
        return False
    # a ball around 0 (like [+/- 2e-21714724092991118993]) is judged by its radius: turning
    # that radius into a Fraction would build a 7e19-bit integer
    part = x.rad() if x.mid().is_zero() else x.mid()
    exp = int(part.man_exp()[1])
    return abs(exp) > _HUGE_EXPONENT


def _decide_arb(x: flint.arb, digits: int, rounding: str) -> Decimal | None:
    """Directed decimal rounding of a ball of extreme magnitude (like 1e-217147240970).

    The decimal exponent comes from a ball of log10|x|, the mantissa from x scaled by a power
    of ten in ball arithmetic, so no number with a huge exponent is ever turned into a Fraction.
    """
    if x.contains(0):
        return None
    negative = x < 0
    ax = -x if negative else x
    lg = ax.log() / flint.arb(10).log()
    e10 = lg.floor().unique_fmpz()
    if e10 is None:
        return None  # too close to a power of ten at this precision
    e10 = int(e10)
    scaled = ax * flint.arb(10) ** (digits - 1 - e10)
    ends = arb_endpoints(scaled)
    if ends is None:
        return None
    lo, hi = (-ends[1], -ends[0]) if negative else ends
    pick = {"up": math.ceil, "down": math.floor}.get(rounding, round)
    a, b = pick(lo), pick(hi)
    if a != b:
        return None
    m, e = a, e10 - digits + 1
    if abs(m) >= 10**digits:
        m, e = m // 10, e + 1
    return _decimal(m, e, digits)


def _check_request(digits: int, rounding: str) -> None:
    from .._args import _bad  # local: keeps the error format in one place

    if isinstance(digits, bool) or not isinstance(digits, int):
        raise _bad("digits", digits, "must be an int")
    if not 1 <= digits <= MAX_DIGITS:
        raise _bad("digits", digits, f"must be between 1 and {MAX_DIGITS}")
    if rounding not in _ROUNDINGS:
        raise _bad("rounding", rounding, f"must be one of {', '.join(_ROUNDINGS)}")


def certify_enclosure(
    enclose: Callable[[int], flint.arb | tuple[Fraction, Fraction] | None],
    *,
    digits: int,
    rounding: str,
    exact: Callable[[], sympy.Expr | None] | None = None,
    what: str | Callable[[], str] = "value",
    max_bits: int = MAX_BITS,
) -> Certified:
    """Certify a quantity given by a precision-dependent enclosure.

    ``enclose(bits)`` returns an arb ball (or exact endpoints ``(lo, hi)``) that contains the
    exact value, computed at ``bits`` of working precision; the precision is doubled until the
    enclosure decides ``digits`` digits in direction ``rounding``.  ``exact()``, if given, may
    return the exact value as a sympy Rational for the cases a ball cannot decide.
    """
    _check_request(digits, rounding)
    bits = working_bits(digits)
    tried_exact = False
    last = None
    while bits <= max_bits:
        with arb_precision(bits):
            box = enclose(bits)
            if isinstance(box, flint.arb) and _is_extreme(box):
                value = _decide_arb(box, digits, rounding)
                if value is not None:
                    return Certified(value, digits=digits, rounding=rounding, method="arb")
                bits *= 2
                continue
            ends = arb_endpoints(box) if isinstance(box, flint.arb) else box
        if ends is not None:
            last = ends
            value = _decide(ends[0], ends[1], digits, rounding)
            if value is not None:
                return Certified(value, digits=digits, rounding=rounding, method="arb")
        if exact is not None and not tried_exact and (ends is None or bits >= 4 * working_bits(digits)):
            tried_exact = True
            value = _exact_value(exact)
            # an "exact" value outside the last proven enclosure is wrong: refuse it (defence in depth)
            if value is not None and last is not None and not last[0] <= value <= last[1]:
                value = None
            if value is not None:
                m, e = round_fraction(value, digits, rounding)
                return Certified(_decimal(m, e, digits), digits=digits, rounding=rounding, method="exact")
        bits *= 2
    width = "not finite" if last is None else f"[{float(last[0]):.3g}, {float(last[1]):.3g}]"
    what = what() if callable(what) else what
    raise PrecisionError(
        f"could not certify {digits} digits of the {what} within {max_bits} bits of precision "
        f"(last enclosure {width})"
    )


def _exact_value(exact: Callable[[], sympy.Expr | None]) -> Fraction | None:
    try:
        value = exact()
    except (TypeError, ValueError, ZeroDivisionError, ArithmeticError):
        return None
    if value is None:
        return None
    value = sympy.sympify(value)
    if value.is_Rational:
        return Fraction(int(value.p), int(value.q))
    return None


def certify(
    expr: sympy.Expr,
    symbols: Sequence[sympy.Symbol],
    values: Sequence[sympy.Expr],
    *,
    digits: int,
    rounding: str,
    what: str | Callable[[], str] = "value",
    unit_interval: bool = False,
) -> Certified:
    """Certify ``expr`` at ``symbols = values`` (exact sympy numbers) to ``digits`` digits.

    ``unit_interval=True`` states that the exact value is known to lie in [0, 1] (a
    probability), so the ball may be intersected with it: 1 - 1e-54000 then rounds up to 1
    without 180,000 bits of precision.
    """
    fn = arb_function(expr, tuple(symbols))

    def enclose(bits: int) -> flint.arb | tuple[Fraction, Fraction] | None:
        args = [arb_from_exact(v) for v in values]
        out = fn(*args)
        if unit_interval and out.is_finite() and not (out <= 1):
            ends = arb_endpoints(out)  # near 1: a moderate magnitude, exact endpoints are cheap
            if ends is None or ends[0] > 1:
                return None
            return ends[0], min(ends[1], Fraction(1))
        return out

    def exact() -> sympy.Expr:
        return _exact_substitution(expr, tuple(symbols), tuple(values))

    return certify_enclosure(enclose, digits=digits, rounding=rounding, exact=exact, what=what)


@functools.lru_cache(maxsize=4096)
def _exact_substitution(expr: sympy.Expr, symbols: tuple, values: tuple) -> sympy.Expr:
    out = exact_floats(expr).xreplace(dict(zip(symbols, values)))
    out = fold(out)
    if isinstance(out, sympy.Piecewise):
        out = out.doit()
    from ..symbolic.special import symmetrized

    nodes = out.atoms(symmetrized) if isinstance(out, sympy.Basic) else set()
    if nodes:  # a numeric envelope is exact where it provably follows its curve
        from .envelope import exact_value

        known = {n: exact_value(n) for n in nodes}
        out = out.xreplace({n: v for n, v in known.items() if v is not None})
    return out  # a Float is an approximation, never taken as an exact value


# ---------------------------------------------------------------------------------------------
# sympy -> arb compiler
# ---------------------------------------------------------------------------------------------

ArbFn = Callable[..., flint.arb]
_Node = Callable[[Sequence[flint.arb]], Any]


@functools.lru_cache(maxsize=1024)
def arb_function(expr: sympy.Expr, symbols: tuple[sympy.Symbol, ...]) -> ArbFn:
    """Compile ``expr`` into a function of arb balls for ``symbols`` (cached).

    Every operation is evaluated in ball arithmetic, so the result is a ball that contains the
    exact value at every point of the input balls.  ``Piecewise`` branches whose condition the
    balls cannot decide are all evaluated and their balls joined, which keeps the enclosure
    valid across a breakpoint.
    """
    index = {s: i for i, s in enumerate(symbols)}
    node = _compile(sympy.sympify(expr), index)

    def fn(*args: flint.arb) -> flint.arb:
        out = node(args)
        return out if isinstance(out, flint.arb) else flint.arb(out)

    return fn


def _const(value: sympy.Expr) -> _Node:
    if value.is_Rational and (int(value.q) & (int(value.q) - 1)) == 0:
        exact_ball = arb_from_exact(value)  # a dyadic rational is exact at every precision
        return lambda env: exact_ball
    return lambda env: arb_from_exact(value)


def _erfcx_positive(z: flint.arb) -> flint.arb:
    """erfcx(z) = e^{z^2} erfc(z) for z > 0, as U(1/2, 1/2, z^2)/sqrt(pi).

    arb's erfc loses all relative accuracy once the result leaves its fast range (z around
    1e5 gives only an upper bound); the confluent hypergeometric form stays accurate for any z.
    """
    h = flint.arb(1) / 2
    return (z * z).hypgeom_u(h, h) / flint.arb.pi().sqrt()


#: arb's own erfc keeps full relative accuracy up to here (measured: 141 of 132 bits at 1e5,
#: a bare upper bound at 7e5); beyond it the hypergeometric form is used (2-10x slower).
_ERFC_NATIVE_LIMIT = 100_000


def arb_erfcx(z: flint.arb) -> flint.arb:
    """erfcx in ball arithmetic, accurate for every real argument."""
    if z > _ERFC_NATIVE_LIMIT:
        return _erfcx_positive(z)
    if z < -_ERFC_NATIVE_LIMIT:
        return 2 * (z * z).exp() - _erfcx_positive(-z)
    return (z * z).exp() * z.erfc()


def arb_erfc(z: flint.arb) -> flint.arb:
    """erfc in ball arithmetic with full relative accuracy in the far right tail."""
    if z > _ERFC_NATIVE_LIMIT:
        return (-(z * z)).exp() * _erfcx_positive(z)
    return z.erfc()


_UNARY: dict[type, Callable[[flint.arb], flint.arb]] = {
    sympy.exp: lambda a: a.exp(),
    sympy.log: lambda a: a.log(),
    sympy.erf: lambda a: a.erf(),
    sympy.erfc: arb_erfc,
    sympy.erfinv: lambda a: a.erfinv(),
    sympy.erfcinv: lambda a: a.erfcinv(),
    sympy.Abs: lambda a: abs(a),
    sympy.sqrt: lambda a: a.sqrt(),
    sympy.sinh: lambda a: a.sinh(),
    sympy.cosh: lambda a: a.cosh(),
    sympy.tanh: lambda a: a.tanh(),
    sympy.atan: lambda a: a.atan(),
    sympy.sin: lambda a: a.sin(),
    sympy.cos: lambda a: a.cos(),
    sympy.LambertW: lambda a: a.lambertw(),
}


def _compile(e: sympy.Basic, index: dict) -> _Node:
    if e.is_Symbol:
        if e not in index:
            raise TypeError(f"free symbol {e} has no value")
        i = index[e]
        return lambda env: env[i]
    if e.is_Rational or e in (sympy.oo, -sympy.oo):
        return _const(e)
    if isinstance(e, sympy.Float):
        return _const(sympy.Rational(e))
    if e is sympy.pi:
        return lambda env: flint.arb.pi()
    if e is sympy.E:
        return lambda env: flint.arb(1).exp()
    if e is sympy.EulerGamma:
        return lambda env: flint.arb.const_euler()
    if e.is_Add:
        parts = [_compile(a, index) for a in e.args]

        def add(env: Sequence[flint.arb]) -> flint.arb:
            acc = parts[0](env)
            for f in parts[1:]:
                acc = acc + f(env)
            return acc

        return add
    if e.is_Mul:
        parts = [_compile(a, index) for a in e.args]

        def mul(env: Sequence[flint.arb]) -> flint.arb:
            acc = parts[0](env)
            for f in parts[1:]:
                acc = acc * f(env)
            return acc

        return mul
    if e.is_Pow:
        base = _compile(e.base, index)
        ex = e.exp
        if ex == sympy.S.Half:
            return lambda env: base(env).sqrt()
        if ex == -sympy.S.Half:
            return lambda env: base(env).rsqrt()
        if ex.is_Integer:
            n = int(ex)
            if n == -1:
                return lambda env: 1 / base(env)
            return lambda env: base(env) ** n
        expo = _compile(ex, index)
        if e.base is sympy.E:
            return lambda env: expo(env).exp()
        return lambda env: base(env) ** expo(env)
    if type(e).__name__ == "log1p":
        arg = _compile(e.args[0], index)
        return lambda env: arg(env).log1p()
    if type(e).__name__ == "expm1":
        arg = _compile(e.args[0], index)
        return lambda env: arg(env).expm1()
    if type(e).__name__ == "erfcx":
        arg = _compile(e.args[0], index)
        return lambda env: arb_erfcx(arg(env))
    if isinstance(e, sympy.Function) and type(e).__module__.endswith("symbolic.special"):
        from .special import compile_special

        node = compile_special(e, index, _compile)
        if node is not None:
            return node
    if type(e) in _UNARY:
        op = _UNARY[type(e)]
        arg = _compile(e.args[0], index)
        return lambda env: op(arg(env))
    if isinstance(e, (sympy.Max, sympy.Min)):
        parts = [_compile(a, index) for a in e.args]
        pick = "max" if isinstance(e, sympy.Max) else "min"

        def extremum(env: Sequence[flint.arb]) -> flint.arb:
            acc = parts[0](env)
            for f in parts[1:]:
                acc = getattr(acc, pick)(f(env))
            return acc

        return extremum
    if isinstance(e, sympy.Piecewise):
        branches = [(_compile(v, index), _compile_condition(c, index)) for v, c in e.args]

        def piecewise(env: Sequence[flint.arb]) -> flint.arb:
            joined = None
            for value, cond in branches:
                verdict = cond(env)
                if verdict is False:
                    continue
                v = value(env)
                joined = v if joined is None else joined.union(v)
                if verdict is True:
                    return joined
            if joined is None:
                return flint.arb.nan()
            return joined

        return piecewise
    raise TypeError(f"no ball-arithmetic form for {type(e).__name__}: {e}")


def _compile_condition(c: sympy.Basic, index: dict) -> Callable[[Sequence[flint.arb]], bool | None]:
    """Three-valued condition: True, False, or None when the balls cannot decide."""
    if c is sympy.true:
        return lambda env: True
    if c is sympy.false:
        return lambda env: False
    if isinstance(c, (sympy.And, sympy.Or)):
        parts = [_compile_condition(a, index) for a in c.args]
        # And stops at the first False, Or at the first True; an undecided part leaves None
        stop = not isinstance(c, sympy.And)

        def connective(env: Sequence[flint.arb]) -> bool | None:
            out: bool | None = not stop
            for f in parts:
                v = f(env)
                if v is stop:
                    return stop
                if v is None:
                    out = None
            return out

        return connective
    if isinstance(c, sympy.ITE):
        test, then, other = (_compile_condition(a, index) for a in c.args)

        def ite(env: Sequence[flint.arb]) -> bool | None:
            v = test(env)
            if v is None:
                a, b = then(env), other(env)
                return a if a == b else None
            return then(env) if v else other(env)

        return ite
    if isinstance(c, sympy.Not):
        inner = _compile_condition(c.args[0], index)

        def not_(env: Sequence[flint.arb]) -> bool | None:
            v = inner(env)
            return None if v is None else not v

        return not_
    if isinstance(c, sympy.core.relational.Relational):
        diff = _compile(c.lhs - c.rhs, index)
        rel = c.rel_op

        def relation(env: Sequence[flint.arb]) -> bool | None:
            d = diff(env)
            if d.is_nan():
                return None
            if rel in ("<", ">="):
                if d < 0:
                    return rel == "<"
                if d >= 0:
                    return rel == ">="
                return None
            if rel in (">", "<="):
                if d > 0:
                    return rel == ">"
                if d <= 0:
                    return rel == "<="
                return None
            if rel in ("==", "!="):
                if d.is_exact() and d.is_zero():
                    return rel == "=="
                if d > 0 or d < 0:
                    return rel == "!="
                return None
            raise TypeError(f"unsupported relation {rel}")

        return relation
    raise TypeError(f"no ball-arithmetic form for condition {c}")
