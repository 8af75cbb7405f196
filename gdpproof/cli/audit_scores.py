"""``gdpproof audit scores``: audit a training run from its canary scores (or one-run guesses, or
scores the seeded DP-SGD canary simulator produces).  Parses, calls
:func:`gdpproof.audit.audit_scores` and prints; exit 1 when the claim is refuted."""

from __future__ import annotations

import argparse
import importlib.util
import os
from typing import Any

from ..errors import InvalidParameterError
from .._args import ascii_number, float_option, int_option
from ._common import Usage, emit

#: audit_scores's arguments -> the options that give them.
FLAGS = {"confidence": "--confidence", "delta": "--delta", "method": "--method", "claim": "--claim",
         "threshold": "--threshold", "thresholds": "--thresholds", "seed": "--seed", "direction": "--direction",
         "guesses": "--guess", "digits": "--digits", "held_in": "--in", "held_out": "--out",
         "canaries": "--canaries", "noise_multiplier": "--sigma", "sample_rate": "--sample-rate", "steps": "--steps",
         "sampling": "--sampling", "dataset_size": "--dataset-size", "score": "--score", "bug": "--bug",
         "bug_factor": "--bug-factor"}

#: The simulator's options (refused without --simulate).
SIMULATE_OPTIONS = ("canaries", "sigma", "sample_rate", "steps", "sampling", "dataset_size", "score", "bug",
                    "bug_factor", "save_scores")
_PLOT_FORMATS = (".png", ".pdf", ".svg")


def _number(name: str, value: str | None) -> str | None:
    if value is not None and not ascii_number(value):
        raise Usage(f"{name}={value!r} must be a number in ASCII (digits, '.', 'e', a sign or p/q)")
    return value


def _float(name: str, value: str) -> float:
    return float_option(name, value, required_for="audit scores")


def _guesses(values: list[str] | None) -> list[tuple[int, int]] | None:
    if not values:
        return None
    out = []
    for text in values:
        plus, _, minus = text.partition(":")
        try:
            pair = (int(plus), int(minus or "0")) if ascii_number(text.replace(":", "")) else None
        except ValueError:
            pair = None
        if pair is None or pair[0] < 0 or pair[1] < 0 or sum(pair) == 0:
            raise Usage(f"--guess={text!r} must be K or K+:K- (integers >= 0, not both 0): guess the K+ highest "
                        "scores in and the K- lowest out")
        out.append(pair)
    return out


def _source(args: argparse.Namespace) -> str:
    given = [name for name, ok in (("--in/--out", args.in_file is not None or args.out_file is not None),
                                   ("--scores", args.scores is not None), ("--guesses", args.guesses is not None),
                                   ("--simulate", args.simulate)) if ok]
    if len(given) != 1:
        raise Usage("give the scores by exactly one of --in FILE --out FILE, --scores FILE (a label column), "
                    f"--guesses FILE (one-run guesses) or --simulate{'' if not given else f' (got {and_list(given)})'}")
    if given[0] == "--in/--out" and (args.in_file is None or args.out_file is None):
        raise Usage("--in and --out go together: --in FILE holds the held-in canaries' scores, --out FILE the "
                    "held-out ones'")
    if given[0] != "--simulate":
        extra = [f"--{o.replace('_', '-')}" for o in SIMULATE_OPTIONS if getattr(args, o) is not None]
        if extra:
            raise Usage(f"{extra[0]} is an option of --simulate (the scores come from {given[0]})")
    return given[0]


def and_list(words: list[str]) -> str:
    return " and ".join(words)


def _check_plot(path: str | None) -> None:
    if path is None:
        return
    if os.path.splitext(path)[1].lower() not in _PLOT_FORMATS:
        raise Usage(f"--plot={path!r} must name a {', '.join(_PLOT_FORMATS)} file")
    if importlib.util.find_spec("matplotlib") is None:
        raise Usage(f"--plot={path!r} needs matplotlib (pip install matplotlib)")


def _claim(spec: str | None) -> Any:
    if spec is None:
        return None
    from ..mechanisms import mechanism_from_spec

    try:
        return mechanism_from_spec(spec)
    except InvalidParameterError as exc:
        raise Usage(f"--claim={spec!r}: {exc}") from None


def _simulate(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """Scores from the simulator, and the claim it reports (DP-SGD with the reported parameters)."""
    from ..simulation.canaries import simulate_canaries

    for name in ("sigma", "sample_rate", "steps"):
        if getattr(args, name) is None:
            raise Usage(f"--{name.replace('_', '-')} is required for --simulate")
    canaries = int_option("--canaries", args.canaries or "1000", low=2)
    steps = int_option("--steps", args.steps)
    seed = int_option("--seed", args.seed, low=0)
    size = None if args.dataset_size is None else int_option("--dataset-size", args.dataset_size)
    try:
        run = simulate_canaries(canaries=canaries, noise_multiplier=_float("--sigma", args.sigma),
                                sample_rate=_float("--sample-rate", args.sample_rate), steps=steps, seed=seed,
                                sampling=args.sampling or "poisson", dataset_size=size, score=args.score or "lr",
                                bug=args.bug, bug_factor=None if args.bug_factor is None else
                                _float("--bug-factor", args.bug_factor))
    except InvalidParameterError as exc:
        raise Usage(exc.renamed(FLAGS)) from None
    claim = None
    if args.claim is None:
        from ..mechanisms import dpsgd

        extra = {} if run.sampling == "poisson" else {"sampling": "fixed-batch", "neighbours": "add-remove"}
        if run.sampling == "fixed-batch":
            claim = dpsgd(args.sigma, batch_size=max(1, round(run.sample_rate * run.dataset_size)),
                          dataset_size=run.dataset_size, steps=steps, **extra)
        else:
            claim = dpsgd(args.sigma, args.sample_rate, steps)
    if args.save_scores:
        from ..audit.score_files import write_labelled

        write_labelled(args.save_scores, run.held_in, run.held_out)
    return run.held_in, run.held_out, claim


def run(args: argparse.Namespace) -> int:
    from ..audit.score_files import ScoreFileError, read_guesses, read_labelled, read_scores
    from ..audit.scores import audit_guesses, audit_scores

    source = _source(args)
    _check_plot(args.plot)
    _number("--confidence", args.confidence)
    _number("--delta", args.delta)
    claim = _claim(args.claim)
    method = args.method or ("fdp" if source == "--guesses" else "threshold")
    threshold: Any = args.threshold
    if threshold not in ("bonferroni", "split"):
        threshold = _float("--threshold", threshold)
    thresholds: Any = "all" if args.thresholds == "all" else int_option("--thresholds", args.thresholds)
    seed = int_option("--seed", args.seed, low=0)
    guesses = _guesses(args.guess)
    if source == "--guesses" and (guesses or args.plot or args.threshold != "bonferroni" or args.thresholds != "100"):
        bad = "--guess" if guesses else "--plot" if args.plot else "--threshold" if args.threshold != "bonferroni" \
            else "--thresholds"
        raise Usage(f"{bad} does not apply to --guesses (a guess file has no scores)")
    try:
        if source == "--guesses":
            m, kp, km, v, n_in = read_guesses(args.guesses)
            with _named():
                report = audit_guesses(m, kp, km, v, held_in=n_in, confidence=args.confidence, delta=args.delta,
                                       method=method, claim=claim, family=args.family or None, digits=args.digits)
        else:
            if source == "--simulate":
                held_in, held_out, sim_claim = _simulate(args)
                claim = claim if claim is not None else sim_claim
            elif source == "--scores":
                held_in, held_out = read_labelled(args.scores)
            else:
                held_in, held_out = read_scores(args.in_file), read_scores(args.out_file)
            with _named():
                report = audit_scores(held_in, held_out, confidence=args.confidence, delta=args.delta, method=method,
                                      claim=claim, threshold=threshold, thresholds=thresholds, seed=seed,
                                      direction=args.direction, guesses=guesses, family=args.family or None,
                                      digits=args.digits)
    except ScoreFileError as exc:
        raise Usage(str(exc)) from None
    if args.plot:
        report.plot(args.plot)
    payload = report.as_dict()
    payload["source"] = source
    if args.plot:
        payload["plot"] = args.plot
    text = str(report)
    if report.verdict is not None:
        text += f"\nexit code {1 if report.refuted else 0}: the claim is {report.verdict.text}"
    emit(args, payload, text)
    return 1 if report.refuted else 0


class _named:
    """Library errors about an argument become usage errors naming its option."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if isinstance(exc, InvalidParameterError) and exc.argument is not None and exc.argument in FLAGS:
            raise Usage(exc.renamed(FLAGS)) from None
