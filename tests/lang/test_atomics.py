"""Atomics: ``+=`` on globals in parallel loops, ``ti.atomic_*`` and their old values.

Every expectation here was checked against real Taichi 1.7.4 (``import taichi as ti``).
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


# --------------------------------------------------------------------------------------
# Atomics
# --------------------------------------------------------------------------------------


def test_parallel_augmented_assign_is_atomic():
    si = ti.field(ti.i32, shape=())
    sl = ti.field(ti.i64, shape=())
    sf = ti.field(ti.f32, shape=())
    sd = ti.field(ti.f64, shape=())

    @ti.kernel
    def acc(n: ti.i32):
        for i in range(n):
            si[None] += i
            sl[None] -= i * 3
            sf[None] += 0.5
            sd[None] += 0.25

    for n in [0, 1, 1000, 20000]:
        si[None], sl[None], sf[None], sd[None] = 0, 0, 0.0, 0.0
        acc(n)
        assert si[None] == n * (n - 1) // 2
        assert sl[None] == -3 * n * (n - 1) // 2
        assert sf[None] == n * 0.5
        assert sd[None] == n * 0.25


def test_parallel_histogram_atomics():
    n = 10000
    data = ti.field(ti.i32, shape=n)
    hist = ti.field(ti.i32, shape=7)
    src = (np.arange(n) * 37 % 7).astype(np.int32)
    data.from_numpy(src)

    @ti.kernel
    def count():
        for i in data:
            hist[data[i]] += 1

    count()
    np.testing.assert_array_equal(hist.to_numpy(), np.bincount(src, minlength=7))


def test_parallel_atomic_min_max():
    mx = ti.field(ti.f32, shape=())
    mn = ti.field(ti.i32, shape=())

    @ti.kernel
    def reduce():
        for i in range(1000):
            ti.atomic_max(mx[None], ti.sin(i * 1.0))
            ti.atomic_min(mn[None], (i * 7919) % 1009 - 500)

    mx[None] = -2.0
    mn[None] = 10**6
    reduce()
    assert mx[None] == pytest.approx(float(np.sin(np.arange(1000, dtype=np.float32)).max()))
    assert mn[None] == min((i * 7919) % 1009 - 500 for i in range(1000))


def test_atomic_functions_return_old_value():
    old = ti.field(ti.i32, shape=7)
    v = ti.field(ti.i32, shape=7)

    @ti.kernel
    def atom(a: ti.i32, init: ti.i32):
        for k in ti.static(range(7)):
            v[k] = init
        old[0] = ti.atomic_add(v[0], a)
        old[1] = ti.atomic_sub(v[1], a)
        old[2] = ti.atomic_min(v[2], a)
        old[3] = ti.atomic_max(v[3], a)
        old[4] = ti.atomic_and(v[4], a)
        old[5] = ti.atomic_or(v[5], a)
        old[6] = ti.atomic_xor(v[6], a)

    for a, init in [(3, 10), (-5, 10), (20, 10), (0b1010, 0b1100), (-1, 0), (7, -7)]:
        atom(a, init)
        assert old.to_numpy().tolist() == [init] * 7
        expect = [init + a, init - a, min(init, a), max(init, a), init & a, init | a, init ^ a]
        assert v.to_numpy().tolist() == expect, (a, init)


def test_atomic_on_local_and_float():
    @ti.kernel
    def local_add(a: ti.i32) -> ti.i32:
        x = 5
        o = ti.atomic_add(x, a)
        return o * 100 + x

    f = ti.field(ti.f32, shape=())

    @ti.kernel
    def float_atomics(a: ti.f32) -> ti.f32:
        f[None] = 1.5
        o1 = ti.atomic_add(f[None], a)
        o2 = ti.atomic_max(f[None], 0.0)
        return o1 * 1000 + o2

    assert local_add(3) == 508
    assert local_add(-10) == 500 - 5
    assert float_atomics(0.25) == 1500 + 1.75
    assert f[None] == 1.75
    assert float_atomics(-4.0) == 1500 - 2.5
    assert f[None] == 0.0


def test_int_field_augmented_float_casts_operand():
    # `s[None] += 0.9` on an i32 field casts 0.9 to i32 (0) before adding.
    s = ti.field(ti.i32, shape=())

    @ti.kernel
    def k():
        for _ in range(10):
            s[None] += 0.9

    s[None] = 3
    k()
    assert s[None] == 3
