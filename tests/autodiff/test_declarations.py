"""needs_grad / needs_dual: gradient fields beside their primals, placed or explicit."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_scalar_vector_matrix_struct_fields_get_gradients_of_their_shape():
    x = ti.field(ti.f32, shape=(3, 2), needs_grad=True)
    v = ti.Vector.field(3, ti.f32, shape=4, needs_grad=True, needs_dual=True)
    m = ti.Matrix.field(2, 2, ti.f64, shape=5, needs_grad=True)
    s = ti.Struct.field({"a": ti.f32, "b": ti.math.vec2}, shape=3, needs_grad=True)
    t = ti.types.vector(2, ti.f32).field(shape=6, needs_grad=True)
    assert (x.grad.shape, x.grad.dtype, x.grad.name) == ((3, 2), ti.f32, "x.grad")
    assert (v.grad.shape, v.grad.n, v.dual.shape) == ((4,), 3, (4,))
    assert (m.grad.shape, m.grad.n, m.grad.m, m.grad.dtype) == ((5,), 2, 2, ti.f64)
    assert s.grad.b.shape == (3,) and s.grad.a.name == "s.a.grad"
    assert t.grad.shape == (6,)
    v.grad[1] = [1, 2, 3]
    assert v.grad.to_numpy()[1].tolist() == [1, 2, 3]
    assert v.to_numpy()[1].tolist() == [0, 0, 0]  # its own memory, not the primal's


def test_gradient_is_placed_beside_its_primal():
    x = ti.field(ti.f32, shape=8, needs_grad=True)
    # same node, next slot: interleaved with the primal as Taichi's lazy_grad places it
    assert x.grad.layout().address((0,)) - x.layout().address((0,)) == 4
    assert x.grad.layout().address((1,)) - x.layout().address((1,)) == 4


def test_explicit_placement_and_lazy_grad():
    a = ti.field(ti.f64, needs_grad=True)
    b = ti.field(ti.f64, needs_grad=True)
    ti.root.dense(ti.i, 4).place(a)
    ti.root.dense(ti.i, 4).place(a.grad)
    ti.root.dense(ti.i, 3).place(b)
    ti.root.lazy_grad()
    assert a.grad.shape == (4,) and b.grad.shape == (3,)
    assert a.grad.snode.parent() is not a.snode.parent()  # where the program put it
    assert b.grad.snode.parent() is b.snode.parent()


def test_fields_builder_places_gradients_when_finalised():
    fb = ti.FieldsBuilder()
    c = ti.field(ti.f32, needs_grad=True)
    fb.dense(ti.i, 5).place(c)
    tree = fb.finalize()
    c.grad[2] = 1.5
    assert c.grad.to_numpy().tolist() == [0, 0, 1.5, 0, 0]
    tree.destroy()


def test_integer_fields_have_no_gradient():
    y = ti.field(ti.i32, shape=4)
    with pytest.raises(AttributeError, match="field 'y' has no gradient field") as caught:
        _ = y.grad
    assert "needs_grad=True" in caught.value.hint


def test_float_fields_have_a_gradient_the_program_may_place():
    x, y = ti.field(ti.f32), ti.field(ti.f32)
    ti.root.dense(ti.i, 4).place(x, x.grad, y)  # as Taichi's simple_derivative example
    assert x.grad.shape == (4,)
    assert x.grad.layout().address((0,)) - x.layout().address((0,)) == 4
    with pytest.raises(RuntimeError, match="never placed") as caught:
        y.grad.fill(0)
    assert "needs_grad=True" in caught.value.hint


def test_missing_gradient_in_a_kernel_points_at_the_attribute():
    x = ti.field(ti.i32, shape=4)

    @ti.kernel
    def seed():
        for i in x:
            x.grad[i] = 1

    with pytest.raises(AttributeError) as caught:
        seed()
    assert caught.value.kernel_name == "seed"
    assert caught.value.text.strip().startswith("x.grad[i] = 1")

    @ti.kernel
    def fill():  # the process keeps working
        for i in x:
            x[i] = 2

    fill()
    assert x.to_numpy().tolist() == [2] * 4


def test_gradient_fields_are_usable_in_kernels():
    x = ti.field(ti.f32, shape=4, needs_grad=True)

    @ti.kernel
    def seed():
        for i in x:
            x.grad[i] = i * 2.0

    seed()
    assert x.grad.to_numpy().tolist() == [0, 2, 4, 6]
    ti.ad.clear_all_gradients()
    assert x.grad.to_numpy().tolist() == [0] * 4


def test_ndarray_gradients():
    a = ti.ndarray(ti.f32, (3, 2), needs_grad=True)
    v = ti.Vector.ndarray(3, ti.f64, 4, needs_grad=True)
    assert a.grad.shape == (3, 2) and v.grad.element_shape == (3,)
    assert ti.ndarray(ti.f32, 3).grad is None
    assert np.all(a.grad.to_numpy() == 0)


def test_a_large_matrix_field_places_its_gradients_in_one_pass(monkeypatch):
    """Placing the gradients scans the SNode's children: once per SNode, not once per
    component (a 128x128 matrix field took minutes to declare when it was per component)."""
    from ti_notebook.lang import autodiff

    calls = []
    real = autodiff.place_pending
    monkeypatch.setattr(
        autodiff, "place_pending", lambda node, lazy=None: calls.append(node) or real(node, lazy)
    )
    m = ti.Matrix.field(32, 32, ti.f32, shape=4, needs_grad=True)
    assert len(calls) <= 2  # at declaration and at finalisation; 1,024 components
    m[1] = [[float(i * 32 + j) for j in range(32)] for i in range(32)]
    assert m[1][2, 3] == 67.0
    assert m.grad[1][2, 3] == 0.0
