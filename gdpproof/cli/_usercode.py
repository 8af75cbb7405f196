"""User code named on the command line as ``MOD:FUNC`` (``--module``): importing it, calling it,
and turning whatever it raises into one line (exit 2)."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from ._common import Usage


def import_function(spec: str | None, option: str = "--module") -> tuple[Any, str]:
    """Import MOD:FUNC: MOD is an importable module (``pkg.mod``) or a path to a .py file.

    A file is imported by its name after putting its folder first on ``sys.path``, so that a
    process pool's workers can import it too.  Returns (the function, its name)."""
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
        if folder not in sys.path:
            sys.path.insert(0, folder)
        target = stem
    else:
        path, target = None, mod_name
    try:
        module = importlib.import_module(target)
    except Exception as exc:  # noqa: BLE001 - user code may raise anything on import: one line, exit 2
        raise Usage(f"{option}={spec!r}: cannot import {mod_name} ({type(exc).__name__}: {exc})") from None
    if path is not None and os.path.abspath(getattr(module, "__file__", "") or "") != path:
        raise Usage(f"{option}={spec!r}: the name {target} is already taken by {module.__name__} "
                    f"({getattr(module, '__file__', 'built in')}); rename the file")
    func = getattr(module, func_name, None)
    if not callable(func):
        raise Usage(f"{option}={spec!r}: {mod_name} has no function {func_name}")
    return func, func_name


def call_user(spec: str, func: Any, func_name: str) -> Any:
    """Call the user's ``func()``; whatever it raises is one line (exit 2)."""
    try:
        return func()
    except Exception as exc:  # noqa: BLE001 - user code may raise anything: one line, exit 2
        raise Usage(f"--module={spec!r}: {func_name}() raised {type(exc).__name__}: {exc}") from None


def module_mechanism(spec: str | None) -> Any:
    """Import MOD:FUNC and call it: it must return a gdpproof.simulation.Mechanism."""
    from ..simulation import Mechanism

    func, func_name = import_function(spec)
    mech = call_user(str(spec), func, func_name)
    if not isinstance(mech, Mechanism):
        raise Usage(f"--module={spec!r}: {func_name}() returned {type(mech).__name__}, not a "
                    "gdpproof.simulation.Mechanism")
    return mech
