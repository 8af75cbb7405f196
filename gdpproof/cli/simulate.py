"""``gdpproof simulate MECHANISM ...``: Monte Carlo of a mechanism against its theoretical
trade-off curve (exit 1 if the theory is outside the simultaneous band), with an optional plot.

A KIND with its options is the ``--mechanism`` spec it names (:func:`kind_spec`), so both ways
give one mechanism value, its sampler, and its theory (:mod:`gdpproof.audit.theory`); this module
parses, runs and prints.
"""

from __future__ import annotations

import argparse
import math
from contextlib import nullcontext
from typing import Any

from ..errors import InvalidParameterError
from .._args import float_option, int_option
from ._common import Usage, emit, flags
from ._usercode import module_mechanism, user_code

#: the mechanisms' arguments -> the options that give them.
FLAGS = {"sigma": "--sigma", "sample_rate": "--sample-rate", "sensitivity": "--sensitivity", "scale": "--scale",
         "eps": "--eps", "n": "--n", "dim": "--dim", "steps": "--steps", "k": "--k"}

#: the options each mechanism takes (besides the common ones).
_TAKES = {"gaussian": {"--sigma", "--sample-rate"}, "randomized-response": {"--eps"}, "laplace": {"--scale"},
          "module": {"--module", "--mu"}}
#: options with a default, and the mechanisms they apply to.
_DEFAULTED = {"--dim": ("gaussian",), "--steps": ("gaussian",), "--n": ("randomized-response",),
              "--k": ("randomized-response",), "--sensitivity": ("gaussian", "laplace")}


def _check_options(args: argparse.Namespace) -> None:
    kind = args.mechanism
    if (kind is None) == (args.spec is None):
        raise Usage("give the mechanism one way: a KIND (gaussian, randomized-response, laplace, module) with its "
                    "options, or --mechanism SPEC as gdpproof account takes it")
    if kind is None:
        _check_spec_options(args)
        return
    given = {"--sigma": args.sigma, "--eps": args.eps, "--scale": args.scale, "--sample-rate": args.sample_rate,
             "--module": args.module_spec, "--mu": args.mu}
    for flag, value in given.items():
        if value is not None and flag not in _TAKES[kind]:
            raise Usage(f"{flag}={value} does not apply to mechanism {kind}")
    for flag, value, default in (("--dim", args.dim, "1"), ("--steps", args.steps, "1"), ("--n", args.n, "1"),
                                 ("--k", args.k, "2"), ("--sensitivity", args.sensitivity, "1")):
        if value != default and kind not in _DEFAULTED[flag]:
            raise Usage(f"{flag}={value} does not apply to mechanism {kind}")
    _check_plot(args)


def _check_spec_options(args: argparse.Namespace) -> None:
    """With --mechanism, the spec says everything: the per-kind options are refused."""
    given = {"--sigma": args.sigma, "--eps": args.eps, "--scale": args.scale, "--sample-rate": args.sample_rate,
             "--module": args.module_spec, "--mu": args.mu}
    given.update({flag: value for flag, value, default in (("--dim", args.dim, "1"), ("--steps", args.steps, "1"),
                                                           ("--n", args.n, "1"), ("--k", args.k, "2"),
                                                           ("--sensitivity", args.sensitivity, "1"))
                  if value != default})
    for flag, value in given.items():
        if value is not None:
            raise Usage(f"{flag}={value} does not apply with --mechanism (the spec gives the parameters)")
    _check_plot(args)


def _check_plot(args: argparse.Namespace) -> None:
    if args.plot is not None:  # before the simulation, not after it
        import importlib.util
        import os

        if os.path.splitext(args.plot)[1].lower() not in _PLOT_FORMATS:
            raise Usage(f"--plot={args.plot!r} must name a {', '.join(_PLOT_FORMATS)} file")
        if importlib.util.find_spec("matplotlib") is None:
            raise Usage(f"--plot={args.plot!r} needs matplotlib (pip install matplotlib)")


#: what --plot writes (matplotlib picks the format from the suffix).
_PLOT_FORMATS = (".png", ".pdf", ".svg")


#: ``simulate KIND --option V ...`` is ``simulate --mechanism KIND:key=V,...``: the options of each
#: kind (by dest) and the spec keys they give; ``--steps`` (``--n`` for randomized response) gives
#: ``times``.
SPEC_KEYS = {"gaussian": {"sigma": "sigma", "sensitivity": "sensitivity", "sample_rate": "sample-rate"},
             "laplace": {"scale": "scale", "sensitivity": "sensitivity"},
             "randomized-response": {"eps": "epsilon", "k": "k"}}


def kind_spec(args: argparse.Namespace) -> dict[str, Any]:
    """The spec (as :func:`gdpproof.mechanisms.mechanism_from_dict` reads it) that ``simulate KIND
    --option V ...`` stands for: one vocabulary with ``--mechanism`` and ``gdpproof account``."""
    kind = args.mechanism
    keys = SPEC_KEYS[kind]
    need = next(iter(keys))
    if getattr(args, need) is None:
        raise Usage(f"{FLAGS[need]} is required for {kind}")
    spec: dict[str, Any] = {"kind": kind}
    for dest, key in keys.items():
        value = getattr(args, dest)
        if isinstance(value, str):  # written in ASCII, as every number option is (a closed form is sympy's)
            float_option(FLAGS[dest], value, required_for=kind)
        if value is not None:
            spec[key] = value
    if kind == "randomized-response":
        spec["k"] = int_option("--k", args.k, low=2)
    times = int_option(_times_flag(kind), args.n if kind == "randomized-response" else args.steps)
    if times > 1:
        spec["times"] = times
    return spec


def _times_flag(kind: str) -> str:
    return "--n" if kind == "randomized-response" else "--steps"


def _mechanism(args: argparse.Namespace) -> tuple[Any, Any]:
    """The simulated mechanism and the theory it is checked against."""
    from ..audit.theory import gdp_claim, sampler_of, theory_of
    from ..mechanisms import mechanism_from_dict, mechanism_from_spec

    kind = args.mechanism
    mech: Any  # a Sampler; the gaussian kind's is a GaussianSampler
    if kind == "module":
        mech = module_mechanism(args.module_spec)
        mu = float_option("--mu", args.mu, required_for="module")
        if not (math.isfinite(mu) and mu >= 0):
            raise Usage(f"--mu={args.mu!r} must be a finite number >= 0")
        # a privacy claim is one-sided: the mechanism's curve must lie above G_mu
        return mech, gdp_claim(mu)
    if kind is None:
        mech = sampler_of(mechanism_from_spec(args.spec))
        return mech, theory_of(mech)
    spec = kind_spec(args)
    times = _times_flag(kind)
    # the library's names of the parameters (the spec's, the values' and the samplers') -> the options
    names = {"times": times, "steps": times, "n": times}
    typed = dict.fromkeys(names, getattr(args, times[2:]))
    for dest, key in SPEC_KEYS[kind].items():
        for name in {key, key.replace("-", "_"), dest}:
            names[name], typed[name] = FLAGS[dest], getattr(args, dest)
    try:
        mech = sampler_of(mechanism_from_dict(spec, where=f"simulate {kind}"))
        dim = int_option("--dim", args.dim)
        if dim != 1:
            if "sample-rate" in spec:
                raise Usage(f"--dim={args.dim} does not apply with --sample-rate (one example's contribution)")
            from ..simulation import GaussianSampler

            mech = GaussianSampler(mech.sensitivity, mech.sigma, dim=dim, steps=mech.steps)
    except InvalidParameterError as exc:
        if exc.argument not in names:
            raise
        raise Usage(exc.renamed(names, typed)) from None  # the option and its value as typed
    return mech, theory_of(mech)


def _plot(path: str, curve: Any, theory: Any) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, (ax, dev) = plt.subplots(1, 2, figsize=(11, 5))
    curve.plot(ax, theory=theory.lower if theory.exact else None, label=theory.label)
    if theory.exact:
        curve.plot_deviation(dev, theory.lower)
    else:
        grid = np.linspace(0, 1, 401)
        ax.plot(grid, theory.lower(grid), "k--", lw=0.8, label="proven bracket of the curve")
        ax.plot(grid, theory.upper(grid), "k--", lw=0.8)
        ax.legend(fontsize=7)
        curve.plot_deviation(dev, theory.lower, upper=theory.upper, center=theory.center,
                             title="deviation from the middle of the proven bracket")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(args: argparse.Namespace) -> int:
    from ..simulation import simulate

    kind = args.mechanism
    _check_options(args)
    samples = int_option("--samples", args.samples)
    seed = int_option("--seed", args.seed, low=0)
    workers = int_option("--workers", args.workers)
    confidence = float_option("--confidence", args.confidence, required_for="simulate")
    if not 0 < confidence < 1:
        raise Usage(f"--confidence={args.confidence!r} must be in (0, 1)")
    mech, theory = _mechanism(args)
    with flags({"samples": "--samples", "seed": "--seed", "workers": "--workers", "confidence": "--confidence"}), \
            user_code(f"the mechanism from --module={args.module_spec!r}", "failed:") if kind == "module" else nullcontext():
        curve = simulate(mech, samples, seed=seed, confidence=confidence, workers=workers,
                         progress=samples >= 10**6 and not args.json)
    if kind == "module":
        import dataclasses

        # a user's statistic need not be the likelihood ratio: its curve lies above the truth
        curve = dataclasses.replace(curve, exact=False)
    check = curve.check(theory.lower, upper=theory.upper)
    # the deviation is measured from the theory's curve (the middle of the bracket when it is one)
    deviation = check.max_deviation if theory.exact else curve.check(theory.center).max_deviation
    if args.plot:
        _plot(args.plot, curve, theory)
    payload = {"mechanism": mech.name, "theory": theory.label, "samples": str(samples), "seed": str(seed),
               "inside": check.inside, "max_deviation": f"{deviation:.4g}",
               "max_violation": f"{check.max_violation:.4g}", "half_width": f"{check.half_width[0]:.4g}",
               "confidence": f"{confidence:g}", "certified": "monte-carlo (DKW band, Massart constant, union bound)",
               "digits": 4, "plot": args.plot}
    if kind == "module":
        verdict = ("claim not refuted (the curve is not below G_mu beyond the band)" if check.inside
                   else f"claim REFUTED: the curve is below G_mu by {check.max_violation:.4g} beyond the band")
    else:
        verdict = "inside the band" if check.inside else f"OUTSIDE the band by {check.max_violation:.4g}"
    mc = "Monte Carlo, not certified, 4 digits rounded to nearest"
    emit(args, payload, "\n".join([
        f"mechanism       : {mech.name}",
        f"theory          : {theory.label}",
        f"max deviation   = {deviation:.4g}   ({mc}: largest distance of an estimate (alpha_hat, beta_hat) to f, "
        "alpha and beta moved alike"
        + (")" if theory.exact else ", f the middle of the bracket)"),
        f"band half-width = {check.half_width[0]:.4g}   ({mc}: DKW, confidence {confidence:g}, "
        f"{samples:,} samples per side)",
        f"verdict         : {'' if kind == 'module' else 'theory '}{verdict}"]))
    return 0 if check.inside else 1
