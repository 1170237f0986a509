"""Idioms of Taichi's own programs (its autodiff examples use them): NumPy integers as
shapes, indices and captured constants, ``ti.axes``, ``ti.root.lazy_grad()`` on fields
declared without ``needs_grad``, and ``ti.init`` options Taichi programs pass."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

COUNT = np.prod(np.array([2, 3]))  # an np.int64, as a.size or a product gives
HALF = np.float32(0.5)
ON = np.bool_(True)


def test_numpy_integers_are_shapes_and_indices():
    ti.init(arch=ti.cpu)
    x = ti.Vector.field(3, float, shape=COUNT)
    y = ti.field(float, shape=(np.int32(2), COUNT))
    assert x.shape == (6,) and y.shape == (2, 6)
    y[np.int64(1), np.int64(5)] = 2.5
    x[np.int16(4)] = [1.0, 2.0, 3.0]
    assert y[1, 5] == 2.5 and x[4].tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(IndexError):
        y[np.int64(2), 0]


def test_numpy_scalars_captured_by_a_kernel_are_constants():
    ti.init(arch=ti.cpu)
    x = ti.field(float, shape=COUNT)

    @ti.kernel
    def fill() -> float:
        total = 0.0
        for i, _j in ti.ndrange(COUNT, 2):
            if ON:
                x[i] += HALF * i
        for i in range(COUNT):
            total += x[i]
        return total

    assert fill() == sum(2 * 0.5 * i for i in range(6))


def test_axes_as_taichi_numbers_them():
    ti.init(arch=ti.cpu)
    assert [repr(a) for a in ti.axes(0, 1, 3)] == ["i", "j", "l"]
    x = ti.field(ti.f32)
    ti.root.dense(ti.i, 2).dense(ti.axes(1, 2), (3, 4)).place(x)
    assert x.shape == (2, 3, 4)
    with pytest.raises(ValueError, match="0 to 3"):
        ti.axes(4)


def test_lazy_grad_places_every_float_fields_gradient():
    ti.init(arch=ti.cpu)
    a, b, c = ti.Vector.field(3, float), ti.field(float), ti.field(int)
    ti.root.dense(ti.i, 4).place(a, b, c)
    ti.root.lazy_grad()

    @ti.kernel
    def write():
        for i in b:
            a.grad[i] = ti.Vector([1.0, 2.0, 3.0])
            b.grad[i] = 5.0

    write()
    assert a.grad.to_numpy()[3].tolist() == [1.0, 2.0, 3.0]
    assert b.grad.to_numpy().tolist() == [5.0] * 4
    with pytest.raises(AttributeError):
        _ = c.grad  # an integer field has none
    with pytest.raises(RuntimeError, match="never placed"):
        a.dual.to_numpy()  # lazy_grad places gradients, not duals


def test_lazy_grad_gradients_carry_a_tape():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x, loss = ti.field(float), ti.field(float)
    ti.root.dense(ti.i, 3).place(x)
    ti.root.place(loss)
    ti.root.lazy_grad()

    @ti.kernel
    def square():
        for i in x:
            loss[None] += x[i] ** 2

    x.from_numpy(np.array([1.0, 2.0, 3.0]))
    with ti.ad.Tape(loss=loss):
        square()
    assert x.grad.to_numpy().tolist() == [2.0, 4.0, 6.0]


def test_init_takes_taichis_memory_and_bounds_options():
    ti.init(arch=ti.cpu, device_memory_fraction=0.5, device_memory_GB=2, random_seed=5)
    ti.init(arch=ti.cpu, check_out_of_bound=False)
    assert ti.session.config.current().check_bounds is False
    ti.init(arch=ti.cpu, check_out_of_bound=True)
    assert ti.session.config.current().check_bounds is True
