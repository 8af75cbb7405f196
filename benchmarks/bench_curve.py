"""The epsilon-against-epochs curve against one account: what ``--epochs 1:60`` costs.

One run, CPU and wall time side by side, for the issue's MNIST configuration (noise multiplier
1.1, batch 256 of 60000, delta 1e-5):

- one ``gdpproof.account`` of the 60-epoch run (T = 14063), warmed (run once before);
- ``gdpproof.account_steps`` of epochs 1..60 (60 proven brackets), which builds the compositions
  incrementally on the 60-epoch grid;
- both through the command line (``--epochs 60`` and ``--epochs 1:60``, ``--json``), process
  start-up included, as a user runs them.

The ratio asked is at most 3.  Then the delta-against-epochs curve at eps = 0.5 (``--eps 0.5``):
one account of the 60-epoch run, ``account_steps`` (incremental where the 60-epoch grid resolves
a point to the width asked, the point's own account elsewhere) and, as the reference it replaces,
each of the 60 points accounted on its own.

Run: ``PYTHONPATH=. python benchmarks/bench_curve.py`` (about 15 s; ``--eps`` adds the delta
curve, a few minutes).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time

ARGS = ["--noise-multiplier", "1.1", "--batch-size", "256", "--dataset-size", "60000", "--delta", "1e-5", "--json"]


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def cli(epochs: str) -> float:
    w = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gdpproof.cli", "account", *ARGS, "--epochs", epochs], check=True,
                   capture_output=True, env={**os.environ})
    return time.perf_counter() - w


def main() -> None:
    from gdpproof import account, account_steps
    from gdpproof.mechanisms import dpsgd

    counts = [math.ceil(e * 60000 / 256) for e in range(1, 61)]
    one = dpsgd(1.1, batch_size=256, dataset_size=60000, steps=counts[-1])
    account(one, delta="1e-5")  # warm
    _, w1, c1 = timed(lambda: account(one, delta="1e-5"))
    accounts, w60, c60 = timed(lambda: account_steps(one, counts, delta="1e-5"))
    widths = [a.epsilon.relative_width for a in accounts]
    print(f"one account (T={counts[-1]}): {c1:.2f} s CPU, {w1:.2f} s wall")
    print(f"60 points: {c60:.2f} s CPU, {w60:.2f} s wall; ratio {c60 / c1:.2f} (CPU), {w60 / w1:.2f} (wall); "
          f"widest bracket {max(widths):.2%}")
    s1, s60 = cli("60"), cli("1:60")
    print(f"command line: --epochs 60 {s1:.2f} s, --epochs 1:60 {s60:.2f} s wall; ratio {s60 / s1:.2f}")
    if "--eps" in sys.argv:
        delta_curve(one, counts)


def delta_curve(one, counts: list[int], eps: str = "0.5") -> None:
    """delta at eps against epochs: the incremental curve against one account and 60 accounts."""
    import warnings

    from gdpproof import account, account_steps
    from gdpproof.mechanisms import Repeated

    step = one.mechanism
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        account(one, epsilon=eps)  # warm
        last, w1, c1 = timed(lambda: account(one, epsilon=eps))
        accounts, w60, c60 = timed(lambda: account_steps(one, counts, epsilon=eps))
        own = [i for i, a in enumerate(accounts) if a.composition.h != last.composition.h]
        print(f"delta at eps = {eps}: one account {c1:.2f} s CPU; 60 points {c60:.2f} s CPU, ratio {c60 / c1:.1f}; "
              f"{len(own)} point(s) off the shared grid (epochs {[i + 1 for i in own]})")
        alone = [timed(lambda c=c: account(Repeated(step, c), epsilon=eps))[2] for c in counts]
    shared = c60 - sum(alone[i] for i in own)
    print(f"  each point alone: {sum(alone):.2f} s CPU (ratio {sum(alone) / c1:.1f}); the epochs off the shared grid "
          f"alone: {sum(alone[i] for i in own):.2f} s; the rest of the curve {shared:.2f} s (ratio {shared / c1:.2f})")


if __name__ == "__main__":
    main()
