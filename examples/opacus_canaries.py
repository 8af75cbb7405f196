"""Audit an Opacus training run from input-space canaries, end to end, on a CPU.

A logistic regression (``torch.nn.Linear``) is trained with Opacus's DP-SGD (Poisson batches,
per-example clipping to ``max_grad_norm``, Gaussian noise of ``noise_multiplier`` times it) on a
synthetic data set: 512 points in 20 dimensions, labelled by a fixed linear rule.  Among the
training records are *canaries*: ``canaries`` inputs with random labels, each included in the
training set independently with probability 1/2 (a one-run audit, Steinke, Nasr & Jagielski 2023).
Canary j is an input-space Dirac canary: 10 times the j-th of extra input features on which the
data are all zero, so that only canary j (and the noise) moves the weights of its feature.  After training, each canary's score is how much its loss fell, the loss
under the initial model minus the loss under the trained one: a canary the model trained on
should have lost more.  ``gdpproof.audit.audit_scores`` turns the scores into proven lower bounds
and tests the claim Opacus's accountant would make, ``gdpproof.dpsgd(noise_multiplier, q, steps)``
with q = batch_size / N.

The canaries share one training run, so only the one-run analyses apply (``method="one-run"`` or
``"fdp"``): the threshold tests assume independent scores, which canaries of one model are not.
The verdict is the f-DP one (Mahloujifar, Melis & Chaudhuri 2025) against the claimed DP-SGD's
own curve.

Run ``python examples/opacus_canaries.py`` (the ``opacus`` extra); ``--noise 0.05`` trains with
too little noise while the claim says 1.0, and the audit refutes it (exit 1): with 128 canaries
the f-DP test rejects the claimed curve (p <= 0.014) where the (eps, delta) analysis, eps >= 2.10
against a claimed 3.61, cannot.
tests/integrations/test_opacus_canaries.py runs both.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

import numpy as np


def train_and_score(*, canaries: int = 128, records: int = 512, dimension: int = 20, epochs: int = 2,
                    batch_size: int = 64, noise_multiplier: float = 1.0, max_grad_norm: float = 1.0,
                    learning_rate: float = 2.0, seed: int = 0) -> tuple[np.ndarray, np.ndarray, int, float]:
    """Train with Opacus and return (held-in scores, held-out scores, steps, sample rate)."""
    import torch
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader, TensorDataset

    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    width = dimension + canaries
    x = np.zeros((records, width))
    x[:, :dimension] = rng.standard_normal((records, dimension))
    rule = rng.standard_normal(dimension)
    y = (x[:, :dimension] @ rule > 0).astype(np.int64)
    # canaries: 10 e_{dimension + j}, a feature of their own, with a random label
    cx = np.zeros((canaries, width))
    cx[np.arange(canaries), dimension + np.arange(canaries)] = 10.0
    cy = rng.integers(0, 2, canaries)
    included = rng.random(canaries) < 0.5
    train_x = np.concatenate([x, cx[included]])
    train_y = np.concatenate([y, cy[included]])
    data = TensorDataset(torch.tensor(train_x, dtype=torch.float32), torch.tensor(train_y))
    model = torch.nn.Linear(width, 2)
    loss = torch.nn.CrossEntropyLoss(reduction="none")
    canary_x, canary_y = torch.tensor(cx, dtype=torch.float32), torch.tensor(cy)
    with torch.no_grad():
        before = loss(model(canary_x), canary_y).numpy()
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
    loader = DataLoader(data, batch_size=batch_size, shuffle=True)
    engine = PrivacyEngine(secure_mode=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Opacus warns that secure_mode is off: a demonstration
        model, optimizer, loader = engine.make_private(module=model, optimizer=optimizer, data_loader=loader,
                                                       noise_multiplier=noise_multiplier, max_grad_norm=max_grad_norm,
                                                       poisson_sampling=True)
        steps = 0
        for _ in range(epochs):
            for bx, by in loader:
                if len(bx) == 0:
                    continue
                optimizer.zero_grad()
                loss(model(bx), by).mean().backward()
                optimizer.step()
                steps += 1
    sample_rate = loader.sample_rate   # Opacus's Poisson rate, 1 / len(original loader)
    with torch.no_grad():
        after = loss(model._module(canary_x) if hasattr(model, "_module") else model(canary_x), canary_y).numpy()
    scores = before - after
    return scores[included], scores[~included], steps, sample_rate


def audit(noise_multiplier: float = 1.0, claimed_noise: float = 1.0, seed: int = 0, method: str = "fdp") -> Any:
    """Train, score and audit the claim Opacus's accountant would make for ``claimed_noise``."""
    from gdpproof.audit import audit_scores
    from gdpproof.mechanisms import dpsgd

    held_in, held_out, steps, rate = train_and_score(noise_multiplier=noise_multiplier, seed=seed)
    claim = dpsgd(claimed_noise, rate, steps)
    k = len(held_in) + len(held_out)
    return audit_scores(held_in, held_out, delta="1e-5", claim=claim, method=method, methods=("one-run", "fdp"),
                        guesses=[(k // 8, 0), (k // 4, 0)], summaries=False, family=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--noise", type=float, default=1.0, help="the noise multiplier Opacus trains with")
    parser.add_argument("--claimed-noise", type=float, default=1.0, help="the noise multiplier claimed")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    report = audit(args.noise, args.claimed_noise, args.seed)
    print(report)
    return 1 if report.refuted else 0


if __name__ == "__main__":
    sys.exit(main())
