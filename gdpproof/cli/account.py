"""``gdpproof account --sigma S --sample-rate P --steps T [--delta D]``: DP-SGD's CLT mu (an
approximation, labelled so) beside the proven epsilon bracket of numerical composition."""

from __future__ import annotations

import argparse
import sys

from ._common import COMMON_FLAGS, Usage, emit, flags, num

#: dpsgd_mu's arguments -> the options that give them.
FLAGS = {**COMMON_FLAGS, "noise_multiplier": "--sigma", "sample_rate": "--sample-rate", "steps": "--steps",
         "delta": "--delta", "rel_width": "--rel-width", "sampling": "--sampling"}


def run(args: argparse.Namespace) -> int:
    from .. import dpsgd_mu

    if args.rel_width != "0.01" and (args.delta is None or args.sampling == "uniform"):
        raise Usage(f"--rel-width={args.rel_width} applies only with --delta and Poisson sampling "
                    "(it sets the width of the proven bracket)")
    gamma_digits = min(args.digits, 6)
    with flags(FLAGS):
        acc = dpsgd_mu(args.sigma, args.sample_rate, args.steps, sampling=args.sampling, delta=args.delta,
                       digits=args.digits, gamma_digits=gamma_digits, rel_width=args.rel_width)
    print(f"gdpproof: warning: {acc.note}", file=sys.stderr)
    payload = {"sigma": args.sigma, "sample_rate": args.sample_rate, "steps": args.steps,
               "sampling": args.sampling, "mu_clt": num(acc.mu_clt),
               "gamma": None if acc.gamma is None else num(acc.gamma),
               "approximation": True, "digits": acc.mu_clt.digits,
               "rounding": {"mu_clt": "up", "eps_clt": "up", "gamma": "up"}, "gamma_digits": gamma_digits,
               "certified": acc.mu_clt.method, "gamma_certified": acc.gamma.method if acc.gamma else None}
    text = [f"mu_clt  = {acc.mu_clt}   (CLT approximation, not a bound)"]
    if acc.eps_clt is not None:
        payload.update({"delta": args.delta, "eps_clt": num(acc.eps_clt)})
        text.append(f"eps_clt = {acc.eps_clt}   at delta = {args.delta} (from mu_clt; an approximation)")
    if acc.eps_lower is not None and acc.eps_upper is not None:
        r = acc.exact
        payload.update({"eps_lower": num(acc.eps_lower), "eps_upper": num(acc.eps_upper),
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
    emit(args, payload, "\n".join(text))
    return 0
