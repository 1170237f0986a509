"""Control flow inside kernels: if/elif/else, while, range/ndrange/grouped/struct-for,
nested loops, break/continue, the ternary operator and ti.static.

Every expectation here was checked against real Taichi 1.7.4 (``import taichi as ti``).
Compile errors (break in a parallel loop, a name used outside its block) are in
tests/frontend/test_errors.py.
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_if_elif_else():
    @ti.kernel
    def classify(a: ti.i32) -> ti.i32:
        r = 0
        if a < 0:
            r = -1
        elif a == 0:
            r = 0
        elif a < 10:
            r = 1
        else:
            r = 2
        return r

    def ref(a):
        return -1 if a < 0 else 0 if a == 0 else 1 if a < 10 else 2

    for a in [-(2**31), -5, -1, 0, 1, 9, 10, 100]:
        assert classify(a) == ref(a)


def test_if_comparison_condition_and_nested():
    @ti.kernel
    def f(a: ti.f32, b: ti.i32) -> ti.i32:
        r = 0
        if a != 0.0:  # `if a:` on an f32 is a TypeError in Taichi
            r += 1
            if b > 0:
                r += 10
            else:
                if b < -5:
                    r += 100
        if not b:
            r += 1000
        return r

    def ref(a, b):
        r = 0
        if a:
            r += 1
            if b > 0:
                r += 10
            elif b < -5:
                r += 100
        if not b:
            r += 1000
        return r

    for a in [0.0, 0.5, -2.0]:
        for b in [-10, -1, 0, 3]:
            assert f(a, b) == ref(a, b), (a, b)


def test_while_break_continue():
    @ti.kernel
    def odd_sum(n: ti.i32) -> ti.i32:
        s = 0
        i = 0
        while True:
            i += 1
            if i > n:
                break
            if i % 2 == 0:
                continue
            s += i
        return s

    @ti.kernel
    def collatz_steps(start: ti.i32) -> ti.i32:
        n = start  # kernel arguments are immutable in Taichi
        steps = 0
        while n != 1:
            if n % 2 == 0:  # noqa: SIM108
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    def ref_collatz(n):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    for n in [-3, 0, 1, 5, 10, 101]:
        assert odd_sum(n) == sum(i for i in range(1, n + 1) if i % 2 == 1)
    for n in [1, 2, 7, 27, 97]:
        assert collatz_steps(n) == ref_collatz(n)


def test_range_forms():
    @ti.kernel
    def sum_range_a(a: ti.i32) -> ti.i32:
        s = 0
        for i in range(a):
            s += i
        return s

    @ti.kernel
    def sum_range_ab(a: ti.i32, b: ti.i32) -> ti.i32:
        s = 0
        for i in range(a, b):
            s += i * i - i
        return s

    for a in [-3, 0, 1, 10, 1000]:
        assert sum_range_a(a) == sum(range(a))
    for a, b in [(-5, 3), (5, 3), (3, 3), (-10, -2), (0, 100)]:
        assert sum_range_ab(a, b) == sum(i * i - i for i in range(a, b))


def test_parallel_range_writes_field():
    n = 100
    x = ti.field(ti.i32, shape=n)

    @ti.kernel
    def fill(a: ti.i32, b: ti.i32):
        for i in range(a, b):
            x[i] = i * i - 7

    fill(10, 60)
    expect = np.zeros(n, dtype=np.int32)
    expect[10:60] = np.arange(10, 60) ** 2 - 7
    np.testing.assert_array_equal(x.to_numpy(), expect)


def test_ndrange():
    x = ti.field(ti.i32, shape=(4, 5))

    @ti.kernel
    def fill(n: ti.i32, m: ti.i32):
        for i, j in ti.ndrange(n, m):
            x[i, j] = i * 10 + j + 1

    @ti.kernel
    def sum_box(a: ti.i32, b: ti.i32, c: ti.i32, d: ti.i32) -> ti.i32:
        s = 0
        for i, j in ti.ndrange((a, b), (c, d)):
            s += i * 100 + j
        return s

    fill(3, 4)
    expect = np.zeros((4, 5), dtype=np.int32)
    for i in range(3):
        for j in range(4):
            expect[i, j] = i * 10 + j + 1
    np.testing.assert_array_equal(x.to_numpy(), expect)

    for a, b, c, d in [(1, 3, -2, 2), (3, 1, 0, 2), (0, 4, 0, 5), (-2, 0, -3, -1)]:
        ref = sum(i * 100 + j for i in range(a, b) for j in range(c, d))
        assert sum_box(a, b, c, d) == ref


def test_grouped_field_and_ndrange():
    x = ti.field(ti.i32, shape=(3, 4))

    @ti.kernel
    def fill():
        for I in ti.grouped(x):  # noqa: E741
            x[I] = I[0] * 10 + I[1]

    @ti.kernel
    def grouped_ndrange(n: ti.i32) -> ti.i32:
        s = 0
        for I in ti.grouped(ti.ndrange(n, 3)):  # noqa: E741
            s += I[0] * I[1] + 1
        return s

    fill()
    ii, jj = np.indices((3, 4))
    np.testing.assert_array_equal(x.to_numpy(), ii * 10 + jj)
    for n in [0, 1, 4]:
        assert grouped_ndrange(n) == sum(i * j + 1 for i in range(n) for j in range(3))


def test_struct_for():
    x = ti.field(ti.i32, shape=(3, 4))
    y = ti.field(ti.f32, shape=6)

    @ti.kernel
    def fill():
        for i, j in x:
            x[i, j] = i - j
        for i in y:
            y[i] = i * 0.5

    fill()
    ii, jj = np.indices((3, 4))
    np.testing.assert_array_equal(x.to_numpy(), ii - jj)
    np.testing.assert_array_equal(y.to_numpy(), np.arange(6) * 0.5)


def test_nested_loops_break_continue_inner():
    n = 12
    z = ti.field(ti.i32, shape=n)

    @ti.kernel
    def nest():
        for i in range(n):  # parallel
            s = 0
            for j in range(i):  # serial inside
                if j == 5:
                    break
                if j % 2 == 1:
                    continue
                s += j
            k = 0
            while k < i:
                k += 3
            z[i] = s * 100 + k

    def ref(i):
        s = 0
        for j in range(i):
            if j == 5:
                break
            if j % 2 == 1:
                continue
            s += j
        k = 0
        while k < i:
            k += 3
        return s * 100 + k

    nest()
    assert z.to_numpy().tolist() == [ref(i) for i in range(n)]


def test_nested_loops_matrix_product():
    a = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    b = np.arange(8, dtype=np.float32).reshape(4, 2) * 0.5
    fa = ti.field(ti.f32, shape=(3, 4))
    fb = ti.field(ti.f32, shape=(4, 2))
    fc = ti.field(ti.f32, shape=(3, 2))
    fa.from_numpy(a)
    fb.from_numpy(b)

    @ti.kernel
    def matmul():
        for i, j in fc:
            acc = 0.0
            for k in range(4):
                acc += fa[i, k] * fb[k, j]
            fc[i, j] = acc

    matmul()
    np.testing.assert_allclose(fc.to_numpy(), a @ b, rtol=1e-6)


def test_break_in_serial_outer_loop_after_serial_loop():
    @ti.kernel
    def first_square_over(limit: ti.i32) -> ti.i32:
        r = -1
        ti.loop_config(serialize=True)
        for i in range(1000):
            if i * i > limit:
                r = i
                break
        return r

    for limit in [-1, 0, 1, 99, 100, 5000]:
        ref = next(i for i in range(1000) if i * i > limit)
        assert first_square_over(limit) == ref


def test_ternary():
    @ti.kernel
    def absval(a: ti.i32) -> ti.i32:
        return a if a > 0 else -a

    @ti.kernel
    def clamp(a: ti.f32) -> ti.f32:
        return 0.0 if a < 0.0 else (1.0 if a > 1.0 else a)

    for a in [-4, 4, 0, -(2**31) + 1]:
        assert absval(a) == abs(a)
    for a in [-0.5, 0.0, 0.25, 1.0, 3.0]:
        assert clamp(a) == min(max(a, 0.0), 1.0)


def test_static_if_and_static_range():
    flag_on = True
    flag_off = False

    @ti.kernel
    def st() -> ti.i32:
        s = 0
        for i in ti.static(range(3)):
            s += (i + 1) * 10
        if ti.static(flag_on):
            s += 1
        if ti.static(flag_off):
            s += 1000
        else:
            s += 7
        return s

    @ti.kernel
    def unrolled_store(x: ti.template()):
        for i in ti.static(range(4)):
            x[i] = i * i

    assert st() == 60 + 1 + 7
    x = ti.field(ti.i32, shape=4)
    unrolled_store(x)
    assert x.to_numpy().tolist() == [0, 1, 4, 9]


def test_static_if_discards_untaken_branch():
    # The untaken ti.static branch is not compiled: it may use names that don't exist.
    @ti.kernel
    def k() -> ti.i32:
        r = 1
        if ti.static(False):
            r = undefined_name_never_compiled  # noqa: F821
        return r

    assert k() == 1


def test_loop_variable_shadowing_and_reuse():
    @ti.kernel
    def twice() -> ti.i32:
        s = 0
        for i in range(3):
            s += i
        for i in range(10, 12):
            s += i
        return s

    assert twice() == 0 + 1 + 2 + 10 + 11


# --------------------------------------------------------------------------------------
# Verbatim from the performance-tuning page (seed 000), import aside
# --------------------------------------------------------------------------------------


def test_seed_break_in_serial_for():
    @ti.kernel
    def break_in_serial_for() -> ti.i32:
        a = 0
        ti.loop_config(serialize=True)
        for i in range(100):  # This loop runs serially
            a += i
            if i == 10:
                break
        return a

    assert break_in_serial_for() == 55  # returns 55
