"""``gdpproof audit accountant PEER`` and ``gdpproof audit mechanism --module MOD:FUNC ...``:
other implementations checked against gdpproof (exit 1 on a material unsafe finding or a violation;
minor, negligible, float-level and degenerate-input findings are counted apart and never fail).
``gdpproof audit scores ...`` (a training run from its canary scores) is in :mod:`.audit_scores`."""

from __future__ import annotations

import argparse
import math
import sys

from ..errors import InvalidParameterError
from .._args import ascii_number, int_option
from ._common import COMMON_FLAGS, Usage, emit
from ._usercode import call_user, import_function, user_code


#: audit_mechanism's arguments -> the options that give them.
MECHANISM_FLAGS = {**COMMON_FLAGS, "claimed_mu": "--claimed-mu", "claimed_epsilon": "--claimed-eps",
                   "claimed_delta": "--claimed-delta", "confidence": "--confidence", "samples": "--samples",
                   "seed": "--seed", "workers": "--workers"}


def run(args: argparse.Namespace) -> int:
    if args.audit_command == "mechanism":
        return _mechanism(args)
    if args.audit_command == "scores":
        from .audit_scores import run as scores

        return scores(args)
    return _accountant(args)


def _accountant(args: argparse.Namespace) -> int:
    from ..audit import PEERS, PeerNotInstalledError, audit_accountant

    if args.peer not in PEERS:
        raise Usage(f"PEER={args.peer!r} is not a known peer (known: {', '.join(PEERS)})")
    try:
        rtol = float(args.rtol) if ascii_number(args.rtol) else math.nan
    except ValueError:
        rtol = math.nan
    if not 0 <= rtol < 1:
        raise Usage(f"--rtol={args.rtol!r} must be a number in [0, 1)")
    seed = int_option("--seed", args.seed, low=0)
    try:
        report = audit_accountant(args.peer, quick=args.quick, rtol=rtol, seed=seed,
                                  progress=not args.quick and sys.stderr.isatty())
    except PeerNotInstalledError as exc:
        raise Usage(f"PEER={args.peer!r}: {exc}") from None
    emit(args, report.to_dict(), report.text(every=args.all))
    return 0 if report.ok else 1


def _mechanism(args: argparse.Namespace) -> int:
    from ..audit import audit_mechanism

    func, func_name = import_function(args.module_spec)
    got = call_user(args.module_spec, func, func_name)
    if not (isinstance(got, (tuple, list)) and len(got) in (2, 3) and all(callable(f) for f in got)):
        raise Usage(f"--module={args.module_spec!r}: {func_name}() must return (sample_p, sample_q) or "
                    f"(sample_p, sample_q, score), callables; it returned {type(got).__name__}")
    sample_p, sample_q, *rest = got
    if args.claimed_mu is None and args.claimed_epsilon is None and args.claimed_delta is None:
        raise Usage("give a claim: --claimed-mu M, or --claimed-eps E with --claimed-delta D")
    if args.claimed_mu is not None and (args.claimed_epsilon is not None or args.claimed_delta is not None):
        raise Usage(f"--claimed-mu={args.claimed_mu} cannot be combined with --claimed-eps/--claimed-delta: "
                    "give exactly one claim")
    if args.claimed_mu is None and (args.claimed_epsilon is None or args.claimed_delta is None):
        raise Usage("--claimed-eps and --claimed-delta go together (an (epsilon, delta) claim)")
    from ..audit.mechanisms import MIN_SAMPLES

    samples = int_option("--samples", args.samples, low=MIN_SAMPLES)
    seed = int_option("--seed", args.seed, low=0)
    workers = int_option("--workers", args.workers)
    def about_an_option(exc: BaseException) -> bool:
        return isinstance(exc, InvalidParameterError) and exc.argument in MECHANISM_FLAGS

    try:
        with user_code(f"the mechanism from --module={args.module_spec!r}", "failed:", own=about_an_option):
            report = audit_mechanism(sample_p, sample_q, samples=samples, seed=seed, claimed_mu=args.claimed_mu,
                                     claimed_epsilon=args.claimed_epsilon, claimed_delta=args.claimed_delta,
                                     score=rest[0] if rest else None, confidence=args.confidence, digits=args.digits,
                                     workers=workers, progress=not args.json and samples >= 10**7)
    except InvalidParameterError as exc:  # an option: name it as typed
        raise Usage(exc.renamed(MECHANISM_FLAGS)) from None
    payload = report.as_dict()
    payload["module"] = args.module_spec
    emit(args, payload, f"{'mechanism':<16}{args.module_spec}\n{report}")
    return 1 if report.violation else 0
