"""What every command shares: the usage error, the argparse parser and formatter, naming the
argument at fault, and printing (text, or one JSON object with ``--json``).  Numbers in options
are parsed by :mod:`gdpproof._args` (``int_option``, ``float_option``), the one parser.

Nothing here imports the computing layers, nor ``typing``, ``json`` or ``shutil``:
``gdpproof --help`` stays cheap (``benchmarks/bench_startup.py``).
"""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import InvalidParameterError
from ..text import show

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a tenth of the start-up budget: only type checkers read it
    from collections.abc import Mapping
    from types import TracebackType
    from typing import Any, NoReturn

#: library argument -> option, for the options every computing command takes.
COMMON_FLAGS = {"digits": "--digits"}


#: Options (by dest) whose value may be an exact closed form (``--mu 'sqrt(2)'``, ``--eps 'log(3)'``,
#: ``--sensitivity '3*sqrt(2)'``), read by the safe formula parser; a list or a range is not.
CLOSED_FORM_OPTIONS = ("mu", "epsilon", "eps", "delta", "sensitivity", "sigma", "at")


def closed_forms(args: argparse.Namespace) -> None:
    """Each option of :data:`CLOSED_FORM_OPTIONS` written as a closed form, as its exact sympy
    constant (:func:`gdpproof.symbolic.parse.constant`: nothing in it is executed); the library
    then certifies with it where a route takes it exactly and otherwise rounds it outward with a
    note.  Plain numbers stay strings (the formula parser, and sympy, are loaded only for a closed
    form)."""
    for name in CLOSED_FORM_OPTIONS:
        value = getattr(args, name, None)
        if (isinstance(value, str) and "," not in value and ":" not in value
                and any(c.isalpha() and c not in "eE" for c in value)
                and value.strip().lstrip("+-").lower() not in ("inf", "infinity", "nan")):
            from ..symbolic.parse import constant

            setattr(args, name, constant(f"--{'eps' if name == 'epsilon' else name}", value))


def _closed_form_text(value: Any) -> str:
    """A closed form's text in the JSON (only sympy values, from :func:`closed_forms`, get here)."""
    if type(value).__module__.startswith("sympy"):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def noted(call: Any) -> tuple[Any, list[str]]:
    """``call()``, and the notes of the arguments it rounded outward (an irrational one a solver
    takes as a rational: :class:`~gdpproof.errors.RoundedArgumentWarning`); other warnings pass on."""
    import warnings

    from ..errors import RoundedArgumentWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RoundedArgumentWarning)
        value = call()
    notes: list[str] = []
    for w in caught:
        if not issubclass(w.category, RoundedArgumentWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        elif str(w.message) not in notes:
            notes.append(str(w.message))
    return value, notes


class Usage(Exception):
    """Bad input, found by the command line itself: one line on stderr, exit 2."""


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` finds it (without importing shutil,
    which loads the compression modules)."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class Formatter(argparse.HelpFormatter):
    """argparse's help formatter, sized to the terminal without importing shutil."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        """argparse's filling, line by line: a description (one line) is wrapped as before; an
        indented line (an epilog's example command) is kept whole, so that it can be copied."""
        return "\n".join(indent + line if line.startswith(" ") else super(Formatter, self)._fill_text(line, width, indent)
                         for line in text.split("\n"))


_GIVEN = "_gdpproof_given"  # the options given so far in one parse (removed before the parse returns)


class _StoreOnce(argparse._StoreAction):
    """argparse's ``store``, refusing an option given twice (argparse would keep the last value).
    For an option with several names (``--sigma``/``--noise-multiplier``) it keeps the name typed,
    as ``typed_options`` (each other name -> the typed one), so that an error about the value
    names the option as the user wrote it (:func:`as_typed`)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        given = namespace.__dict__.setdefault(_GIVEN, {})
        if option_string is not None and self.dest in given:
            parser.error(f"{option_string} is given twice ({show(given[self.dest])} and {show(values)}); "
                         "give it once")
        given[self.dest] = values
        if option_string is not None and len(self.option_strings) > 1:
            typed = namespace.__dict__.setdefault("typed_options", {})
            typed.update((name, option_string) for name in self.option_strings if name != option_string)
        super().__call__(parser, namespace, values, option_string)


class _StoreTrueOnce(argparse._StoreTrueAction):
    """argparse's ``store_true``, refusing a flag given twice (``--json --json``)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        given = namespace.__dict__.setdefault(_GIVEN, {})
        if option_string is not None and self.dest in given:
            parser.error(f"{option_string} is given twice; give it once")
        given[self.dest] = True
        super().__call__(parser, namespace, values, option_string)


def _control_character(words: list[str]) -> str | None:
    """Why a command-line word is refused for holding a control character (a newline would split
    the output line that echoes it), or None."""
    for i, word in enumerate(words):
        if word.isprintable():
            continue
        if word.startswith("--") and "=" in word:
            name, value = word.split("=", 1)
        elif i and words[i - 1].startswith("--"):
            name, value = words[i - 1], word
        else:
            name, value = f"argument {i + 1}", word
        return (f"{name}={value!r} holds a newline, tab or other control character: give each value on one line, "
                "without them")
    return None


class Parser(argparse.ArgumentParser):
    """argparse with the command line's usage error (one line, exit 2), no option given twice, no
    control character in a value, and the light help formatter."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)
        self.register("action", "store_true", _StoreTrueOnce)
        # a negative number in scientific notation (--delta -1e-5) is a value, as -1 and -0.5 are
        # (argparse's own pattern has no exponent: it took -1e-5 for an option and refused it
        # with "expected one argument", not the rule it breaks)
        import re

        self._negative_number_matcher = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        words = [w for w in (sys.argv[1:] if args is None else args) if isinstance(w, str)]
        why = _control_character(words)
        if why is not None:
            self.error(why)
        namespace, extras = super().parse_known_args(args, namespace)
        namespace.__dict__.pop(_GIVEN, None)
        return namespace, extras

    def error(self, message: str) -> NoReturn:
        # a positional's bad choice names the command, not argparse's internal name for the word
        # ("argument audit_command: invalid choice" -> "gdpproof audit: invalid choice")
        if message.startswith("argument ") and ": invalid choice: " in message and not message[9:].startswith("-"):
            rest = message.split(": invalid choice: ", 1)[1]
            message = (f"{self.prog}: invalid choice: {rest}" if " " in self.prog else
                       f"invalid choice of command: {rest}")
        self.exit(2, f"gdpproof: error: {one_line(message)}\n")


def one_line(message: object, limit: int = 2000) -> str:
    """``message`` as one line of bounded length (for stderr): newlines become spaces."""
    text = " ".join(str(message).split("\n"))
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def add_common(p: argparse.ArgumentParser, digits: bool = True, default_digits: int = 30) -> None:
    """``--digits`` (where the command computes numbers; ``default_digits`` by default) and ``--json``."""
    if digits:
        p.add_argument("--digits", type=integer, default=default_digits,
                       help=f"certified significant digits (default {default_digits})")
    p.add_argument("--json", action="store_true", help="print one JSON object (numbers as decimal strings)")


def as_typed(message: str, typed: Mapping[str, str] | None) -> str:
    """``message`` with each ``--name=value`` of an option given under another of its names
    written with the name the user typed (``typed``: each other name -> the typed one, as the
    parser keeps it in ``typed_options``).

    >>> as_typed("--sigma='0' must be > 0", {"--sigma": "--noise-multiplier"})
    "--noise-multiplier='0' must be > 0"
    >>> as_typed("--sigma-x='0' must be > 0; --sigma is needed", {"--sigma": "--noise-multiplier"})
    "--sigma-x='0' must be > 0; --sigma is needed"
    """
    import re

    for name, spelled in (typed or {}).items():
        message = re.sub(rf"(?<![\w-]){re.escape(name)}(?==)", spelled, message)
    return message


class flags:  # noqa: N801 - used as a context manager: ``with flags({...}):``
    """Name the argument at fault as the user typed it: a library InvalidParameterError about an
    argument in ``names`` (library name -> option) becomes a :class:`Usage` naming the option,
    with the value from ``typed`` (by library name) when given.  Other errors pass unchanged.

    >>> from gdpproof.errors import InvalidParameterError
    >>> try:
    ...     with flags({"noise_multiplier": "--sigma"}):
    ...         raise InvalidParameterError(argument="noise_multiplier", value="0", rule="must be > 0")
    ... except Usage as exc:
    ...     print(exc)
    --sigma='0' must be > 0
    """

    def __init__(self, names: Mapping[str, str], typed: Mapping[str, Any] | None = None) -> None:
        self.names, self.typed = names, typed

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if isinstance(exc, InvalidParameterError) and (
                exc.argument in self.names if exc.argument is not None else any(m in self.names for m in exc.mentions)):
            raise Usage(exc.renamed(self.names, self.typed)) from None


def write_out(text: str) -> None:
    """Write ``text`` to stdout whole.  A buffered write of a large text can return after a part
    of it when the reader closes the pipe (``| head -1``), and ``print`` drops the rest without a
    word; here the rest is written again, so the closed pipe raises BrokenPipeError (exit 141)."""
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a StringIO put in place by a caller
        stream.write(text)
        return
    stream.flush()
    view = memoryview(text.encode(stream.encoding or "utf-8", stream.errors or "strict"))
    while view:
        view = view[buffer.write(view) or 0:]
    buffer.flush()


def emit(args: argparse.Namespace, payload: dict[str, Any], text: str) -> None:
    """Print ``payload`` as one JSON object with ``--json``, else ``text``."""
    if getattr(args, "json", False):
        import json

        # default=str: an option given as a closed form (log(3)) is echoed as it is written
        write_out(json.dumps(payload, indent=None, sort_keys=True, default=_closed_form_text) + "\n")
    else:
        write_out(text + "\n")


def labelled(name: str, value: Any, note: str = "", width: int = 0) -> str:
    """One result line: ``name = value   (certified, rounded up[; note])``.

    ``value`` is a :class:`~gdpproof.Certified` (its digits are proven: it says so, and which way
    its last digit was rounded); ``width`` pads the name so that lines align.

    >>> from gdpproof._certified import Certified
    >>> labelled("eps", Certified("4.37717810", digits=9, rounding="up", method="arb"))
    'eps = 4.37717810   (certified, rounded up)'
    >>> labelled("kl", Certified("0.5", digits=1, rounding="nearest", method="arb"), width=4)
    'kl   = 0.5   (certified, rounded to nearest)'
    """
    rounding = getattr(value, "rounding", None)
    how = "certified, " + ("rounded to nearest" if rounding == "nearest" else f"rounded {rounding}")
    return f"{name:<{width}} = {value}   ({how}{'; ' + note if note else ''})"


def integer(text: str) -> int:
    """An argparse ``type``: an integer in ASCII digits (``argument --digits: ...`` otherwise)."""
    from .._args import ascii_number  # at parse time: the number parser stays out of ``--help``

    if not ascii_number(text):
        raise argparse.ArgumentTypeError(f"{text!r} must be an integer in ASCII digits (no '_', no space)")
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} must be an integer") from None


def sensitivity_of(mechanism: Any) -> str:
    """The sensitivity a DP-SGD run's noise multiplier is read against, in units of the clipping
    norm C ("1C" or "2C"), from its sampling scheme and neighbouring relation."""
    from ..mechanisms import dpsgd_sensitivity

    return f"{dpsgd_sensitivity(*(mechanism.sampling() or ('', '')))}C"


def noise_line(mechanism: Any) -> str:
    """The headline's line on what sigma means for a DP-SGD run."""
    from ..mechanisms import sensitivity_note

    return f"sigma is the noise over the clipping norm C; {sensitivity_note(*(mechanism.sampling() or ('', '')))}"
