"""``field.fill(v)`` inside a kernel is a loop of the kernel, run at every launch (issue 11).

It used to run once, while compiling, so what a launch did depended on whether the kernel
had just been compiled or came from the cache. Other Python-scope methods (``to_numpy``,
``from_numpy``, ``deactivate_all``, ...) are an error at their line instead.
"""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiSyntaxError

pytestmark = pytest.mark.cpu


def test_scalar_fill_runs_at_every_launch_with_the_launch_value():
    x = ti.field(ti.f32, shape=(3, 4))

    @ti.kernel
    def refill(v: ti.f32):
        x.fill(v * 2.0)

    x.from_numpy(np.ones((3, 4), dtype=np.float32))
    refill(1.5)
    np.testing.assert_array_equal(x.to_numpy(), np.full((3, 4), 3.0, np.float32))
    x.from_numpy(np.zeros((3, 4), dtype=np.float32))
    refill(-2.0)  # the same compiled kernel: it must fill again
    np.testing.assert_array_equal(x.to_numpy(), np.full((3, 4), -4.0, np.float32))


def test_fill_runs_where_it_is_written_in_the_kernel():
    x = ti.field(ti.i32, shape=5)
    total = ti.field(ti.i32, shape=())

    @ti.kernel
    def sum_then_fill():
        for i in x:
            total[None] += x[i]
        x.fill(7)

    x.from_numpy(np.arange(5, dtype=np.int32))
    sum_then_fill()
    assert total[None] == 10  # the loop before the fill saw the old values
    assert x.to_numpy().tolist() == [7] * 5


def test_a_zero_dimensional_field_is_filled_without_a_loop():
    total = ti.field(ti.f32, shape=())
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def mean() -> ti.f32:
        total.fill(0.0)
        for i in x:
            total[None] += x[i]
        return total[None] / 4

    x.from_numpy(np.arange(4, dtype=np.float32))
    assert mean() == 1.5
    assert mean() == 1.5  # reset at every launch, not summed on top of the last one


def test_vector_and_matrix_fields_take_a_scalar_or_a_vector():
    v = ti.Vector.field(3, ti.f32, shape=4)
    m = ti.Matrix.field(2, 2, ti.i32, shape=(2, 3))

    @ti.kernel
    def fill_both(a: ti.f32):
        v.fill(a)
        m.fill(5)

    @ti.kernel
    def fill_vector():
        v.fill(ti.Vector([1.0, 2.0, 3.0]))

    fill_both(0.5)
    np.testing.assert_array_equal(v.to_numpy(), np.full((4, 3), 0.5, np.float32))
    np.testing.assert_array_equal(m.to_numpy(), np.full((2, 3, 2, 2), 5, np.int32))
    fill_vector()
    np.testing.assert_array_equal(v.to_numpy(), np.tile([1.0, 2.0, 3.0], (4, 1)))


def test_sparse_fill_writes_only_active_cells():
    x = ti.field(ti.i32)
    block = ti.root.pointer(ti.i, 4)
    block.dense(ti.i, 4).place(x)

    @ti.kernel
    def activate():
        x[1] = 1  # activates block 0
        x[9] = 1  # activates block 2

    @ti.kernel
    def fill_active():
        x.fill(3)

    @ti.kernel
    def active_blocks() -> ti.i32:
        n = 0
        for b in range(4):
            n += ti.is_active(block, [b])
        return n

    activate()
    fill_active()
    expected = np.zeros(16, np.int32)
    expected[0:4] = 3
    expected[8:12] = 3
    np.testing.assert_array_equal(x.to_numpy(), expected)
    assert active_blocks() == 2  # filling activated nothing


def test_fill_inside_a_loop_and_a_func():
    x = ti.field(ti.i32, shape=3)
    out = ti.field(ti.i32, shape=())

    @ti.func
    def reset(f: ti.template(), v):
        f.fill(v)

    @ti.kernel
    def repeated():
        # serialized: three parallel iterations filling one field would race
        ti.loop_config(serialize=True)
        for k in range(3):
            reset(x, k)
            out[None] += x[0]

    repeated()
    assert out[None] == 0 + 1 + 2
    assert x.to_numpy().tolist() == [2, 2, 2]


def _python_scope_calls():
    x = ti.field(ti.i32, shape=3)
    v = ti.Vector.field(2, ti.i32, shape=3)
    arr = np.zeros(3, np.int32)

    @ti.kernel
    def to_numpy():
        x[0] = 1
        x.to_numpy()

    @ti.kernel
    def from_numpy():
        x[0] = 1
        x.from_numpy(arr)

    @ti.kernel
    def deactivate_all():
        x[0] = 1
        x.snode.parent().deactivate_all()

    @ti.kernel
    def vector_to_numpy():
        x[0] = 1
        v.to_numpy()

    return x, {
        "x.to_numpy()": to_numpy,
        "x.from_numpy(arr)": from_numpy,
        "x.snode.parent().deactivate_all()": deactivate_all,
        "v.to_numpy()": vector_to_numpy,
    }


@pytest.mark.parametrize(
    "call",
    ["x.to_numpy()", "x.from_numpy(arr)", "x.snode.parent().deactivate_all()", "v.to_numpy()"],
)
def test_other_python_scope_methods_are_an_error_at_their_line(call):
    x, kernels = _python_scope_calls()
    with pytest.raises(TiSyntaxError) as info:
        kernels[call]()
    error = info.value
    assert "Python scope" in str(error), str(error)
    assert error.pos is not None and call in error.pos.line_text, str(error)
    assert x.to_numpy().tolist() == [0, 0, 0]  # nothing ran
