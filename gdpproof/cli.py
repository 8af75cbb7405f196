"""The ``gdpproof`` command line.  It parses, calls the public API and prints; no mathematics.

Exit codes: 0 success, 1 a check found a violation, 2 bad input (one line on stderr), 3 the
requested digits could not be certified (PrecisionError; nothing is printed on stdout).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from . import __version__
from .errors import GdpproofError

__all__ = ["main"]

KINDS = ("gaussian", "eps-delta", "randomized-response", "laplace")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2 (DESIGN §3)
        self.exit(2, f"gdpproof: error: {message}\n")


def _family(args: argparse.Namespace) -> Any:
    from . import eps_delta, gaussian, laplace, randomized_response

    need = {"gaussian": ("mu",), "laplace": ("mu",), "eps-delta": ("epsilon",),
            "randomized-response": ("epsilon",)}[args.kind]
    allowed = {"eps-delta": ("epsilon", "delta")}.get(args.kind, need)
    for name in need:
        if getattr(args, name) is None:
            raise _Usage(f"--{name.replace('epsilon', 'eps')} is required for kind {args.kind}")
    for name in ("mu", "epsilon", "delta"):
        if getattr(args, name) is not None and name not in allowed:
            raise _Usage(f"--{name.replace('epsilon', 'eps')}={getattr(args, name)} does not apply to kind "
                         f"{args.kind} (it takes {', '.join('--' + n.replace('epsilon', 'eps') for n in allowed)})")
    if args.kind == "gaussian":
        return gaussian(args.mu)
    if args.kind == "laplace":
        return laplace(args.mu)
    if args.kind == "eps-delta":
        return eps_delta(args.epsilon, args.delta if args.delta is not None else "0")
    return randomized_response(args.epsilon)


class _Usage(Exception):
    pass


def _family_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("kind", choices=KINDS, help="trade-off family")
    p.add_argument("--mu", help="GDP parameter / location shift (gaussian, laplace)")
    p.add_argument("--eps", "--epsilon", dest="epsilon", help="epsilon (eps-delta, randomized-response)")
    p.add_argument("--delta", help="delta (eps-delta; default 0)")


def _common(p: argparse.ArgumentParser, digits: bool = True) -> None:
    if digits:
        p.add_argument("--digits", type=int, default=30, help="certified significant digits (default 30)")
    p.add_argument("--json", action="store_true", help="print one JSON object (numbers as decimal strings)")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gdpproof", description="Gaussian differential privacy with certified digits.")
    parser.add_argument("--version", action="version", version=f"gdpproof {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("tradeoff", help="beta = f(alpha) for a trade-off family")
    _family_options(p)
    p.add_argument("--alpha", required=True, help="type I error in [0, 1]")
    p.add_argument("--rounding", default="down", choices=("down", "up", "nearest"),
                   help="direction of the last digit (default down: the safe side for beta)")
    _common(p)

    p = sub.add_parser("convert", help="mu-GDP <-> (epsilon, delta)-DP: give exactly two of --mu, --eps, --delta",
                       description="--mu M --eps E: delta (rounded up); --mu M --delta D: smallest epsilon "
                                   "(rounded up); --eps E --delta D: largest mu (rounded down).")
    p.add_argument("--mu", help="GDP parameter mu >= 0")
    p.add_argument("--eps", "--epsilon", dest="epsilon", help="epsilon >= 0")
    p.add_argument("--delta", help="delta in [0, 1]")
    _common(p)

    p = sub.add_parser("calibrate", help="smallest Gaussian noise sigma for (epsilon, delta)-DP (rounded up)")
    p.add_argument("--eps", "--epsilon", dest="epsilon", required=True, help="epsilon >= 0")
    p.add_argument("--delta", required=True, help="delta in [0, 1]")
    p.add_argument("--sensitivity", default="1", help="L2 sensitivity (default 1)")
    _common(p)

    p = sub.add_parser("delta", help="delta(epsilon) of a trade-off family (rounded up)")
    _family_options(p)
    p.add_argument("--at", dest="at", required=True, metavar="EPS", help="the epsilon at which to evaluate delta")
    _common(p)

    p = sub.add_parser("tightest-mu", help="smallest mu with f >= G_mu (rounded up)")
    _family_options(p)
    _common(p)

    p = sub.add_parser("check", help="is it a trade-off function? (exit 1 if refuted)")
    _family_options(p)
    p.add_argument("--points", type=int, default=64, help="uniform grid size (default 64)")
    _common(p, digits=False)

    p = sub.add_parser("report", help="run the verification end to end; write HTML and JSON")
    p.add_argument("--out", default="report", help="output folder (default ./report)")
    p.add_argument("--digits", type=int, default=30, help="certified digits in the report (default 30)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    return parser


def _emit(args: argparse.Namespace, payload: dict, text: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps(payload, indent=None, sort_keys=True))
    else:
        print(text)


def _num(value: Any) -> str:
    return str(value)


def _run(args: argparse.Namespace) -> int:
    from . import gaussian

    if args.command == "tradeoff":
        f = _family(args)
        beta = f.evaluate(args.alpha, digits=args.digits, rounding=args.rounding)
        _emit(args, {"function": repr(f), "alpha": args.alpha, "beta": _num(beta), "digits": beta.digits,
                     "rounding": beta.rounding, "certified": beta.method}, _num(beta))
        return 0
    if args.command == "convert":
        from . import epsilon_from_delta, mu_from_epsilon_delta

        given = [n for n in ("mu", "epsilon", "delta") if getattr(args, n) is not None]
        if len(given) != 2:
            raise _Usage(f"convert takes exactly two of --mu, --eps, --delta (got {len(given)})")
        if args.delta is None:
            key, value = "delta", gaussian(args.mu).delta(args.epsilon, digits=args.digits)
        elif args.epsilon is None:
            key, value = "eps", epsilon_from_delta(args.mu, args.delta, digits=args.digits)
        else:
            key, value = "mu", mu_from_epsilon_delta(args.epsilon, args.delta, digits=args.digits)
        payload = {"mu": args.mu, "eps": args.epsilon, "delta": args.delta}
        payload = {k: v for k, v in payload.items() if v is not None}
        payload.update({key: _num(value), "digits": value.digits, "rounding": value.rounding,
                        "certified": value.method})
        _emit(args, payload, _num(value))
        return 0
    if args.command == "calibrate":
        from . import mu_from_epsilon_delta, sigma_from_epsilon_delta

        sigma = sigma_from_epsilon_delta(args.epsilon, args.delta, args.sensitivity, digits=args.digits)
        mu = mu_from_epsilon_delta(args.epsilon, args.delta, digits=args.digits)
        _emit(args, {"eps": args.epsilon, "delta": args.delta, "sensitivity": args.sensitivity,
                     "sigma": _num(sigma), "mu": _num(mu), "digits": sigma.digits,
                     "rounding": {"sigma": "up", "mu": "down"}, "certified": sigma.method},
              f"sigma = {sigma}   (mu = {mu})")
        return 0
    if args.command == "delta":
        f = _family(args)
        d = f.delta(args.at, digits=args.digits)
        _emit(args, {"function": repr(f), "eps": args.at, "delta": _num(d), "digits": d.digits,
                     "rounding": d.rounding, "certified": d.method}, _num(d))
        return 0
    if args.command == "tightest-mu":
        f = _family(args)
        m = f.tightest_mu(digits=args.digits)
        _emit(args, {"function": repr(f), "mu": _num(m), "digits": m.digits, "rounding": m.rounding,
                     "certified": m.method}, _num(m))
        return 0
    if args.command == "check":
        if args.points < 2:
            raise _Usage(f"--points={args.points} must be at least 2")
        f = _family(args)
        r = f.check(points=args.points)
        payload = {"function": r.function, "ok": r.ok,
                   "verdicts": [{"property": v.property, "status": v.status, "method": v.method,
                                 "detail": v.detail} for v in r.verdicts]}
        _emit(args, payload, str(r))
        return 0 if r.ok else 1
    if args.command == "report":
        from .report import write_report

        summary = write_report(args.out, digits=args.digits, progress=not args.quiet)
        print(f"report written to {summary['index']} ({summary['passed']} of {summary['total']} checks passed)")
        return 0 if summary["passed"] == summary["total"] else 1
    raise _Usage(f"unknown command {args.command}")  # pragma: no cover (argparse rejects it first)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error (already printed)
        return int(exc.code or 0)
    try:
        return _run(args)
    except _Usage as exc:
        print(f"gdpproof: error: {exc}", file=sys.stderr)
        return 2
    except GdpproofError as exc:
        # 2: bad input; 3: the requested digits could not be certified (nothing is printed)
        print(f"gdpproof: error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError) else 3
    except OSError as exc:
        print(f"gdpproof: error: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
