"""Vector, matrix and struct kernel arguments; vector, matrix, struct and tuple returns.

As Taichi 1.7 (taichi/lang/kernel_impl.py): ``MatrixType`` and ``StructType``
annotations take one value each, a return annotation may be a tuple of types (a 1-tuple
returns its value), vectors come back as ``ti.Vector`` makes them (a NumPy array on this
branch) and structs as struct values. ti_notebook also accepts a dict or a struct
field's element for a struct argument (Taichi wants a struct value).

Annotations here are evaluated when each kernel is defined (no ``from __future__ import
annotations``): a kernel in a function annotated with a class local to that function
could not be resolved from a string, in Taichi either.
"""

import typing

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiOverflowError, TiTypeError, TiValueError

pytestmark = pytest.mark.cpu

vec3 = ti.types.vector(3, ti.f32)
ivec2 = ti.types.vector(2, ti.i32)
mat23 = ti.types.matrix(2, 3, ti.f64)
Inner = ti.types.struct(m=ti.types.matrix(2, 2, ti.f32), k=ti.u8)
Body = ti.types.struct(pos=vec3, mass=ti.f32, inner=Inner)


def test_vector_and_matrix_arguments_and_returns():
    @ti.kernel
    def affine(m: mat23, v: vec3, shift: ti.f64) -> ti.types.vector(2, ti.f64):
        return m @ v + shift

    @ti.kernel
    def transpose(m: mat23) -> ti.types.matrix(3, 2, ti.f64):
        return m.transpose()

    m = np.arange(6, dtype=np.float64).reshape(2, 3) - 2.5
    v = np.array([0.5, -1.0, 2.0], np.float32)
    result = affine(m, v, 0.25)
    np.testing.assert_allclose(np.asarray(result), m @ v + 0.25)
    assert np.asarray(result).shape == (2,)
    np.testing.assert_array_equal(np.asarray(transpose(m.tolist())), m.T)
    assert len(affine.parameters) == 3 and affine.parameters[0].kind == "compound"


def test_python_values_a_vector_argument_accepts():
    field = ti.Vector.field(2, ti.i32, shape=2)
    field[1] = [7, -8]

    @ti.kernel
    def dot(a: ivec2, b: ivec2) -> ti.i32:
        return a.dot(b)

    assert dot([1, 2], (3, 4)) == 11
    assert dot(np.array([1, 2]), ti.Vector([5, 6])) == 17
    assert dot(field[1], [1, 1]) == -1  # a vector field's element


def test_struct_arguments_and_returns():
    @ti.kernel
    def heavier(b: Body, extra: ti.f32) -> Body:
        out = b
        out.mass += extra
        out.inner.m = out.inner.m @ out.inner.m
        out.inner.k += 1
        return out

    value = Body(pos=[1, 2, 3], mass=1.5, inner=Inner(m=[[1, 2], [3, 4]], k=255))
    result = heavier(value, 2.0)
    assert result.keys == ["pos", "mass", "inner"]
    assert result.mass == 3.5 and np.asarray(result.pos).tolist() == [1, 2, 3]
    np.testing.assert_array_equal(np.asarray(result.inner.m), [[7, 10], [15, 22]])
    assert result.inner.k == 0  # u8 wraps
    bodies = Body.field(shape=2)
    bodies[1] = value
    assert heavier(bodies[1], 1.0).mass == 2.5  # a field's element
    as_dict = {"pos": [0, 0, 0], "mass": 1, "inner": {"m": np.eye(2), "k": 3}}
    assert heavier(as_dict, 0.0).inner.k == 4


def test_tuple_returns():
    @ti.kernel
    def split(x: ti.f32) -> tuple[ti.i32, ti.f32, vec3]:
        return ti.floor(x), x - ti.floor(x), ti.Vector([x, 2 * x, 3 * x])

    @ti.kernel
    def pair() -> (ti.i64, Inner):
        return ti.cast(1, ti.i64) << 40, Inner(k=9)

    @ti.kernel
    def typing_pair() -> typing.Tuple[ti.u8, ti.i8]:  # noqa: UP006 - the typing spelling
        return 300, -1

    @ti.kernel
    def single() -> (ti.f32,):
        return 1.25  # a 1-tuple annotation returns the value itself, as in Taichi

    whole, frac, v = split(2.75)
    assert (whole, frac) == (2, 0.75) and np.asarray(v).tolist() == [2.75, 5.5, 8.25]
    big, inner = pair()
    assert big == 2**40 and inner.k == 9 and np.asarray(inner.m).sum() == 0
    assert typing_pair() == (44, -1)
    assert single() == 1.25


def test_compound_arguments_beside_templates_and_ndarrays():
    out = ti.field(ti.f32, shape=3)

    @ti.kernel
    def scatter(target: ti.template(), a: ti.types.ndarray(), v: vec3, k: ti.i32) -> vec3:
        for i in ti.static(range(3)):
            target[i] = a[i] * v[i] + k
        return v * k

    result = scatter(out, np.array([1.0, 2.0, 3.0], np.float32), [1, 10, 100], 5)
    np.testing.assert_allclose(out.to_numpy(), [6, 25, 305])
    np.testing.assert_allclose(np.asarray(result), [5, 50, 500])


def test_stages_without_arguments_use_zero_compounds():
    @ti.kernel
    def norm(v: vec3) -> ti.f32:
        return v.norm()

    ir_text = norm.stages()["ir"]  # compiled for a zero vec3: one argument per component
    assert [f"arg {k}" in ir_text for k in range(4)] == [True, True, True, False]
    assert norm([3, 4, 0]) == 5.0


def test_offline_cache_keys_on_compound_types_and_struct_methods(tmp_path):
    ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path))

    def make(scale):
        @ti.dataclass
        class Scaled:
            v: ti.types.vector(2, float)

            @ti.func
            def total(self):
                return (self.v.x + self.v.y) * scale

        @ti.kernel
        def run(s: Scaled) -> float:
            return s.total()

        return Scaled, run

    Scaled, run = make(2)
    assert run(Scaled(v=[1, 2])) == 6 and run.report["cache"] == "miss"
    Scaled, run = make(2)
    assert run(Scaled(v=[1, 2])) == 6 and run.report["cache"] == "hit"
    Scaled, run = make(3)  # a value the method reads changed
    assert run(Scaled(v=[1, 2])) == 9 and run.report["cache"] == "miss"
    ti.init(
        arch=ti.cpu,
        default_fp=ti.f64,
        offline_cache=True,
        offline_cache_file_path=str(tmp_path),
    )
    Scaled, run = make(2)  # float members are f64 now: other code
    assert run(Scaled(v=[0.1, 0.2])) == pytest.approx(0.6, abs=1e-12)
    assert run.report["cache"] == "miss"


# -- misuse ------------------------------------------------------------------------------------
def test_wrong_arguments_name_the_argument():
    @ti.kernel
    def take(v: ivec2, b: Body) -> ti.i32:
        return v.x

    body = Body()
    with pytest.raises(TiValueError, match="argument 'v' must have shape \\(2,\\), got \\(3,\\)"):
        take([1, 2, 3], body)
    with pytest.raises(TiTypeError, match="argument 'v' must be a vector\\(2, i32\\)"):
        take("ab", body)
    with pytest.raises(TiTypeError, match="argument 'v\\[0\\]' must be an integer"):
        take([1.5, 2], body)
    with pytest.raises(TiOverflowError, match="argument 'v\\[1\\]' = 4294967296"):
        take([1, 2**32], body)
    with pytest.raises(TiTypeError, match="argument 'b' must be a value of struct Body"):
        take([1, 2], 3.0)
    with pytest.raises(TiTypeError, match="argument 'b' must have the members"):
        take([1, 2], {"pos": [0, 0, 0]})
    with pytest.raises(TiTypeError, match="got StructField"):
        take([1, 2], Body.field(shape=2))  # a field is not a struct value
    with pytest.raises(TiValueError, match="argument 'b.inner.m' must have shape"):
        take([1, 2], {"pos": [0, 0, 0], "mass": 1, "inner": {"m": [1, 2], "k": 0}})
    with pytest.raises(TiTypeError, match="takes 2 argument"):
        take([1, 2])


def test_unsupported_annotations_are_refused():
    @ti.kernel
    def struct_class(b: ti.Struct):
        pass

    @ti.kernel
    def bad_return() -> "not a type":  # noqa: F722 - the point of the test
        return 1

    @ti.kernel
    def ellipsis() -> tuple[ti.i32, ...]:
        return 1

    with pytest.raises(TiTypeError, match="parameter 'b' has an unsupported annotation") as info:
        struct_class(None)
    assert "a struct type" in str(info.value)
    with pytest.raises(TiTypeError, match="unsupported return annotation"):
        bad_return()
    with pytest.raises(TiTypeError, match="cannot be tuple\\[\\.\\.\\., \\.\\.\\.\\]"):
        ellipsis()


def test_wrong_return_values_name_the_line():
    @ti.kernel
    def vector_from_scalar_kernel() -> ti.f32:
        return ti.Vector([1.0, 2.0])

    @ti.kernel
    def too_few() -> tuple[ti.i32, ti.i32, ti.i32]:
        return 1, 2

    @ti.kernel
    def wrong_shape() -> vec3:
        return ti.Vector([1.0, 2.0])

    @ti.kernel
    def scalar_for_struct() -> Body:
        return 1.0

    with pytest.raises(TiTypeError, match="returns one scalar \\(f32\\)") as info:
        vector_from_scalar_kernel()
    assert "-> ti.types.vector(3, ti.f32)" in str(info.value)
    with pytest.raises(TiTypeError, match="returns 3 values \\(i32, i32, i32\\), got 2") as info:
        too_few()
    assert "return 1, 2" in str(info.value)
    with pytest.raises(TiTypeError, match="has shape \\(3,\\), got a value of shape \\(2,\\)"):
        wrong_shape()
    with pytest.raises(TiTypeError, match="must be a struct Body, got a number"):
        scalar_for_struct()
