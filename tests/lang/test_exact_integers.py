"""Integers at the ends of their types round-trip exactly through every path that turns
Python values into typed ones and back: kernel arguments and returns (scalar, vector,
matrix, struct), field elements (scalar, vector, matrix, struct fields), Python-scope
``ti.Vector``/``ti.Matrix``/vector types, to_numpy/from_numpy, fill and ndarrays.
NumPy alone would make ``[2**63, 1]`` a float64 array, so the values here are the
ones that go wrong that way. Out of range: narrow types wrap as a store does, 64-bit
types refuse (TiOverflowError), kernel arguments always refuse.
"""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiOverflowError, TiValueError

pytestmark = pytest.mark.cpu

U64_EDGES = [2**63, 2**64 - 1, 1]
I64_EDGES = [-(2**63), 2**63 - 1, -1]
CASES = [(ti.u64, U64_EDGES), (ti.i64, I64_EDGES)]
IDS = ["u64", "i64"]


@pytest.fixture(autouse=True)
def _cpu():
    ti.init(arch=ti.cpu)


def _exact(values, expected) -> None:
    got = np.asarray(values).reshape(-1).tolist()
    assert got == list(expected) and all(type(v) is int for v in got)


@pytest.mark.parametrize("dt,edges", CASES, ids=IDS)
def test_python_scope_vectors_matrices_and_types(dt, edges):
    _exact(ti.Vector(edges, dt=dt), edges)
    _exact(ti.Matrix([edges[:2], edges[1:]], dt=dt), edges[:2] + edges[1:])
    _exact(ti.types.vector(3, dt)(*edges), edges)
    _exact(ti.types.vector(3, dt)(edges), edges)
    _exact(ti.types.matrix(1, 3, dt)([edges]), edges)
    v = ti.Vector(edges, dt=dt)
    assert [v[0], v[1], v[2]] == edges and v.tolist() == edges


@pytest.mark.parametrize("dt,edges", CASES, ids=IDS)
def test_kernel_vector_and_matrix_arguments_and_returns(dt, edges):
    vec3 = ti.types.vector(3, dt)
    mat = ti.types.matrix(3, 1, dt)

    @ti.kernel
    def echo(v: vec3) -> vec3:
        return v

    @ti.kernel
    def echo_matrix(m: mat) -> mat:
        return m

    @ti.kernel
    def middle(v: vec3) -> dt:
        return v[1]

    for given in (edges, tuple(edges), np.array(edges, dtype=dt.np_dtype), ti.Vector(edges, dt=dt)):
        _exact(echo(given), edges)
        assert middle(given) == edges[1]
    _exact(echo_matrix([[e] for e in edges]), edges)


@pytest.mark.parametrize("dt,edges", CASES, ids=IDS)
def test_kernel_scalar_and_tuple_returns(dt, edges):
    @ti.kernel
    def pair(a: dt, b: dt) -> tuple[dt, dt]:
        return a, b

    assert pair(edges[0], edges[1]) == (edges[0], edges[1])


def test_typed_literals_in_kernels():
    @ti.kernel
    def constants() -> ti.types.vector(4, ti.u64):
        return ti.Vector([ti.u64(18446744073709551615), ti.u64(2**63), ti.u64(0), ti.u64(1)])

    @ti.kernel
    def signed() -> ti.types.vector(2, ti.i64):
        return ti.Vector([ti.i64(-9223372036854775808), ti.i64(9223372036854775807)])

    _exact(constants(), [2**64 - 1, 2**63, 0, 1])
    _exact(signed(), [-(2**63), 2**63 - 1])


@pytest.mark.parametrize("dt,edges", CASES, ids=IDS)
def test_struct_arguments_returns_and_values(dt, edges):
    S = ti.types.struct(a=dt, v=ti.types.vector(2, dt))

    @ti.kernel
    def echo(s: S) -> S:
        return s

    value = S(a=edges[1], v=edges[:2])
    assert value.a == edges[1] and value.v.tolist() == edges[:2]
    for given in (value, {"a": edges[1], "v": edges[:2]}):
        out = echo(given)
        assert out.a == edges[1] and type(out.a) is int
        _exact(out.v, edges[:2])
    untyped = ti.Struct(v=edges[:2])
    _exact(untyped.v, edges[:2])


@pytest.mark.parametrize("dt,edges", CASES, ids=IDS)
def test_field_elements_get_set_fill_and_numpy(dt, edges):
    x = ti.field(dt, shape=3)
    for i, e in enumerate(edges):
        x[i] = e
    assert [x[i] for i in range(3)] == edges
    _exact(x.to_numpy(), edges)
    x.from_numpy([0, 0, 0])
    x.from_numpy(edges)  # a list: not rounded through float64 on the way
    _exact(x.to_numpy(), edges)
    x.fill(edges[0])
    _exact(x.to_numpy(), [edges[0]] * 3)

    v = ti.Vector.field(3, dt, shape=2)
    v[0] = edges
    _exact(v[0], edges)
    v[1] = ti.Vector(edges, dt=dt)
    _exact(v.to_numpy()[1], edges)
    v[1][2] = edges[0]
    v[1].y = edges[0]
    _exact(v[1], [edges[0], edges[0], edges[0]])
    v.fill(edges)
    _exact(v.to_numpy(), edges * 2)
    v.from_numpy([edges[::-1], edges])
    _exact(v.to_numpy(), edges[::-1] + edges)

    m = ti.Matrix.field(2, 2, dt, shape=1)
    m[0] = [[edges[0], edges[1]], [edges[2], edges[0]]]
    _exact(m[0], [edges[0], edges[1], edges[2], edges[0]])
    m.fill(edges[1])
    _exact(m.to_numpy(), [edges[1]] * 4)


@pytest.mark.parametrize("dt,edges", CASES, ids=IDS)
def test_struct_fields_and_ndarrays(dt, edges):
    S = ti.types.struct(a=dt, v=ti.types.vector(2, dt))
    s = S.field(shape=2)
    s[0] = {"a": edges[0], "v": edges[1:]}
    assert s[0].a == edges[0]
    _exact(s[0].v, edges[1:])
    s.v[1] = edges[:2]
    _exact(s.v[1], edges[:2])

    a = ti.ndarray(dt, shape=3)
    for i, e in enumerate(edges):
        a[i] = e
    assert [a[i] for i in range(3)] == edges
    a.from_numpy(np.array(edges, dtype=dt.np_dtype))
    _exact(a.to_numpy(), edges)
    a.from_numpy(edges[::-1])  # a list
    _exact(a.to_numpy(), edges[::-1])
    b = ti.Vector.ndarray(3, dt, shape=2)
    b[0] = np.array(edges, dtype=dt.np_dtype)
    b[1] = edges
    _exact(b.to_numpy(), edges * 2)
    b.fill(edges[0])
    _exact(b.to_numpy(), [edges[0]] * 6)
    value = ti.Vector([0, 0, 0], dt=dt)
    value[:] = edges
    value[0] = edges[1]
    _exact(value, [edges[1], *edges[1:]])


def test_vector_operations_keep_u64_exact():
    v = ti.Vector([2**63, 1], dt=ti.u64)
    _exact(v + [1, 2**63], [2**63 + 1, 2**63 + 1])
    _exact(v + 2**63 - 1, [2**64 - 1, 2**63])


def test_out_of_range_values():
    # 64-bit types refuse what they cannot hold (Taichi refuses it too)
    with pytest.raises(TiOverflowError, match="does not fit .*u64"):
        ti.Vector([2**64, 1], dt=ti.u64)
    with pytest.raises(TiOverflowError, match="-1 does not fit vector field 'neg' of type u64"):
        neg = ti.Vector.field(2, ti.u64, shape=1)
        neg[0] = [-1, 0]
    with pytest.raises(TiOverflowError, match="does not fit .*i64"):
        ti.field(ti.i64, shape=1)[0] = 2**63
    with pytest.raises(TiOverflowError):
        ti.field(ti.u64, shape=1).fill(-1)
    with pytest.raises(TiOverflowError, match="fit no 64-bit type"):
        ti.Struct(v=[-1, 2**64 - 1])
    with pytest.raises(TiOverflowError, match="give the type: dt=ti.u64"):
        ti.Vector([2**63, 1])  # untyped integers are int64
    # narrower types keep the value modulo 2**bits, as a store does (and Taichi)
    assert ti.Vector([256, -1, 300], dt=ti.u8).tolist() == [0, 255, 44]
    small = ti.Vector.field(2, ti.i8, shape=1)
    small[0] = [200, -129]
    assert small[0].tolist() == [-56, 127]
    # kernel arguments refuse any value outside the parameter's type
    vec2 = ti.types.vector(2, ti.u64)

    @ti.kernel
    def first(v: vec2) -> ti.u64:
        return v[0]

    with pytest.raises(TiOverflowError, match="argument 'v\\[0\\]' = -1"):
        first([-1, 0])
    with pytest.raises(TiOverflowError, match="argument 'v\\[1\\]' = 18446744073709551616"):
        first([0, 2**64])
    assert first([2**64 - 1, 0]) == 2**64 - 1


def test_typed_literal_out_of_range_is_an_error():
    @ti.kernel
    def k() -> ti.u8:
        return ti.u8(300)

    with pytest.raises(ti.errors.TiTypeError, match="the constant 300 does not fit in u8"):
        k()


def test_ragged_values_are_value_errors():
    with pytest.raises(TiValueError, match="different lengths"):
        ti.Matrix([[1, 2], [3]], dt=ti.u64)
