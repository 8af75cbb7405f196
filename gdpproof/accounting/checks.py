"""The width a bracket is asked for, validated once at the door (:func:`gdpproof.account`), in a
module of its own so that the door does not load the engine to check an argument.
"""

from __future__ import annotations

from typing import Any

from ..errors import bad
from .._args import checked

__all__ = ["check_refinement"]


def check_refinement(rel_width: Any, max_refinements: Any) -> float:
    """The relative width asked of a refined bracket, validated with the number of refinements.

    Args:
        rel_width: The relative width, in [1e-4, 10].
        max_refinements: How many refinements may be made, an integer in [0, 20].

    Returns:
        The width as a float.

    Raises:
        InvalidParameterError: Either is out of its range.

    Examples:
        >>> check_refinement("0.01", 5)
        0.01
    """
    w = float(checked("rel_width", rel_width, "positive"))
    if not 1e-4 <= w <= 10:
        raise bad("rel_width", rel_width, "must be in [1e-4, 10]")
    if isinstance(max_refinements, bool) or not isinstance(max_refinements, int) or not 0 <= max_refinements <= 20:
        raise bad("max_refinements", max_refinements, "must be an integer in [0, 20]")
    return w
