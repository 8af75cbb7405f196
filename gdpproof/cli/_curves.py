"""``gdpproof account`` over a range or a list: ``--epochs A:B[:STEP]`` or ``--steps A:B[:STEP]``
(a DP-SGD curve, through :func:`gdpproof.account_steps`, which builds the compositions
incrementally), ``--delta D1,D2,...`` or ``--eps E1,E2,...`` (one account each), and ``--plot
FILE`` (the proven band, the CLT beside it, against epochs, steps or delta).
"""

from __future__ import annotations

import argparse
import sys

from .._args import int_option
from ..errors import InvalidParameterError
from ._common import Usage, emit, flags, noise_line, sensitivity_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: Points a range may hold.
MAX_POINTS = 10_000

#: What --plot writes (matplotlib picks the format from the suffix).
PLOT_FORMATS = (".png", ".pdf", ".svg")


def _range(option: str, text: str | None) -> list[int] | None:
    """``A:B`` or ``A:B:STEP`` as the integers A, A + STEP, ..., up to B; None without a colon."""
    if text is None or ":" not in text:
        return None
    rule = "must be A:B or A:B:STEP with integers 1 <= A <= B and STEP >= 1"
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise Usage(f"{option}={text!r} {rule}")
    try:
        a, b = (int_option(option, p) for p in parts[:2])
        step = int_option(option, parts[2]) if len(parts) == 3 else 1
    except InvalidParameterError:
        raise Usage(f"{option}={text!r} {rule}") from None
    if a > b:
        raise Usage(f"{option}={text!r} {rule}")
    if (b - a) // step + 1 > MAX_POINTS:
        raise Usage(f"{option}={text!r} holds more than {MAX_POINTS:,} points: take a larger STEP")
    return list(range(a, b + 1, step))


def _list(option: str, text: str | None) -> list[str] | None:
    """A comma list ``v1,v2,...`` (None without a comma)."""
    if not isinstance(text, str) or "," not in text:  # (a closed form is one value)
        return None
    values = [v.strip() for v in text.split(",")]
    if any(not v for v in values):
        raise Usage(f"{option}={text!r} must be a comma-separated list of numbers, none empty")
    if len(values) > MAX_POINTS:
        raise Usage(f"{option}={text!r} holds more than {MAX_POINTS:,} values")
    return values


def wanted(args: argparse.Namespace) -> bool:
    """Whether the command asks for a range, a list or a plot."""
    return any(isinstance(v, str) and ":" in v for v in (args.epochs, args.steps)) or any(
        isinstance(v, str) and "," in v for v in (args.delta, args.eps)) or args.plot is not None


def _check_plot(path: str) -> None:
    import importlib.util
    import os

    if os.path.splitext(path)[1].lower() not in PLOT_FORMATS:
        raise Usage(f"--plot={path!r} must name a {', '.join(PLOT_FORMATS)} file")
    if importlib.util.find_spec("matplotlib") is None:
        raise Usage(f"--plot={path!r} needs matplotlib (pip install matplotlib)")


class Command:
    """What ``gdpproof account`` lends: its mechanism parsing, one account's report, its warnings
    and its option names (passed in: this module is imported by it)."""

    __slots__ = ("mechanism", "report", "warn", "flags")

    def __init__(self, mechanism: Callable[[argparse.Namespace], tuple[Any, Any]],
                 report: Callable[..., tuple[dict, list[str]]],
                 warn: Callable[[argparse.Namespace, dict, list[str]], None], flags: dict[str, str]) -> None:
        self.mechanism, self.report, self.warn, self.flags = mechanism, report, warn, flags


def run(args: argparse.Namespace, cmd: Command) -> int:
    epochs = _range("--epochs", args.epochs)
    steps = _range("--steps", args.steps)
    given, option = ("delta", "--delta") if args.delta is not None else ("epsilon", "--eps")
    raw = args.delta if args.delta is not None else args.eps
    if raw is None:
        what = f"--epochs={args.epochs}" if epochs else f"--steps={args.steps}" if steps else f"--plot={args.plot}"
        raise Usage(f"{what} needs --delta D (for eps) or --eps E (for delta): the curve is of the proven answer")
    values = _list(option, raw) or [raw]
    ranged = epochs or steps
    if ranged and len(values) > 1:
        raise Usage(f"{option}={raw!r}: give one value with a range of {'--epochs' if epochs else '--steps'} "
                    "(a curve against the steps, or against delta, not both)")
    if args.plot is not None:
        if not ranged and len(values) < 2:
            raise Usage(f"--plot={args.plot!r} needs a range (--epochs A:B, --steps A:B) or a list ({option} V1,V2)")
        _check_plot(args.plot)
    if ranged:
        if epochs:
            args.epochs = str(epochs[-1])
        else:
            args.steps = str(steps[-1])
    mechanism, schedule = cmd.mechanism(args)
    if ranged and schedule is None:
        raise Usage("a range of --epochs or --steps is a DP-SGD curve: give --sigma (--noise-multiplier) with "
                    "--sample-rate or --batch-size and --dataset-size")
    rel_width = "0.01" if args.rel_width is None else args.rel_width
    accounts = _accounts(args, cmd, mechanism, schedule, epochs, steps, given, values, rel_width)
    warned: list[str] = []
    points, lines = [], []
    for key, a in accounts:
        payload, _ = cmd.report(args, a, a.mechanism, None, warned, with_gamma=False)
        payload.update(key)
        payload.pop("approximation_note", None)  # once, in the warnings
        points.append(payload)
        lines.append(_line(key, a))
    # what is accounted: the mechanism (for a range of steps, the step repeated T times at each point)
    step = getattr(mechanism, "mechanism", None) if ranged else None
    head = [f"mechanism : {step!r}, run T times (T at each point below)" if step is not None
            else f"mechanism : {mechanism!r}"]
    rule = schedule.rule if schedule is not None else ""
    if ranged:  # the rate's rule only: the steps are each point's
        rule = "; ".join(part for part in rule.split("; ") if not part.startswith("steps"))
    if rule:
        head.append(f"schedule  : {rule}")
    if schedule is not None:
        head.append(f"noise     : {noise_line(mechanism)}")
    first = accounts[0][1]
    head.append(f"route     : {first.route} ({first.method})")
    what = "eps" if given == "delta" else "delta"
    how = "a proven bracket, lower end rounded down, upper end up" if first.route == "bracket" else \
        "certified, rounded up"
    head.append(f"{what} per point: {how}" + ("; *_clt: the CLT approximation, not a bound" if first.clt else ""))
    payload = {"points": points, "given": given, "digits": first.digits,
               "certified": "arb" if first.route != "bracket" else "pld", "route": first.route}
    if schedule is not None:
        payload["sensitivity"] = sensitivity_of(mechanism)
    if ranged:
        payload["over"] = "epochs" if epochs else "steps"
    if args.plot is not None:
        _plot(args.plot, accounts, given, "epochs" if epochs else "steps" if steps else given)
        payload["plot"] = args.plot
        head.append(f"plot      : {args.plot}")
    cmd.warn(args, payload, warned)
    emit(args, payload, "\n".join(head + lines))
    return 4 if any(p.get("target_met") is False for p in points) else 0


def _accounts(args: argparse.Namespace, cmd: Command, mechanism: Any, schedule: Any, epochs: list[int] | None,
              steps: list[int] | None, given: str, values: list[str], rel_width: str) -> list[tuple[dict, Any]]:
    """(the point's own keys, its Account) for each point, with a progress line on a terminal."""
    import warnings

    from .._progress import DELAY, Progress
    from ..accounting import account, account_steps
    from ..mechanisms import dpsgd_schedule

    total = len(epochs or steps or values)
    bar = Progress(total, "account", unit="points", enabled=sys.stderr.isatty(), delay=DELAY)
    out: list[tuple[dict, Any]] = []
    with flags(cmd.flags), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a point's width note is in its JSON (target_met) and its notes
        if epochs or steps:
            if epochs:
                counts = [dpsgd_schedule(sample_rate=None if schedule.batch_size else schedule.sample_rate,
                                         epochs=e, batch_size=schedule.batch_size,
                                         dataset_size=schedule.dataset_size).steps for e in epochs]
                keys = [{"epochs": e, "steps": t} for e, t in zip(epochs, counts)]
            else:
                counts = list(steps or [])
                keys = [{"steps": t} for t in counts]
            query = {given: values[0]}
            accounts = account_steps(mechanism, counts, digits=args.digits, rel_width=rel_width,
                                     progress=lambda i, a: bar.advance(), **query)
            out = list(zip(keys, accounts))
        else:
            for v in values:
                out.append(({given: v}, account(mechanism, digits=args.digits, rel_width=rel_width,
                                                 route=args.route, **{given: v})))
                bar.advance()
    bar.close()
    return out


def _line(key: dict, a: Any) -> str:
    """One point: where it is, the proven answer, the CLT beside it."""
    where = "  ".join(f"{k} {v}" for k, v in key.items())
    what, lo, hi = ("eps", a.eps_lower, a.eps_upper) if a.given == "delta" else ("delta", a.delta_lower,
                                                                                 a.delta_upper)
    answer = f"{what} in [{lo}, {hi}]" if a.route == "bracket" else f"{what} = {hi}"
    clt = ""
    if a.clt is not None:
        c = a.clt.epsilon if a.given == "delta" else a.clt.delta
        clt = "" if c is None else f"   {what}_clt {c}"
    return f"{where:<24} {answer}{clt}"


def _plot(path: str, accounts: list[tuple[dict, Any]], given: str, over: str) -> None:
    """The proven band (lower to upper end) and the CLT value against the points' x."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    what = "eps" if given == "delta" else "delta"
    xs = [float(k[over]) for k, _ in accounts]
    lo = [float(a.eps_lower if given == "delta" else a.delta_lower) for _, a in accounts]
    hi = [float(a.eps_upper if given == "delta" else a.delta_upper) for _, a in accounts]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.fill_between(xs, lo, hi, alpha=0.4, label=f"{what}: proven bracket", step=None)
    ax.plot(xs, hi, lw=1, label=f"{what}: proven upper end")
    clt = [a.clt.epsilon if given == "delta" else a.clt.delta for _, a in accounts if a.clt is not None]
    if len(clt) == len(xs) and all(c is not None for c in clt):
        ax.plot(xs, [float(c) for c in clt], "--", lw=1, label=f"{what}_clt (CLT approximation, not a bound)")
    if over == "delta":
        ax.set_xscale("log")
    ax.set_xlabel(over)
    ax.set_ylabel(what)
    at = f"delta = {accounts[0][1].delta}" if given == "delta" else f"eps = {accounts[0][1].epsilon}"
    ax.set_title(f"{what} against {over}" + ("" if over in ("delta", "epsilon") else f" at {at}"))
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
