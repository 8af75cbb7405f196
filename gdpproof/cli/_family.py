"""The trade-off family a command works on (``KIND --mu ... --eps ...``): its options, and the
:class:`~gdpproof.TradeOff` they describe.  A family that names a mechanism is that mechanism
value's curve (:mod:`gdpproof.mechanisms`: the vocabulary of ``account`` and ``simulate``).  Three
families reach curves no mechanism value does, and stay families: ``laplace --mu 0`` and
``subsampled-gaussian --sample-rate 0`` (the identity) and ``rr-composition`` beyond 10^9 runs."""

from __future__ import annotations

import argparse

from ._common import Usage, flags

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

KINDS = ("gaussian", "eps-delta", "randomized-response", "laplace", "subsampled-gaussian", "rr-composition")

#: The options each kind needs, and the optional ones it also takes.
NEEDS = {"gaussian": ("mu",), "laplace": ("mu",), "eps-delta": ("epsilon",),
         "randomized-response": ("epsilon",), "subsampled-gaussian": ("mu", "sample_rate"),
         "rr-composition": ("epsilon", "n")}
OPTIONAL = {"eps-delta": ("delta",)}

#: the family functions' argument -> the option that gives it.
FAMILY_FLAGS = {"mu": "--mu", "epsilon": "--eps", "delta": "--delta", "p": "--sample-rate", "n": "--n"}


def flag(name: str) -> str:
    """The option of a family parameter (as the namespace calls it)."""
    return "--" + {"epsilon": "eps", "sample_rate": "sample-rate"}.get(name, name)


def add_family_options(p: argparse.ArgumentParser, kinds: Sequence[str] = KINDS) -> None:
    """KIND and its parameters."""
    p.add_argument("kind", choices=kinds, help="trade-off family")
    p.add_argument("--mu", help="GDP parameter / location shift (gaussian, laplace)")
    p.add_argument("--eps", "--epsilon", dest="epsilon", help="epsilon (eps-delta, randomized-response)")
    p.add_argument("--delta", help="delta (eps-delta; default 0)")
    p.add_argument("--sample-rate", dest="sample_rate", help="sampling probability p (subsampled-gaussian)")
    if "rr-composition" in kinds:
        p.add_argument("--n", help="number of compositions (rr-composition)")


def family(args: argparse.Namespace) -> Any:
    """The TradeOff of ``args.kind`` with its options; a missing or foreign option is a Usage."""
    # through the package, which also loads the numeric layer these values compute with
    from .. import gaussian, laplace, rr_composition, subsample
    from ..mechanisms import GDP, EpsDelta, RandomizedResponse

    need = NEEDS[args.kind]
    allowed = need + OPTIONAL.get(args.kind, ())
    for name in need:
        if getattr(args, name) is None:
            raise Usage(f"{flag(name)} is required for kind {args.kind}")
    for name in ("mu", "epsilon", "delta", "sample_rate", "n"):
        if getattr(args, name, None) is not None and name not in allowed:
            raise Usage(f"{flag(name)}={getattr(args, name)} does not apply to kind "
                        f"{args.kind} (it takes {', '.join(flag(n) for n in allowed)})")
    with flags(FAMILY_FLAGS):
        if args.kind == "laplace":
            return laplace(args.mu)
        if args.kind == "subsampled-gaussian":
            return subsample(gaussian(args.mu), args.sample_rate)
        if args.kind == "rr-composition":
            return rr_composition(args.epsilon, args.n)
        if args.kind == "gaussian":
            return GDP(args.mu).tradeoff()
        if args.kind == "eps-delta":
            return EpsDelta(args.epsilon, args.delta if args.delta is not None else "0").tradeoff()
        return RandomizedResponse(args.epsilon).tradeoff()
