"""What every command shares: the usage error, option parsing helpers, naming the argument at
fault, and printing (text, or one JSON object with ``--json``).

Nothing here imports the computing layers: ``gdpproof --help`` stays cheap.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Iterator, Mapping
from typing import Any, NoReturn

from ..errors import InvalidParameterError

#: library argument -> option, for the options every computing command takes.
COMMON_FLAGS = {"digits": "--digits"}


class Usage(Exception):
    """Bad input, found by the command line itself: one line on stderr, exit 2."""


class Parser(argparse.ArgumentParser):
    """argparse with DESIGN §3's usage error: one line, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"gdpproof: error: {message}\n")


def add_common(p: argparse.ArgumentParser, digits: bool = True) -> None:
    """``--digits`` (where the command computes numbers) and ``--json``."""
    if digits:
        p.add_argument("--digits", type=int, default=30, help="certified significant digits (default 30)")
    p.add_argument("--json", action="store_true", help="print one JSON object (numbers as decimal strings)")


@contextlib.contextmanager
def flags(names: Mapping[str, str], typed: Mapping[str, Any] | None = None) -> Iterator[None]:
    """Name the argument at fault as the user typed it: a library InvalidParameterError about an
    argument in ``names`` (library name -> option) becomes a :class:`Usage` naming the option,
    with the value from ``typed`` (by library name) when given.  Other errors pass unchanged.
    """
    try:
        yield
    except InvalidParameterError as exc:
        if exc.argument is None or exc.argument not in names:
            raise
        raise Usage(exc.renamed(names, typed)) from None


def emit(args: argparse.Namespace, payload: dict[str, Any], text: str) -> None:
    """Print ``payload`` as one JSON object with ``--json``, else ``text``."""
    if getattr(args, "json", False):
        print(json.dumps(payload, indent=None, sort_keys=True))
    else:
        print(text)


def num(value: Any) -> str:
    """A number as the decimal string it prints as (JSON carries numbers as strings)."""
    return str(value)


def int_option(name: str, value: str, low: int = 1) -> int:
    """The integer option ``name``, at least ``low``."""
    try:
        v = int(value)
    except ValueError:
        raise Usage(f"{name}={value!r} must be an integer >= {low}") from None
    if v < low:
        raise Usage(f"{name}={value!r} must be an integer >= {low}")
    return v


def float_option(name: str, value: str | None, *, required_for: str) -> float:
    """The number option ``name``, which ``required_for`` needs."""
    if value is None:
        raise Usage(f"{name} is required for {required_for}")
    try:
        return float(value)
    except ValueError:
        raise Usage(f"{name}={value!r} must be a number") from None
