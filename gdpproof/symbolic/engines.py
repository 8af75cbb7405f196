"""Where the numeric layer plugs its evaluators into the symbolic one.

:mod:`gdpproof.symbolic` states formulas and imports nothing of :mod:`gdpproof.numeric` (the
layers import one way, docs/architecture.md).  The numeric methods of :class:`~gdpproof.symbolic.tradeoff.TradeOff`
(``evaluate``, ``delta``, ``check``, ...) therefore call engines looked up here by name, which
:mod:`gdpproof.numeric` registers when it is imported (its package ``__init__`` does it, so
importing any numeric module is enough).  This module imports neither sympy nor numeric.

>>> from gdpproof.symbolic import engines
>>> engines.register("doubled", lambda x: 2 * x)
>>> engines.lookup("doubled")(21)
42
>>> engines.unregister("doubled")
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # collections.abc and typing cost the CLI's start-up: only type checkers read them
    from collections.abc import Callable
    from typing import Any
del TYPE_CHECKING

from ..errors import GdpproofError

__all__ = ["register", "unregister", "lookup", "registered"]

_ENGINES: dict[str, Callable[..., Any]] = {}


def register(name: str, fn: Callable[..., Any]) -> None:
    """Make ``fn`` the engine called ``name`` (a later registration replaces an earlier one)."""
    if not callable(fn):
        raise TypeError(f"engine {name!r} must be callable, got {type(fn).__name__}")
    _ENGINES[name] = fn


def unregister(name: str) -> None:
    """Forget the engine called ``name`` (no error if there is none)."""
    _ENGINES.pop(name, None)


def registered() -> tuple[str, ...]:
    """The names of the engines registered so far, sorted."""
    return tuple(sorted(_ENGINES))


def lookup(name: str) -> Callable[..., Any]:
    """The engine called ``name``; a :class:`GdpproofError` naming it if none is registered."""
    try:
        return _ENGINES[name]
    except KeyError:
        raise GdpproofError(
            f"no numeric engine {name!r} is registered: the symbolic layer does not compute numbers "
            "itself; `import gdpproof.numeric` (or any module of it) registers the engines"
        ) from None
