"""Double-double arithmetic on arrays and the float64 delta built on it (gdpproof.fast).

The primitives are checked exactly against Fractions; the delta against mpmath at 50 digits on a
seeded sample that takes both branches of ``tail_difference`` (x = eps/mu - mu/2 below and above
0).  The workspace of the blocks: no per-block allocation (tracemalloc), the same bits as plain
numpy, no buffer handed out while a view of it lives, calls in threads.  Cost: about 0.3 s.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np

from gdpproof import fast
from gdpproof.numeric.engine import ddfloat
from gdpproof.numeric.engine._loss_kernels import ERFCX_POLY, ERFCX_POLY_K

RNG_SEED = 20261205


def _fr(a: np.ndarray) -> list[Fraction]:
    return [Fraction(float(v)) for v in a]


def test_two_prod_is_exact_and_the_dd_operations_keep_104_bits():
    rng = np.random.default_rng(RNG_SEED)
    a = rng.uniform(-1, 1, 200) * 10.0 ** rng.integers(-20, 20, 200)
    b = rng.uniform(0.1, 1, 200) * 10.0 ** rng.integers(-20, 20, 200)
    p, e = ddfloat.two_prod(a, b)
    assert all(pp + ee == aa * bb for pp, ee, aa, bb in zip(_fr(p), _fr(e), _fr(a), _fr(b)))
    sq, sqe = ddfloat.dd_mul(a, None, a, None)
    assert all(pp + ee == aa * aa for pp, ee, aa in zip(_fr(sq), _fr(sqe), _fr(a)))
    for (hi, lo), exact in [
        (ddfloat.dd_div(a, None, b, None), [x / y for x, y in zip(_fr(a), _fr(b))]),
        (ddfloat.dd_add(a, None, *ddfloat.dd_div(a, None, b, None)), [x + x / y for x, y in zip(_fr(a), _fr(b))]),
        (ddfloat.dd_mul(*ddfloat.dd_div(a, None, b, None), b, None), _fr(a)),
    ]:
        worst = max(abs(h + l - x) / abs(x) for h, l, x in zip(_fr(hi), _fr(lo), exact) if x)
        assert worst < Fraction(1, 2**100), float(worst)
    assert ddfloat.dd_scale(a, None, -0.5)[1] is None


def _delta(mu: float, eps: float) -> mpmath.mpf:
    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    s = mpmath.sqrt(2)
    return mpmath.erfc((eps / mu - mu / 2) / s) / 2 - mpmath.exp(eps) * mpmath.erfc((eps / mu + mu / 2) / s) / 2


def test_fast_delta_against_mpmath_on_both_branches():
    # mu in [0.5, 5] (the benchmark's arrays, whose eps in [0, 10] gave at most 2.0e-15 relative
    # on 10,000 points, the largest where eps < mu^2/2 and delta = 1 - (...) cancels a little;
    # the ndtr formula 2.5e-12, the erfcx form with a rounded exponent 5.8e-14); half the sample
    # has eps < mu^2/2 (x < 0), half eps in mu^2/2 + [0, 10]
    rng = np.random.default_rng(RNG_SEED)
    m = rng.uniform(0.5, 5, 300)
    e = m * m / 2 * np.where(np.arange(300) % 2 == 0, rng.uniform(0, 1, 300), 1.0)
    e[1::2] += rng.uniform(0, 10, 150)
    assert (e < m * m / 2).sum() == 150 and (e > m * m / 2).sum() == 150
    got = fast.delta_from_epsilon(m, e)
    with mpmath.workdps(50):
        ref = np.array([float(_delta(float(mu), float(ep))) for mu, ep in zip(m, e)])
    rel = np.abs(got - ref) / ref
    assert rel.max() <= 2.5e-15, (rel.max(), m[rel.argmax()], e[rel.argmax()])


def test_tail_difference_at_equal_arguments_and_its_polynomial():
    # d -> 0: the difference vanishes (no cancellation noise), and at a = 0 it is erfc(0)/2 -
    # erfcx(d)/2; the polynomial's value at t = 1 (x = inf) is 1 = sqrt(pi) x erfcx(x) there
    a = np.array([0.0, 0.5, 3.0, 40.0])
    z = -a * a
    tiny = ddfloat.tail_difference(z, np.zeros(4), a, np.full(4, 1e-300), ERFCX_POLY_K, ERFCX_POLY)
    assert (tiny >= 0).all() and (tiny < 1e-290).all()
    d = np.array([1.0])
    got = ddfloat.tail_difference(np.zeros(1), np.zeros(1), np.zeros(1), d, ERFCX_POLY_K, ERFCX_POLY)[0]
    assert abs(got - float(mpmath.mpf(1) / 2 - mpmath.exp(1) * mpmath.erfc(1) / 2)) < 1e-16
    assert abs(sum(ERFCX_POLY) - 1) < 1e-15


def test_the_double_double_printer_on_a_rational_expression():
    # the compiler's double-double target prints the exponent of the float64 delta; on another
    # expression with sums, products, a quotient, a square and shared nodes it keeps about 104 bits
    import sympy

    from gdpproof.numeric.engine.compiler import dd_function_source

    x, y = sympy.symbols("x y", positive=True)
    src = dd_function_source("f", "test", {"z": x * y / (x + y) + (x - y / 4) ** 2},
                             {"w": sympy.sqrt(3) * (x + y)}, (x, y))
    namespace: dict = {}
    exec(compile("from gdpproof.numeric.engine.ddfloat import *\n" + src, "<dd>", "exec"), namespace)
    rng = np.random.default_rng(RNG_SEED)
    a, b = rng.uniform(0.1, 10, 50), rng.uniform(0.1, 10, 50)
    hi, lo, w = namespace["f"](a, b)
    for h, l_, xx, yy in zip(_fr(hi), _fr(lo), _fr(a), _fr(b)):
        exact = xx * yy / (xx + yy) + (xx - yy / 4) ** 2
        assert abs(h + l_ - exact) / exact < Fraction(1, 2**100)
    assert np.allclose(w, np.sqrt(3) * (a + b), rtol=4e-16, atol=0)


def test_one_entry_gives_the_bits_of_the_vectorized_pass():
    # _horner_divided runs a single entry on Python floats: the same IEEE operations, so the
    # same bits as the numpy pass over many entries
    import numpy as np

    from gdpproof import fast

    rng = np.random.default_rng(12)
    mu = np.exp(rng.uniform(np.log(0.01), np.log(50), 300))
    eps = rng.uniform(0, 60, 300)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # deltas below float64's range come out 0 in both
        whole = fast.delta_from_epsilon(mu, eps)
        one = np.array([fast.delta_from_epsilon(mu[i:i + 1], eps[i:i + 1])[0] for i in range(300)])
    assert np.array_equal(whole, one)


def test_a_call_allocates_no_per_block_temporaries(monkeypatch):
    # numpy reports its data allocations to tracemalloc: after a first call has made the kept
    # workspace, a call over five blocks allocates its result and nothing of block size (each
    # block's temporaries used to be ~30 arrays of 156 KiB, eleven of them alive at once)
    import tracemalloc

    from gdpproof.numeric.engine import fast as engine_fast

    block = 8192
    monkeypatch.setattr(engine_fast, "_BLOCK", block)
    monkeypatch.setattr(engine_fast, "_WORKSPACES", [])
    rng = np.random.default_rng(RNG_SEED)
    mu, eps = rng.uniform(0.5, 5, 5 * block), rng.uniform(0, 10, 5 * block)
    engine_fast._delta(eps, mu)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        out = engine_fast._delta(eps, mu)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    # beyond the result, less than one temporary (Python's own objects take a few KiB)
    assert peak < out.nbytes + block * 8, (peak, out.nbytes)
    assert len(engine_fast._WORKSPACES) == 1 and engine_fast._WORKSPACES[0].buffers == 12


def test_the_workspace_gives_the_bits_of_plain_numpy(monkeypatch):
    # the same operations into kept buffers as into fresh arrays: the same bits, over blocks of
    # both lengths (a short last block takes the first entries of each buffer), both signs of a
    from gdpproof.numeric.engine import fast as engine_fast

    rng = np.random.default_rng(RNG_SEED + 1)
    mu = np.exp(rng.uniform(np.log(0.01), np.log(50), 7000))
    eps = np.clip(mu * mu / 2 + mu * rng.normal(0, 3, 7000), 0, 700)
    monkeypatch.setattr(engine_fast, "_BLOCK", 3000)
    monkeypatch.setattr(engine_fast, "_WORKSPACES", [])
    with np.errstate(all="ignore"):
        kept = engine_fast._delta(eps, mu)
        monkeypatch.setattr(engine_fast, "_WORKSPACE_MIN", 10**9)
        fresh = engine_fast._delta(eps, mu)
    assert np.array_equal(kept.view(np.int64), fresh.view(np.int64))
    assert (eps / mu < mu / 2).any() and (eps / mu > mu / 2).any()


def test_a_buffer_is_not_taken_while_a_view_of_it_lives():
    ws = ddfloat.Workspace(6, count=2)
    ws.n = 5
    t = ws.take()
    view = t[1:3]  # a view of the buffer, made from the taken array
    del t
    others = [ws.take(), ws.take(), ws.take()]
    assert not any(np.shares_memory(view, o) for o in others)
    assert ws.buffers == 4
    del view, others
    assert ws.take() is not None and ws.buffers == 4  # all free again: none made


def test_calls_in_threads_each_take_their_own_workspace(monkeypatch):
    # numpy releases the GIL inside each operation, so calls in threads interleave: each takes
    # a workspace of its own (at most _WORKSPACES_KEPT are kept), and every answer keeps its bits
    import threading

    from gdpproof.numeric.engine import fast as engine_fast

    monkeypatch.setattr(engine_fast, "_BLOCK", 4096)
    monkeypatch.setattr(engine_fast, "_WORKSPACES", [])
    monkeypatch.setattr(engine_fast, "_WORKSPACES_KEPT", 2)
    rng = np.random.default_rng(RNG_SEED + 2)
    arrays = [(rng.uniform(0.5, 5, 12000), rng.uniform(0, 10, 12000)) for _ in range(4)]
    expected = [engine_fast._delta(e, m) for m, e in arrays]
    mismatches: list[int] = []

    def work(k: int) -> None:
        for r in range(6):
            i = (k + r) % 4
            if not np.array_equal(engine_fast._delta(arrays[i][1], arrays[i][0]), expected[i]):
                mismatches.append(i)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not mismatches
    assert 1 <= len(engine_fast._WORKSPACES) <= 2


def test_the_free_count_is_the_same_under_a_tracer_reading_locals():
    # a trace function that reads frame.f_locals (debuggers, variable watchers) adds a reference
    # to every local of a Python frame on 3.11 and 3.12: were a buffer counted as a loop
    # variable, _FREE measured under such a tracer would be one too high, and a buffer in use
    # with one outside reference would be handed out again (a reviewer's find: wrong numbers)
    import sys

    def tracer(frame, event, arg):
        frame.f_locals
        return tracer

    sys.settrace(tracer)
    try:
        free = next(k for k in range(1, 8) if ddfloat._first_free([np.empty(0)], k) is not None)
        ws = ddfloat.Workspace(4, count=1)
        held = ws.take()
        other = ws.take()  # held is in use: a new buffer, not held's
    finally:
        sys.settrace(None)
    assert free == ddfloat._FREE
    assert not np.shares_memory(held, other)


def test_a_workspace_keeps_at_most_twice_its_count_of_buffers():
    # buffers held elsewhere (a kept traceback's arrays) do not make a kept workspace grow
    # without end: beyond 2 x count it allocates as numpy does and keeps nothing more
    ws = ddfloat.Workspace(4, count=2)
    held = [ws.take() for _ in range(10)]
    assert ws.buffers == 4
    assert not any(np.shares_memory(a, b) for i, a in enumerate(held) for b in held[i + 1:])
