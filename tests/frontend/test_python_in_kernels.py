"""Python that Taichi accepts in kernels: comprehensions, ``*args``/``**kwargs``,
builtins (pow, abs, min/max, int/float/bool, len, all/any, sum, zip/enumerate), and
the errors of their misuse (line, caret, hint).

Values are computed by hand or with NumPy; Taichi 1.7's behaviour is the reference
where it has one (comprehensions unrolled at compile time, ``*`` of a matrix row by
row, ``len(m)`` its rows).
"""

import numpy as np
import pytest
from error_points import raises_at

import ti_notebook as ti
from ti_notebook.errors import TiSyntaxError, TiTypeError

pytestmark = pytest.mark.cpu


# -- comprehensions ---------------------------------------------------------------------
def test_list_comprehension_over_static_and_plain_ranges():
    x = ti.field(ti.f32, shape=5)
    x.from_numpy(np.array([1.5, 2.0, -3.0, 4.0, 8.0], np.float32))

    @ti.kernel
    def build() -> ti.f32:
        a = ti.Vector([x[i] * 2 for i in ti.static(range(3))])
        b = ti.Vector([x[i] for i in range(1, 5) if i % 2 == 0])  # x[2], x[4]
        return a[0] * 100 + a[1] * 10 + a[2] + b[0] * 1000 + b[1] * 10000

    assert build() == pytest.approx(3.0 * 100 + 4.0 * 10 - 6.0 - 3000.0 + 80000.0)


def test_nested_comprehension_builds_a_matrix():
    out = ti.Matrix.field(3, 3, ti.f32, shape=())

    @ti.kernel
    def outer(a: ti.f32):
        out[None] = ti.Matrix([[a * r + c for c in range(3)] for r in range(3)])

    outer(2.0)
    expected = 2.0 * np.arange(3)[:, None] + np.arange(3)[None, :]
    np.testing.assert_allclose(out.to_numpy(), expected)


def test_comprehension_with_two_for_clauses_and_unpacking():
    @ti.kernel
    def pairs() -> ti.i32:
        flat = [i * 10 + j for i in range(3) for j in range(i)]  # 10, 20, 21
        tagged = [k * v for k, v in ((1, 5), (2, 7))]  # 5, 14
        return sum(flat) * 100 + sum(tagged)

    assert pairs() == (10 + 20 + 21) * 100 + 5 + 14


def test_comprehension_over_a_kernel_vector_and_matrix_rows():
    @ti.kernel
    def squares(a: ti.f32) -> ti.f32:
        v = ti.Vector([a, 2 * a, 3 * a])
        w = ti.Vector([c * c for c in v])
        m = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
        row_sums = [row.sum() for row in m]  # Taichi iterates a matrix by rows
        return w.sum() + row_sums[0] * 100 + row_sums[1] * 1000

    assert squares(2.0) == pytest.approx(4 + 16 + 36 + 300 + 7000)


def test_comprehension_of_random_values_draws_each_one():
    """mpm3d's ti.Vector([ti.random() for i in range(dim)]): three draws, not one."""
    out = ti.Vector.field(3, ti.f32, shape=64)

    @ti.kernel
    def fill():
        for i in out:
            out[i] = ti.Vector([ti.random() for _ in range(3)])

    fill()
    values = out.to_numpy()
    assert ((values >= 0) & (values < 1)).all()
    assert not np.allclose(values[:, 0], values[:, 1])


def test_comprehension_variables_do_not_leak_and_shadow_nothing():
    @ti.kernel
    def scoped() -> ti.i32:
        i = 100
        total = sum([i for i in range(4)])
        return total + i

    assert scoped() == 6 + 100


def test_generator_and_dict_comprehensions():
    @ti.func
    def weighted(a, b, scale):
        return (a + 2 * b) * scale

    @ti.kernel
    def use(p: ti.i32) -> ti.i32:
        total = sum(p * k for k in range(4))
        kw = {name: k + 1 for k, name in enumerate(("a", "b"))}
        return total * 100 + weighted(**kw, scale=p)

    assert use(3) == 3 * 6 * 100 + (1 + 4) * 3


def test_comprehension_in_a_ti_func():
    @ti.func
    def norms(m):
        return ti.Vector([m[r, 0] * m[r, 0] + m[r, 1] * m[r, 1] for r in ti.static(range(2))])

    @ti.kernel
    def run() -> ti.f32:
        v = norms(ti.Matrix([[1.0, 2.0], [3.0, 4.0]]))
        return v[0] * 100 + v[1]

    assert run() == pytest.approx(5 * 100 + 25)


# -- *args and **kwargs -------------------------------------------------------------------
def test_ndrange_of_an_unpacked_shape():
    shape = (3, 4)
    grid = ti.field(ti.i32, shape=shape)

    @ti.kernel
    def fill() -> ti.i32:
        n = 0
        for i, j in ti.ndrange(*shape):
            grid[i, j] = i * 10 + j
            n += 1
        for I in ti.grouped(ti.ndrange(*[(1, 2)] * 2)):  # noqa: E741
            n += I[0] * 100 + I[1] * 1000
        return n

    assert fill() == 12 + 100 + 1000
    np.testing.assert_array_equal(grid.to_numpy(), np.add.outer(np.arange(3) * 10, np.arange(4)))


def test_static_loop_over_ndrange_of_an_unpacked_list():
    """mpm3d: for offset in ti.static(ti.grouped(ti.ndrange(*neighbour)))."""
    neighbour = (3,) * 2

    @ti.kernel
    def count() -> ti.i32:
        s = 0
        for offset in ti.static(ti.grouped(ti.ndrange(*neighbour))):
            s += offset[0] * 10 + offset[1]
        return s

    assert count() == sum(i * 10 + j for i in range(3) for j in range(3))


def test_func_called_with_unpacked_tuple_vector_matrix_and_dict():
    @ti.func
    def combine(a, b, c, d=0, scale=1):
        return (a * 1000 + b * 100 + c * 10 + d) * scale

    t = (1, 2)
    options = {"scale": 2}

    @ti.kernel
    def run() -> ti.i32:
        v = ti.Vector([3, 4, 5])
        m = ti.Matrix([[1, 2], [3, 4]])
        return combine(*t, 3) + combine(*v) + combine(*m, **options)

    assert run() == 1230 + 3450 + 1234 * 2


def test_unpacking_into_displays_and_builtins():
    @ti.kernel
    def run(a: ti.i32) -> ti.i32:
        v = ti.Vector([a, a + 1])
        w = ti.Vector([*v, 7, *(8, 9)])
        return len(w) * 1000 + max(*w) * 10 + min(*v, 100)

    assert run(5) == 5 * 1000 + 9 * 10 + 5


# -- builtins ----------------------------------------------------------------------------
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


# -- misuse ------------------------------------------------------------------------------
def test_comprehension_over_a_runtime_range_names_the_bound():
    @ti.kernel
    def bad(n: ti.i32) -> ti.i32:
        return sum([i for i in range(n)])

    err = raises_at(TiSyntaxError, bad, "for i in range(n)", 3, under="n")
    assert "compile time" in str(err) and "ti.template()" in str(err)


def test_static_range_of_a_runtime_bound_is_refused():
    @ti.kernel
    def bad(n: ti.i32) -> ti.i32:
        s = 0
        for i in ti.static(range(n)):
            s += i
        return s

    raises_at(TiSyntaxError, bad, "ti.static(range(n))", 3, under="n")


def test_comprehension_over_a_field_or_a_scalar_is_refused():
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def over_field() -> ti.f32:
        return sum([v for v in x])

    @ti.kernel
    def over_scalar(a: ti.f32) -> ti.f32:
        return sum([v for v in a])

    raises_at(TiSyntaxError, over_field, "for v in x", under="x", match="field")
    raises_at(TiTypeError, over_scalar, "for v in a", 1.0, under="a", match="single kernel")


def test_comprehension_filter_on_a_kernel_value_is_refused():
    @ti.kernel
    def bad(a: ti.i32) -> ti.i32:
        return sum([k for k in range(4) if k < a])

    raises_at(TiSyntaxError, bad, "if k < a", 2, under="k < a", match="'if'")


def test_unpacking_a_scalar_or_a_non_dict_is_refused():
    @ti.func
    def two(a, b):
        return a + b

    @ti.kernel
    def star_scalar(a: ti.i32) -> ti.i32:
        return two(*a)

    @ti.kernel
    def star_star_tuple() -> ti.i32:
        return two(1, **(2,))

    raises_at(TiTypeError, star_scalar, "two(*a)", 1, under="*a", match="single number")
    raises_at(TiTypeError, star_star_tuple, "**(2,)", under="(2,)", match="dict")


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
