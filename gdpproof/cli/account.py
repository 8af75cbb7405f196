"""``gdpproof account``: the privacy of any mechanism, through :func:`gdpproof.account`.

The mechanism comes from ``--mechanism SPEC`` (repeated: composed), ``--spec FILE`` or DP-SGD's
``--sigma/--sample-rate/--steps`` (with ``--sampling poisson|fixed-batch`` and ``--neighbours
add-remove|replace-one``); ``--delta`` asks for eps, ``--eps`` for delta.  For DP-SGD
the CLT approximation (mu_clt, eps_clt, gamma) is printed beside the proven answer, labelled.
"""

from __future__ import annotations

import argparse
import sys

from ._common import COMMON_FLAGS, Usage, emit, flags, noise_line, num, sensitivity_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..mechanisms import Mechanism, Schedule

#: library argument names -> the options that give them.
FLAGS = {**COMMON_FLAGS, "noise_multiplier": "--sigma", "sigma": "--sigma", "sample_rate": "--sample-rate",
         "steps": "--steps", "times": "--steps", "epochs": "--epochs", "batch_size": "--batch-size",
         "dataset_size": "--dataset-size", "delta": "--delta", "epsilon": "--eps", "rel_width": "--rel-width",
         "sampling": "--sampling", "neighbours": "--neighbours", "route": "--route"}


#: DP-SGD's options, by attribute: the run is given by these instead of a mechanism.
_DPSGD_OPTIONS = {"sigma": "--sigma", "sample_rate": "--sample-rate", "steps": "--steps", "epochs": "--epochs",
                  "batch_size": "--batch-size", "dataset_size": "--dataset-size"}


#: Said on stderr when DP-SGD is accounted without --delta or --eps (only the CLT side is printed).
NEEDS_QUERY = ("only the CLT approximation was computed (not a bound): the proven answer needs --delta D "
               "(for eps) or --eps E (for delta)")


def warn(args: argparse.Namespace, payload: dict, messages: list[str]) -> None:
    """The warnings: a line each on stderr; with --json in the payload (key ``warnings``) and one
    line on stderr saying so."""
    if getattr(args, "json", False):
        payload["warnings"] = list(messages)
        if messages:
            print(f"gdpproof: {len(messages)} warning{'s' if len(messages) > 1 else ''} in the JSON (key "
                  f"'warnings')", file=sys.stderr)
        return
    for m in messages:
        print(f"gdpproof: warning: {m}", file=sys.stderr)


def _dpsgd_given(args: argparse.Namespace) -> list[str]:
    return [option for attr, option in _DPSGD_OPTIONS.items() if getattr(args, attr) is not None]


def _schedule(args: argparse.Namespace) -> Schedule:
    """DP-SGD's sampling rate and steps, from --sample-rate/--steps or --epochs/--batch-size/--dataset-size."""
    from ..mechanisms import dpsgd_schedule

    if args.sigma is None:
        raise Usage("DP-SGD needs --sigma (the noise multiplier)")
    with flags(FLAGS):
        return dpsgd_schedule(sample_rate=args.sample_rate, steps=args.steps, epochs=args.epochs,
                              batch_size=args.batch_size, dataset_size=args.dataset_size)


def _mechanism(args: argparse.Namespace) -> tuple[Mechanism, Schedule | None]:
    from ..mechanisms import Composed, dpsgd, mechanism_from_file, mechanism_from_spec

    dpsgd_given = _dpsgd_given(args)
    sources = sum([bool(args.mechanism), args.spec is not None, bool(dpsgd_given)])
    if sources != 1:
        raise Usage("give the mechanism one way: --mechanism SPEC (repeatable), --spec FILE, or DP-SGD's "
                    "--sigma with --sample-rate (or --batch-size and --dataset-size) and --steps (or --epochs)")
    if args.mechanism:
        parts = [mechanism_from_spec(spec) for spec in args.mechanism]
        return (parts[0] if len(parts) == 1 else Composed(*parts)), None
    if args.spec is not None:
        return mechanism_from_file(args.spec), None
    s = _schedule(args)
    with flags(FLAGS):
        return dpsgd(args.sigma, s.sample_rate if s.batch_size is None else None, s.steps,
                     batch_size=s.batch_size, dataset_size=s.dataset_size if s.batch_size is not None else None,
                     sampling=_scheme(args), neighbours=args.neighbours), s


def _scheme(args: argparse.Namespace) -> str:
    return "fixed-batch" if args.sampling == "uniform" else args.sampling or "poisson"


def _real_steps_clt(args: argparse.Namespace, mechanism: Mechanism, s: Schedule, payload: dict,
                    text: list[str], warned: list[str]) -> None:
    """With --clt-real-steps: the CLT at the papers' real T = E N / B (= E / q) beside the rest, in
    the JSON under ``clt_real_steps`` and labelled in the text; its note joins the warnings."""
    from ..accounting import clt_formula, dpsgd_mu
    from ..symbolic.clt import REAL_STEPS_NOTE

    sigma = (mechanism.dpsgd_parameters() or (None,))[0]
    t = s.epochs / s.sample_rate
    with flags(FLAGS):
        acc = dpsgd_mu(sigma, s.sample_rate, t, sampling=clt_formula(mechanism), delta=args.delta,
                       digits=args.digits, real_steps=True)
    entry = {"steps": str(t), "mu_clt": num(acc.mu_clt), "approximation": True, "proven": False,
             "rounding": {"mu_clt": "up"}}
    w = 8 if any(line.startswith("mu_clt  =") for line in text) else 10  # the labels' width around them
    lines = [f"{'T real':<{w}}= {t} = E N / B   (the papers' T, not whole steps)",
             f"{'mu_clt':<{w}}= {acc.mu_clt}   at the real T (the papers' approximation, not proven)"]
    if acc.eps_clt is not None:
        entry["eps_clt"] = num(acc.eps_clt)
        entry["rounding"]["eps_clt"] = "up"
        lines.append(f"{'eps_clt':<{w}}= {acc.eps_clt}   at the real T, delta = {args.delta} (the papers' "
                     "approximation, not proven)")
    at = len(text) - 1 if text and text[-1].startswith("The mechanism") else len(text)  # before the statement
    text[at:at] = lines
    payload["clt_real_steps"] = entry
    warned.extend(n for n in (acc.note.replace(f" {REAL_STEPS_NOTE}", ""), REAL_STEPS_NOTE) if n not in warned)


def _check_real_steps(args: argparse.Namespace, schedule: Schedule | None) -> None:
    if args.clt_real_steps and (schedule is None or schedule.epochs is None):
        raise Usage("--clt-real-steps applies to DP-SGD given in --epochs (the papers' T = E N / B)")


def _dpsgd_clt_only(args: argparse.Namespace, mechanism: Mechanism, s: Schedule) -> int:
    """DP-SGD without a query: the CLT approximation alone (of the dominating pair's composition:
    `gdpproof.accounting.clt_formula`)."""
    from ..accounting import clt_formula
    from ..accounting import dpsgd_mu

    formula = clt_formula(mechanism)
    scheme = mechanism.sampling() or (None, None)
    sigma, _, _ = mechanism.dpsgd_parameters() or (None, None, None)  # over the sensitivity the scheme sets
    with flags(FLAGS):
        acc = dpsgd_mu(sigma, s.sample_rate, s.steps, sampling=formula, delta=args.delta,
                       digits=args.digits, gamma_digits=min(args.digits, 6), exact=False)
    warned = [acc.note, NEEDS_QUERY]
    payload = {"sigma": args.sigma, "sample_rate": str(s.sample_rate), "steps": s.steps, "sampling": scheme[0],
               "neighbours": scheme[1], "sensitivity": sensitivity_of(mechanism), "clt_formula": formula,
               "schedule_rule": s.rule or None,
               "route": None, "mu_clt": num(acc.mu_clt), "gamma": None if acc.gamma is None else num(acc.gamma),
               "mu_T": None if acc.mu_T is None else num(acc.mu_T),
               "approximation": True, "digits": acc.mu_clt.digits, "certified": acc.mu_clt.method,
               "rounding": {"mu_clt": "up", "eps_clt": "up", "gamma": "up", "mu_T": "up"}}
    text = ([f"schedule  : {s.rule}"] if s.rule else []) + [f"noise   : {noise_line(mechanism)}",
                                                             f"mu_clt  = {acc.mu_clt}   (CLT approximation, not a bound)"]
    if acc.eps_clt is not None:
        payload.update({"delta": args.delta, "eps_clt": num(acc.eps_clt)})
        text.append(f"eps_clt = {acc.eps_clt}   at delta = {args.delta} (from mu_clt; an approximation)")
    text.append(f"gamma   = {acc.gamma}   ({acc.gamma_note})" if acc.gamma
                is not None else "gamma   = not certified for this configuration (the rest stands)")
    payload["gamma_approximation"] = acc.gamma_approximation
    if args.clt_real_steps:
        _real_steps_clt(args, mechanism, s, payload, text, warned)
    warn(args, payload, warned)
    emit(args, payload, "\n".join(text))
    return 0


def run(args: argparse.Namespace) -> int:
    if args.delta is not None and args.eps is not None:
        raise Usage(f"--delta={args.delta} and --eps={args.eps}: give one (--delta reports eps, --eps reports delta)")
    dpsgd_flags = bool(_dpsgd_given(args))
    if args.sampling is not None and not dpsgd_flags:  # refused even at the default: never ignored
        raise Usage(f"--sampling={args.sampling} applies only to DP-SGD (--sigma, --sample-rate, --steps)")
    if args.neighbours is not None and not dpsgd_flags:
        raise Usage(f"--neighbours={args.neighbours} applies only to DP-SGD (--sigma, --sample-rate, --steps); "
                    "in a spec, give neighbours= with the subsample")
    from . import _curves

    if _curves.wanted(args):
        if args.clt_real_steps:
            raise Usage("--clt-real-steps applies to one account, not to a range or a list")
        return _curves.run(args, _curves.Command(_mechanism, report, warn, FLAGS))
    mechanism, schedule = _mechanism(args)
    _check_real_steps(args, schedule)
    if schedule is not None and args.delta is None and args.eps is None:
        if args.rel_width is not None:
            raise Usage(f"--rel-width={args.rel_width} applies only with --delta or --eps "
                        "(it sets the width of the proven bracket)")
        if args.route is not None:
            raise Usage(f"--route={args.route} needs --delta or --eps")
        return _dpsgd_clt_only(args, mechanism, schedule)
    if args.delta is None and args.eps is None:
        raise Usage("give --delta (to get eps) or --eps (to get delta)")

    from ..accounting import account

    import warnings

    from .._progress import Ticker

    with flags(FLAGS), warnings.catch_warnings(record=True) as caught, Ticker("gdpproof account"):
        warnings.simplefilter("always")
        a = account(mechanism, delta=args.delta, epsilon=args.eps, digits=args.digits,
                    rel_width="0.01" if args.rel_width is None else args.rel_width,
                    route=args.route)
    warned = [str(w.message) for w in caught]  # best effort, for one: a line each (in the JSON with --json)
    payload, text = report(args, a, mechanism, schedule, warned)
    if args.clt_real_steps:
        assert schedule is not None
        _real_steps_clt(args, mechanism, schedule, payload, text, warned)
    warn(args, payload, warned)
    emit(args, payload, "\n".join(text))
    # 4: a proven bracket was printed, but wider than --rel-width asked (best effort)
    return 4 if payload.get("target_met") is False else 0


def report(args: argparse.Namespace, a: Any, mechanism: Mechanism, schedule: Schedule | None,
           warned: list[str], with_gamma: bool = True) -> tuple[dict[str, Any], list[str]]:
    """One account's JSON payload and text lines; its CLT note joins ``warned``.  Without
    ``with_gamma`` the Berry-Esseen gamma (a quadrature) is left out."""
    payload = a.to_dict()
    what, lo, hi = ("eps", a.eps_lower, a.eps_upper) if a.given == "delta" else ("delta", a.delta_lower, a.delta_upper)
    pair = "" if a.pair_tight else "pair_"  # lower ends that hold for the dominating pair only (to_dict's keys)
    rounding = {f"{pair}{what}_lower": "down", f"{what}_upper": "up"}
    text = [f"mechanism : {a.mechanism!r}", f"route     : {a.route} ({a.method})"]
    if schedule is not None:
        payload["sensitivity"] = sensitivity_of(mechanism)
        text.insert(1, f"noise     : {noise_line(mechanism)}")
        if schedule.rule:
            payload["schedule_rule"] = schedule.rule
            text.insert(1, f"schedule  : {schedule.rule}")
    order = "" if a.ordering == "both" else f"; worse ordering: {a.ordering}"
    if not a.pair_tight:
        text.append(f"{what:<9} <= {hi}   proven for the mechanism (rounded up){order}")
        text.append(f"{'pair':<9} : the dominating pair's {what} is >= {lo} (rounded down); a lower bound for "
                    "the pair, not for the mechanism")
    elif a.route == "bracket":
        text.append(f"{what:<9} in [{lo}, {hi}]   proven (lower rounded down, upper up){order}")
    else:
        text.append(f"{what:<9} = {hi}   certified, rounded up")
    if a.mu is not None:
        text.append(f"mu        = {a.mu}   exactly mu-GDP (rounded up)")
        rounding["mu"] = "up"
    elif a.route == "bracket" and args.honest_mu:
        h = a.honest_mu_decimals()  # the tightest GDP description over the range the bracket resolves
        if h is not None:
            payload.update({f"{pair}honest_mu_lower": str(h["mu_lower"]), "honest_mu_upper": str(h["mu_upper"]),
                            "honest_mu_delta_min": str(h["delta_min"])})
            rounding.update({f"{pair}honest_mu_lower": "down", "honest_mu_upper": "up", "honest_mu_delta_min": "up"})
            if a.pair_tight:
                text.append(f"mu        in [{h['mu_lower']}, {h['mu_upper']}]   honest mu: the smallest mu with the "
                            f"mechanism mu-GDP at every delta >= {h['delta_min']} lies here (proven)")
            else:
                text.append(f"mu        <= {h['mu_upper']}   honest mu: the smallest mu with the mechanism mu-GDP "
                            f"at every delta >= {h['delta_min']} is at most this (proven); its dominating pair's "
                            f"is >= {h['mu_lower']} (a lower bound for the pair, not for the mechanism)")
    gamma = None
    if a.clt is not None:
        if a.clt.note not in warned:
            warned.append(a.clt.note)
        payload.update({"mu_clt": num(a.clt.mu), "approximation_note": a.clt.note})
        rounding["mu_clt"] = "up"
        gamma_digits = min(args.digits, 6)
        clt_account = a.clt.berry_esseen(gamma_digits) if with_gamma else None  # the Berry-Esseen gamma of the curve behind the formula
        if clt_account is not None:
            gamma = clt_account.gamma
            payload.update({"gamma": None if gamma is None else num(gamma), "gamma_digits": gamma_digits,
                            "mu_T": None if clt_account.mu_T is None else num(clt_account.mu_T),
                            "gamma_approximation": clt_account.gamma_approximation})
            rounding.update({"gamma": "up", "mu_T": "up"})
        text.append(f"mu_clt    = {a.clt.mu}   (CLT approximation, not a bound)")
        if a.clt.epsilon is not None:
            payload["eps_clt"] = num(a.clt.epsilon)
            rounding["eps_clt"] = "up"
            text.append(f"eps_clt   = {a.clt.epsilon}   at delta = {args.delta} (from mu_clt; an approximation)")
        if a.clt.delta is not None:
            payload["delta_clt"] = num(a.clt.delta)
            rounding["delta_clt"] = "up"
            text.append(f"delta_clt = {a.clt.delta}   at eps = {args.eps} (from mu_clt; an approximation)")
        if a.clt.verdict is not None:
            payload["verdict"] = a.clt.verdict
            text.append(f"verdict   : {a.clt.verdict}")
        if gamma is not None:
            text.append(f"gamma     = {gamma}   ({clt_account.gamma_note})")
        elif clt_account is not None:
            text.append("gamma     = not certified for this configuration (the rest stands)")
    for note in a.notes:
        text.append(f"note      : {note}")
    text.append(a.statement(honest_mu=args.honest_mu))
    payload["rounding"] = rounding
    return payload, text
