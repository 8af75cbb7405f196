"""Opacus's accountant interface, answered with gdpproof's proven bracket.

``GdpproofAccountant`` implements ``opacus.accountants.accountant.IAccountant`` (it subclasses it):
Opacus calls ``step(noise_multiplier=..., sample_rate=...)`` after each optimizer step, and
``get_epsilon(delta)`` returns the **proven upper end** of epsilon for everything run so far, a
float rounded up.  Each step is DP-SGD's (the Gaussian mechanism on a Poisson batch, add/remove
neighbours); ``history`` is Opacus's list of ``(noise_multiplier, sample_rate, num_steps)``, and
the run is ``Composed(Repeated(PoissonSampled(GaussianMechanism(sigma), q), num_steps), ...)``
over it; ``get_epsilon(delta, poisson=False)`` accounts batches of fixed size instead.
:func:`register` adds it to Opacus's registry as ``"gdpproof"``.  Opacus, and with it torch, is
imported when ``GdpproofAccountant`` is first looked up here, never by ``import gdpproof``.

How to plug it into ``PrivacyEngine``, with an example: ``docs/guides/dpsgd.md`` (Opacus);
``tests/integrations/test_opacus.py`` makes the same calls.
"""

from __future__ import annotations

from typing import Any

from ..accounting import Account
from ..errors import InvalidParameterError, NotSupportedError
from ..mechanisms import Mechanism
from ._common import (cached_account, check_rel_width, gaussian, noise_parameter, poisson_sampled, proven_upper,
                      run_mechanism)

__all__ = ["GdpproofAccountant", "MECHANISM", "register", "step_mechanism"]

#: The Opacus accountant class, made on first look-up (module ``__getattr__``), which imports Opacus.
GdpproofAccountant: type

#: The accountant's name in Opacus (``mechanism()``, the registry key, the state dict's "mechanism").
MECHANISM = "gdpproof"


def step_mechanism(noise_multiplier: float, sample_rate: float) -> Mechanism | None:
    """The mechanism of one DP-SGD step: the Gaussian mechanism on a Poisson batch.

    ``PoissonSampled(GaussianMechanism(sigma=noise_multiplier), sample_rate)``; None when the step
    has no privacy loss (sample rate 0, infinite noise); ``EpsDelta(0, q)`` when there is no noise
    (the sampled record is revealed).

    >>> step_mechanism(1.0, 0.01)
    PoissonSampled(GaussianMechanism(sigma=1, sensitivity=1), sample_rate=0.01)
    """
    sigma = noise_parameter(noise_multiplier, "noise_multiplier")
    return poisson_sampled(gaussian(sigma), sample_rate, "sample_rate")


class _Accounting:
    """The accountant's behaviour, free of Opacus; ``GdpproofAccountant`` adds Opacus's base class.

    Args:
        rel_width: The relative width asked of the numerical bracket, in [1e-4, 10]: smaller is
            tighter and slower; the upper end is proven at any width.
    """

    history: list[tuple[float, float, int]]

    def __init__(self, *, rel_width: float = 0.01) -> None:
        self.history = []
        self._rel_width = check_rel_width(rel_width)

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one optimizer step (merged into the last history entry when its parameters match)."""
        step_mechanism(noise_multiplier, sample_rate)  # validates
        if self.history:
            sigma, q, n = self.history[-1]
            if sigma == noise_multiplier and q == sample_rate:
                self.history[-1] = (sigma, q, n + 1)
                return
        self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        """The number of optimizer steps recorded (IAccountant's meaning; Opacus's own accountants
        return the number of history entries, which is positive exactly when this is)."""
        return sum(int(n) for _, _, n in self.history)

    @classmethod
    def mechanism(cls) -> str:
        """The accountant's name in Opacus: ``"gdpproof"``."""
        return MECHANISM

    def as_mechanism(self) -> Mechanism:
        """The gdpproof mechanism value of the history (``GDP(0)`` when no step ran)."""
        parts = []
        for sigma, q, n in self.history:
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise InvalidParameterError(argument="history num_steps", value=n, rule="must be an integer >= 0")
            m = step_mechanism(sigma, q)
            if m is not None:
                parts.append((m, n))
        return run_mechanism(parts)

    def as_fixed_batch_mechanism(self) -> Mechanism:
        """The history's mechanism with batches of fixed size instead of Poisson batches (each
        entry as :func:`gdpproof.dpsgd` with ``sampling="fixed-batch"``: sensitivity 2C, under
        either neighbouring relation); a step without noise is refused (it has no finite epsilon)."""
        from ..mechanisms import dpsgd

        parts = []
        for sigma, q, n in self.history:
            if noise_parameter(sigma, "noise_multiplier") == 0:
                raise NotSupportedError("poisson=False with a step of noise_multiplier 0: a fixed-size batch "
                                        "reveals a record in every step")
            if n > 0 and q > 0 and sigma != float("inf"):
                parts.append((dpsgd(sigma, q, 1, sampling="fixed-batch").mechanism, n))
        return run_mechanism(parts)

    def get_epsilon_bracket(self, delta: Any, *, poisson: bool = True) -> Account:
        """:func:`gdpproof.account` of the run at ``delta``: route, proven ends, the CLT beside them.

        Args:
            delta: The delta, in (0, 1).
            poisson: True (Opacus's ``DPDataLoader``: Poisson batches, add/remove neighbours) or
                False (batches of fixed size, drawn without replacement: sensitivity 2C).

        Returns:
            The :class:`~gdpproof.Account`.
        """
        m = self.as_mechanism() if poisson else self.as_fixed_batch_mechanism()
        return cached_account(m, "delta", delta, self._rel_width)

    def get_epsilon(self, delta: float, *args: Any, poisson: bool = True, **kwargs: Any) -> float:
        """The proven upper end of epsilon at ``delta``, rounded up to a float (``inf`` when a step
        had no noise and delta is below the chance it was sampled).

        Options of other accountants that Opacus passes on (RDP's ``alphas``, calibration options)
        do not apply and are ignored.  ``poisson=False`` accounts batches of fixed size (drawn
        without replacement, sensitivity 2C under either relation), as ``gdpproof account
        --sampling fixed-batch`` does.
        """
        if not isinstance(poisson, bool):
            raise InvalidParameterError(argument="poisson", value=poisson, rule="must be True or False")
        return proven_upper(self.get_epsilon_bracket(delta, poisson=poisson))


def _build() -> type:
    try:
        from opacus.accountants.accountant import IAccountant
    except ImportError as exc:
        raise ImportError(f"GdpproofAccountant needs Opacus (importing it failed: {exc}); install it with "
                          "pip install 'gdpproof[opacus]'") from exc
    cls = type("GdpproofAccountant", (_Accounting, IAccountant),
               {"__module__": __name__, "__qualname__": "GdpproofAccountant",
                "__doc__": "An Opacus accountant answering with gdpproof's proven upper end.\n\n"
                           + (_Accounting.__doc__ or "").split("\n\n", 1)[1]})
    return cls


def _accountant_class() -> type:
    cls = globals().get("GdpproofAccountant")
    if cls is None:
        cls = globals()["GdpproofAccountant"] = _build()
    return cls


def __getattr__(name: str) -> Any:
    if name == "GdpproofAccountant":
        return _accountant_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register() -> type:
    """Register ``GdpproofAccountant`` in Opacus's accountant registry under ``"gdpproof"``, so that
    ``PrivacyEngine(accountant="gdpproof")`` and ``get_noise_multiplier(accountant="gdpproof", ...)``
    use it.  Calling it again is harmless.  Returns the class."""
    from opacus.accountants import register_accountant

    cls = _accountant_class()
    register_accountant(MECHANISM, cls, force=True)
    return cls
