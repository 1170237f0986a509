"""Python's builtins in kernels as Taichi accepts them: pow, abs, min/max,
int/float/bool, len, all/any, sum, zip/enumerate/reversed, range (stepped ones
unrolled at compile time), Python functions on compile-time values, and the errors
of their misuse (line, caret, hint). Values are computed by hand or with NumPy.
"""

import numpy as np
import pytest

import ti_notebook as ti
from tests.frontend.error_points import raises_at
from ti_notebook.errors import TiSyntaxError, TiTypeError

pytestmark = pytest.mark.cpu


def test_pow_on_scalars_and_vectors():
    """waterwave: brightness = pow(1 - cos_i, 2); cornell_box: pow(color, vec3(1/2.2))."""

    out = ti.Vector.field(3, ti.f32, shape=())

    @ti.kernel
    def run(a: ti.f32):
        v = ti.Vector([a, 2.0, 4.0])
        out[None] = pow(v, ti.Vector([2.0, 0.5, 1.0 / 2.2])) + pow(1 - a, 2)

    run(3.0)
    expected = np.array([3.0, 2.0, 4.0]) ** np.array([2.0, 0.5, 1 / 2.2]) + (1 - 3.0) ** 2
    np.testing.assert_allclose(out.to_numpy(), expected, rtol=1e-6)


def test_pow_of_integers_and_three_arguments():
    @ti.kernel
    def run(a: ti.i32) -> ti.i32:
        return pow(a, 3) + ti.static(pow(3, 4, 5))

    assert run(-2) == -8 + (3**4) % 5


def test_abs_min_max_mixed_scalars_and_vectors():
    out = ti.Vector.field(3, ti.f32, shape=())

    @ti.kernel
    def run(a: ti.f32):
        v = ti.Vector([a, -2.0, 5.0])
        out[None] = abs(v) + max(v, 0.0, ti.Vector([1.0, 1.0, 1.0])) * 10 + min(v, 3) * 100

    run(-4.0)
    v = np.array([-4.0, -2.0, 5.0])
    expected = np.abs(v) + np.maximum(np.maximum(v, 0), 1) * 10 + np.minimum(v, 3) * 100
    np.testing.assert_allclose(out.to_numpy(), expected)


def test_min_max_of_one_list_reduce_it():
    @ti.kernel
    def run(a: ti.i32) -> ti.i32:
        values = [a * k for k in range(1, 4)]
        return max(values) * 100 + min(ti.Vector([a, 7, -a]))

    assert run(3) == 9 * 100 - 3
    assert run(-3) == -3 * 100 - 3


def test_int_float_bool_of_kernel_values():
    @ti.kernel
    def run(a: ti.f32) -> ti.f32:
        return int(a) * 100 + float(int(a) // 2) + bool(a) * 10 + bool(ti.Vector([a, 0.0]))[1]

    assert run(7.9) == pytest.approx(700 + 3 + 10)
    assert run(0.0) == 0.0
    assert run(-3.5) == pytest.approx(-300 - 2 + 10)


def test_len_of_vectors_matrices_tuples_and_field_shapes():
    x = ti.field(ti.f32, shape=(4, 6))

    @ti.kernel
    def run() -> ti.i32:
        v = ti.Vector([1, 2, 3])
        m = ti.Matrix([[1, 2, 3], [4, 5, 6]])
        return len(v) * 1000 + len(m) * 100 + len((1, 2, 3, 4)) * 10 + len(x.shape)

    assert run() == 3000 + 200 + 40 + 2


def test_all_and_any_over_vector_comparisons():
    """comet: if not all(-0.1 <= x[i] <= 1.1) (a chained comparison per component)."""

    @ti.kernel
    def inside(a: ti.f32, b: ti.f32) -> ti.i32:
        p = ti.Vector([a, b])
        r = 0
        if not all(-0.1 <= p <= 1.1):
            r = 1
        return r * 100 + any(p > 0.5) * 10 + all([a > 0, b > 0])

    for a, b in [(0.5, 0.2), (1.2, 0.3), (-0.5, 0.7), (0.6, 0.9)]:
        p = np.array([a, b])
        expected = (not np.all((p >= -0.1) & (p <= 1.1))) * 100 + np.any(p > 0.5) * 10
        assert inside(a, b) == expected + (a > 0 and b > 0)


def test_all_any_sum_of_compile_time_values_stay_python():
    flags = (True, False, True)

    @ti.kernel
    def run() -> ti.i32:
        return ti.static(all(flags)) * 100 + any(flags) * 10 + sum(flags)

    assert run() == 0 + 10 + 2


def test_sum_with_start_and_zip_enumerate_reversed_over_vectors():
    @ti.kernel
    def run(a: ti.f32) -> ti.f32:
        v = ti.Vector([a, 2.0, 3.0])
        w = ti.Vector([10.0, 20.0, 30.0])
        dot = sum([p * q for p, q in zip(v, w, strict=True)], 0.5)
        ranks = sum(k * c for k, c in enumerate(v))
        back = ti.Vector(list(reversed(v)))
        return dot + ranks * 1000 + back[0] * 100000

    assert run(1.0) == pytest.approx(140.5 + 8.0 * 1000 + 3.0 * 100000)


def test_range_steps_unroll_at_compile_time():
    @ti.kernel
    def down() -> ti.i32:
        s = 0
        for k in ti.static(range(6, 0, -2)):
            s = s * 10 + k
        return s + sum([k for k in range(10, 0, -3)]) * 1000

    assert down() == 642 + (10 + 7 + 4 + 1) * 1000


def test_python_functions_on_compile_time_values():
    scale = 2.5

    @ti.kernel
    def run() -> ti.f32:
        r = 0.0
        if ti.static(isinstance(scale, float)):
            r = scale
        return r + ti.static(type(scale) is float) * 10

    assert run() == 12.5


def test_static_range_of_a_runtime_bound_is_refused():
    @ti.kernel
    def bad(n: ti.i32) -> ti.i32:
        s = 0
        for i in ti.static(range(n)):
            s += i
        return s

    raises_at(TiSyntaxError, bad, "ti.static(range(n))", 3, under="n")


def test_len_of_a_scalar_and_of_a_field():
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def of_scalar(a: ti.f32) -> ti.i32:
        return len(a)

    @ti.kernel
    def of_field() -> ti.i32:
        return len(x)

    raises_at(TiTypeError, of_scalar, "len(a)", 1.0, match="single number")
    err = raises_at(TiTypeError, of_field, "len(x)", match="field")
    assert "x.shape[0]" in str(err)


def test_all_of_a_scalar_and_pow_with_a_runtime_modulus():
    @ti.kernel
    def all_scalar(a: ti.f32) -> ti.i32:
        return all(a > 0)

    @ti.kernel
    def pow_mod(a: ti.i32) -> ti.i32:
        return pow(a, 2, a)

    raises_at(TiTypeError, all_scalar, "all(a > 0)", 1.0, under="a > 0", match="single")
    raises_at(TiTypeError, pow_mod, "pow(a, 2, a)", 2, match="2 arguments")


def test_a_stepped_range_loop_is_refused_with_the_rewrite():
    @ti.kernel
    def stepped(n: ti.i32) -> ti.i32:
        s = 0
        for k in range(0, n, 2):
            s += k
        return s

    err = raises_at(TiSyntaxError, stepped, "range(0, n, 2)", 5, under="range(0, n, 2)")
    assert "start + k * step" in str(err)
