"""DP-SGD runs as a training script knows them: :func:`dpsgd` (the noise multiplier over the
clipping norm C; the sampling scheme and the neighbouring relation set the sensitivity,
:func:`dpsgd_sensitivity`) and :func:`dpsgd_schedule` (sampling rate and steps from epochs, batch
size and dataset size).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import MISSING, InvalidParameterError, bad
from .._args import positive_integer
from .numbers import exact_parameter
from ..text import decimal_text, show_number
from .base import MAX_RUNS
from .values import GaussianMechanism
from .wrappers import PoissonSampled, Repeated, SampledWithoutReplacement, relation

#: The sampling schemes of :func:`dpsgd`.
SAMPLINGS = ("poisson", "fixed-batch")


@dataclass(frozen=True)
class Schedule:
    """How many DP-SGD steps ran, and at which sampling rate, with the rule that gave them.

    Built by :func:`dpsgd_schedule` from what a training script knows: a sampling rate and a
    number of steps, or epochs, a batch size and a dataset size.

    Attributes:
        sample_rate (fractions.Fraction): q, exact (B/N when given as a batch of B records out of N).
        steps (int): T (ceil(E N / B), or ceil(E / q), when given in epochs).
        rule (str): The rule, with its numbers, for the output ("" when q and T were given directly).
        epochs: E when the steps were given in epochs, else None.
        batch_size (int or None): B when the rate was given as B/N.
        dataset_size (int or None): N when the rate was given as B/N.

    Examples:
        >>> s = dpsgd_schedule(sample_rate="0.01", epochs=2)
        >>> s.sample_rate, s.steps, s.epochs
        (Fraction(1, 100), 200, Fraction(2, 1))
    """

    sample_rate: Any
    steps: int
    rule: str = ""
    epochs: Any = None
    batch_size: int | None = None
    dataset_size: int | None = None


def _positive_int(name: str, value: Any, high: int | None = None) -> int:
    """A positive count, at most 10^18 (``high``: at most 10^9 for steps)."""
    n = positive_integer(name, value)
    if n < 1:
        raise bad(name, value, "must be an integer >= 1")
    top = MAX_COUNT if high is None else high
    if n > top:  # a dataset of 1e999999 records: its million-digit count was printed in the rule
        raise bad(name, value, f"must be at most 10^{len(str(top)) - 1}")
    return n


#: The largest dataset size, batch size or step count of a DP-SGD schedule (steps are refused
#: above 10^9 later, with the rule that gave them).
MAX_COUNT = 10**18


def dpsgd_schedule(*, sample_rate: Any = None, steps: Any = None, epochs: Any = None, batch_size: Any = None,
                   dataset_size: Any = None) -> Schedule:
    """The sampling rate q and number of steps T of a DP-SGD run, from what its script knows.

    q is ``sample_rate``, or ``batch_size / dataset_size`` (B/N); T is ``steps``, or
    ``ceil(epochs * N / B)`` (that is ceil(E / q)) when given in epochs.  Give q one way and T
    one way; a sampling rate and a batch size that disagree are refused.

    Args:
        sample_rate: q, in (0, 1]; or give ``batch_size`` and ``dataset_size``.
        steps: T, a positive integer; or give ``epochs``.
        epochs: E, > 0: T = ceil(E / q).
        batch_size: B, a positive integer: q = B/N.
        dataset_size: N, a positive integer at least B.

    Returns:
        :class:`Schedule` with q, T and the rule that gave them.

    Raises:
        InvalidParameterError: q or T is given twice or not at all, a value is out of range, or a
            rate and a batch size disagree.

    Examples:
        >>> s = dpsgd_schedule(epochs=60, batch_size=256, dataset_size=60000)
        >>> s.sample_rate, s.steps
        (Fraction(8, 1875), 14063)
        >>> print(s.rule)
        sample rate q = B/N = 256/60000 = 8/1875; steps T = ceil(E N / B) = ceil(60 * 60000 / 256) = 14063
        >>> dpsgd_schedule(sample_rate="0.01", epochs=500).steps
        50000
    """
    if batch_size is not None or dataset_size is not None:
        if dataset_size is None:
            raise bad("dataset_size", MISSING, "is needed with batch_size (the sampling rate is B/N)", ("batch_size",))
        n = _positive_int("dataset_size", dataset_size)
        if batch_size is None:
            if sample_rate is None:
                raise bad("batch_size", MISSING, "is needed with dataset_size (the sampling rate is B/N)", ("dataset_size",))
            b = None
        else:
            b = _positive_int("batch_size", batch_size)
            if b > n:
                raise bad("batch_size", batch_size, f"must be at most dataset_size={n}", ("dataset_size",))
    else:
        n = b = None
    if b is not None:
        q = Fraction(b, n)
        if sample_rate is not None:
            given = exact_parameter("sample_rate", sample_rate, "probability")
            if given != q:
                raise bad("sample_rate", sample_rate, f"must equal batch_size/dataset_size = {b}/{n} when both "
                           "are given (give one of them)", ("batch_size", "dataset_size"))
        q_rule = f"sample rate q = B/N = {b}/{n}" + ("" if str(q) == f"{b}/{n}" else f" = {decimal_text(q) or show_number(q)}")
    elif sample_rate is None:
        raise bad("sample_rate", MISSING, "is needed: give sample_rate, or batch_size and dataset_size",
                  ("sample_rate", "batch_size", "dataset_size"))
    else:
        q = exact_parameter("sample_rate", sample_rate, "rate")
        q_rule = ""
    if steps is None and epochs is None:
        raise bad("steps", MISSING, "is needed: give steps, or epochs", ("steps", "epochs"))
    if steps is not None and epochs is not None:
        raise bad("epochs", epochs, f"cannot be given with steps={steps!r}: give one of them", ("steps",))
    if steps is not None:
        t = _positive_int("steps", steps, MAX_RUNS)
        t_rule = ""
        e = None
    else:
        e = exact_parameter("epochs", epochs, "positive")  # not a family parameter: 1e-400 epochs is one step
        if not (isinstance(e, Fraction) or e.is_Rational):
            raise bad("epochs", epochs, "must be a rational number (a decimal or a fraction)")
        if e > MAX_RUNS * q:  # before the million-digit count 1e999999 epochs would give is formed
            raise bad("epochs", epochs, "gives more than 10^9 steps")
        if not isinstance(e, Fraction) or not isinstance(q, Fraction):
            import sympy  # a symbolic sample rate (sqrt(2)/100)

            t = int(sympy.ceiling(e / q))
        else:
            t = -((-e.numerator * q.denominator) // (e.denominator * q.numerator))
        if b is not None:
            t_rule = f"steps T = ceil(E N / B) = ceil({show_number(e)} * {n} / {b}) = {t}"
        else:
            t_rule = f"steps T = ceil(E / q) = ceil({show_number(e)} / {decimal_text(q) or show_number(q)}) = {t}"
        if t > 10**9:
            raise bad("epochs", epochs, f"gives {t} steps, more than 10^9")
    rule = "; ".join(r for r in (q_rule, t_rule) if r)
    return Schedule(q, t, rule, e, b, n)


def dpsgd_sensitivity(sampling: str, neighbours: str) -> int:
    """The L2 sensitivity of a batch sum of contributions clipped to norm 1, by sampling scheme and
    neighbouring relation: 1 for Poisson sampling under add/remove (the batch gains or loses the
    record), 2 otherwise (replace-one moves one contribution from +C to -C; a fixed-size batch has
    no free slot, so removing a record lets another record take its place: Balle, Barthe &
    Gaboardi 2018, Zhu, Dong & Wang 2022, Lebeda et al. 2024; derivation d12).

    Args:
        sampling: ``"poisson"`` or ``"fixed-batch"``.
        neighbours: ``"add-remove"`` or ``"replace-one"``.

    Returns:
        1 or 2, in units of the clipping norm C.

    Raises:
        InvalidParameterError: The scheme or the relation is not one of the two.

    Examples:
        >>> from gdpproof.mechanisms import NEIGHBOURS
        >>> [dpsgd_sensitivity(s, n) for s in SAMPLINGS for n in NEIGHBOURS]
        [1, 2, 2, 2]
    """
    if not isinstance(sampling, str) or sampling not in SAMPLINGS:
        raise bad("sampling", sampling, "must be 'poisson' or 'fixed-batch'")
    return 1 if (sampling, relation(neighbours)) == ("poisson", "add-remove") else 2


_WHY_2C = {("poisson", "replace-one"): "a replaced record moves the sum from +C to -C",
           ("fixed-batch", "replace-one"): "a replaced record moves the sum from +C to -C",
           ("fixed-batch", "add-remove"): "a removed record's batch slot is taken by another record"}


def sensitivity_note(sampling: str, neighbours: str) -> str:
    """One line saying which sensitivity a noise multiplier is read against, and why.

    Args:
        sampling: ``"poisson"`` or ``"fixed-batch"``.
        neighbours: ``"add-remove"`` or ``"replace-one"``.

    Returns:
        The line.

    Examples:
        >>> sensitivity_note("fixed-batch", "add-remove")
        "sensitivity 2C (fixed-batch, add-remove: a removed record's batch slot is taken by another record), so the effective noise multiplier is sigma/2"
    """
    c = dpsgd_sensitivity(sampling, neighbours)
    if c == 1:
        return f"sensitivity C ({sampling}, {neighbours}), so the effective noise multiplier is sigma"
    return (f"sensitivity 2C ({sampling}, {neighbours}: {_WHY_2C[(sampling, neighbours)]}), so the effective "
            "noise multiplier is sigma/2")


def dpsgd(noise_multiplier: Any, sample_rate: Any = None, steps: Any = None, *, epochs: Any = None,
          batch_size: Any = None, dataset_size: Any = None, sampling: str = "poisson",
          neighbours: str | None = None) -> Repeated:
    """DP-SGD: ``steps`` steps, each a Gaussian sum of per-record contributions clipped to norm C,
    with noise of standard deviation ``noise_multiplier`` x C, on a batch sampled at rate p.

    ``sampling="poisson"`` (each record enters with probability p; default neighbours
    add-remove) or ``"fixed-batch"`` (B of the N records drawn without replacement, p = B/N;
    default neighbours replace-one).  The noise multiplier is over the clipping norm C, as in
    Opacus and dp_accounting's DP-SGD; the scheme and the relation set the sensitivity of the batch
    sum (:func:`dpsgd_sensitivity`): C for Poisson sampling under add/remove, 2C otherwise (a
    replaced record moves the sum by up to 2C, and with fixed-size batches a removed record's slot
    is taken by another record, so add/remove moves it by up to 2C too).  With C = 1 the step is
    ``GaussianMechanism(noise_multiplier, sensitivity)``.  With fixed-size batches the privacy depends on B and N only
    through B/N, and this function records the rate as its reduced fraction (600/60000 as 1 of 100);
    :class:`SampledWithoutReplacement` keeps the sizes as given.  Shuffled epochs ("shuffle and
    iterate") have no known tight accounting: gdpproof does not account them, and accounting them
    as either scheme is not justified (d12).

    The rate and the steps may also be given as a training script knows them, by ``epochs``,
    ``batch_size`` and ``dataset_size`` (:func:`dpsgd_schedule` gives the rule).

    Args:
        noise_multiplier: sigma, the noise's standard deviation over the clipping norm C, > 0.
        sample_rate: p, in (0, 1] (or ``batch_size`` and ``dataset_size``).
        steps: T, a positive integer (or ``epochs``).
        epochs: E, > 0: T = ceil(E / p).
        batch_size: B: p = B/N.
        dataset_size: N.
        sampling: ``"poisson"`` (default) or ``"fixed-batch"``.
        neighbours: ``"add-remove"`` or ``"replace-one"``; None takes the scheme's default.

    Returns:
        The mechanism value: ``Repeated`` of a subsampled ``GaussianMechanism``.

    Raises:
        InvalidParameterError: A parameter is out of range (as in :func:`dpsgd_schedule`).

    Examples:
        >>> dpsgd(1.0, "0.01", 1000)
        Repeated(PoissonSampled(GaussianMechanism(sigma=1, sensitivity=1), sample_rate=1/100), 1000)
        >>> dpsgd("1.1", epochs=60, batch_size=256, dataset_size=60000)
        Repeated(PoissonSampled(GaussianMechanism(sigma=11/10, sensitivity=1), sample_rate=8/1875), 14063)
        >>> dpsgd(1.0, "0.01", 1000, sampling="fixed-batch")
        Repeated(SampledWithoutReplacement(GaussianMechanism(sigma=1, sensitivity=2), sample_size=1, dataset_size=100, neighbours='replace-one'), 1000)
        >>> dpsgd(1.0, batch_size=600, dataset_size=60000, steps=1000, sampling="fixed-batch", neighbours="add-remove")
        Repeated(SampledWithoutReplacement(GaussianMechanism(sigma=1, sensitivity=2), sample_size=600, dataset_size=60000, neighbours='add-remove'), 1000)
    """
    if not isinstance(sampling, str) or sampling not in SAMPLINGS:
        raise bad("sampling", sampling, "must be 'poisson' or 'fixed-batch'")
    s = dpsgd_schedule(sample_rate=sample_rate, steps=steps, epochs=epochs, batch_size=batch_size,
                       dataset_size=dataset_size)
    rel = ("add-remove" if sampling == "poisson" else "replace-one") if neighbours is None else relation(neighbours)
    try:
        step = GaussianMechanism(noise_multiplier, dpsgd_sensitivity(sampling, rel))
    except InvalidParameterError as exc:  # named as the caller wrote it, not as the step's sigma
        if exc.argument != "sigma" or exc.rule is None:
            raise
        raise bad("noise_multiplier", exc.value, exc.rule) from None
    if sampling == "poisson":
        return Repeated(PoissonSampled(step, s.sample_rate, rel), s.steps)
    if s.batch_size is not None and s.dataset_size is not None:  # the sizes as given
        return Repeated(SampledWithoutReplacement(step, s.batch_size, s.dataset_size, rel), s.steps)
    q = s.sample_rate
    if not isinstance(q, Fraction):
        raise bad("sample_rate", sample_rate, "must be a rational number B/N in (0, 1] for fixed-size batches")
    return Repeated(SampledWithoutReplacement(step, q.numerator, q.denominator, rel), s.steps)
