"""The 2020 Census redistricting persons file re-accounted: the full per-level table, timed.

For each geographic level (:mod:`gdpproof.reference.census2020`) it runs
``account_level(level, rel_width=..., variance=True)``: the proven epsilon at delta = 1e-10 of the
level's discrete Gaussians (bracket route; at this delta the exact integer lattice), the unused
budget against both published conversions, the variance search (calibrate_variance) and the
continuous-Gaussian cross-check, and prints the per-level table and each level's wall and CPU time.

Then, for one level (``--tolerance-level``, Block by default), the time to the paper's tolerance:
Su, Su & Wang report percentages with two decimals, i.e. the unused share to 1e-4; its proven
interval is as wide as the relative width of the epsilon bracket (times 1 - unused), so the
bracket is run at ``--tolerance`` (1e-4) and timed against the exact account of the continuous
Gaussians of the same sigmas (a ratio, as the machines are shared).

Run: ``PYTHONPATH=. python benchmarks/bench_census.py [--levels US,Block] [--rel-width 1e-3]
[--variance-width 3e-3] [--variance-digits 3] [--tolerance 1e-4] [--json out.json]`` (many
minutes for all six levels).
"""

from __future__ import annotations

import argparse
import json
import time

from gdpproof import account
from gdpproof.mechanisms import GDP
from gdpproof.reference import census2020 as census


def _timed(fn):  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default=None, help="comma-separated level names (all six by default)")
    parser.add_argument("--rel-width", type=float, default=1e-3)
    parser.add_argument("--variance-width", type=float, default=3e-3)
    parser.add_argument("--variance-digits", type=int, default=3)
    parser.add_argument("--tolerance-level", default="Block")
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument("--json", default=None, help="write every level's to_dict() here")
    args = parser.parse_args(argv)
    alloc = census.load_allocation()
    names = args.levels.split(",") if args.levels else [lv.name for lv in alloc.levels]
    rows = []
    for name in names:
        row, wall, cpu = _timed(lambda: census.account_level(
            alloc.level(name), rel_width=args.rel_width, variance_width=args.variance_width,
            variance_digits=args.variance_digits))
        rows.append(row)
        print(f"{name}: {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
    for conv in ("cks", "bun-steinke"):
        print(f"\nagainst the {conv} conversion (eps bracket {args.rel_width:g}, variance search "
              f"{args.variance_width:g}, {args.variance_digits} digits):")
        print(census.format_table(rows, conv))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([r.to_dict() for r in rows], f, indent=1)

    lv = alloc.level(args.tolerance_level)
    mech = census.level_mechanism(lv)
    mu = census.level_mechanism(lv, continuous=True).gdp_mu()
    a, wall, cpu = _timed(lambda: account(mech, delta=str(alloc.delta), route="bracket", rel_width=args.tolerance))
    _, cwall, ccpu = _timed(lambda: account(GDP(mu), delta=str(alloc.delta), digits=12))
    print(f"\n{lv.name} to the paper's tolerance (eps bracket {args.tolerance:g}): [{a.eps_lower}, {a.eps_upper}] "
          f"(width {a.epsilon.relative_width:.2e}) in {wall:.1f} s wall, {cpu:.1f} s CPU; the continuous "
          f"Gaussians' exact eps in {ccpu:.2f} s CPU (ratio {cpu / max(ccpu, 1e-9):.0f}x)")


if __name__ == "__main__":
    main()
