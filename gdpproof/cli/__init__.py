"""The ``gdpproof`` command line.  It parses, calls the public API and prints; no mathematics.

One module per command (``convert``, ``calibrate``, ``tradeoff``, ``delta``, ``tightest_mu``,
``check``, ``compose``, ``account``, ``simulate``, ``table``, ``tables``, ``audit``, ``report``),
each with ``run(args) -> int``; the options of all of them are in ``_parser``, which imports
none of them, so ``--help`` and ``--version`` load neither sympy nor scipy.  A command's module
is imported only when that command runs.

Exit codes: 0 success, 1 a check found a violation, 2 bad input (one line on stderr naming the
option, its value and the rule), 3 the requested digits could not be certified (PrecisionError;
nothing is printed on stdout).
"""

from __future__ import annotations

import sys

from ..errors import GdpproofError, NotSupportedError
from ._common import Usage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    from ._parser import COMMANDS, build_parser

    words = sys.argv[1:] if argv is None else list(argv)
    # only the command that runs needs its options (the first word that is not an option:
    # gdpproof's own options take no value)
    command = next((w for w in words if not w.startswith("-")), None)
    parser = build_parser(command if command in COMMANDS else "")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error (already printed)
        return int(exc.code or 0)
    try:
        module = f"{__name__}.{COMMANDS[args.command]}"
        __import__(module)
        return int(sys.modules[module].run(args))
    except Usage as exc:
        print(f"gdpproof: error: {exc}", file=sys.stderr)
        return 2
    except GdpproofError as exc:
        # 2: bad input or not supported; 3: the digits could not be certified (nothing is printed)
        print(f"gdpproof: error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (ValueError, NotSupportedError)) else 3
    except OSError as exc:
        print(f"gdpproof: error: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ngdpproof: interrupted", file=sys.stderr)
        return 130

