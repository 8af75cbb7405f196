"""Score audits measured: soundness over seeded audits, the canaries each bug needs, jax_privacy.

Four parts, each printing a Markdown table (recorded in docs/audit_results.md):

``soundness``
    Seeded audits of correct mechanisms whose privacy is known, counting how often a printed lower
    bound exceeds the truth; the rate must be at most 1 - confidence.  Each rate is given with its
    own two-sided 95% Clopper–Pearson interval.
    * Gaussian scores: held-in N(mu, 1), held-out N(0, 1), each canary included with probability
      1/2 (so every score is an independent run of a mu-GDP pair and the one-run assumptions hold
      too), mu in {0.5, 1, 2}, 1,000 canaries; the truth is mu and eps_mu(delta).
    * The simulator without bugs (DP-SGD sigma = 1, p = 0.1, T = 50, 1,000 canaries; ``--audits``/2
      runs): the truth is the DP-SGD's curve (its canaries see exactly the dominating pair); a
      "false flag" is a refutation of the true claim, and an eps bound above the proven upper end
      of its epsilon.
``bugs``
    For each bug switch of the simulator, the smallest canary count (1,000 to 20,000; 5 seeds
    each) at which the threshold audit refutes the claimed DP-SGD at confidence 0.95 in every seed.
``peers``
    jax_privacy 2.0.0 (``CanaryScoreAuditor``) on the same scores: its bounds next to ours, method by
    method; the rate at which its bounds exceed the truth on scores independent of membership
    (perfect privacy: any eps > 0 is false); and its one-run epsilon checked against the proven
    p-value (its brentq, xtol = 1e-6, can land above the root).  Needs jax_privacy importable
    (``pip install jax-privacy``; its dependencies jax, optax, chex, pydantic).
``all``
    The three.

Run: ``PYTHONPATH=. python benchmarks/bench_score_audit.py all [--audits 1000]`` (the full run takes
about half an hour on one core; ``--audits 100`` a few minutes).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from fractions import Fraction

import numpy as np
from scipy.stats import beta as beta_law

from gdpproof import account, epsilon_from_delta
from gdpproof.audit import audit_scores, one_run_p_value
from gdpproof.audit.hypotheses import curve_of
from gdpproof.mechanisms import dpsgd
from gdpproof.simulation.canaries import BUGS, simulate_canaries

DELTA = "1e-5"
CONF = Fraction(95, 100)


def cp_interval(k: int, n: int, level: float = 0.05) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval of a rate k/n (float; a summary, not a certificate)."""
    lo = 0.0 if k == 0 else float(beta_law.ppf(level / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta_law.ppf(1 - level / 2, k + 1, n - k))
    return lo, hi


def _rate(k: int, n: int) -> str:
    lo, hi = cp_interval(k, n)
    return f"{k}/{n} = {k / n:.4f} [{lo:.4f}, {hi:.4f}]"


def soundness(audits: int) -> None:
    print("### Soundness: how often a printed lower bound exceeds the truth (confidence 0.95)\n")
    print("| mechanism | audits | bound | exceeds the truth | allowed |")
    print("| --- | --- | --- | --- | --- |")
    per_mu = max(1, audits // 3)
    for mu in (0.5, 1.0, 2.0):
        eps_true = Fraction(epsilon_from_delta(mu, DELTA, digits=12).to_fraction())
        over = {"mu (threshold, Bonferroni 20)": 0, "eps (threshold)": 0, "mu (split)": 0, "eps (one run, SNJ)": 0,
                "mu (one run, f-DP)": 0}
        t0 = time.perf_counter()
        for seed in range(per_mu):
            rng = np.random.default_rng(1_000_000 + seed)
            inside_mask = rng.random(1000) < 0.5
            scores = rng.standard_normal(1000) + mu * inside_mask
            held_in, held_out = scores[inside_mask], scores[~inside_mask]
            r = audit_scores(held_in, held_out, delta=DELTA, thresholds=20, summaries=False, seed=seed)
            s = audit_scores(held_in, held_out, threshold="split", seed=seed, methods=("threshold",), summaries=False)
            over["mu (threshold, Bonferroni 20)"] += r.threshold.mu_low.to_fraction() > Fraction(mu)
            over["eps (threshold)"] += r.threshold.epsilon_low.to_fraction() > eps_true
            over["mu (split)"] += s.threshold.mu_low.to_fraction() > Fraction(mu)
            over["eps (one run, SNJ)"] += r.one_run.epsilon_low.to_fraction() > eps_true
            over["mu (one run, f-DP)"] += r.one_run.mu_low.to_fraction() > Fraction(mu)
        for name, k in over.items():
            print(f"| N({mu:g}, 1) vs N(0, 1), 1,000 canaries | {per_mu} | {name} | {_rate(k, per_mu)} | 0.05 |")
        print(f"<!-- mu = {mu:g}: {time.perf_counter() - t0:.0f} s -->", file=sys.stderr)
    claim = dpsgd(1, "0.1", 50)
    curve = curve_of(claim, delta=DELTA)     # the claim's proven lower curve, built once
    eps_up = Fraction(account(claim, delta=DELTA).eps_upper)
    runs = max(1, audits // 2)
    flags = {"threshold refutes the true claim": 0, "one-run f-DP refutes the true claim": 0,
             "eps (threshold) > true eps": 0, "eps (one run, SNJ) > true eps": 0}
    t0 = time.perf_counter()
    for seed in range(runs):
        run = simulate_canaries(canaries=1000, noise_multiplier=1.0, sample_rate=0.1, steps=50, seed=2_000_000 + seed)
        r = audit_scores(run.held_in, run.held_out, delta=DELTA, claim=curve, thresholds=20, summaries=False,
                         family=False, seed=seed)
        flags["threshold refutes the true claim"] += r.refuted
        flags["one-run f-DP refutes the true claim"] += bool(r.one_run.claim_rejected)
        flags["eps (threshold) > true eps"] += r.threshold.epsilon_low.to_fraction() > eps_up
        flags["eps (one run, SNJ) > true eps"] += r.one_run.epsilon_low.to_fraction() > eps_up
    for name, k in flags.items():
        print(f"| simulator, DP-SGD sigma 1, p 0.1, T 50, 1,000 canaries | {runs} | {name} | {_rate(k, runs)} | 0.05 |")
    print(f"<!-- simulator: {time.perf_counter() - t0:.0f} s -->", file=sys.stderr)
    print()


def bugs() -> None:
    print("### Each bug caught: canaries needed (threshold audit, confidence 0.95, DP-SGD sigma 1, p 0.1, T 50)\n")
    print("| bug | canaries (refuted in 5 of 5 seeds) | mu_low at that count (seed 0) | claimed eps at 1e-5 |")
    print("| --- | --- | --- | --- |")
    claim = dpsgd(1, "0.1", 50)
    eps_claim = account(claim, delta=DELTA).eps_upper
    for bug in BUGS:
        found = None
        for m in (100, 200, 500, 1000, 2000, 5000, 10000, 20000):
            results = []
            for seed in range(5):
                run = simulate_canaries(canaries=m, noise_multiplier=1.0, sample_rate=0.1, steps=50, seed=seed, bug=bug)
                results.append(audit_scores(run.held_in, run.held_out, claim=claim, methods=("threshold",),
                                            summaries=False))
            if all(r.refuted for r in results):
                found = (m, results[0].threshold.mu_low)
                break
        shown = "not within 20,000" if found is None else f"{found[0]:,}"
        print(f"| {bug} | {shown} | {'' if found is None else found[1]} | {eps_claim} |")
    print()


def peers(audits: int) -> None:
    try:
        from jax_privacy import auditing as jp
    except ImportError as exc:  # pragma: no cover - depends on the machine
        print(f"jax_privacy is not importable here ({exc}); skipped\n")
        return
    warnings.filterwarnings("ignore")
    print("### jax_privacy 2.0.0 against gdpproof on the same scores (significance 0.05, delta 1e-5)\n")
    print("| scores | method | jax_privacy | gdpproof (proven) |")
    print("| --- | --- | --- | --- |")
    for (s, p, t), seed in (((1.0, 0.1, 50), 1), ((1.0, 0.1, 50), 2), ((0.8, 0.05, 200), 1), ((1.0, 0.5, 10), 1),
                            ((2.0, 1.0, 4), 1)):
        run = simulate_canaries(canaries=1000, noise_multiplier=s, sample_rate=p, steps=t, seed=seed)
        claim = dpsgd(s, p, t)
        aud = jp.CanaryScoreAuditor(run.held_in, run.held_out)
        ours = audit_scores(run.held_in, run.held_out, delta=DELTA, claim=claim, method="fdp", thresholds=100,
                            summaries=False)
        label = f"simulator sigma {s:g}, p {p:g}, T {t}, seed {seed}"
        rows = [("eps, Clopper-Pearson (Bonferroni)", aud.epsilon_clopper_pearson(0.05, 1e-5), ours.threshold.epsilon_low),
                ("eps, one run (eps, delta)", aud.epsilon_one_run(0.05, 1e-5), ours.one_run.epsilon_low),
                ("eps, one run f-DP (theirs: Gaussian fitted to (eps, delta); ours: the claimed DP-SGD's curves)",
                 aud.epsilon_one_run_fdp(0.05, 1e-5), ours.one_run.family.epsilon)]
        for name, theirs, mine in rows:
            print(f"| {label} | {name} | {theirs:.4f} | {mine} |")
        # the same guesses for both: top-k rule, k from our default rules, level 0.05
        for k in (50, 100, 200):
            order = np.sort(run.scores)[::-1]
            thr = order[k - 1]
            theirs = aud.epsilon_one_run_fdp(0.05, 1e-5, threshold_strategy=jp.Explicit(float(thr)))
            mine = audit_scores(run.held_in, run.held_out, delta=DELTA, claim=claim, method="fdp", methods=("fdp",),
                                guesses=[(k, 0)], summaries=False).one_run.family.epsilon
            print(f"| {label} | same guesses (top {k}), one run f-DP | {theirs:.4f} | {mine} |")
    print()
    print("### jax_privacy on scores independent of membership (perfect privacy: every eps > 0 is false)\n")
    print("| method | trials | eps > 0 (allowed: 0.05) |")
    print("| --- | --- | --- |")
    counts = {"epsilon_from_gdp": 0, "epsilon_one_run": 0, "epsilon_one_run_fdp": 0, "epsilon_clopper_pearson": 0}
    for seed in range(audits):
        rng = np.random.default_rng(seed)
        lab = rng.random(1000) < 0.5
        sc = rng.standard_normal(1000)
        aud = jp.CanaryScoreAuditor(sc[lab], sc[~lab])
        counts["epsilon_from_gdp"] += aud.epsilon_from_gdp(0.05, 1e-5) > 0
        counts["epsilon_one_run"] += aud.epsilon_one_run(0.05, 1e-5) > 0
        counts["epsilon_one_run_fdp"] += aud.epsilon_one_run_fdp(0.05, 1e-5) > 0
        counts["epsilon_clopper_pearson"] += aud.epsilon_clopper_pearson(0.05, 1e-5) > 0
    for name, k in counts.items():
        print(f"| {name} | {audits} | {_rate(k, audits)} |")
    print()
    print("### jax_privacy's one-run epsilon against the proven p-value (m = 1000, delta 1e-5, significance 0.05)\n")
    above = []
    tried = 0
    for r in (20, 50, 100, 200, 500):
        for v in range(r // 2, r + 1, max(1, r // 25)):
            eps = jp._epsilon_one_run(0, 1000, r, v, 0.05, 1e-5)
            if eps <= 0:
                continue
            tried += 1
            p = one_run_p_value(1000, r, v, epsilon=Fraction(eps), delta=DELTA, digits=8)
            if p.to_fraction() > Fraction(1, 20):
                above.append((r, v, eps, p))
    print(f"{len(above)} of the {tried} (r, v) tried with eps > 0 give an eps whose proven p-value exceeds 0.05 "
          "(not rejected):\n")
    for r, v, eps, p in above[:10]:
        print(f"- `_epsilon_one_run(0, 1000, {r}, {v}, 0.05, 1e-5)` = {eps!r}; proven p-value there {p}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("part", choices=("soundness", "bugs", "peers", "all"))
    parser.add_argument("--audits", type=int, default=1000, help="seeded audits per soundness row (default 1000)")
    args = parser.parse_args()
    if args.part in ("soundness", "all"):
        soundness(args.audits)
    if args.part in ("bugs", "all"):
        bugs()
    if args.part in ("peers", "all"):
        peers(args.audits)


if __name__ == "__main__":
    main()
