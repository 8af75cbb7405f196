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
from .errors import GdpproofError, NotSupportedError

__all__ = ["main"]

KINDS = ("gaussian", "eps-delta", "randomized-response", "laplace", "subsampled-gaussian", "rr-composition")

#: The options each kind needs, and the optional ones it also takes.
_NEEDS = {"gaussian": ("mu",), "laplace": ("mu",), "eps-delta": ("epsilon",),
          "randomized-response": ("epsilon",), "subsampled-gaussian": ("mu", "sample_rate"),
          "rr-composition": ("epsilon", "n")}
_OPTIONAL = {"eps-delta": ("delta",)}


def _flag(name: str) -> str:
    return "--" + {"epsilon": "eps", "sample_rate": "sample-rate"}.get(name, name)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2 (DESIGN §3)
        self.exit(2, f"gdpproof: error: {message}\n")


def _family(args: argparse.Namespace) -> Any:
    from . import eps_delta, gaussian, laplace, randomized_response, rr_composition, subsample

    need = _NEEDS[args.kind]
    allowed = need + _OPTIONAL.get(args.kind, ())
    for name in need:
        if getattr(args, name) is None:
            raise _Usage(f"{_flag(name)} is required for kind {args.kind}")
    for name in ("mu", "epsilon", "delta", "sample_rate", "n"):
        if getattr(args, name, None) is not None and name not in allowed:
            raise _Usage(f"{_flag(name)}={getattr(args, name)} does not apply to kind "
                         f"{args.kind} (it takes {', '.join(_flag(n) for n in allowed)})")
    if args.kind == "gaussian":
        return gaussian(args.mu)
    if args.kind == "laplace":
        return laplace(args.mu)
    if args.kind == "eps-delta":
        return eps_delta(args.epsilon, args.delta if args.delta is not None else "0")
    if args.kind == "subsampled-gaussian":
        return subsample(gaussian(args.mu), args.sample_rate)
    if args.kind == "rr-composition":
        return rr_composition(args.epsilon, args.n)
    return randomized_response(args.epsilon)


class _Usage(Exception):
    pass


def _family_options(p: argparse.ArgumentParser, kinds: Sequence[str] = KINDS) -> None:
    p.add_argument("kind", choices=kinds, help="trade-off family")
    p.add_argument("--mu", help="GDP parameter / location shift (gaussian, laplace)")
    p.add_argument("--eps", "--epsilon", dest="epsilon", help="epsilon (eps-delta, randomized-response)")
    p.add_argument("--delta", help="delta (eps-delta; default 0)")
    p.add_argument("--sample-rate", dest="sample_rate", help="sampling probability p (subsampled-gaussian)")
    if "rr-composition" in kinds:
        p.add_argument("--n", help="number of compositions (rr-composition)")


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

    p = sub.add_parser("compose", help="composition: exact GDP, the CLT with its Berry-Esseen bound, functionals")
    csub = p.add_subparsers(dest="compose_command", required=True, parser_class=_Parser)
    q = csub.add_parser("gdp", help="G_mu1 (x) ... (x) G_mun = G_sqrt(sum mu_i^2), exactly (mu rounded up)")
    q.add_argument("--mu", action="append", required=True, help="a GDP parameter (repeat for each mechanism)")
    _common(q)
    q = csub.add_parser("clt", help="CLT mu and Berry-Esseen gamma of the n-fold composition (an approximation)")
    _family_options(q, [k for k in KINDS if k != "rr-composition"])
    q.add_argument("--n", dest="times", default="1", help="how many times the mechanism is composed (default 1)")
    _common(q)
    q = csub.add_parser("functionals", help="kl, kappa2, kappa3, bar_kappa3 of a trade-off function")
    _family_options(q)
    _common(q)

    p = sub.add_parser("account", help="DP-SGD: the CLT mu_clt, eps_clt, gamma, beside the proven eps bracket",
                       description="The central-limit approximation of Bu, Dong, Long & Su (2020). It can "
                                   "understate the true privacy loss; gamma is its Berry-Esseen error. With "
                                   "--delta (Poisson sampling) the true eps is bracketed by numerical "
                                   "composition: eps_lower <= eps <= eps_upper.")
    p.add_argument("--sigma", required=True, help="noise multiplier sigma > 0")
    p.add_argument("--sample-rate", dest="sample_rate", required=True, help="sampling probability p in (0, 1]")
    p.add_argument("--steps", required=True, help="number of steps T >= 1")
    p.add_argument("--sampling", default="poisson", choices=("poisson", "uniform"),
                   help="poisson (each record with probability p) or uniform (fixed batch); default poisson")
    p.add_argument("--delta", help="report eps_clt and the proven bracket eps_lower, eps_upper at this delta")
    p.add_argument("--rel-width", dest="rel_width", default="0.01",
                   help="relative width of the eps bracket to reach (default 0.01)")
    _common(p)

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
    if args.command == "compose":
        return _compose(args)
    if args.command == "account":
        from . import dpsgd_mu

        try:
            acc = dpsgd_mu(args.sigma, args.sample_rate, args.steps, sampling=args.sampling, delta=args.delta,
                           digits=args.digits, gamma_digits=min(args.digits, 6), rel_width=args.rel_width)
        except ValueError as exc:  # name the options as the user typed them
            raise _Usage(str(exc).replace("noise_multiplier=", "--sigma=").replace("sample_rate=", "--sample-rate=")
                         .replace("steps=", "--steps=").replace("delta=", "--delta=")
                         .replace("rel_width=", "--rel-width=")) from None
        print(f"gdpproof: warning: {acc.note}", file=sys.stderr)
        payload = {"sigma": args.sigma, "sample_rate": args.sample_rate, "steps": args.steps,
                   "sampling": args.sampling, "mu_clt": _num(acc.mu_clt),
                   "gamma": None if acc.gamma is None else _num(acc.gamma),
                   "approximation": True, "digits": acc.mu_clt.digits,
                   "rounding": {"mu_clt": "up", "eps_clt": "up", "gamma": "up"}, "gamma_digits": min(args.digits, 6),
                   "certified": acc.mu_clt.method, "gamma_certified": acc.gamma.method if acc.gamma else None}
        text = [f"mu_clt  = {acc.mu_clt}   (CLT approximation, not a bound)"]
        if acc.eps_clt is not None:
            payload.update({"delta": args.delta, "eps_clt": _num(acc.eps_clt)})
            text.append(f"eps_clt = {acc.eps_clt}   at delta = {args.delta} (from mu_clt; an approximation)")
        if acc.eps_lower is not None and acc.eps_upper is not None:
            r = acc.exact
            payload.update({"eps_lower": _num(acc.eps_lower), "eps_upper": _num(acc.eps_upper),
                            "verdict": acc.verdict, "eps_ordering": r.ordering, "eps_method": "pld",
                            "eps_relative_width": f"{r.eps.relative_width:.3g}", "grid_step": f"{r.grid_step:.6g}",
                            "neighbours": "add/remove, the worse ordering"})
            payload["rounding"].update({"eps_lower": "down", "eps_upper": "up"})
            text.append(f"eps     in [{acc.eps_lower}, {acc.eps_upper}]   proven bracket at delta = {args.delta} "
                        f"(numerical composition, worse ordering: {r.ordering})")
            text.append(f"verdict : {acc.verdict}")
        elif args.delta is not None and args.sampling == "uniform":
            payload.update({"eps_lower": None, "eps_upper": None,
                            "verdict": "no proven bracket for uniform (fixed-batch) sampling"})
            text.append("eps bracket: not available for uniform sampling (numerical composition covers Poisson)")
        curve = "p G_1/sigma + (1-p) Id" if args.sampling == "poisson" else "C_p(G_1/sigma)"
        text.append(f"gamma   = {acc.gamma}   (Berry-Esseen error of the CLT of the T-fold {curve})")
        _emit(args, payload, "\n".join(text))
        return 0
    if args.command == "report":
        from .report import write_report

        summary = write_report(args.out, digits=args.digits, progress=not args.quiet)
        print(f"report written to {summary['index']} ({summary['passed']} of {summary['total']} checks passed)")
        return 0 if summary["passed"] == summary["total"] else 1
    raise _Usage(f"unknown command {args.command}")  # pragma: no cover (argparse rejects it first)


def _compose(args: argparse.Namespace) -> int:
    import sympy

    from . import berry_esseen, compose, functionals, gaussian
    from .numeric.certify import certify

    if args.compose_command == "gdp":
        g = compose(*[gaussian(m) for m in args.mu])
        mu = certify(g.parameters.get("mu", sympy.Integer(0)), (), (), digits=args.digits, rounding="up",
                     what="composed mu")  # the composition of G_0 factors is Id = G_0
        _emit(args, {"mus": args.mu, "mu": _num(mu), "digits": mu.digits, "rounding": mu.rounding,
                     "certified": mu.method, "exact": True}, _num(mu))
        return 0
    f = _family(args)
    if args.compose_command == "clt":
        band = berry_esseen(f, n=args.times, digits=args.digits)
        payload = {"function": repr(f), "n": args.times, "mu": _num(band.mu), "gamma": _num(band.gamma),
                   "approximation": True, "digits": band.mu.digits, "rounding": {"mu": "up", "gamma": "up"},
                   "certified": band.mu.method}
        _emit(args, payload, f"mu    = {band.mu}   (CLT approximation of the {args.times}-fold composition)\n"
                             f"gamma = {band.gamma}   (Berry-Esseen: G_mu(a + gamma) - gamma <= exact <= "
                             f"G_mu(a - gamma) + gamma)")
        return 0
    fl = functionals(f, digits=args.digits)
    values = fl.as_dict()
    payload = {"function": repr(f), **{k: _num(v) for k, v in values.items()}, "digits": fl.kl.digits,
               "rounding": "nearest", "certified": fl.kl.method}
    _emit(args, payload, "\n".join(f"{k:<10} = {v}" for k, v in values.items()))
    return 0


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
        # 2: bad input or not supported; 3: the digits could not be certified (nothing is printed)
        print(f"gdpproof: error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (ValueError, NotSupportedError)) else 3
    except OSError as exc:
        print(f"gdpproof: error: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
