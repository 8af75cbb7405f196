"""User code named on the command line as ``MOD:FUNC`` (``--module``): importing it, calling it,
and turning whatever it raises into one line (exit 2).

:class:`user_code` is the one place that runs the user's code: the import, the factory and the
samplers (in this process or, through the pool, in workers) all run inside it.  Anything they
raise, ``SystemExit`` included (``sys.exit(0)`` in a sampler must not end an audit with exit 0,
"no violation"), and gdpproof's own error types too (a module may raise them, or call gdpproof
wrongly), becomes a :class:`Usage` naming the module: exit 2.  Only ``KeyboardInterrupt`` passes,
and the errors the caller declares its own (about an option the command checked).  The module
runs as the user's own code, with the user's rights: gdpproof does not sandbox it.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from ._common import Usage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType


class user_code:  # noqa: N801 - a context manager: ``with user_code("..."):``
    """Run the user's code: whatever it raises (SystemExit and gdpproof's error types too)
    becomes one line, exit 2.

    ``KeyboardInterrupt`` passes unchanged, and an error for which ``own(exc)`` is true.

    >>> try:
    ...     with user_code("--module='m:f': f()"):
    ...         raise SystemExit(0)
    ... except Usage as exc:
    ...     print(exc)
    --module='m:f': f() raised SystemExit(0): the user's code tried to end the program
    """

    def __init__(self, where: str, verb: str = "raised",
                 own: Callable[[BaseException], bool] | None = None) -> None:
        self.where, self.verb, self.own = where, verb, own

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc is None or isinstance(exc, (KeyboardInterrupt, Usage)) or (self.own is not None and self.own(exc)):
            return
        if isinstance(exc, SystemExit):
            detail = f"SystemExit({exc.code!r}): the user's code tried to end the program"
        else:
            detail = f"{type(exc).__name__}: {exc}"
        raise Usage(f"{self.where} {self.verb} {detail}") from None


def import_function(spec: str | None, option: str = "--module") -> tuple[Any, str]:
    """Import MOD:FUNC: MOD is an importable module (``pkg.mod``) or a path to a .py file.

    A file is imported by its name with its folder first on ``sys.path`` (as ``python
    dir/x.py`` would), and the folder then moves to the end: found by the module's own later
    imports and by a process pool's workers, it no longer shadows any module gdpproof imports
    after it.  Returns (the function, its name)."""
    if not spec or ":" not in spec:
        raise Usage(f"{option}={spec!r} must be MOD:FUNC (a module or a .py file, and a function name)")
    mod_name, _, func_name = spec.rpartition(":")
    if mod_name.endswith(".py"):
        path = os.path.abspath(mod_name)
        if not os.path.isfile(path):
            raise Usage(f"{option}={spec!r}: no such file {mod_name}")
        folder, stem = os.path.dirname(path), os.path.splitext(os.path.basename(path))[0]
        if not stem.isidentifier():
            raise Usage(f"{option}={spec!r}: the file name {os.path.basename(path)} is not a Python module name")
        target = stem
    else:
        path, folder, target = None, None, mod_name
    added = folder is not None and folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        with user_code(f"{option}={spec!r}: cannot import {mod_name}: it"):
            module = importlib.import_module(target)
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)
            sys.path.append(folder)
    if path is not None and os.path.abspath(getattr(module, "__file__", "") or "") != path:
        raise Usage(f"{option}={spec!r}: the name {target} is already taken by {module.__name__} "
                    f"({getattr(module, '__file__', 'built in')}); rename the file")
    func = getattr(module, func_name, None)
    if not callable(func):
        raise Usage(f"{option}={spec!r}: {mod_name} has no function {func_name}")
    return func, func_name


def call_user(spec: str, func: Any, func_name: str) -> Any:
    """Call the user's ``func()``; whatever it raises is one line (exit 2)."""
    with user_code(f"--module={spec!r}: {func_name}()"):
        return func()


def module_mechanism(spec: str | None) -> Any:
    """Import MOD:FUNC and call it: it must return a gdpproof.simulation.Sampler."""
    from ..simulation import Sampler

    func, func_name = import_function(spec)
    mech = call_user(str(spec), func, func_name)
    if not isinstance(mech, Sampler):
        raise Usage(f"--module={spec!r}: {func_name}() returned {type(mech).__name__}, not a "
                    "gdpproof.simulation.Sampler")
    return mech
