"""Integer arguments: counts (samples, sizes, thresholds) and seeds, validated in one place.

Stdlib only, so the numpy-only simulation layer validates with it too.
"""

from __future__ import annotations

import numbers

from .errors import bad

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
del TYPE_CHECKING

__all__ = ["MAX_COUNT", "count", "seed"]




#: The largest count (samples, thresholds, sizes) gdpproof accepts: 2^53, beyond which float64
#: sums and numpy's index types stop being exact.
MAX_COUNT = 2**53


def count(name: str, value: Any, *, low: int = 1, high: int = MAX_COUNT, what: str = "") -> int:
    """An integer count in [low, high] (numpy integers too; bools, floats and strings refused).

    >>> count("samples", 10**6)
    1000000
    >>> count("samples", 2**1024)
    Traceback (most recent call last):
    ...
    gdpproof.errors.InvalidParameterError: samples=~1.79769e+308 must be an integer in [1, 2^53]
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        bound = "2^53" if high == MAX_COUNT else str(high)
        raise bad(name, value, f"must be an integer in [{low}, {bound}]" + (f" ({what})" if what else ""))
    return int(value)


def seed(name: str, value: Any) -> int:
    """A seed: an integer in [0, 2^128) (every random thing in gdpproof is reproducible).

    >>> seed("seed", "abc")
    Traceback (most recent call last):
    ...
    gdpproof.errors.InvalidParameterError: seed='abc' must be an integer in [0, 2^128) (runs are reproducible)
    """
    if value is None or isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value < 2**128:
        raise bad(name, value, "must be an integer in [0, 2^128) (runs are reproducible)")
    return int(value)
