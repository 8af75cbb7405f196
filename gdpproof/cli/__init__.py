"""The ``gdpproof`` command line.  It parses, calls the public API and prints; no mathematics.

One module per command (``convert``, ``calibrate``, ``tradeoff``, ``delta``, ``tightest_mu``,
``check``, ``compose``, ``account``, ``simulate``, ``table``, ``tables``, ``audit``, ``report``),
each with ``run(args) -> int``; the options of all of them are in ``_parser``, which imports
none of them, so ``--help`` and ``--version`` load neither sympy nor scipy.  A command's module
is imported only when that command runs.

Exit codes: 0 success; 1 a check or audit found a violation; 2 bad input (one line on stderr
naming the option, its value and the rule); 3 the digits could not be certified, or memory or
recursion ran out; 4 a bracket missed the asked --rel-width; 5 an internal error (a bug, one
line, never a traceback); 130 interrupted; 141 stdout closed by its reader.  What each covers:
``docs/command-line.md``.
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
    """Run the command line; returns the exit code.  With ``argv`` None (the process's own command
    line: the console script, ``python -m gdpproof.cli``), an interrupted run ends the process."""
    code = _main(argv)
    # Interrupted, leave at once with os._exit: the process pools' workers ignore Ctrl-C and would
    # otherwise finish the chunks already handed to them (a table's can take a minute) before the
    # interpreter could exit; without their parent they end within a quarter of a second
    # (gdpproof._pool).
    if code == 130 and argv is None:
        _leave_now(code)
    return code


def _leave_now(code: int) -> None:
    """End the process with ``code`` now: stdout and stderr flushed, nothing else waited for."""
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _main(argv: Sequence[str] | None) -> int:
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
    import warnings

    try:
        from ._common import closed_forms

        closed_forms(args)
        module = f"{__name__}.{COMMANDS[args.command]}"
        __import__(module)
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warning
            return int(sys.modules[module].run(args))
    except Usage as exc:  # naming an option as typed (--noise-multiplier, not --sigma)
        return _fail(_as_typed(exc, args), 2)
    except GdpproofError as exc:
        # 2: bad input or not supported; 3: the digits could not be certified (nothing is printed)
        return _fail(_as_typed(exc, args), 2 if isinstance(exc, (ValueError, NotSupportedError)) else 3)
    except BrokenPipeError:
        return _closed_pipe()
    except OSError as exc:
        return _fail(_os_error(exc), 2)
    except KeyboardInterrupt:
        print("\ngdpproof: interrupted", file=sys.stderr)
        return 130
    except (MemoryError, RecursionError) as exc:
        return _fail(f"the computation ran out of {'memory' if isinstance(exc, MemoryError) else 'recursion depth'}"
                     "; ask for fewer digits or smaller inputs", 3)
    except BaseException as exc:  # noqa: BLE001 - a bug, or SystemExit from code that should not exit
        return _fail(f"internal error ({type(exc).__name__}: {exc}); this is a bug in gdpproof: please report "
                     "it with the command line", 5)


def _as_typed(exc: Exception, args: object) -> str:
    """The message of ``exc`` with each option named as the user typed it (``--noise-multiplier``
    where the message says ``--sigma``)."""
    from ._common import as_typed

    return as_typed(str(exc), getattr(args, "typed_options", None))


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                      file: object = None, line: str | None = None) -> None:
    """A warning a command did not report itself (a table's reference bracket wider than asked),
    as one line on stderr: not Python's two lines naming gdpproof's source file and code."""
    from ._common import one_line

    print(f"gdpproof: warning: {one_line(message)}", file=sys.stderr)


def _closed_pipe() -> int:
    """The reader of stdout went away (``gdpproof ... | head``): end quietly, as a pipe's writer
    does, with the status of SIGPIPE (128 + 13); stdout is pointed at /dev/null so that Python's
    own flush at exit does not complain."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141


def _fail(message: object, code: int) -> int:
    """Print ``message`` as one bounded line on stderr; return the exit code."""
    from ._common import one_line

    print(f"gdpproof: error: {one_line(message)}", file=sys.stderr)
    return code


def _os_error(exc: OSError) -> str:
    """An OSError naming the file(s) and the reason ("out.csv: No space left on device")."""
    names = [str(n) for n in (exc.filename, exc.filename2) if n is not None]
    reason = exc.strerror or str(exc) or type(exc).__name__
    return f"{' -> '.join(names)}: {reason}" if names else f"{reason} (while reading or writing a file)"
