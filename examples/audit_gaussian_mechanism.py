"""Two mechanisms to audit with ``gdpproof audit mechanism`` (the --module contract).

The contract: ``--module FILE.py:FUNC`` (or ``--module package.module:FUNC``) names a function
taking no arguments that returns ``(sample_p, sample_q)`` or ``(sample_p, sample_q, score)``:

* ``sample_p(rng, n)`` returns n independent outputs of the mechanism on a data set S, and
  ``sample_q(rng, n)`` on a neighbouring data set S'.  ``rng`` is a ``numpy.random.Generator``
  and must be the only source of randomness (then a run is a function of ``--seed``).  The
  outputs are an array of shape (n,) (scalars) or (n, d) (vectors), all finite.
* ``score(outputs)``, optional, maps an (n,) or (n, d) array to n numbers; the audit thresholds
  it (both directions).  Without it, scalar outputs are thresholded directly and vector outputs
  are projected on the difference of the two data sets' means.
* With ``--workers`` > 1 the samplers are sent to other processes: define them at module level
  (as here), not as lambdas or closures.

The mechanism here releases a sum of clipped contributions with Gaussian noise, as one step of
DP-SGD does: each record contributes a number clipped to [-C, C] with C = 1, and N(0, sigma^2)
is added.  The neighbouring data sets differ in one record, 0 in S and 10 in S' (far beyond the
clipping bound); the other records' contributions are the same in both and are left out.  With
sigma = 1 the correct mechanism is (C / sigma)-GDP = 1-GDP.

    gdpproof audit mechanism --module examples/audit_gaussian_mechanism.py:correct --claimed-mu 1 --seed 1
    gdpproof audit mechanism --module examples/audit_gaussian_mechanism.py:buggy --claimed-mu 1 --seed 1

The first finds no violation (exit 0); the second adds the noise first and clips the noisy sum,
so the large record shows through, and the audit reports a violation (exit 1).
"""

from __future__ import annotations

import numpy as np

CLIP = 1.0
SIGMA = 1.0
#: The record in which S' differs from S (0 in S), far beyond the clipping bound.
RECORD = 10.0


def _correct_s(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.clip(0.0, -CLIP, CLIP) + SIGMA * rng.standard_normal(n)


def _correct_s_prime(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.clip(RECORD, -CLIP, CLIP) + SIGMA * rng.standard_normal(n)


def correct():
    """Clip the record, then add noise: sensitivity C, so (C / sigma)-GDP = 1-GDP."""
    return _correct_s, _correct_s_prime


def _buggy_s(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.clip(0.0 + SIGMA * rng.standard_normal(n), -CLIP, CLIP)


def _buggy_s_prime(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.clip(RECORD + SIGMA * rng.standard_normal(n), -CLIP, CLIP)


def buggy():
    """The bug: the noise is added to the unclipped record and the noisy value is clipped."""
    return _buggy_s, _buggy_s_prime
