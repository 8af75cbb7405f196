"""Formulas given as strings, read by a restricted grammar: nothing in the string is executed.

``sympy.sympify`` and ``parse_expr`` evaluate their input as Python, so gdpproof never passes a
user's string to them: Python's :mod:`ast` parses it (executing nothing) and the tree becomes a
sympy expression node by node, allowing only exact numbers, arithmetic with integer exponents of
at most :data:`MAX_EXPONENT`, the canonical symbols and plain names, the constants ``pi``, ``E``,
``oo``, and calls of :data:`FUNCTIONS`.  Anything else raises
:class:`~gdpproof.errors.InvalidParameterError` naming the argument and what is not allowed.
:func:`formula` is the one gate for formula arguments, whatever their type: containers are
refused (``sympify`` would read each string inside one as Python).

The grammar in full: ``docs/command-line.md`` ("Untrusted input").
"""

from __future__ import annotations

import ast
import numbers
from fractions import Fraction
from typing import Any

import sympy

from .._args import exact
from .._args import plain_value
from ..errors import InvalidParameterError
from ..text import show
from . import symbols as _symbols

__all__ = ["FUNCTIONS", "MAX_BITS", "MAX_EXPONENT", "MAX_LENGTH", "constant", "formula"]

#: Longest formula string read.
MAX_LENGTH = 10_000
#: Largest integer exponent (``10**10**10`` would take all memory).
MAX_EXPONENT = 10_000

#: Largest exact number a formula holds (bits of its numerator or denominator, about 1,233
#: digits): sympy tests numbers as it builds on them (a square root factors its argument, tanh
#: asks whether it is prime), which took minutes at 10**10000 + 1.
MAX_BITS = 4096
#: Largest integer or half-integer gamma is called at (sympy evaluates it exactly: gamma(10**9)
#: is the factorial of 10**9 - 1).
MAX_GAMMA = 1000

#: The functions a formula string may call.
FUNCTIONS = {name: getattr(sympy, name) for name in (
    "exp", "log", "sqrt", "Abs", "sign", "Max", "Min", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh",
    "erf", "erfc", "gamma", "Heaviside")}
FUNCTIONS["abs"] = sympy.Abs

_CONSTANTS = {"pi": sympy.pi, "E": sympy.E, "oo": sympy.oo}
_SYMBOLS = {s.name: s for s in (getattr(_symbols, n) for n in _symbols.__all__) if isinstance(s, sympy.Symbol)}
_BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b}


def constant(name: str, value: Any) -> Any:
    """A parameter written as an exact closed form (``"sqrt(2)"``, ``"3*sqrt(2)"``, ``"log(3)"``)
    as its sympy constant, read by :func:`formula`; a string that is a plain number, and anything
    not a string, is returned as it is (for the exact-number parser).

    Args:
        name: The parameter's name, for the error.
        value: What was given.

    Returns:
        The exact real constant (a sympy expression without symbols), or ``value`` itself.

    Raises:
        InvalidParameterError: A string that is neither a number nor an allowed formula, a formula
            with variables, or one that is not real.

    Examples:
    >>> constant("mu", "3*sqrt(2)"), constant("mu", "0.5"), constant("eps", "log(3)")
    (3*sqrt(2), '0.5', log(3))
    >>> constant("mu", "sqrt(x)")
    Traceback (most recent call last):
    ...
    gdpproof.errors.InvalidParameterError: mu='sqrt(x)' is not a number, nor a closed form of one without variables (sqrt(2), log(3), 3*sqrt(2))
    """
    if not isinstance(value, str):
        return value
    try:
        plain_value(name, value)
        return value
    except InvalidParameterError:
        pass
    x = formula(name, value)
    if x.free_symbols:
        raise _refuse(name, value, "is not a number, nor a closed form of one without variables (sqrt(2), log(3), "
                                   "3*sqrt(2))")
    if not x.is_real:
        raise _refuse(name, value, "must be a real number or a closed form of one (sqrt(2), log(3), 3*sqrt(2))")
    return x


def formula(name: str, value: Any) -> sympy.Expr:
    """``value`` as a sympy expression: a string parsed by the restricted grammar above, a sympy
    expression as it is, a plain number exactly (``0.1`` as 1/10, a float as its binary value).

    Anything else is refused, containers included (their strings are not read one by one: no
    formula argument of gdpproof is a container).

    >>> formula("density", "exp(-abs(x))/2")
    exp(-Abs(x))/2
    >>> formula("density", "().__class__")
    Traceback (most recent call last):
    ...
    gdpproof.errors.InvalidParameterError: density='().__class__' is not an allowed formula: attribute access ('.')
    >>> formula("density", ["exp(-abs(x))/2"])
    Traceback (most recent call last):
    ...
    gdpproof.errors.InvalidParameterError: density=['exp(-abs(x))/2'] must be a formula: a string or a sympy expression (got list)
    """
    if not isinstance(value, str):
        if isinstance(value, sympy.Expr):
            return value
        if isinstance(value, numbers.Number) and not isinstance(value, bool):
            return exact(name, value, infinite=True)
        raise _refuse(name, value, f"must be a formula: a string or a sympy expression (got {type(value).__name__})")
    if len(value) > MAX_LENGTH:
        raise _refuse(name, value, f"is longer than {MAX_LENGTH:,} characters")
    try:
        tree = ast.parse(value.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise _refuse(name, value, f"is not a formula ({type(exc).__name__})") from None
    try:
        return _build(name, value, tree.body)
    except RecursionError:
        raise _refuse(name, value, "is nested too deeply") from None


def _refuse(name: str, value: Any, rule: str) -> InvalidParameterError:
    return InvalidParameterError(argument=name, value=value, rule=rule)


def _build(name: str, text: str, node: ast.AST) -> Any:
    """The sympy value of ``node``, refused when it is a number of more than MAX_BITS bits (every
    number of a formula is built here, so none larger reaches a function)."""
    value = _node(name, text, node)
    if getattr(value, "is_Rational", False) and max(int(value.p).bit_length(), int(value.q).bit_length()) > MAX_BITS:
        raise _refuse(name, text, f"is not an allowed formula: a number of more than {MAX_BITS:,} bits "
                                  "(about 1,233 digits)")
    return value


def _node(name: str, text: str, node: ast.AST) -> Any:
    def no(what: str) -> InvalidParameterError:
        return _refuse(name, text, f"is not an allowed formula: {what}")

    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise no(f"the constant {show(node.value)} (only numbers)")
        if isinstance(node.value, int):
            return sympy.Integer(node.value)
        # the number as written: ast reads 0.1 as a double, so read its source text (exactly, and
        # within gdpproof's bounds on exponents, by the one parser of plain numbers)
        exact = plain_value(name, ast.get_source_segment(text.strip(), node) or repr(node.value))
        if not isinstance(exact, Fraction):
            raise no(f"the number {show(node.value)}")
        return sympy.Rational(exact.numerator, exact.denominator)
    if isinstance(node, ast.Name):
        if node.id.startswith("_"):
            raise no(f"the name {node.id} (names starting with '_' are not allowed)")
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        if node.id in FUNCTIONS:
            raise no(f"the function {node.id} without arguments")
        return _SYMBOLS.get(node.id) or sympy.Symbol(node.id, real=True)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        operand = _build(name, text, node.operand)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_build(name, text, node.left), _build(name, text, node.right))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        base, exponent = _build(name, text, node.left), _build(name, text, node.right)
        if exponent.is_number and exponent.is_Rational and abs(exponent) > MAX_EXPONENT:
            raise no(f"the exponent {show(exponent)} (at most {MAX_EXPONENT:,} in size)")
        # (b - 1) e bits at least, for a numerator or denominator of b bits: a power sure to pass the
        # limit is refused before it is computed, any other is bounded by twice the limit
        if base.is_Rational and exponent.is_Integer and \
                (max(int(base.p).bit_length(), int(base.q).bit_length()) - 1) * abs(int(exponent)) > MAX_BITS:
            raise no(f"a power of more than {MAX_BITS:,} bits")
        return sympy.Pow(base, exponent)
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            called = node.func.id if isinstance(node.func, ast.Name) else "an expression"
            raise no(f"calling {called} (allowed: {', '.join(sorted(FUNCTIONS))})")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise no(f"keyword or starred arguments of {node.func.id}")
        args = [_build(name, text, a) for a in node.args]
        if node.func.id == "gamma" and len(args) == 1 and (2 * args[0]).is_Integer and abs(args[0]) > MAX_GAMMA:
            raise no(f"gamma at the integer or half-integer {show(args[0])} (at most {MAX_GAMMA:,} in size: sympy "
                     "evaluates it exactly)")
        return FUNCTIONS[node.func.id](*args)
    if isinstance(node, ast.Attribute):
        raise no("attribute access ('.')")
    raise no(f"{type(node).__name__} (only numbers, names, + - * / **, and calls of allowed functions)")
