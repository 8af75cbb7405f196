"""The options of every ``gdpproof`` command, in one parser.

Building it imports no command's implementation, nor sympy, scipy or numpy: ``gdpproof --help``,
``--version`` and each command's ``--help`` stay cheap.  ``COMMANDS`` says which module of
:mod:`gdpproof.cli` runs each command.
"""

from __future__ import annotations

import argparse

from .. import __version__
from ._common import Parser, add_common, integer
from ._family import KINDS, add_family_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["COMMANDS", "EXAMPLES", "build_parser"]

TABLE_KINDS = ("delta", "epsilon", "mu", "sigma", "tradeoff", "subsampled", "rr-composition", "discrete-gaussian-delta",
               "dpsgd", "rr-delta", "dp-delta")

#: command -> the module of gdpproof.cli whose ``run(args) -> int`` carries it out.
COMMANDS = {
    "tradeoff": "tradeoff",
    "convert": "convert",
    "calibrate": "calibrate",
    "delta": "delta",
    "tightest-mu": "tightest_mu",
    "check": "check",
    "compose": "compose",
    "account": "account",
    "simulate": "simulate",
    "table": "table",
    "tables": "tables",
    "audit": "audit",
    "report": "report",
}

#: command -> runnable examples, shown by its --help (tests/cli/test_help_examples.py runs them).
#: A command with subcommands shows all of its examples; each subcommand shows its own.
EXAMPLES = {
    "tradeoff": ("gdpproof tradeoff gaussian --mu 1 --alpha 0.05",
                 "gdpproof tradeoff randomized-response --eps 1 --alpha 0.1 --digits 12"),
    "convert": ("gdpproof convert --mu 1 --delta 1e-5", "gdpproof convert --eps 1 --delta 1e-5 --digits 10"),
    "calibrate": ("gdpproof calibrate --eps 1 --delta 1e-5",
                  "gdpproof calibrate dpsgd --target-eps 3 --delta 1e-5 --sample-rate 0.01 --epochs 500"),
    "delta": ("gdpproof delta laplace --mu 1 --at 0.5",),
    "tightest-mu": ("gdpproof tightest-mu randomized-response --eps 1 --digits 12",),
    "check": ("gdpproof check laplace --mu 1",),
    "compose": ("gdpproof compose gdp --mu 0.5 --mu 1.2",
                "gdpproof compose clt randomized-response --eps 0.1 --n 400 --digits 10",
                "gdpproof compose functionals gaussian --mu 1 --digits 8"),
    "account": ("gdpproof account --sigma 1.1 --batch-size 256 --dataset-size 60000 --epochs 10 --delta 1e-5",
                "gdpproof account --mechanism gaussian:sigma=2,times=10 --mechanism laplace:scale=10 --delta 1e-5"),
    "simulate": ("gdpproof simulate gaussian --sigma 1 --samples 100000 --seed 1",
                 "gdpproof simulate laplace --scale 1 --samples 100000 --seed 1"),
    "table": ("gdpproof table mu --eps 0.5,1,2 --delta 1e-5,1e-6 --digits 10 --workers 1",
              "gdpproof table --verify gdpproof/reference/data/gdp_mu.csv --sample 5"),
    "tables": ("gdpproof tables --check --rows 2",),
    "audit": ("gdpproof audit mechanism --module examples/audit_gaussian_mechanism.py:correct --claimed-mu 1 --seed 1",
              "gdpproof audit accountant opendp --quick",
              "gdpproof audit scores --in examples/scores_in.csv --out examples/scores_out.csv --claim gdp:mu=2",
              "gdpproof audit scores --simulate --sigma 1 --sample-rate 0.1 --steps 50 --seed 1 --method one-run --delta 1e-5"),
    "report": ("gdpproof report --quick --out report",),
}


def _epilog(words: str) -> str:
    """The examples of ``words`` (a command, or a command and its subcommand) for --help."""
    command = words.split()[0]
    lines = [e for e in EXAMPLES[command] if e.startswith(f"gdpproof {words} ") or " " not in words]
    return "examples:\n" + "\n".join(f"  {e}" for e in lines)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command (no command's implementation is imported).

    Every command is listed with its help.  Its options are built for ``command`` only, for
    none when ``command`` is ``""`` (``gdpproof --help`` and ``--version`` need none: building
    them would be most of their start-up), and for every command when it is None.
    """
    parser = Parser(prog="gdpproof", description="Gaussian differential privacy with certified digits.")
    parser.add_argument("--version", action="version", version=f"gdpproof {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    commands: tuple[tuple[str, Callable[[argparse.ArgumentParser], None], dict[str, Any]], ...] = (
        ("tradeoff", _tradeoff_options, dict(help="beta = f(alpha) for a trade-off family")),
        ("convert", _convert_options, dict(
            help="mu-GDP <-> (epsilon, delta)-DP: give exactly two of --mu, --eps, --delta",
            description="--mu M --eps E: delta (rounded up); --mu M --delta D: smallest epsilon "
                        "(rounded up); --eps E --delta D: largest mu (rounded down).")),
        ("calibrate", _calibrate_options, dict(
            help="smallest Gaussian noise sigma for (epsilon, delta)-DP (rounded up); DP-SGD's sigma, steps or rate",
            description="gdpproof calibrate --eps E --delta D: the smallest sigma of one Gaussian mechanism "
                        "(certified, rounded up). gdpproof calibrate dpsgd --target-eps E --delta D with two of "
                        "sigma / steps (or epochs) / sampling rate (or batch and dataset size): the third, the "
                        "best value whose proven epsilon meets the target (sigma rounded up, the others down), "
                        "with the bracket there and at the next value, which does not meet it.")),
        ("delta", _delta_options, dict(help="delta(epsilon) of a trade-off family (rounded up)")),
        ("tightest-mu", _tightest_mu_options, dict(help="smallest mu with f >= G_mu (rounded up)")),
        ("check", _check_options, dict(help="is it a trade-off function? (exit 1 if refuted)")),
        ("compose", _compose_options, dict(
            help="composition: exact GDP, the CLT with its Berry-Esseen bound, functionals")),
        ("account", _account_options, dict(
            help="the privacy of any mechanism: route, proven eps (or delta), the CLT labelled approximate",
            description="Give the mechanism by --mechanism (repeat to compose), --spec FILE, or DP-SGD's "
                        "--sigma/--sample-rate/--steps; and --delta (to get eps) or --eps (to get delta). "
                        "The strongest route that applies is taken and named: exact (closed form), "
                        "exact-finite (finite support) or bracket (numerical composition with a proven "
                        "bracket). For DP-SGD the CLT approximation of Bu, Dong, Long & Su (2020) is "
                        "reported beside it; it can understate the true privacy loss.")),
        ("simulate", _simulate_options, dict(
            help="Monte Carlo of a mechanism against its theoretical trade-off curve",
            description="Simulates the mechanism on two neighbouring data sets, estimates its trade-off "
                        "curve with a simultaneous DKW band, and checks the theory against it (exit 1 "
                        "if the theory is outside the band).")),
        ("table", _table_options, dict(
            help="a certified reference table (CSV, JSON, LaTeX, Markdown), or --verify one",
            description="Every value certified to --digits significant digits and rounded in its safe "
                        "direction. Grid options take a comma-separated list, lin:START:STOP:N or "
                        "log:START:STOP:N. Without --out the table goes to stdout.")),
        ("tables", _tables_options, dict(
            help="the tables shipped in gdpproof/reference/data: regenerate or check them")),
        ("audit", _audit_options, dict(help="audit accountants and black-box mechanisms against gdpproof, and training runs from canary scores")),
        ("report", _report_options, dict(help="run the verification end to end; write HTML and JSON")),
    )
    for name, options, kwargs in commands:
        # every command is listed with its help; its options are built only when wanted
        wanted = command is None or command == name
        p = sub.add_parser(name, add_help=wanted, epilog=_epilog(name) if wanted else None, **kwargs)
        if wanted:
            options(p)
    return parser


def _tradeoff_options(p: argparse.ArgumentParser) -> None:
    add_family_options(p)
    p.add_argument("--alpha", required=True, help="type I error in [0, 1]")
    p.add_argument("--rounding", default="down", choices=("down", "up", "nearest"),
                   help="direction of the last digit (default down: the safe side for beta)")
    add_common(p)


def _convert_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mu", help="GDP parameter mu >= 0")
    p.add_argument("--eps", "--epsilon", dest="epsilon",
                   help="epsilon: >= 0 with --delta; any real with --mu (delta(eps) is defined for eps < 0 too)")
    p.add_argument("--delta", help="delta in [0, 1]")
    add_common(p)


def _calibrate_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", nargs="?", default="gaussian", choices=("gaussian", "dpsgd"),
                   help="gaussian (default): one Gaussian mechanism's sigma, certified; dpsgd: DP-SGD's sigma, "
                        "steps or sampling rate with a proven epsilon")
    p.add_argument("--eps", "--epsilon", "--target-eps", dest="epsilon", required=True,
                   help="the target epsilon >= 0 (> 0 for dpsgd)")
    p.add_argument("--delta", required=True, help="delta in [0, 1] (in (0, 1) for dpsgd)")
    p.add_argument("--sensitivity", help="gaussian: L2 sensitivity (default 1)")
    p.add_argument("--sigma", "--noise-multiplier", dest="sigma",
                   help="dpsgd: the noise multiplier, over the clipping norm C (leave out to solve for it; "
                        "--noise-multiplier is the same option, the name Opacus and dp_accounting use)")
    p.add_argument("--sample-rate", dest="sample_rate", help="dpsgd: sampling probability q (or --batch-size with "
                   "--dataset-size; leave both out to solve for it)")
    p.add_argument("--steps", help="dpsgd: number of steps T (or --epochs; leave both out to solve for it)")
    p.add_argument("--epochs", help="dpsgd: epochs E, for T = ceil(E N / B) = ceil(E / q)")
    p.add_argument("--batch-size", dest="batch_size", help="dpsgd: batch size B (expected, for Poisson sampling): "
                   "q = B/N")
    p.add_argument("--dataset-size", dest="dataset_size", help="dpsgd: dataset size N; with --sigma, --steps or "
                   "--epochs and no batch size, a batch size is solved for (the next one up not proven to meet the target)")
    p.add_argument("--rel-width", dest="rel_width",
                   help="dpsgd: relative width of the proven brackets, in [1e-4, 10] (default 0.01; narrower "
                        "brings the answer closer to the true boundary, at more cost)")
    p.add_argument("--sampling", choices=("poisson", "fixed-batch", "uniform"),
                   help="dpsgd: poisson (default) or fixed-batch (B of N without replacement; 'uniform' is the same)")
    p.add_argument("--neighbours", choices=("add-remove", "replace-one"),
                   help="dpsgd: the neighbouring relation (default add-remove with poisson, replace-one with "
                        "fixed-batch); sigma is the noise over the clipping norm C, and the sensitivity is C "
                        "with poisson under add-remove, 2C otherwise (a fixed-size batch moves by 2C under "
                        "add-remove too: a removed record's slot is taken by another)")
    p.add_argument("--progress", action="store_true", help="dpsgd: report each step of the search on stderr")
    p.add_argument("--digits", type=integer, default=None,
                   help="significant digits (default: 30 for gaussian, certified; 4 for dpsgd's sigma or q)")
    p.add_argument("--json", action="store_true", help="print one JSON object (numbers as decimal strings)")


def _delta_options(p: argparse.ArgumentParser) -> None:
    add_family_options(p)
    p.add_argument("--at", dest="at", required=True, metavar="EPS", help="the epsilon at which to evaluate delta")
    add_common(p)


def _tightest_mu_options(p: argparse.ArgumentParser) -> None:
    add_family_options(p)
    add_common(p)


def _check_options(p: argparse.ArgumentParser) -> None:
    add_family_options(p)
    p.add_argument("--points", type=integer, default=64, help="uniform grid size (default 64)")
    add_common(p, digits=False)


def _compose_options(p: argparse.ArgumentParser) -> None:
    csub = p.add_subparsers(dest="compose_command", required=True, parser_class=Parser)
    q = csub.add_parser("gdp", epilog=_epilog("compose gdp"), help="G_mu1 (x) ... (x) G_mun = G_sqrt(sum mu_i^2), exactly (mu rounded up)")
    q.add_argument("--mu", action="append", required=True, help="a GDP parameter (repeat for each mechanism)")
    add_common(q)
    q = csub.add_parser("clt", epilog=_epilog("compose clt"), help="CLT mu and Berry-Esseen gamma of the n-fold composition (an approximation)")
    add_family_options(q, [k for k in KINDS if k != "rr-composition"])
    q.add_argument("--n", dest="times", default="1", help="how many times the mechanism is composed (default 1)")
    add_common(q)
    q = csub.add_parser("functionals", epilog=_epilog("compose functionals"), help="kl, kappa2, kappa3, bar_kappa3 of a trade-off function")
    add_family_options(q)
    add_common(q)


def _account_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mechanism", action="append", metavar="SPEC",
                   help="a mechanism KIND:key=value,... (repeat to compose): gaussian (sigma, sensitivity), gdp (mu), "
                        "laplace (scale, sensitivity), rr (epsilon), pure-dp (epsilon), eps-delta (epsilon, delta), "
                        "discrete-gaussian (sigma, integer sensitivity), discrete-laplace (scale, integer "
                        "sensitivity), dpsgd (sigma, sample-rate, steps); any kind also takes sample-rate= (Poisson subsample) "
                        "and times=")
    p.add_argument("--spec", metavar="FILE", help="the mechanisms from a TOML or JSON file (a list 'mechanisms')")
    p.add_argument("--sigma", "--noise-multiplier", dest="sigma",
                   help="DP-SGD: noise multiplier sigma > 0 (the noise over the clipping norm C; --noise-multiplier "
                        "is the same option, the name Opacus and dp_accounting use)")
    p.add_argument("--sample-rate", dest="sample_rate", help="DP-SGD: sampling probability p in (0, 1]")
    p.add_argument("--steps", help="DP-SGD: number of steps T >= 1, or a range A:B[:STEP] (the proven answer at each; "
                   "the compositions are built incrementally)")
    p.add_argument("--epochs", help="DP-SGD: epochs E instead of --steps: T = ceil(E N / B) = ceil(E / q); or a range "
                   "A:B[:STEP] of whole epochs (the proven answer at each)")
    p.add_argument("--batch-size", dest="batch_size", help="DP-SGD: batch size B with --dataset-size instead of "
                   "--sample-rate: q = B/N")
    p.add_argument("--dataset-size", dest="dataset_size", help="DP-SGD: dataset size N (with --batch-size)")
    p.add_argument("--sampling", choices=("poisson", "fixed-batch", "uniform"),
                   help="DP-SGD: poisson (each record with probability p) or fixed-batch (B of N records drawn "
                        "without replacement, p = B/N; 'uniform' is the same); default poisson")
    p.add_argument("--neighbours", choices=("add-remove", "replace-one"),
                   help="DP-SGD: the neighbouring relation (default add-remove with poisson, replace-one with "
                        "fixed-batch); sigma is the noise over the clipping norm C, and the sensitivity is C "
                        "with poisson under add-remove, 2C otherwise (a fixed-size batch moves by 2C under "
                        "add-remove too: a removed record's slot is taken by another)")
    p.add_argument("--delta", help="report the smallest eps at this delta (a comma list D1,D2,...: each)")
    p.add_argument("--eps", "--epsilon", dest="eps",
                   help="report the smallest delta at this eps, any real (a comma list E1,E2,...: each)")
    p.add_argument("--plot", metavar="FILE", help="with a range of --epochs/--steps or a list of --delta/--eps: draw "
                   "the proven band (and the CLT beside it) against them into FILE (.png, .pdf, .svg; matplotlib)")
    p.add_argument("--route", choices=("exact", "exact-finite", "bracket"),
                   help="force a route (default: the strongest that applies)")
    p.add_argument("--rel-width", dest="rel_width",
                   help="relative width of a numerical bracket, in [1e-4, 10] (default 0.01)")
    p.add_argument("--clt-real-steps", dest="clt_real_steps", action="store_true",
                   help="DP-SGD given in --epochs: also the CLT at the papers' real T = E N / B (not rounded up to "
                        "whole steps), the papers' approximation, not proven")
    p.add_argument("--honest-mu", dest="honest_mu", action="store_true",
                   help="on the bracket route, also bracket the honest mu (the tightest GDP description, with "
                        "the delta range where it holds); about a second more")
    add_common(p, default_digits=6)


def _simulate_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("mechanism", nargs="?", choices=("gaussian", "randomized-response", "laplace", "module"),
                   help="a mechanism by kind and options (the spec KIND:key=value,... they name), or leave it out "
                        "and give --mechanism SPEC")
    p.add_argument("--mechanism", dest="spec", metavar="SPEC",
                   help="the mechanism as gdpproof account takes it, KIND:key=value,... (gaussian, gdp, laplace, rr, "
                        "pure-dp, discrete-gaussian; sample-rate= for DP-SGD steps; times=)")
    p.add_argument("--sensitivity", default="1", help="L2 sensitivity (gaussian, laplace; default 1)")
    p.add_argument("--sigma", help="Gaussian noise standard deviation (gaussian)")
    p.add_argument("--dim", default="1", help="dimension of the query (gaussian; default 1)")
    p.add_argument("--steps", default="1", help="number of composed steps (gaussian; default 1)")
    p.add_argument("--sample-rate", dest="sample_rate", help="Poisson sampling rate: DP-SGD steps (gaussian)")
    p.add_argument("--eps", help="epsilon (randomized-response)")
    p.add_argument("--n", default="1", help="number of releases (randomized-response; default 1)")
    p.add_argument("--k", default="2", help="number of values of k-ary randomized response (randomized-response; "
                   "default 2)")
    p.add_argument("--scale", help="Laplace scale b (laplace)")
    p.add_argument("--module", dest="module_spec", help="MOD:FUNC, a function returning a "
                   "gdpproof.simulation.Sampler (module)")
    p.add_argument("--mu", help="the GDP claim to check for a module mechanism: f >= G_mu (module)")
    p.add_argument("--samples", required=True, help="samples under each data set")
    p.add_argument("--seed", required=True, help="seed (integer >= 0)")
    p.add_argument("--confidence", default="0.999999", help="probability that the band holds (default 1 - 1e-6)")
    p.add_argument("--workers", default="1", help="processes (default 1: in this process)")
    p.add_argument("--plot", help="write the estimate, band and theory to this PNG file")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")


def _table_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("kind", nargs="?", choices=TABLE_KINDS,
                   help="delta (--mu --eps), epsilon (--mu --delta), mu (--eps --delta), sigma (--eps --delta "
                        "[--sensitivity]), tradeoff (--mu --alpha), subsampled (--mu --sample-rate --alpha), "
                         "rr-composition (--eps --n --alpha), discrete-gaussian-delta (--sigma [--sensitivity] --eps), "
                         "dpsgd (--sigma --sample-rate --steps --delta), "
                         "rr-delta (--eps0 --k --eps: k-ary randomized response), dp-delta (--eps0 --delta0 --eps: "
                         "the (eps0, delta0)-DP curve); delta, rr-delta and dp-delta take any real eps "
                         "(write --eps=-1)")
    for name in ("mu", "eps", "delta", "alpha", "sigma", "sample-rate", "steps", "n", "sensitivity", "eps0",
                 "delta0", "k"):
        p.add_argument(f"--{name}", dest=f"grid_{name.replace('-', '_')}", metavar="GRID", help=f"{name} grid")
    p.add_argument("--digits", type=integer, default=30, help="certified significant digits (default 30)")
    p.add_argument("--format", choices=("csv", "json", "latex", "markdown"),
                   help="output format (default: from the --out suffix, else csv)")
    p.add_argument("--out", help="write the table here (atomically; a journal OUT.partial allows --resume)")
    p.add_argument("--workers", default=None, help="processes (default: the number of CPUs, at most 8)")
    p.add_argument("--scheduler", help="a dask.distributed scheduler address to run the chunks on: a cluster you "
                   "control (it exchanges pickles; its rows are trusted and the table's header names it)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run from OUT.partial (rows signed "
                   "with your key, $GDPPROOF_KEY_FILE or ~/.config/gdpproof/journal.key, are taken; the others are "
                   "recomputed and must match it)")
    p.add_argument("--verify", metavar="FILE", help="recompute FILE's rows at higher precision (exit 1 if any value "
                   "is wrong); KIND, if given, must be FILE's kind")
    p.add_argument("--sample", default=None, help="rows to check with --verify: a number or 'all' (default: every row "
                   "of a table up to 10,000 rows, a random sample of 10,000 above)")
    p.add_argument("--seed", default="0", help="seed of the --verify sample (default 0)")
    p.add_argument("--ulps", help="with --verify, for a column without a rounding claim (a table of floats): accept "
                   "a value within N float64 spacings of the exact one (default 1)")
    p.add_argument("--rtol", help="with --verify, for a column without a rounding claim: accept a value within "
                   "relative distance R of the exact one (default 0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (a summary with --out or "
                   "--verify; the table in JSON format otherwise)")


def _tables_options(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--regenerate", action="store_true", help="rebuild every shipped table in place")
    g.add_argument("--check", action="store_true", help="recompute and compare (exit 1 on any difference)")
    p.add_argument("--rows", help="with --check: only the first ROWS rows of each table (a fast slice)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")


def _audit_options(p: argparse.ArgumentParser) -> None:
    asub = p.add_subparsers(dest="audit_command", required=True, parser_class=Parser)
    q = asub.add_parser("accountant", epilog=_epilog("audit accountant"), help="audit a peer library's accountant (exit 1 on a material unsafe finding)",
                        description="Compares every function a peer library offers (delta and epsilon of mu-GDP, "
                                    "mu and sigma from (epsilon, delta), DP-SGD epsilon and mu, trade-off curves) "
                                    "with gdpproof's certified values and proven brackets on grids where "
                                    "implementations fail; classifies each difference as unsafe, conservative or "
                                    "an error, and ranks each finding by its relative error: material (>= 1%), minor "
                                    "(< 1%), negligible (< 1e-9), float-level (within 4 float64 ulps, or within "
                                    "--rtol), and degenerate inputs (eps = 0, mu = 0, delta >= 1) apart; listed by "
                                    "severity, then size. Exit 1 when some value understates the privacy loss "
                                    "materially; the other severities are counted apart and never fail.")
    q.add_argument("peer", metavar="PEER", help="dp_accounting, prv_accountant, autodp, riskcal, gdpnum, opendp, "
                                               "opacus or tensorflow_privacy")
    q.add_argument("--quick", action="store_true", help="small grids (seconds) instead of the full run (minutes)")
    q.add_argument("--rtol", default="0", help="relative size below which a difference is within tolerance "
                                               "(default 0: classify strictly)")
    q.add_argument("--seed", default="0", help="seed of the randomly drawn inputs (default 0)")
    q.add_argument("--all", action="store_true", help="list every finding, the smaller and conservative ones too "
                                                      "(default: the material unsafe and error findings)")
    q.add_argument("--json", action="store_true", help="one JSON object on stdout (numbers as decimal strings; "
                                                       "every finding, each with its severity)")
    q = asub.add_parser("mechanism", epilog=_epilog("audit mechanism"), help="audit a black-box mechanism's mu-GDP or (eps, delta)-DP claim from samples "
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
    q.add_argument("--digits", type=integer, default=6, help="digits of mu_low and delta_low, rounded down (default 6)")
    q.add_argument("--json", action="store_true", help="one JSON object on stdout")
    _audit_scores_options(asub)


def _audit_scores_options(asub: Any) -> None:
    q = asub.add_parser("scores", epilog=_epilog("audit scores"),
                        help="audit a training run from canary attack scores: proven lower bounds on mu and eps "
                             "(exit 1 if the claim is refuted)",
                        description="Threshold tests with proven Clopper-Pearson bounds (Bonferroni over thresholds "
                                    "fixed in advance, a seeded split, or a given threshold): mu and eps lower bounds "
                                    "and the envelope of the trade-off curve; one-run audits (Steinke, Nasr & "
                                    "Jagielski 2023; Mahloujifar, Melis & Chaudhuri 2025) with exact p-values; "
                                    "ROC with simultaneous bands, TPR at FPR, AUROC, best accuracy. Every lower bound "
                                    "is proven at the stated confidence and rounded down. --method decides the "
                                    "verdict on --claim: exit 1 if refuted, 0 if not, 2 on bad input.")
    q.add_argument("--in", dest="in_file", metavar="FILE", help="scores of held-in canaries (CSV, NPY or JSON)")
    q.add_argument("--out", dest="out_file", metavar="FILE", help="scores of held-out canaries (with --in)")
    q.add_argument("--scores", metavar="FILE", help="scores with a label column (score,label; label 1/in or 0/out)")
    q.add_argument("--guesses", metavar="FILE", help="one-run guesses with labels (guess,label; guess 1/in, -1/out, "
                   "0/abstain): one-run methods only")
    q.add_argument("--simulate", action="store_true", help="scores from the seeded white-box DP-SGD canary simulator "
                   "(--sigma, --sample-rate, --steps; the claim defaults to the DP-SGD they report)")
    q.add_argument("--confidence", default="0.95", help="probability that each statement holds (default 0.95)")
    q.add_argument("--delta", help="delta of the eps lower bounds (and of a DP-SGD claim's family bound)")
    q.add_argument("--method", choices=("threshold", "one-run", "fdp"),
                   help="the method whose verdict decides on --claim (default threshold; fdp with --guesses)")
    q.add_argument("--claim", metavar="SPEC", help="the privacy claimed, in the account spec syntax "
                   "(gdp:mu=1, dpsgd:sigma=1,sample-rate=0.01,steps=1000, ...)")
    q.add_argument("--threshold", default="bonferroni", help="bonferroni (default), split (seeded by --seed) or a "
                   "threshold VALUE given in advance")
    q.add_argument("--thresholds", default="100", help="Bonferroni thresholds: a number (default 100) or all")
    q.add_argument("--direction", choices=("greater", "less"), default="greater",
                   help="held-in canaries score higher (greater, default) or lower (less)")
    q.add_argument("--guess", action="append", metavar="K[:K-]", help="a one-run guess rule fixed in advance: the K "
                   "highest scores guessed in, the K- lowest out (repeat; default: the top 1, 2, 5, 10, 20, 50%%)")
    q.add_argument("--family", action="store_true", help="with a DP-SGD claim and --delta: the eps bound against the "
                   "claimed schedule's own curves (default with --method fdp)")
    q.add_argument("--seed", default="0", help="seed of the split, of the order of tied scores, and of --simulate")
    q.add_argument("--digits", type=integer, default=6, help="digits of the bounds (rounded down; default 6)")
    q.add_argument("--plot", metavar="FILE", help="write the ROC, its band and the claimed curve (PNG, PDF or SVG)")
    q.add_argument("--json", action="store_true", help="one JSON object on stdout (numbers as decimal strings)")
    g = q.add_argument_group("simulator (with --simulate)")
    g.add_argument("--canaries", help="canaries m, each included with probability 1/2 (default 1000)")
    g.add_argument("--sigma", help="noise multiplier sigma (noise over the clipping norm), as reported")
    g.add_argument("--sample-rate", dest="sample_rate", help="sampling rate p, as reported")
    g.add_argument("--steps", help="steps T")
    g.add_argument("--sampling", choices=("poisson", "fixed-batch"), help="poisson (default) or fixed-batch")
    g.add_argument("--dataset-size", dest="dataset_size", help="dataset size N (fixed-batch)")
    g.add_argument("--score", choices=("lr", "sum"), help="the canaries' score: lr (likelihood ratio, default) or sum")
    g.add_argument("--bug", choices=("noise-scale", "clip-after-noise", "sampling-rate", "noise-per-epoch"),
                   help="simulate a bug: noise scaled by the wrong factor, clipping after noising, a sampling rate "
                        "other than the reported one, noise once per epoch")
    g.add_argument("--bug-factor", dest="bug_factor", help="the bug's factor (noise x0.5, canary norm 4C, rate x2)")
    g.add_argument("--save-scores", dest="save_scores", metavar="FILE", help="also write the simulated scores "
                   "(score,label CSV)")


def _report_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="report", help="output folder (default ./report)")
    p.add_argument("--digits", type=integer, default=30, help="certified digits in the report (default 30)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.add_argument("--quick", action="store_true",
                   help="skip the derivations, the peer audits, the numerical-composition figures and the notebooks "
                        "(about 20 s of CPU, 30-75 s on a busy 2-core machine; the full report takes minutes)")
    p.add_argument("--no-notebooks", action="store_true",
                   help="do not execute and render the example notebooks into OUT/notebooks/ (the full report "
                        "does, when the notebooks extra is installed)")
