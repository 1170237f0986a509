"""``ti.*`` math from Python on vectors, matrices and NumPy arrays; ``ti.pyfunc``.

From Python ``ti.sqrt(v)``, ``ti.min(v, w)``, ``ti.select(c, a, b)``, ``ti.cast(v, t)``...
work component by component (as Taichi's Python-scope ops do, with NumPy underneath),
with the kernel's result types; on numbers they stay Python's. ``ti.round`` rounds
half away from zero, as in kernels.
"""

import math

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiSyntaxError, TiTypeError

pytestmark = pytest.mark.cpu  # one test compiles a kernel

UNARY = [
    (ti.sqrt, np.sqrt),
    (ti.sin, np.sin),
    (ti.cos, np.cos),
    (ti.tan, np.tan),
    (ti.asin, np.arcsin),
    (ti.acos, np.arccos),
    (ti.tanh, np.tanh),
    (ti.exp, np.exp),
    (ti.log, np.log),
    (ti.abs, np.abs),
    (ti.floor, np.floor),
    (ti.ceil, np.ceil),
]


@pytest.mark.parametrize("function, reference", UNARY)
def test_unary_functions_map_over_components(function, reference):
    x = np.array([0.25, 0.5, 0.75])
    got = function(ti.Vector(x))
    assert isinstance(got, ti.Vector) and got.dtype == ti.f32
    np.testing.assert_allclose(got.to_numpy(), reference(x))
    np.testing.assert_allclose(function(x), reference(x))  # NumPy in, NumPy out
    assert function(0.5) == pytest.approx(float(reference(0.5)))


def test_result_types_follow_the_kernel():
    ints = ti.Vector([1, 4, 9])
    assert ti.sqrt(ints).dtype == ti.f32 and ti.sqrt(ints).tolist() == [1.0, 2.0, 3.0]
    assert ti.abs(-ints).dtype == ti.i32 and ti.floor(ints).dtype == ti.i32
    assert ti.floor(ti.Vector([1.5, -1.5]), ti.i32).tolist() == [1, -2]
    assert ti.round(ti.Vector([0.5, 1.5, 2.5, -2.5])).tolist() == [1.0, 2.0, 3.0, -3.0]
    assert ti.round(2.5) == 3.0 and ti.round(-2.5) == -3.0 and ti.round(2.4, ti.i32) == 2
    m = ti.Matrix([[1.0, 4.0], [9.0, 16.0]])
    assert ti.sqrt(m).tolist() == [[1.0, 2.0], [3.0, 4.0]] and isinstance(ti.sqrt(m), ti.Matrix)


def test_binary_functions():
    a, b = ti.Vector([1.0, 5.0, -2.0]), ti.Vector([3.0, 2.0, -1.0])
    assert ti.min(a, b).tolist() == [1.0, 2.0, -2.0] and ti.max(a, b).tolist() == [3.0, 5.0, -1.0]
    assert ti.max(a, 0.0).tolist() == [1.0, 5.0, 0.0] and ti.min(1.0, a).tolist() == [
        1.0,
        1.0,
        -2.0,
    ]
    assert ti.min(a, b, 0.0).tolist() == [0.0, 0.0, -2.0]
    assert ti.max(ti.Vector([1, 2]), 1.5).dtype == ti.f32
    np.testing.assert_allclose(ti.pow(a, 2).to_numpy(), [1.0, 25.0, 4.0])
    np.testing.assert_allclose(ti.atan2(a, b).to_numpy(), np.arctan2(a.to_numpy(), b.to_numpy()))
    assert ti.atan2(ti.Vector([1, 1]), 1).dtype == ti.f32
    assert ti.min(3, 1, 2) == 1 and ti.max([4, 7]) == 7 and ti.pow(2, 10) == 1024
    assert ti.atan2(1.0, -1.0) == math.atan2(1.0, -1.0)
    np.testing.assert_allclose(ti.max(np.array([1.0, 3.0]), 2.0), [2.0, 3.0])


def test_select_and_cast():
    v = ti.Vector([1.0, -2.0, 3.0])
    assert ti.select(v > 0, v, 0).tolist() == [1.0, 0.0, 3.0]
    assert ti.select(v > 0, 1, v).tolist() == [1.0, -2.0, 1.0]
    assert ti.select(1, v, 0).tolist() == [1.0, -2.0, 3.0]
    assert ti.select(0, 1, 2) == 2
    c = ti.cast(v, ti.i32)
    assert c.dtype == ti.i32 and c.tolist() == [1, -2, 3]
    assert ti.cast(v > 0, float).tolist() == [1.0, 0.0, 1.0]
    assert ti.cast(2.7, ti.i32) == 2 and ti.cast(True, float) == 1.0 and ti.cast(3, int) == 3
    assert ti.cast(np.array([1.5]), ti.i32).dtype == np.int32
    assert ti.zero(v).tolist() == [0.0, 0.0, 0.0]


def test_misuse():
    with pytest.raises(TiTypeError, match="shape"):
        ti.max(ti.Vector([1, 2]), ti.Vector([1, 2, 3]))
    with pytest.raises(TiTypeError, match="expected a number, vector or array, got str"):
        ti.max(ti.Vector([1, 2]), "a")


def test_pyfunc_runs_in_python_and_inlines_in_kernels():
    @ti.pyfunc
    def lerp(a, b, t):
        return a + (b - a) * t

    assert lerp(1.0, 3.0, 0.5) == 2.0
    assert lerp(ti.Vector([0.0, 2.0]), ti.Vector([2.0, 4.0]), 0.25).tolist() == [0.5, 2.5]
    assert isinstance(lerp, ti.Func) and isinstance(lerp, ti.Pyfunc) and "lerp" in repr(lerp)

    @ti.kernel
    def run(t: ti.f32) -> ti.f32:
        return lerp(1.0, 3.0, t) + lerp(ti.Vector([0.0, 2.0]), ti.Vector([2.0, 4.0]), t).y

    assert run(0.25) == 1.5 + 2.5

    @ti.func
    def kernel_only(a):
        return a

    with pytest.raises(TiSyntaxError, match="can only be called from a kernel"):
        kernel_only(1)
