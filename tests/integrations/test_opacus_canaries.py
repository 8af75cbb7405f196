"""examples/opacus_canaries.py end to end: an Opacus training run with input-space canaries, its
scores audited one-run against the claim Opacus's accountant makes.  Skipped without Opacus (the
``opacus`` extra installs it with a CPU build of torch)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("opacus")
pytest.importorskip("torch")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "opacus_canaries.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("opacus_canaries", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_run_opacus_did_is_not_refuted(example):
    # a correct run: the claim is what ran (a true claim is refuted with probability <= 0.05;
    # this seed is not)
    report = example.audit(noise_multiplier=1.0, claimed_noise=1.0, seed=0)
    assert not report.refuted and report.verdict.method.startswith("one run, f-DP")
    g = report.one_run.rules[0]
    assert g.canaries == 128 and report.one_run.mu_low < 1


def test_too_little_noise_is_refuted(example):
    # trained with noise 0.05 while claiming 1.0: the one-run f-DP test rejects the claimed curve
    report = example.audit(noise_multiplier=0.05, claimed_noise=1.0, seed=0)
    assert report.refuted and report.one_run.claim_p_value <= 0.05
    assert example.main(["--noise", "0.05"]) == 1
