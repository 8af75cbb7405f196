"""The float64 path: conversions on numpy arrays, fast and free of cancellation.

Same names as the certified functions of :mod:`gdpproof`, without ``digits``: inputs broadcast,
results are float64 arrays.  Over mu in [0.01, 50], epsilon in [0, 700] and delta >= 1e-300 the
float evaluation of delta (the erfcx form, free of cancellation; the inverses find its root in
log space) is used and agrees with the certified path to a relative error below 1e-10 (tests
measure it); entries outside that domain, or where a root is ill-conditioned, are computed by
the certified path.

>>> import numpy as np
>>> from gdpproof import fast
>>> fast.delta_from_epsilon(1.0, np.array([0.0, 1.0, 5.0]))
array([3.82924923e-01, 1.26936738e-01, 5.79372169e-07])
"""

from .numeric.engine.fast import delta_from_epsilon, epsilon_from_delta, mu_from_epsilon_delta, sigma_from_epsilon_delta

__all__ = ["delta_from_epsilon", "epsilon_from_delta", "mu_from_epsilon_delta", "sigma_from_epsilon_delta"]
