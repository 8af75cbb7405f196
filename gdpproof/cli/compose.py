"""``gdpproof compose gdp|clt|functionals``: the exact GDP composition, the CLT mu with its
Berry-Esseen gamma, and the CLT functionals of a trade-off function."""

from __future__ import annotations

import argparse

from ._common import COMMON_FLAGS, emit, flags, labelled
from ..text import json_number
from ._family import family


def run(args: argparse.Namespace) -> int:
    from .. import berry_esseen, compose, functionals, gaussian

    if args.compose_command == "gdp":
        with flags({**COMMON_FLAGS, "mu": "--mu"}):
            # G_mu1 (x) ... (x) G_mun is G_mu exactly, so its tightest mu is that mu (Id = G_0)
            mu = compose(*[gaussian(m) for m in args.mu]).tightest_mu(digits=args.digits)
        emit(args, {"mus": args.mu, "mu": json_number(mu), "digits": mu.digits, "rounding": mu.rounding,
                    "certified": mu.method, "exact": True},
             labelled("mu", mu, f"exact, of the composition of {len(args.mu)} GDP mechanisms"))
        return 0
    f = family(args)
    if args.compose_command == "clt":
        with flags({**COMMON_FLAGS, "n": "--n"}):
            band = berry_esseen(f, n=args.times, digits=args.digits)
        payload = {"function": repr(f), "n": args.times, "mu": json_number(band.mu), "gamma": json_number(band.gamma),
                   "approximation": True, "gamma_approximation": band.approximation, "band": band.note,
                   "digits": band.mu.digits, "rounding": {"mu": "up", "gamma": "up"}, "certified": band.mu.method}
        if band.approximation:
            what = "error term of an approximation, not a bound: f is not proven symmetric (DRS Thm 3.5 needs it)"
        else:
            what = "Berry-Esseen, proven: G_mu(a + gamma) - gamma <= exact <= G_mu(a - gamma) + gamma"
        emit(args, payload, "\n".join([
            labelled("mu", band.mu, f"the CLT approximation of the {args.times}-fold composition, not a bound",
                     width=5),
            labelled("gamma", band.gamma, what, width=5)]))
        return 0
    with flags(COMMON_FLAGS):
        fl = functionals(f, digits=args.digits)
    values = fl.as_dict()
    payload = {"function": repr(f), **{k: json_number(v) for k, v in values.items()}, "digits": fl.kl.digits,
               "rounding": "nearest", "certified": fl.kl.method}
    emit(args, payload, "\n".join(labelled(k, v, width=10) for k, v in values.items()))
    return 0
