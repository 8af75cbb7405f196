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

_TABLE_KINDS = ("delta", "epsilon", "mu", "sigma", "tradeoff", "subsampled", "rr-composition", "dpsgd")

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

    p = sub.add_parser("simulate", help="Monte Carlo of a mechanism against its theoretical trade-off curve",
                       description="Simulates the mechanism on two neighbouring data sets, estimates its trade-off "
                                   "curve with a simultaneous DKW band, and checks the theory against it (exit 1 "
                                   "if the theory is outside the band).")
    p.add_argument("mechanism", choices=("gaussian", "randomized-response", "laplace", "module"))
    p.add_argument("--sensitivity", default="1", help="L2 sensitivity (gaussian, laplace; default 1)")
    p.add_argument("--sigma", help="Gaussian noise standard deviation (gaussian)")
    p.add_argument("--dim", default="1", help="dimension of the query (gaussian; default 1)")
    p.add_argument("--steps", default="1", help="number of composed steps (gaussian; default 1)")
    p.add_argument("--sample-rate", dest="sample_rate", help="Poisson sampling rate: DP-SGD steps (gaussian)")
    p.add_argument("--eps", help="epsilon (randomized-response)")
    p.add_argument("--n", default="1", help="number of releases (randomized-response; default 1)")
    p.add_argument("--scale", help="Laplace scale b (laplace)")
    p.add_argument("--module", dest="module_spec", help="MOD:FUNC, a function returning a "
                   "gdpproof.simulation.Mechanism (module)")
    p.add_argument("--mu", help="the GDP claim to check for a module mechanism: f >= G_mu (module)")
    p.add_argument("--samples", required=True, help="samples under each data set")
    p.add_argument("--seed", required=True, help="seed (integer >= 0)")
    p.add_argument("--confidence", default="0.999999", help="probability that the band holds (default 1 - 1e-6)")
    p.add_argument("--workers", default="1", help="processes (default 1: in this process)")
    p.add_argument("--plot", help="write the estimate, band and theory to this PNG file")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")

    p = sub.add_parser("table", help="a certified reference table (CSV, JSON, LaTeX, Markdown), or --verify one",
                       description="Every value certified to --digits significant digits and rounded in its safe "
                                   "direction. Grid options take a comma-separated list, lin:START:STOP:N or "
                                   "log:START:STOP:N. Without --out the table goes to stdout.")
    p.add_argument("kind", nargs="?", choices=_TABLE_KINDS,
                   help="delta (--mu --eps), epsilon (--mu --delta), mu (--eps --delta), sigma (--eps --delta "
                        "[--sensitivity]), tradeoff (--mu --alpha), subsampled (--mu --sample-rate --alpha), "
                        "rr-composition (--eps --n --alpha), dpsgd (--sigma --sample-rate --steps --delta)")
    for name in ("mu", "eps", "delta", "alpha", "sigma", "sample-rate", "steps", "n", "sensitivity"):
        p.add_argument(f"--{name}", dest=f"grid_{name.replace('-', '_')}", metavar="GRID", help=f"{name} grid")
    p.add_argument("--digits", type=int, default=30, help="certified significant digits (default 30)")
    p.add_argument("--format", choices=("csv", "json", "latex", "markdown"),
                   help="output format (default: from the --out suffix, else csv)")
    p.add_argument("--out", help="write the table here (atomically; a journal OUT.partial allows --resume)")
    p.add_argument("--workers", default=None, help="processes (default: the number of CPUs, at most 8)")
    p.add_argument("--scheduler", help="a dask.distributed scheduler address to run the chunks on")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run from OUT.partial")
    p.add_argument("--verify", metavar="FILE", help="recompute a random sample of FILE's rows at higher precision "
                   "(exit 1 if any value is wrong)")
    p.add_argument("--sample", default="20", help="rows to check with --verify: a number or 'all' (default 20)")
    p.add_argument("--seed", default="0", help="seed of the --verify sample (default 0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (a summary with --out or "
                   "--verify; the table in JSON format otherwise)")

    p = sub.add_parser("tables", help="the tables shipped in gdpproof/reference/data: regenerate or check them")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--regenerate", action="store_true", help="rebuild every shipped table in place")
    g.add_argument("--check", action="store_true", help="recompute and compare (exit 1 on any difference)")
    p.add_argument("--rows", help="with --check: only the first ROWS rows of each table (a fast slice)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")

    p = sub.add_parser("audit", help="audit other implementations against gdpproof's certified values")
    asub = p.add_subparsers(dest="audit_command", required=True, parser_class=_Parser)
    q = asub.add_parser("accountant", help="audit a peer library's accountant (exit 1 on an unsafe finding)",
                        description="Compares every function a peer library offers (delta and epsilon of mu-GDP, "
                                    "mu and sigma from (epsilon, delta), DP-SGD epsilon and mu, trade-off curves) "
                                    "with gdpproof's certified values and proven brackets on grids where "
                                    "implementations fail; classifies each difference as unsafe, conservative or "
                                    "an error. Exit 1 when some value understates the privacy loss by more than "
                                    "--rtol.")
    q.add_argument("peer", metavar="PEER", help="dp_accounting, prv_accountant, autodp, riskcal, gdpnum, opendp, "
                                               "opacus or tensorflow_privacy")
    q.add_argument("--quick", action="store_true", help="small grids (seconds) instead of the full run (minutes)")
    q.add_argument("--rtol", default="0", help="relative size below which a difference is within tolerance "
                                               "(default 0: classify strictly)")
    q.add_argument("--seed", default="0", help="seed of the hypothesis-drawn inputs (default 0)")
    q.add_argument("--json", action="store_true", help="one JSON object on stdout (numbers as decimal strings)")
    q = asub.add_parser("mechanism", help="audit a black-box mechanism's mu-GDP or (eps, delta)-DP claim from samples "
                        "(exit 1 on violation)",
                        description="MOD:FUNC names a function (in an importable module or a .py file) returning "
                                    "(sample_p, sample_q) or (sample_p, sample_q, score); sample_p(rng, n) returns n "
                                    "outputs of M(S) (shape (n,) or (n, d)), sample_q(rng, n) of M(S'). Half the "
                                    "samples choose a threshold test, half measure its error rates with "
                                    "Clopper-Pearson bounds; mu_low is a lower confidence bound on the mechanism's "
                                    "mu. Exit 1 if the claim is violated, 0 if not, 2 on bad input.")
    q.add_argument("--module", dest="module_spec", required=True,
                   help="MOD:FUNC returning (sample_p, sample_q[, score])")
    q.add_argument("--claimed-mu", dest="claimed_mu", help="the claim: M is mu-GDP")
    q.add_argument("--claimed-eps", "--claimed-epsilon", dest="claimed_epsilon",
                   help="the claim: M is (eps, delta)-DP (with --claimed-delta)")
    q.add_argument("--claimed-delta", dest="claimed_delta", help="delta of an (eps, delta) claim")
    q.add_argument("--samples", default="1000000", help="outputs per data set (default 1000000, at least 1000)")
    q.add_argument("--seed", required=True, help="seed (integer >= 0)")
    q.add_argument("--confidence", default="0.999999",
                   help="probability the bounds hold: a true claim is a violation w.p. <= 1 - C (default 1 - 1e-6)")
    q.add_argument("--workers", default="1", help="processes (default 1: in this process)")
    q.add_argument("--digits", type=int, default=6, help="digits of mu_low and delta_low, rounded down (default 6)")
    q.add_argument("--json", action="store_true", help="one JSON object on stdout")

    p = sub.add_parser("report", help="run the verification end to end; write HTML and JSON")
    p.add_argument("--out", default="report", help="output folder (default ./report)")
    p.add_argument("--digits", type=int, default=30, help="certified digits in the report (default 30)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.add_argument("--quick", action="store_true",
                   help="skip the derivations and the numerical-composition figures (a few seconds)")
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

        if args.rel_width != "0.01" and (args.delta is None or args.sampling == "uniform"):
            raise _Usage(f"--rel-width={args.rel_width} applies only with --delta and Poisson sampling "
                         "(it sets the width of the proven bracket)")
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
        text.append(f"gamma   = {acc.gamma}   (Berry-Esseen error of the CLT of the T-fold {curve})" if acc.gamma
                    is not None else "gamma   = not certified for this configuration (the rest stands)")
        _emit(args, payload, "\n".join(text))
        return 0
    if args.command == "simulate":
        return _simulate(args)
    if args.command == "table":
        return _table(args)
    if args.command == "tables":
        return _tables(args)
    if args.command == "audit" and args.audit_command == "mechanism":
        return _audit_mechanism(args)
    if args.command == "audit":
        return _audit(args)
    if args.command == "report":
        from .report import write_report

        summary = write_report(args.out, digits=args.digits, progress=not args.quiet, quick=args.quick)
        print(f"report written to {summary['index']} ({summary['passed']} of {summary['total']} checks passed)")
        return 0 if summary["passed"] == summary["total"] else 1
    raise _Usage(f"unknown command {args.command}")  # pragma: no cover (argparse rejects it first)


def _audit(args: argparse.Namespace) -> int:
    from .audit import PEERS, PeerNotInstalledError, audit_accountant

    if args.peer not in PEERS:
        raise _Usage(f"PEER={args.peer!r} is not a known peer (known: {', '.join(PEERS)})")
    try:
        rtol = float(args.rtol)
    except ValueError:
        raise _Usage(f"--rtol={args.rtol!r} must be a number in [0, 1)") from None
    if not 0 <= rtol < 1:
        raise _Usage(f"--rtol={args.rtol!r} must be a number in [0, 1)")
    seed = _int_option("--seed", args.seed, low=0)
    try:
        report = audit_accountant(args.peer, quick=args.quick, rtol=rtol, seed=seed,
                                  progress=not args.quick and sys.stderr.isatty())
    except PeerNotInstalledError as exc:
        raise _Usage(f"PEER={args.peer!r}: {exc}") from None
    _emit(args, report.to_dict(), str(report))
    return 0 if report.ok else 1


def _int_option(name: str, value: str, low: int = 1) -> int:
    try:
        v = int(value)
    except ValueError:
        raise _Usage(f"{name}={value!r} must be an integer >= {low}") from None
    if v < low:
        raise _Usage(f"{name}={value!r} must be an integer >= {low}")
    return v


def _float_option(name: str, value: str | None, *, required_for: str) -> float:
    if value is None:
        raise _Usage(f"{name} is required for {required_for}")
    try:
        v = float(value)
    except ValueError:
        raise _Usage(f"{name}={value!r} must be a number") from None
    return v


def _import_function(spec: str | None, option: str = "--module") -> tuple[Any, str]:
    """Import MOD:FUNC: MOD is an importable module (``pkg.mod``) or a path to a .py file.

    A file is imported by its name after putting its folder first on ``sys.path``, so that a
    process pool's workers can import it too.  Returns (the function, its name)."""
    import importlib
    import os

    if not spec or ":" not in spec:
        raise _Usage(f"{option}={spec!r} must be MOD:FUNC (a module or a .py file, and a function name)")
    mod_name, _, func_name = spec.rpartition(":")
    if mod_name.endswith(".py"):
        path = os.path.abspath(mod_name)
        if not os.path.isfile(path):
            raise _Usage(f"{option}={spec!r}: no such file {mod_name}")
        folder, stem = os.path.dirname(path), os.path.splitext(os.path.basename(path))[0]
        if not stem.isidentifier():
            raise _Usage(f"{option}={spec!r}: the file name {os.path.basename(path)} is not a Python module name")
        if folder not in sys.path:
            sys.path.insert(0, folder)
        target = stem
    else:
        path, target = None, mod_name
    try:
        module = importlib.import_module(target)
    except Exception as exc:  # noqa: BLE001 - user code may raise anything on import: one line, exit 2
        raise _Usage(f"{option}={spec!r}: cannot import {mod_name} ({type(exc).__name__}: {exc})") from None
    if path is not None and os.path.abspath(getattr(module, "__file__", "") or "") != path:
        raise _Usage(f"{option}={spec!r}: the name {target} is already taken by {module.__name__} "
                     f"({getattr(module, '__file__', 'built in')}); rename the file")
    func = getattr(module, func_name, None)
    if not callable(func):
        raise _Usage(f"{option}={spec!r}: {mod_name} has no function {func_name}")
    return func, func_name


def _call_user(spec: str, func: Any, func_name: str) -> Any:
    try:
        return func()
    except Exception as exc:  # noqa: BLE001 - user code may raise anything: one line, exit 2
        raise _Usage(f"--module={spec!r}: {func_name}() raised {type(exc).__name__}: {exc}") from None


def _module_mechanism(spec: str | None) -> Any:
    """Import MOD:FUNC and call it: it must return a gdpproof.simulation.Mechanism."""
    from .simulation import Mechanism

    func, func_name = _import_function(spec)
    mech = _call_user(str(spec), func, func_name)
    if not isinstance(mech, Mechanism):
        raise _Usage(f"--module={spec!r}: {func_name}() returned {type(mech).__name__}, not a "
                     "gdpproof.simulation.Mechanism")
    return mech


def _audit_mechanism(args: argparse.Namespace) -> int:
    from . import audit_mechanism

    func, func_name = _import_function(args.module_spec)
    got = _call_user(args.module_spec, func, func_name)
    if not (isinstance(got, (tuple, list)) and len(got) in (2, 3) and all(callable(f) for f in got)):
        raise _Usage(f"--module={args.module_spec!r}: {func_name}() must return (sample_p, sample_q) or "
                     f"(sample_p, sample_q, score), callables; it returned {type(got).__name__}")
    sample_p, sample_q, *rest = got
    if args.claimed_mu is None and args.claimed_epsilon is None and args.claimed_delta is None:
        raise _Usage("give a claim: --claimed-mu M, or --claimed-eps E with --claimed-delta D")
    if args.claimed_mu is not None and (args.claimed_epsilon is not None or args.claimed_delta is not None):
        raise _Usage(f"--claimed-mu={args.claimed_mu} cannot be combined with --claimed-eps/--claimed-delta: "
                     "give exactly one claim")
    if args.claimed_mu is None and (args.claimed_epsilon is None or args.claimed_delta is None):
        raise _Usage("--claimed-eps and --claimed-delta go together (an (epsilon, delta) claim)")
    from .audit.mechanisms import MIN_SAMPLES

    samples = _int_option("--samples", args.samples, low=MIN_SAMPLES)
    seed = _int_option("--seed", args.seed, low=0)
    workers = _int_option("--workers", args.workers)
    flags = {"claimed_mu": "--claimed-mu", "claimed_epsilon": "--claimed-eps", "claimed_delta": "--claimed-delta",
             "confidence": "--confidence", "samples": "--samples", "digits": "--digits"}
    try:
        report = audit_mechanism(sample_p, sample_q, samples=samples, seed=seed, claimed_mu=args.claimed_mu,
                                 claimed_epsilon=args.claimed_epsilon, claimed_delta=args.claimed_delta,
                                 score=rest[0] if rest else None, confidence=args.confidence,
                                 digits=args.digits, workers=workers, progress=not args.json and samples >= 10**7)
    except GdpproofError as exc:
        msg = str(exc)
        name = msg.partition("=")[0]
        if name in flags:   # an argument: name it as typed
            raise _Usage(flags[name] + msg[len(name):]) from None
        raise _Usage(f"the mechanism from --module={args.module_spec!r}: {msg}") from None
    except Exception as exc:  # noqa: BLE001 - user code may raise anything: one line, exit 2
        raise _Usage(f"the mechanism from --module={args.module_spec!r} failed: {type(exc).__name__}: {exc}") from None
    payload = report.as_dict()
    payload["module"] = args.module_spec
    _emit(args, payload, f"{'mechanism':<16}{args.module_spec}\n{report}")
    return 1 if report.violation else 0


def _simulate(args: argparse.Namespace) -> int:
    import math

    import numpy as np

    from . import gaussian, laplace, rr_composition
    from .simulation import GaussianMechanism, LaplaceMechanism, RandomizedResponse, SubsampledGaussianMechanism, simulate

    kind = args.mechanism
    given = {"--sigma": args.sigma, "--eps": args.eps, "--scale": args.scale, "--sample-rate": args.sample_rate,
             "--module": args.module_spec, "--mu": args.mu}
    allowed = {"gaussian": {"--sigma", "--sample-rate"}, "randomized-response": {"--eps"}, "laplace": {"--scale"},
               "module": {"--module", "--mu"}}[kind]
    for flag, value in given.items():
        if value is not None and flag not in allowed:
            raise _Usage(f"{flag}={value} does not apply to mechanism {kind}")
    for flag, value, default in (("--dim", args.dim, "1"), ("--steps", args.steps, "1"), ("--n", args.n, "1"),
                                 ("--sensitivity", args.sensitivity, "1")):
        ok = {"--dim": ("gaussian",), "--steps": ("gaussian",), "--n": ("randomized-response",),
              "--sensitivity": ("gaussian", "laplace")}[flag]
        if value != default and kind not in ok:
            raise _Usage(f"{flag}={value} does not apply to mechanism {kind}")
    samples = _int_option("--samples", args.samples)
    seed = _int_option("--seed", args.seed, low=0)
    workers = _int_option("--workers", args.workers)
    confidence = _float_option("--confidence", args.confidence, required_for="simulate")
    if not 0 < confidence < 1:
        raise _Usage(f"--confidence={args.confidence!r} must be in (0, 1)")
    upper = center = None
    try:
        if kind == "gaussian":
            sigma = _float_option("--sigma", args.sigma, required_for="gaussian")
            sens = _float_option("--sensitivity", args.sensitivity, required_for="gaussian")
            steps = _int_option("--steps", args.steps)
            if args.sample_rate is None:
                mech = GaussianMechanism(sens, sigma, dim=_int_option("--dim", args.dim), steps=steps)
                mu = math.sqrt(steps) * sens / sigma
                theory, label = gaussian(mu).evaluate_fast, f"G_mu, mu = sqrt(T) sensitivity/sigma = {mu:.6g} (exact)"
            else:
                if _int_option("--dim", args.dim) != 1:
                    raise _Usage(f"--dim={args.dim} does not apply with --sample-rate (one example's contribution)")
                from . import SubsampledGaussianLoss, compose_losses

                rate = _float_option("--sample-rate", args.sample_rate, required_for="gaussian")
                mech = SubsampledGaussianMechanism(sigma / sens, rate, steps=steps)
                # the proven bracket of this ordering's curve (one example absent in P, present in
                # Q: the "add" ordering of the privacy loss), on a grid fine enough that its width
                # is small beside the Monte Carlo band
                h = min(1e-3, max(2e-5, 0.002 / math.sqrt(steps * math.log(1e12) / 2)))
                comp = compose_losses([(SubsampledGaussianLoss(sigma / sens, rate), steps)], grid_step=h)
                theory, upper = comp.tradeoff_curves("add")
                center = lambda a: (theory(a) + upper(a)) / 2  # noqa: E731
                label = (f"proven bracket of the {steps}-fold curve (numerical composition, grid {h:.2g}; "
                         "one neighbouring direction: the example absent, then present)")
        elif kind == "randomized-response":
            eps = _float_option("--eps", args.eps, required_for="randomized-response")
            n = _int_option("--n", args.n)
            mech = RandomizedResponse(eps, n=n)
            theory, label = rr_composition(args.eps, n).evaluate_fast, f"exact {n}-fold randomized response"
        elif kind == "module":
            mech = _module_mechanism(args.module_spec)
            mu = _float_option("--mu", args.mu, required_for="module")
            if not (math.isfinite(mu) and mu >= 0):
                raise _Usage(f"--mu={args.mu!r} must be a finite number >= 0")
            # a privacy claim is one-sided: the mechanism's curve must lie above G_mu (the curve
            # is marked non-exact after the run, below)
            theory, label = gaussian(mu).evaluate_fast, f"the claim: f >= G_mu, mu = {mu:g} (one-sided check)"
        else:
            scale = _float_option("--scale", args.scale, required_for="laplace")
            sens = _float_option("--sensitivity", args.sensitivity, required_for="laplace")
            mech = LaplaceMechanism(sens, scale)
            theory, label = laplace(sens / scale).evaluate_fast, f"Laplace trade-off, mu = {sens / scale:.6g} (exact)"
    except ValueError as exc:
        # name the option as typed, with the value as typed
        msg = str(exc)
        name, _, rest = msg.partition("=")
        flags = {"sigma": "sigma", "sample_rate": "sample_rate", "sensitivity": "sensitivity", "scale": "scale",
                 "eps": "eps", "n": "n", "dim": "dim", "steps": "steps"}
        if name in flags and " must" in rest:
            attr = flags[name]
            msg = f"{_flag(attr)}={getattr(args, attr)!r} must{rest.split(' must', 1)[1]}"
        raise _Usage(msg) from None
    try:
        curve = simulate(mech, samples, seed=seed, confidence=confidence, workers=workers,
                         progress=samples >= 10**6 and not args.json)
    except Exception as exc:  # noqa: BLE001 - user code (--module) may raise anything: one line, exit 2
        if kind != "module" or isinstance(exc, GdpproofError):
            raise
        raise _Usage(f"the mechanism from --module={args.module_spec!r} failed: {type(exc).__name__}: {exc}") from None
    if kind == "module":
        import dataclasses

        curve = dataclasses.replace(curve, exact=False)
    check = curve.check(theory, upper=upper)
    # the deviation is measured from the theory's curve (the middle of the bracket when it is one)
    deviation = check.max_deviation if center is None else curve.check(center).max_deviation
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (ax, dev) = plt.subplots(1, 2, figsize=(11, 5))
        curve.plot(ax, theory=theory if upper is None else None, label=label)
        if upper is not None:
            grid = np.linspace(0, 1, 401)
            ax.plot(grid, theory(grid), "k--", lw=0.8, label="proven bracket of the curve")
            ax.plot(grid, upper(grid), "k--", lw=0.8)
            ax.legend(fontsize=7)
        if center is None:
            curve.plot_deviation(dev, theory)
        else:
            curve.plot_deviation(dev, theory, upper=upper, center=center,
                                 title="deviation from the middle of the proven bracket")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        plt.close(fig)
    payload = {"mechanism": mech.name, "theory": label, "samples": str(samples), "seed": str(seed),
               "inside": check.inside, "max_deviation": f"{deviation:.4g}",
               "max_violation": f"{check.max_violation:.4g}", "half_width": f"{check.half_width[0]:.4g}",
               "confidence": f"{confidence:g}", "certified": "monte-carlo (DKW band, Massart constant, union bound)",
               "digits": 4, "plot": args.plot}
    if kind == "module":
        verdict = ("claim not refuted (the curve is not below G_mu beyond the band)" if check.inside
                   else f"claim REFUTED: the curve is below G_mu by {check.max_violation:.4g} beyond the band")
    else:
        verdict = "inside the band" if check.inside else f"OUTSIDE the band by {check.max_violation:.4g}"
    _emit(args, payload, "\n".join([
        f"mechanism       {mech.name}",
        f"theory          {label}",
        f"max deviation   {deviation:.4g}   (largest |beta_hat - f(alpha_hat)|"
        + (", f the middle of the bracket)" if center is not None else ")"),
        f"band half-width {check.half_width[0]:.4g}   (DKW, confidence {confidence:g}, {samples:,} samples per side)",
        f"verdict         {'' if kind == 'module' else 'theory '}{verdict}"]))
    return 0 if check.inside else 1


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


def _table_executor(args: argparse.Namespace) -> Any:
    if args.scheduler is None:
        return None
    try:
        from distributed import Client
    except ImportError:
        raise _Usage(f"--scheduler={args.scheduler} needs dask.distributed (pip install 'gdpproof[scale]')") from None
    try:
        return Client(args.scheduler, timeout=10).get_executor()
    except (OSError, TimeoutError, ValueError) as exc:
        raise _Usage(f"--scheduler={args.scheduler}: cannot connect ({exc})") from None


def _table(args: argparse.Namespace) -> int:
    import os

    from .reference import make_table, verify_table

    grid = {k[5:]: v for k, v in vars(args).items() if k.startswith("grid_") and v is not None}
    progress = not args.no_progress and sys.stderr.isatty()
    if args.verify is not None:
        extra = [f"--{k.replace('_', '-')}" for k in grid] + (["KIND"] if args.kind else []) + \
            [o for o, v in (("--out", args.out), ("--resume", args.resume), ("--format", args.format)) if v]
        if extra:
            raise _Usage(f"--verify takes a file and --sample/--seed only; {extra[0]} does not apply")
        sample = None if args.sample == "all" else _int_option("--sample", args.sample)
        report = verify_table(args.verify, sample=sample, seed=_int_option("--seed", args.seed, low=0),
                              progress=progress)
        _emit(args, report.as_dict(), str(report))
        return 1 if not report.ok else 3 if report.unchecked else 0
    if args.kind is None:
        raise _Usage("give a table KIND (or --verify FILE)")
    if args.resume and args.out is None:
        raise _Usage("--resume needs --out (the journal is OUT.partial)")
    if not 1 <= args.digits <= 4000:
        raise _Usage(f"--digits={args.digits} must be an integer in [1, 4000]")
    workers = min(os.cpu_count() or 1, 8) if args.workers is None else _int_option("--workers", args.workers)
    if args.out is None:
        table = make_table(args.kind, digits=args.digits, workers=workers, executor=_table_executor(args),
                           progress=progress, **grid)
        print(table.render("json" if args.json and args.format is None else (args.format or "csv")), end="")
        return 0
    journal = args.out + ".partial"
    resumed = 0
    if args.resume and os.path.exists(journal):
        with open(journal, encoding="utf-8") as fh:
            resumed = max(0, sum(1 for line in fh if line.endswith("\n")) - 2)
    elif args.resume:
        print(f"gdpproof: note: --resume: there is no {journal} to resume; computing every row", file=sys.stderr)
    try:
        table = make_table(args.kind, digits=args.digits, out=args.out, format=args.format, workers=workers,
                           executor=_table_executor(args), resume=args.resume, progress=progress, **grid)
    except KeyboardInterrupt:
        print(f"\ngdpproof: interrupted; finished rows are kept in {journal}: rerun the same command with "
              "--resume", file=sys.stderr)
        return 130
    header = dict(table.header)
    payload = {"out": args.out, "kind": table.kind, "rows": str(len(table.rows)), "resumed_rows": str(resumed),
               "computed_rows": str(len(table.rows) - resumed), "digits": args.digits,
               "certified": header.get("certified", "")}
    _emit(args, payload, f"wrote {args.out}: table {table.kind}, {len(table.rows)} rows at {args.digits} digits "
                         f"({resumed} resumed, {len(table.rows) - resumed} computed)")
    return 0


def _tables(args: argparse.Namespace) -> int:
    from .reference import check_shipped, regenerate_shipped

    progress = sys.stderr.isatty()
    if args.regenerate:
        if args.rows is not None:
            raise _Usage(f"--rows={args.rows} applies to --check only")
        paths = regenerate_shipped(progress=progress)
        _emit(args, {"written": [str(p) for p in paths]}, "\n".join(f"wrote {p}" for p in paths))
        return 0
    rows = None if args.rows is None else _int_option("--rows", args.rows)
    diff = check_shipped(rows=rows, progress=progress)
    lines = []
    for name, d in diff.items():
        lines.append(f"{name}: {'identical' if not d else f'{len(d)} differences'}")
        lines.extend(f"  {x}" for x in d[:10])
    _emit(args, {"tables": {n: d for n, d in diff.items()}, "identical": not any(diff.values())}, "\n".join(lines))
    return 1 if any(diff.values()) else 0


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
    except KeyboardInterrupt:
        print("\ngdpproof: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
