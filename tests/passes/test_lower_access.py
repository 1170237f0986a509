"""Field accesses lowered to addresses: neighbours share their arithmetic.

``x[i + c]`` puts ``c * stride`` into the access's constant and shares ``i * stride`` with
the other accesses of its block, so an unrolled stencil's loads differ by a constant.
"""

import re

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _stencil(radius: int):
    n = 32
    a = ti.field(ti.f32, shape=(n, n))
    b = ti.field(ti.f32, shape=(n, n))

    @ti.kernel
    def smooth():
        for i, j in ti.ndrange((radius, n - radius), (radius, n - radius)):
            acc = 0.0
            for di, dj in ti.static(ti.ndrange((-radius, radius + 1), (-radius, radius + 1))):
                acc += a[i + di, j + dj] * (1.0 + di * 0.5 + dj * 0.25)
            b[i, j] = acc

    values = np.random.default_rng(radius).random((n, n), dtype=np.float32)
    a.from_numpy(values)
    smooth()
    expected = np.zeros((n, n), np.float64)
    inner = slice(radius, n - radius)
    for di in range(-radius, radius + 1):
        for dj in range(-radius, radius + 1):
            shifted = values[radius + di : n - radius + di, radius + dj : n - radius + dj]
            expected[inner, inner] += shifted * (1.0 + di * 0.5 + dj * 0.25)
    np.testing.assert_allclose(b.to_numpy()[inner, inner], expected[inner, inner], rtol=1e-5)
    return smooth.stages()["ir_optimized"]


def _count(pattern: str, text: str) -> int:
    return len(re.findall(pattern, text))


@pytest.mark.parametrize("radius", [1, 2])
def test_a_stencil_scales_each_index_once_whatever_its_taps(radius):
    text = _stencil(radius)
    taps = (2 * radius + 1) ** 2
    assert _count(r"= globalload", text) == taps
    # one i64 product per axis, shared by every tap (was one per axis per tap)
    assert _count(r": i64 = mul ", text) == 2
    assert _count(r"= root_ptr tree", text) <= 2  # the loads' tree, the store's


def test_a_blocked_layout_shares_each_shifted_index_coordinate():
    a, b = ti.field(ti.f32), ti.field(ti.f32)
    for field in (a, b):
        ti.root.dense(ti.ij, 4).dense(ti.ij, 8).place(field)

    @ti.kernel
    def box():
        for i, j in ti.ndrange((1, 31), (1, 31)):
            acc = 0.0
            for di, dj in ti.static(ti.ndrange((-1, 2), (-1, 2))):
                acc += a[i + di, j + dj]
            b[i, j] = acc

    values = np.random.default_rng(3).random((32, 32), dtype=np.float32)
    a.from_numpy(values)
    box()
    expected = sum(
        values[1 + di : 31 + di, 1 + dj : 31 + dj] for di in (-1, 0, 1) for dj in (-1, 0, 1)
    )
    np.testing.assert_allclose(b.to_numpy()[1:31, 1:31], expected, rtol=1e-5)
    text = box.stages()["ir_optimized"]
    # 3 shifts of i and 3 of j, each split once into a block and a cell coordinate; the
    # store's b[i, j] shares the shift-0 ones (was 9 loads x 2 axes of each)
    assert _count(r"= floordiv ", text) == 6 and _count(r"= mod ", text) == 6


def test_accesses_in_other_blocks_make_their_own_arithmetic():
    n = 64
    a = ti.field(ti.i32, shape=n)
    out = ti.field(ti.i32, shape=n)

    @ti.kernel
    def pick():
        for i in range(1, n - 1):
            acc = 0
            if i % 3 == 0:
                acc += a[i - 1]
            else:
                acc += a[i + 1] * 10
            acc += a[i] * 100 + a[n - 1 - i] * 1000  # a constant minus the index: no shift
            out[i] = acc

    values = np.arange(n, dtype=np.int32) + 7
    a.from_numpy(values)
    pick()
    i = np.arange(1, n - 1)
    side = np.where(i % 3 == 0, values[i - 1], values[i + 1] * 10)
    expected = side + values[i] * 100 + values[n - 1 - i] * 1000
    np.testing.assert_array_equal(out.to_numpy()[1 : n - 1], expected)


def test_offset_fields_and_negative_shifts_read_the_right_elements():
    x = ti.field(ti.f32, shape=(8, 8), offset=(-4, -4))
    y = ti.field(ti.f32, shape=(8, 8), offset=(-4, -4))

    @ti.kernel
    def shift():
        for i, j in ti.ndrange((-3, 3), (-3, 3)):
            y[i, j] = x[i - 1, j + 1] - x[i + 1, j - 1]

    values = np.arange(64, dtype=np.float32).reshape(8, 8)
    x.from_numpy(values)
    shift()
    # element (i, j) is at [i + 4, j + 4] of the array
    expected = values[0:6, 2:8] - values[2:8, 0:6]
    np.testing.assert_array_equal(y.to_numpy()[1:7, 1:7], expected)
