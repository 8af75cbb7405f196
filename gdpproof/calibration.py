r"""Calibrating DP-SGD to a target (epsilon, delta) with proven answers.

:func:`calibrate` finds, for T steps of the subsampled Gaussian mechanism (Poisson sampling or
fixed-size batches, either neighbouring relation: :func:`gdpproof.mechanisms.dpsgd`) and a target
(epsilon, delta), a noise multiplier sigma (``digits`` significant digits, rounded up) or, for a
given sigma, a number of steps, a sampling rate (rounded down) or a batch size, whose **proven**
upper end of epsilon at delta meets the target.  The answer comes with the account at it and at
the next value on the less private side, which is **not proven** to meet the target; the answer
is not proven the smallest such sigma.  Coarse estimates steer a secant search in log-log
coordinates; only :func:`gdpproof.account` decides.

What is proven and how the search runs: ``docs/guides/dpsgd.md`` ("What σ do I need?") and
``docs/proofs/index.md``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, TextIO

import sympy

from ._args import positive, probability
from .errors import bad
from .accounting import BRACKET_DIGITS, Account, EpsilonEstimator, account, check_rel_width
from .errors import InvalidParameterError, PrecisionError
from .mechanisms import Mechanism, Schedule, dpsgd, dpsgd_schedule, to_fraction
from .text import answer_text, double_text, show_number
from .numeric.tradeoff.solve import mu_from_epsilon_delta
from .symbolic.tradeoff import within_range

__all__ = ["Calibration", "calibrate", "calibrate_variance"]

#: What can be solved for, with the direction the answer is rounded (the safe side).
PARAMETERS = {"noise_multiplier": "up", "steps": "down", "sample_rate": "down", "batch_size": "down"}

#: Width of the coarse brackets that steer the search.
_COARSE_WIDTH = 0.04


@dataclass(frozen=True)
class Calibration:
    """What :func:`calibrate` returns.

    Attributes:
        parameter (str): What was solved for: "noise_multiplier", "steps", "sample_rate" or "batch_size"
            (:func:`calibrate`), or "variance_factor" (:func:`calibrate_variance`).
        value (sympy.Rational or int): The answer, exact (``text`` is the same number as shown).
        rounding (str): "up" for sigma (a larger sigma only adds noise), "down" for the others.
        target_epsilon (sympy.Rational): The target.
        delta (sympy.Rational): The target.
        account (Account): The proven account at the answer: ``account.epsilon.upper <= target_epsilon``.
        neighbour (sympy.Rational or int): One unit of the last digit (or one step, one record) past the
            answer, on the less private side (less noise, more steps, a larger rate or batch).
        neighbour_account (Account): Its account: the upper end is above the target (its bracket lies above
            the target or straddles it), so no closer value is proven at this width.
        schedule (Schedule or None): The sampling rate and steps at the answer, with the rule that gave them
            (None for :func:`calibrate_variance`).
        evaluations (int): Compositions run in all (coarse estimates and accounts).
        proven (int): Proven accounts among them (the answer, its neighbour and any other value checked).
        text (str): The answer as shown, on its grid of ``digits`` significant digits.
        digits (int or None): Significant digits of the answer's grid (None for integers).
        rel_width (float): The relative width of the proven brackets.

    Examples:
        >>> import sympy
        >>> from gdpproof.calibration import calibrate_variance
        >>> from gdpproof.mechanisms import GaussianMechanism, Repeated
        >>> c = calibrate_variance(lambda v: Repeated(GaussianMechanism(sigma=sympy.sqrt(v)), 4), 2, "1e-5", guess=4.0,
        ...                        digits=3)
        >>> c.parameter, c.text, c.rounding, c.account.route
        ('variance_factor', '16.0', 'up', 'exact')
    """

    parameter: str
    value: Any
    text: str
    rounding: str
    digits: int | None
    target_epsilon: Any
    delta: Any
    rel_width: float
    account: Account = field(repr=False)
    neighbour: Any = field(repr=False)
    neighbour_account: Account = field(repr=False)
    schedule: Schedule | None = field(repr=False)
    evaluations: int = field(repr=False, default=0)
    proven: int = field(repr=False, default=0)

    def __repr__(self) -> str:
        lo, hi = _end(self.account, "lower"), _end(self.account, "upper")
        delta = double_text(self.delta)  # a double as its shortest repr, not its 60 exact digits
        eps = f"eps in [{lo:.6g}, {hi:.6g}]" if self.account.pair_tight else f"eps <= {hi:.6g}"
        return (f"Calibration({self.parameter}={self.text} (rounded {self.rounding}), "
                f"{eps} <= {answer_text(self.target_epsilon)} "
                f"at delta={answer_text(self.delta) if '/' in delta else delta})")

    @property
    def eps_lower(self) -> Any:
        """The proven lower end of epsilon at the answer (6 digits, rounded down)."""
        return self.account.eps_lower

    @property
    def eps_upper(self) -> Any:
        """The proven upper end of epsilon at the answer, rounded up to enough digits (at least
        6, one more than the target has) that it shows <= the target."""
        return self.account.eps_upper

    @property
    def neighbour_refuted(self) -> bool:
        """True when the neighbour is proven not to meet the target: its bracket's lower end is
        above it, and that end holds for the mechanism itself (its parameters are doubles, and the
        lower end is not only the dominating pair's)."""
        n = self.neighbour_account
        return n.pair_tight and not n.rounded_parameters and self._neighbour_above()

    def _neighbour_above(self) -> bool:
        """Whether the neighbour's proven lower end of epsilon (a certified decimal on every route)
        is above the target."""
        low = self.neighbour_account.eps_lower
        return not low.is_finite() or low.to_fraction() > to_fraction(self.target_epsilon)

    def neighbour_phrase(self) -> str:
        """How the neighbour stands to the target, in words: proven not to meet it; above it by
        a lower end that is not a proof (the parameters rounded to doubles, or the dominating
        pair's); or straddling it (its true epsilon may still meet the target)."""
        n = self.neighbour_account
        if self.neighbour_refuted:
            return f"proven not to meet the target (its epsilon is at least {n.eps_lower})"
        above = self._neighbour_above()
        if above and n.pair_tight:
            return (f"not proven to meet the target: its bracket lies above it, but its lower end {n.eps_lower} is "
                    "for the parameters rounded to doubles, so it does not prove that the value fails")
        if above:
            return (f"not proven to meet the target: its dominating pair's epsilon is at least {n.eps_lower}, "
                    "which does not bound the mechanism's from below")
        return (f"not proven to meet the target at rel_width {self.rel_width:g} (its bracket holds the target: "
                "its true epsilon may still meet it)")

    def statement(self) -> str:
        """One paragraph for a paper: the answer, the schedule and the proven guarantee."""
        what = {"noise_multiplier": "noise multiplier sigma", "steps": "number of steps T",
                "sample_rate": "sampling rate q", "batch_size": "batch size B",
                "variance_factor": "noise-variance factor c"}[self.parameter]
        how = f" ({self.digits} significant digits, rounded {self.rounding})" if self.digits else ""
        n = self.neighbour_account
        its = (f"its bracket is [{n.eps_lower}, {n.eps_upper}]" if n.pair_tight else
               f"its epsilon is at most {n.eps_upper}, its dominating pair's at least {n.eps_lower}")
        lines = [f"The {what} {self.text}{how} meets the target: its epsilon is proven <= "
                 f"{answer_text(self.target_epsilon)} at delta = {answer_text(self.delta)}.  The next value on the less private side, "
                 f"{self.text_of(self.neighbour)}, is {self.neighbour_phrase()}; {its}.",
                 self.account.statement()]
        if self.schedule is not None and self.schedule.rule:
            lines.append(f"Schedule: {self.schedule.rule}.")
        return "\n".join(lines)

    def text_of(self, v: Any) -> str:
        """A value of the solved parameter as shown (an integer, or its exact decimal)."""
        return answer_text(v, self.digits)

    def to_dict(self) -> dict[str, Any]:
        """The answer as JSON-ready values (numbers as decimal strings)."""
        d = self.account.to_dict()
        n = self.neighbour_account
        d.update({
            "solved_for": self.parameter, self.parameter: self.text, "rounding": self.rounding,
            "digits": self.digits, "target_eps": answer_text(self.target_epsilon),
            "neighbour": {self.parameter: self.text_of(self.neighbour),
                          ("eps_lower" if n.pair_tight else "pair_eps_lower"): str(n.eps_lower),
                          "eps_upper": str(n.eps_upper), "proven_not_to_meet_target": self.neighbour_refuted},
            "rel_width": str(self.rel_width), "evaluations": self.evaluations, "proven_accounts": self.proven,
        })
        if self.schedule is not None:
            d.update({"sample_rate": answer_text(self.schedule.sample_rate), "steps": self.schedule.steps,
                      "schedule_rule": self.schedule.rule or None})
        return d


# -- the grid of answers ------------------------------------------------------------------------

def _on_grid(x: float, digits: int | None, up: bool) -> Any:
    """x rounded to the answer grid (``digits`` significant digits; integers when None)."""
    if digits is None:
        return max(1, math.ceil(x) if up else math.floor(x))
    f = Fraction(x)
    e = math.floor(math.log10(x)) - digits + 1
    unit = Fraction(10) ** e
    k = f / unit
    k = math.ceil(k) if up else math.floor(k)
    if k >= 10**digits:  # rounded up into the next decade
        return sympy.Rational(10) ** (e + digits)
    return sympy.Rational(k) * sympy.Rational(10) ** e


def _step(v: Any, digits: int | None, toward_less: bool) -> Any:
    """The next grid value: down (``toward_less``) or up, keeping ``digits`` significant digits."""
    if digits is None:
        return v - 1 if toward_less else v + 1
    r = sympy.Rational(v)
    e = int(sympy.floor(sympy.log(r, 10))) if r > 0 else 0
    # sympy's log may be off at exact powers of ten: fix e so that 10^(digits-1) <= r/10^(e-digits+1) < 10^digits
    while r >= sympy.Rational(10) ** (e + 1):
        e += 1
    while r < sympy.Rational(10) ** e:
        e -= 1
    unit = sympy.Rational(10) ** (e - digits + 1)
    if toward_less and r == sympy.Rational(10) ** e:
        unit /= 10  # 1.000 -> 0.9999
    return r - unit if toward_less else r + unit


# -- the search ---------------------------------------------------------------------------------

@dataclass
class _Problem:
    parameter: str
    build: Callable[[Any], tuple[Mechanism, Schedule]]
    digits: int | None
    up: bool                      # the answer is rounded up (sigma) or down
    increasing: bool              # epsilon increases with the parameter
    guess: float
    lowest: float                 # the parameter's domain
    highest: float


def _estimator(delta: float, say: Callable[[str], None]) -> tuple[Callable[[Mechanism], float], EpsilonEstimator]:
    """eps(delta) of a mechanism, estimated as the midpoint of a coarse proven bracket, the grid
    chosen on the first call and reused after (a warm start)."""
    estimator = EpsilonEstimator(delta, _COARSE_WIDTH)

    def estimate(m: Mechanism) -> float:
        mid = estimator(m)
        say(f"estimate {estimator.count}: eps ~ {mid:.6g}")
        return mid

    return estimate, estimator


def _solve(problem: _Problem, target: float, delta: float, rel_width: float,
           say: Callable[[str], None]) -> tuple[float, int, float | None]:
    """Where the upper end of a ``rel_width`` bracket crosses the target (an estimate), the
    number of compositions it took, and the last secant's slope of log epsilon against log x
    (None where the estimates did not move)."""
    estimate, estimator = _estimator(delta, say)
    goal = math.log(target / (1 + rel_width / 2))  # the upper end sits about half the width above

    def g(u: float) -> float:
        x = min(max(math.exp(u), problem.lowest), problem.highest)  # exp(log(1e4)) is 1e4 + 2e-12
        if problem.digits is None:
            x = max(problem.lowest, round(x))
        mech, _ = problem.build(_exactish(x, problem))
        # an estimate of 0 (delta above delta(0): eps = 0, at delta = 0.3) meets any target
        return math.log(max(estimate(mech), 1e-300)) - goal

    lo_u, hi_u = math.log(problem.lowest), math.log(problem.highest)
    u0 = min(max(math.log(problem.guess), lo_u), hi_u)
    g0 = g(u0)
    u1 = min(max(u0 + (0.05 if (g0 > 0) != problem.increasing else -0.05), lo_u), hi_u)
    if u1 == u0:
        u1 = u0 - 0.05 if u0 == hi_u else u0 + 0.05
    g1 = g(u1)
    # a unit of the last digit or so: the proven accounts aim from there with the slope
    tol = 1e-6 if problem.digits is None else 10.0 ** (-problem.digits)
    for _ in range(12):
        if g1 == g0:
            break
        u2 = u1 - g1 * (u1 - u0) / (g1 - g0)
        u2 = min(max(u2, u1 - 1.0, lo_u), u1 + 1.0, hi_u)  # damped: at most a factor e per step
        if abs(u2 - u1) < tol or (problem.digits is None and abs(math.exp(u2) - math.exp(u1)) < 0.5):
            u1 = u2
            break  # the next estimate would not move the answer
        u0, g0 = u1, g1
        u1 = u2
        g1 = g(u1)
    slope = (g1 - g0) / (u1 - u0) if u1 != u0 and g1 != g0 else None
    return math.exp(u1), estimator.count, slope


def _exactish(x: float, problem: _Problem) -> Any:
    if problem.digits is None:
        return int(x)
    return sympy.Rational(Fraction(x).limit_denominator(10**15))


def _target(target_epsilon: Any, delta: Any) -> tuple[sympy.Expr, sympy.Expr]:
    """The target (epsilon, delta), exactly; the search estimates in doubles, so epsilon lies in
    [1e-100, 1e100] and delta in [1e-300, 1) (a target of 1e400 overflowed a float, 1e-400 became
    0 and its log failed: exit 5)."""
    target = positive("target_epsilon", target_epsilon, symbolic=False)
    if not target.is_Rational:
        raise bad("target_epsilon", target_epsilon, "must be a finite rational number > 0")
    within_range("target_epsilon", target_epsilon, target, zero=False)
    d = probability("delta", delta, symbolic=False)
    if not 0 < d < 1 or not d.is_Rational:
        raise bad("delta", delta, "must be a rational number in (0, 1)")
    if d < sympy.Rational(1, 10**300):
        raise bad("delta", delta, "must be at least 1e-300 to calibrate (the search estimates in doubles)")
    return target, d


def calibrate(target_epsilon: Any, delta: Any, *, noise_multiplier: Any = None, sample_rate: Any = None,
              steps: Any = None, epochs: Any = None, batch_size: Any = None, dataset_size: Any = None,
              digits: int = 4, rel_width: float = 0.01, sampling: str = "poisson", neighbours: str | None = None,
              progress: bool | TextIO = False) -> Calibration:
    r"""Calibrate DP-SGD to a target (Poisson sampling and add/remove neighbours by default).

    Leave exactly one of the noise multiplier, the number of steps (``steps``/``epochs``) and the
    sampling rate (``sample_rate``/``batch_size``) unset: it is solved for.

    Args:
        target_epsilon (real): The target: (target_epsilon, delta)-DP, proven.
        delta (real): The target: (target_epsilon, delta)-DP, proven.
        noise_multiplier: The run, as in :func:`gdpproof.mechanisms.dpsgd_schedule`: the sampling rate is q or
            B/N, the steps T or ceil(E N / B).  With ``dataset_size`` given and no batch size, a batch size is
            solved for (the next one up is not proven to meet the target).
        sample_rate: The run, as in :func:`gdpproof.mechanisms.dpsgd_schedule`: the sampling rate is q or B/N,
            the steps T or ceil(E N / B).  With ``dataset_size`` given and no batch size, a batch size is
            solved for (the next one up is not proven to meet the target).
        steps: The run, as in :func:`gdpproof.mechanisms.dpsgd_schedule`: the sampling rate is q or B/N, the
            steps T or ceil(E N / B).  With ``dataset_size`` given and no batch size, a batch size is solved
            for (the next one up is not proven to meet the target).
        epochs: The run, as in :func:`gdpproof.mechanisms.dpsgd_schedule`: the sampling rate is q or B/N, the
            steps T or ceil(E N / B).  With ``dataset_size`` given and no batch size, a batch size is solved
            for (the next one up is not proven to meet the target).
        batch_size: The run, as in :func:`gdpproof.mechanisms.dpsgd_schedule`: the sampling rate is q or B/N,
            the steps T or ceil(E N / B).  With ``dataset_size`` given and no batch size, a batch size is
            solved for (the next one up is not proven to meet the target).
        dataset_size: The run, as in :func:`gdpproof.mechanisms.dpsgd_schedule`: the sampling rate is q or
            B/N, the steps T or ceil(E N / B).  With ``dataset_size`` given and no batch size, a batch size is
            solved for (the next one up is not proven to meet the target).
        digits (int): Significant digits of a real answer (sigma rounded up, q rounded down); integers exact.
        rel_width (float): The relative width of the proven brackets: the answer is the best value whose upper
            end meets the target at this width (a narrower width costs more and moves the answer closer to the
            true boundary).
        sampling (str): The sampling scheme ("poisson" or "fixed-batch") and neighbouring relation, as in
            :func:`gdpproof.mechanisms.dpsgd` (which states the sensitivity convention of each).
        neighbours (str): The sampling scheme ("poisson" or "fixed-batch") and neighbouring relation, as in
            :func:`gdpproof.mechanisms.dpsgd` (which states the sensitivity convention of each).
        progress (bool or file): Report each step of the search (on stderr, or on the file given).

    Returns:
        Calibration: The answer, its account (``eps_upper <= target``) and its neighbour's account.

    Examples:
        A sigma, to 3 digits, proven to give (2, 1e-5)-DP over 100 steps at q = 0.1 (the next value
        down, 2.24, is not proven to at the default width):

        >>> from gdpproof import calibrate
        >>> c = calibrate(2, "1e-5", sample_rate="0.1", steps=100, digits=3)
        >>> c.text, c.rounding, c.account.epsilon.upper <= 2 < c.neighbour_account.epsilon.upper
        ('2.25', 'up', True)
        >>> c.text_of(c.neighbour)
        '2.24'
        >>> c
        Calibration(noise_multiplier=2.25 (rounded up), eps in [1.99624, 1.99786] <= 2 at delta=1E-5)
    """
    target, d = _target(target_epsilon, delta)
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 8:
        raise bad("digits", digits, "must be an integer in [1, 8]")
    width = check_rel_width(rel_width)
    say = _sayer(progress)
    dpsgd(1, "0.5", 1, sampling=sampling, neighbours=neighbours)  # the scheme and relation checked up front
    problem = _problem(sympy.Rational(target), sympy.Rational(d), noise_multiplier, sample_rate, steps, epochs,
                       batch_size, dataset_size, digits, sampling, neighbours)
    t, dd = float(target), float(d)
    estimate, spent, slope = _solve(problem, t, dd, width, say)
    return _settle(problem, estimate, slope, sympy.Rational(target), sympy.Rational(d), width, say, spent)



def calibrate_variance(build: Callable[[Any], Mechanism], target_epsilon: Any, delta: Any, *, guess: float,
                       digits: int = 4, rel_width: float = 0.01, lowest: float = 1e-6, highest: float = 1e6,
                       progress: bool | TextIO = False) -> Calibration:
    r"""A common factor c on every noise variance whose proven epsilon meets a target (the next value
    down is not proven to meet it at ``rel_width``; c is not proven the smallest).

    ``build(c)`` returns the mechanism with every noise variance multiplied by c (every scale by
    sqrt(c)); epsilon must decrease as c grows.  The search is :func:`calibrate`'s (coarse
    estimates steer, proven accounts decide): the answer c has ``digits`` significant digits,
    rounded up (more noise), its proven upper end of epsilon at delta is at most the target, and
    the next value down (one unit of the last digit) is not proven at ``rel_width``.  1 - c is
    then a noise-variance reduction that provably keeps the target.

    Args:
        build: A callable, c (an exact sympy Rational) -> Mechanism.
        target_epsilon: The target epsilon.
        delta: The delta of the target guarantee.
        guess: Where to start (a closed-form estimate: for Gaussian noise, (mu / mu_target)^2).
        digits: As in :func:`calibrate`.
        rel_width: As in :func:`calibrate`.
        progress: As in :func:`calibrate`.
        lowest: The lower end of the search domain of c.
        highest: The upper end of the search domain of c.

    Returns:
        A :class:`Calibration` with ``parameter == "variance_factor"`` and ``schedule`` None.

    Examples:
        Three Laplace mechanisms of scale sqrt(c) (variance 2c), for epsilon 2 at delta 1e-5:

        >>> import sympy
        >>> from gdpproof.mechanisms import LaplaceMechanism, Repeated
        >>> c = calibrate_variance(lambda c: Repeated(LaplaceMechanism(scale=sympy.sqrt(c)), 3), 2, "1e-5",
        ...                        guess=2.0, digits=3)
        >>> c
        Calibration(variance_factor=2.26 (rounded up), eps in [1.97781, 1.99557] <= 2 at delta=1E-5)
        >>> c.text_of(c.neighbour), c.neighbour_account.eps_upper > 2
        ('2.25', True)
    """
    target, d = _target(target_epsilon, delta)
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 8:
        raise bad("digits", digits, "must be an integer in [1, 8]")
    if not 0 < lowest <= guess <= highest:
        raise bad("guess", guess, f"must lie in [lowest, highest] = [{lowest}, {highest}], lowest > 0")
    width = check_rel_width(rel_width)
    say = _sayer(progress)
    problem = _Problem("variance_factor", lambda c: (build(c), None), digits, True, False, guess, lowest, highest)
    estimate, spent, slope = _solve(problem, float(target), float(d), width, say)
    return _settle(problem, estimate, slope, sympy.Rational(target), sympy.Rational(d), width, say, spent)


def _sayer(progress: bool | TextIO) -> Callable[[str], None]:
    if not progress:
        return lambda text: None
    stream = sys.stderr if progress is True else progress
    return lambda text: print(f"calibrate: {text}", file=stream, flush=True)


def _problem(target: Any, delta: Any, sigma: Any, q: Any, steps: Any, epochs: Any, batch: Any, n: Any,
             digits: int, sampling: str, neighbours: str | None) -> _Problem:
    if batch is not None and n is None:
        dpsgd_schedule(batch_size=batch)  # raises its rule: dataset_size is needed with batch_size
    free = [name for name, unset in (("noise_multiplier", sigma is None), ("steps/epochs", steps is None and epochs is None),
                                     ("sample_rate/batch_size", q is None and batch is None)) if unset]
    if len(free) != 1:
        raise InvalidParameterError(
            "DP-SGD calibration solves for one of noise_multiplier, steps/epochs and sample_rate/batch_size: leave "
            f"exactly that one out ({'unset: ' + ', '.join(free) if free else 'all are given'})",
            mentions=("noise_multiplier", "steps", "epochs", "sample_rate", "batch_size"))
    what = free[0].split("/")[0]
    mu = float(mu_from_epsilon_delta(target, delta, digits=8))  # the CLT guess: it understates epsilon
    if what == "noise_multiplier":
        s = dpsgd_schedule(sample_rate=q, steps=steps, epochs=epochs, batch_size=batch, dataset_size=n)
        qf, tf = float(s.sample_rate), s.steps
        from .accounting import NOISE_MULTIPLIER_RANGE  # the engine's range (loads the engine)

        low, high = NOISE_MULTIPLIER_RANGE
        guess = _guess(lambda: 1 / math.sqrt(math.log1p((mu / qf) ** 2 / tf)), low, high)

        def build(x: Any) -> tuple[Mechanism, Schedule]:
            return _dpsgd(x, s, sampling, neighbours), s
        return _Problem(what, build, digits, True, False, guess, low, high)
    sig = positive("noise_multiplier", sigma, symbolic=False)
    sf = float(sig)
    if what == "steps":
        s0 = dpsgd_schedule(sample_rate=q, steps=1, batch_size=batch, dataset_size=n)
        qf = float(s0.sample_rate)

        def build(x: Any) -> tuple[Mechanism, Schedule]:
            s = dpsgd_schedule(sample_rate=q, steps=int(x), batch_size=batch, dataset_size=n)
            return _dpsgd(sig, s, sampling, neighbours), s
        guess = _guess(lambda: (mu / qf) ** 2 / math.expm1(1 / sf**2), 1, 1e9)
        return _Problem(what, build, None, False, True, guess, 1, 1e9)
    if n is not None and batch is None:  # a batch size of a dataset of n records

        def build(x: Any) -> tuple[Mechanism, Schedule]:
            s = dpsgd_schedule(batch_size=int(x), dataset_size=n, steps=steps, epochs=epochs)
            return _dpsgd(sig, s, sampling, neighbours), s
        nn = dpsgd_schedule(batch_size=1, dataset_size=n, steps=1).dataset_size or 1
        guess = _guess(lambda: _rate_guess(mu, sf, steps, epochs) * nn, 1, nn)
        return _Problem("batch_size", build, None, False, True, guess, 1, nn)

    def build(x: Any) -> tuple[Mechanism, Schedule]:
        s = dpsgd_schedule(sample_rate=x, steps=steps, epochs=epochs)
        return _dpsgd(sig, s, sampling, neighbours), s
    return _Problem(what, build, digits, False, True, _guess(lambda: _rate_guess(mu, sf, steps, epochs), 1e-9, 1.0),
                    1e-9, 1.0)


def _guess(formula: Callable[[], float], low: float, high: float) -> float:
    """A starting point from a CLT formula, clamped into [low, high]: it only steers the search.
    Where the formula overflows or divides by zero (sigma = 0.001, q = 1e-300) the end it runs
    off to is taken, or the middle of the domain in log scale when it gives nothing."""
    try:
        g = formula()
    except OverflowError:
        g = math.inf
    except (ArithmeticError, ValueError):
        g = math.nan
    if math.isnan(g):
        return math.sqrt(low * high)
    return min(max(g, low), high)


def _rate_guess(mu: float, sigma: float, steps: Any, epochs: Any) -> float:
    c = math.expm1(1 / sigma**2)
    if steps is not None:
        return mu / math.sqrt(float(sympy.Rational(steps)) * c)
    return mu * mu / (float(sympy.Rational(epochs)) * c)  # T = E / q: mu = sqrt(q E c)


def _dpsgd(sigma: Any, s: Schedule, sampling: str, neighbours: str | None) -> Mechanism:
    sizes = s.batch_size is not None and s.dataset_size is not None
    return dpsgd(sigma, None if sizes else s.sample_rate, s.steps, batch_size=s.batch_size if sizes else None,
                 dataset_size=s.dataset_size if sizes else None, sampling=sampling, neighbours=neighbours)


def _end(a: Account, which: str) -> Any:
    """An end of the account's epsilon: a bracket's, or a certified closed form's value (which is
    rounded up: both ends are taken to be it, as the closed form is exact to its digits)."""
    return getattr(a.epsilon, which, a.epsilon)


def _settle(problem: _Problem, estimate: float, slope: float | None, target: Any, delta: Any, width: float,
            say: Callable[[str], None], spent: int) -> Calibration:
    """Aim proven accounts at the boundary: the answer meets the target, its neighbour toward less
    noise does not.

    Each account's upper end and the slope of log epsilon against log x (the secant through the
    two proven values nearest the boundary, or the coarse estimates' before there are two) predict
    where the upper end crosses the target; the grid value on the safe side of that crossing is
    proven next, or its neighbour once it is proven.  The candidates are kept strictly between
    the proven ends (the noisiest value found to miss, the least noisy found to meet), so each
    account narrows them and the search ends; with a smooth upper end it proves the first guess,
    the answer and its neighbour."""
    digits = problem.digits
    inc = problem.increasing

    def less(v: Any) -> Any:  # toward less noise: a smaller sigma, a larger T, q or B
        return _step(v, digits, toward_less=not inc)

    def more(v: Any) -> Any:
        return _step(v, digits, toward_less=inc)

    def noise(v: Any) -> Fraction:  # grows with the noise
        f = to_fraction(v)
        return -f if inc else f

    accounts: dict[Any, tuple[Account, Schedule]] = {}
    # digits of the ends shown: enough that an upper end at or below the target shows so
    shown = min(17, max(BRACKET_DIGITS, len(str(Decimal(int(target.p)) / Decimal(int(target.q))).replace(".", "")
                                              .lstrip("0")) + 1))
    goal = Fraction(int(target.p), int(target.q))
    evaluations = [spent]

    def check(v: Any) -> bool:
        if v not in accounts:
            mech, s = problem.build(v)
            evaluations[0] += 1
            a = account(mech, delta=delta, rel_width=width, digits=shown)
            accounts[v] = (a, s)
            say(f"{problem.parameter} = {answer_text(v, digits)}: eps in [{_end(a, 'lower'):.6g}, {_end(a, 'upper'):.6g}]")
        return Fraction(_end(accounts[v][0], "upper")) <= goal

    def inside(v: Any) -> bool:
        return problem.lowest <= float(v) <= problem.highest

    def lg(v: Any) -> float:  # log of the upper end (an upper end of 0 counts as tiny)
        return math.log(max(float(_end(accounts[v][0], "upper")), 1e-300))

    fallback = slope if slope else (1.0 if inc else -1.0)
    logt = math.log(float(goal))

    def aim(met: Any, missed: Any) -> Any:
        """The grid value on the safe side of the predicted crossing."""
        if met is not None and missed is not None:
            pts = (met, missed)
        else:
            pts = tuple(sorted(accounts, key=lambda v: abs(lg(v) - logt))[:2])
        v0 = pts[0]
        k = fallback
        if len(pts) == 2:
            du = math.log(float(pts[1])) - math.log(float(pts[0]))
            de = lg(pts[1]) - lg(v0)
            if du != 0 and de != 0 and (de / du > 0) == inc:
                k = de / du
        u = math.log(float(v0)) + (logt - lg(v0)) / k
        x = min(max(math.exp(min(max(u, math.log(problem.lowest)), math.log(problem.highest))), problem.lowest),
                problem.highest)
        return _on_grid(x, digits, up=problem.up)

    # the first value inside the domain (an estimate past its end would be refused by the engine)
    v = _on_grid(min(max(estimate, problem.lowest), problem.highest), digits, up=problem.up)
    gaps: list[Fraction] = []
    for _ in range(60):
        check(v)
        met = min((w for w in accounts if check(w)), key=noise, default=None)
        missed = max((w for w in accounts if not check(w) and (met is None or noise(w) < noise(met))),
                     key=noise, default=None)
        if met is not None and missed is not None and less(met) == missed:
            break
        c = aim(met, missed)
        if met is not None and missed is not None:
            gaps.append(noise(met) - noise(missed))
            # where the upper end is rough at the grid's scale (the integers of a long run), the
            # secant can creep; when two accounts have not halved the gap between the proven
            # ends, bisect it
            if len(gaps) >= 3 and gaps[-1] > gaps[-3] / 2:
                c = _on_grid((float(met) + float(missed)) / 2, digits, up=problem.up)
        if missed is not None and noise(c) <= noise(missed):
            c = more(missed)
        if met is not None and noise(c) >= noise(met):
            c = less(met)
        if c in accounts:  # the aim repeats a proven value: step past it
            c = less(c) if check(c) else more(c)
        if not inside(c):
            if met is not None and noise(c) < noise(met):
                raise InvalidParameterError(f"{problem.parameter}: every value down to {answer_text(met, digits)} meets "
                                            "the target (the search stops at the end of its domain)")
            raise PrecisionError(f"no {problem.parameter} within [{problem.lowest:g}, {problem.highest:g}] "
                                 f"meets the target epsilon={show_number(target)} at delta={show_number(delta)}")
        v = c
    else:
        raise PrecisionError(f"{problem.parameter}: the proven boundary was not found within 60 accounts of the "
                             "estimate (ask for fewer digits or a larger rel_width)")
    a, s = accounts[met]
    return Calibration(problem.parameter, met, answer_text(met, digits), "up" if problem.up else "down", digits, target,
                       delta, width, a, missed, accounts[missed][0], s, evaluations[0], len(accounts))
