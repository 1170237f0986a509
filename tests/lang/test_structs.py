"""Struct types, struct fields and struct values, in Python and in kernels.

Expected values are computed by hand or with NumPy; semantics follow Taichi 1.7
(taichi/lang/struct.py): members are copied by value (a local, a ti.func parameter),
a field element's member is a place (``s[i].mass += 1`` is atomic on it).
"""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiTypeError, TiValueError

pytestmark = pytest.mark.cpu

vec3 = ti.types.vector(3, ti.f32)
Particle = ti.types.struct(pos=vec3, mass=ti.f32)


# -- Python scope -------------------------------------------------------------------------------
def test_struct_type_members_and_values():
    assert repr(Particle) == "Particle(pos=vector(3, f32), mass=f32)"
    assert Particle.keys() == ["pos", "mass"]
    p = Particle(pos=[1, 2, 3], mass=2)
    assert p.keys == ["pos", "mass"]
    assert p.mass == 2.0 and isinstance(p.mass, float)
    np.testing.assert_array_equal(np.asarray(p.pos), [1, 2, 3])
    assert Particle().to_dict() == {"pos": [0.0, 0.0, 0.0], "mass": 0.0}
    assert Particle([1, 1, 1], 5).to_dict() == {"pos": [1.0, 1.0, 1.0], "mass": 5.0}
    p.mass = 7
    p["pos"] = 4  # a number fills a vector member
    assert p.to_dict() == {"pos": [4.0, 4.0, 4.0], "mass": 7.0}
    Counter = ti.types.struct(n=ti.i8)
    assert Counter(n=300).n == 44  # wraps as a store of i8 would


def test_anonymous_struct_values():
    value = ti.Struct(a=1, v=[1.5, 2.5], inner={"c": 3})
    assert value.keys == ["a", "v", "inner"]
    assert value.to_dict() == {"a": 1, "v": [1.5, 2.5], "inner": {"c": 3}}
    assert ti.Struct({"x": 2.0}).x == 2.0 and len(value) == 3


def test_struct_type_misuse_is_reported():
    with pytest.raises(TiTypeError, match="member 'mass' has type 'heavy'"):
        ti.types.struct(mass="heavy")
    with pytest.raises(TiTypeError, match="not a public identifier"):
        ti.types.struct(**{"_hidden": ti.f32})
    with pytest.raises(TiTypeError, match="has no member 'speed'") as info:
        Particle(speed=1)
    assert "its members are pos, mass" in str(info.value)
    with pytest.raises(TiTypeError, match="2 member\\(s\\) but 3 values"):
        Particle([0, 0, 0], 1, 2)
    with pytest.raises(TiTypeError, match="member 'mass' is a scalar"):
        Particle(mass=[1, 2])
    with pytest.raises(TiValueError, match="member 'pos' has shape \\(3,\\)"):
        Particle(pos=[1, 2])
    with pytest.raises(TiTypeError, match="ti.Struct takes a dict or keyword"):
        ti.Struct(1, 2)


def test_struct_field_members_elements_and_numpy():
    s = ti.Struct.field({"pos": vec3, "mass": ti.f32}, shape=4)
    assert s.shape == (4,) and s.ndim == 1 and s.keys == ["pos", "mass"]
    assert isinstance(s.mass, ti.Field) and isinstance(s.pos, ti.MatrixField)
    s[3].pos = [1, 2, 3]
    s[3].mass = 5
    s[1] = {"pos": [7, 8, 9], "mass": 2}
    s[2] = Particle(pos=[4, 4, 4], mass=1)
    assert s[3].mass == 5.0 and s[3]["mass"] == 5.0
    assert s[3].pos.tolist() == [1.0, 2.0, 3.0]
    s[3].pos[0] = 10  # the element's vector is live, as a vector field's
    assert s.pos[3].tolist() == [10.0, 2.0, 3.0]
    assert s[1].to_dict() == {"pos": [7.0, 8.0, 9.0], "mass": 2.0}
    arrays = s.to_numpy()
    np.testing.assert_array_equal(arrays["mass"], [0, 2, 1, 5])
    np.testing.assert_array_equal(arrays["pos"][1:], [[7, 8, 9], [4, 4, 4], [10, 2, 3]])
    s.from_numpy({"pos": np.ones((4, 3)), "mass": np.arange(4)})
    np.testing.assert_array_equal(s.mass.to_numpy(), [0, 1, 2, 3])
    s.fill(0)
    assert s.to_numpy()["pos"].sum() == 0 and s.mass.to_numpy().sum() == 0


def test_struct_field_is_aos_in_one_cell():
    s = Particle.field(shape=3)
    first = s.pos.components[0].layout()
    offsets = [c.layout().address((1,)) - first.offset for c in s.components]
    assert offsets == [16, 20, 24, 28]  # element 1: pos.x pos.y pos.z mass, 16 bytes each
    assert s.components[3] is s.mass


def test_struct_field_placed_by_hand_and_nested():
    Inner = ti.types.struct(a=ti.i32, b=ti.types.vector(2, ti.f64))
    Outer = ti.types.struct(inner=Inner, w=ti.f32)
    s = Outer.field()
    ti.root.dense(ti.ij, (2, 3)).place(s)
    s[1, 2].inner.a = 4
    s[1, 2].inner.b = [0.5, 1.5]
    s[0, 1] = {"inner": {"a": 1, "b": [2, 3]}, "w": 9}
    arrays = s.to_numpy()
    assert arrays["inner"]["a"].tolist() == [[0, 1, 0], [0, 0, 4]]
    assert arrays["inner"]["b"][1, 2].tolist() == [0.5, 1.5]
    assert arrays["w"][0, 1] == 9.0 and s.shape == (2, 3)


def test_struct_field_python_misuse():
    s = Particle.field(shape=2)
    with pytest.raises(AttributeError, match="has no member 'speed'"):
        s[0].speed = 1
    with pytest.raises(TiTypeError, match="member 'mass' is a scalar"):
        s[0].mass = [1, 2]
    with pytest.raises(TiTypeError, match="has no member 'speed'"):
        s[0] = {"speed": 1}
    with pytest.raises(TiValueError, match="missing \\['mass'\\]"):
        s.from_numpy({"pos": np.zeros((2, 3))})
    with pytest.raises(TiTypeError, match="takes a dict of arrays"):
        s.from_numpy(np.zeros(2))
    with pytest.raises(ti.errors.TiIndexError):
        s[5]
    with pytest.raises(TiTypeError, match="takes a dict of member types"):
        ti.Struct.field([("a", ti.f32)], shape=2)


# -- kernels ---------------------------------------------------------------------------------
def test_member_loads_stores_and_atomics_in_kernels():
    s = Particle.field(shape=8)

    @ti.kernel
    def init():
        for i in s:
            s[i].pos = [i, 2 * i, 3 * i]
            s[i].mass = i * 0.5
            s[i].pos.z += 1
            s[i].pos[0] *= 2

    @ti.kernel
    def pile(n: ti.i32):
        for k in range(n):  # many threads update one member of one element
            s[k % 2].mass += 1

    init()
    pos = s.pos.to_numpy()
    np.testing.assert_allclose(
        pos, np.stack([2 * np.arange(8), 2 * np.arange(8), 3 * np.arange(8) + 1], 1)
    )
    pile(1000)
    np.testing.assert_allclose(s.mass.to_numpy(), np.arange(8) * 0.5 + [500, 500, 0, 0, 0, 0, 0, 0])


def test_whole_struct_stores_locals_and_copies():
    s = Particle.field(shape=4)

    @ti.kernel
    def run() -> ti.f32:
        for i in s:
            s[i] = Particle(pos=[i, i, i], mass=i + 1)
        q = Particle()  # zero
        zero = q.mass + q.pos.sum()
        q.mass = 2
        q.pos.y = 3
        s[0] = q
        t = s[1]  # a copy: changing it leaves the field alone
        t.mass = 100
        s[3] = s[2]
        return zero + t.mass

    assert run() == 100.0
    arrays = s.to_numpy()
    np.testing.assert_allclose(arrays["mass"], [2, 2, 3, 3])
    np.testing.assert_allclose(arrays["pos"], [[0, 3, 0], [1, 1, 1], [2, 2, 2], [2, 2, 2]])


def test_struct_values_to_and_from_funcs():
    s = Particle.field(shape=3)

    @ti.func
    def heavier(p, extra: ti.f32):
        p.mass += extra  # the parameter is a copy
        return p

    @ti.func
    def at(i) -> Particle:
        return Particle(pos=[i, 0, 0], mass=i * i)

    @ti.func
    def typed(p: Particle) -> ti.f32:
        return p.mass + p.pos.x

    @ti.kernel
    def run() -> ti.f32:
        for i in s:
            s[i] = heavier(at(i), 10.0)
        q = at(2)
        r = heavier(q, 1.0)
        return q.mass * 100 + r.mass + typed(s[1])

    assert run() == 400 + 5 + 12
    np.testing.assert_allclose(s.mass.to_numpy(), [10, 11, 14])


def test_nested_structs_and_matrix_members_in_kernels():
    Inner = ti.types.struct(a=ti.i32, m=ti.types.matrix(2, 2, ti.f32))
    Outer = ti.types.struct(inner=Inner, w=ti.f32)
    s = Outer.field(shape=(2, 2))

    @ti.kernel
    def run() -> ti.f32:
        for i, j in s:
            s[i, j].inner.a = i * 10 + j
            s[i, j].inner.m = ti.Matrix([[1, 2], [3, 4]])
            s[i, j].inner.m[1, 0] += i
        q = Outer(inner=Inner(a=5), w=0.5)
        q.inner.m[0, 1] = 7
        return q.inner.a + q.inner.m[0, 1] + q.w + s[1, 1].inner.m[1, 0]

    assert run() == 5 + 7 + 0.5 + 4
    arrays = s.to_numpy()
    assert arrays["inner"]["a"].tolist() == [[0, 1], [10, 11]]
    np.testing.assert_allclose(arrays["inner"]["m"][1, 0], [[1, 2], [4, 4]])


def test_struct_for_and_grouped_over_a_struct_field():
    s = Particle.field(shape=(3, 4))

    @ti.kernel
    def run():
        for i, j in s:
            s[i, j].mass = i * 4 + j
        for I in ti.grouped(s):  # noqa: E741 - Taichi's name
            s[I].pos.x = s[I].mass * 2

    run()
    expected = np.arange(12).reshape(3, 4)
    np.testing.assert_allclose(s.mass.to_numpy(), expected)
    np.testing.assert_allclose(s.pos.to_numpy()[..., 0], expected * 2)


def test_anonymous_struct_in_a_kernel():
    @ti.kernel
    def run() -> ti.f32:
        u = ti.Struct(n=3, v=ti.Vector([1.0, 2.0]))
        u.n += 1
        return u.n * u.v[1]

    assert run() == 8.0


def _kernel_error(kernel, *args):
    with pytest.raises(ti.errors.TiError) as info:
        kernel(*args)
    return info.value


def test_kernel_misuse_names_the_line_and_members():
    s = Particle.field(shape=2)

    @ti.kernel
    def unknown_read() -> ti.f32:
        return s[0].speed

    @ti.kernel
    def unknown_write():
        s[0].speed = 1

    @ti.kernel
    def unknown_construct():
        s[0] = Particle(speed=1)

    @ti.kernel
    def wrong_type():
        s[0] = Particle(mass=ti.Vector([1.0, 2.0]))

    @ti.kernel
    def wrong_shape():
        s[0] = Particle(pos=ti.Vector([1.0, 2.0]))

    @ti.kernel
    def scalar_into_struct():
        s[0] = 1

    @ti.kernel
    def atomic_struct():
        s[0] += s[1]

    @ti.kernel
    def index_struct() -> ti.f32:
        q = Particle()
        return q[0]

    error = _kernel_error(unknown_read)
    assert isinstance(error, TiTypeError) and "struct Particle has no member 'speed'" in str(error)
    assert "its members are pos, mass" in str(error) and "return s[0].speed" in str(error)
    assert "has no member 'speed'" in str(_kernel_error(unknown_write))
    assert "has no member 'speed'" in str(_kernel_error(unknown_construct))
    assert "member 'mass' is a scalar (f32), got a vector" in str(_kernel_error(wrong_type))
    assert "has shape (3,), got a value of shape (2,)" in str(_kernel_error(wrong_shape))
    assert "cannot assign a number to struct Particle" in str(_kernel_error(scalar_into_struct))
    assert "update a member: s[i].mass += 1" in str(_kernel_error(atomic_struct))
    assert "'q' is a struct and cannot be indexed" in str(_kernel_error(index_struct))


def test_struct_field_methods_in_a_kernel():
    s = Particle.field(shape=2)

    @ti.kernel
    def fill_in_kernel():
        s.fill(1)

    @ti.kernel
    def member_field() -> ti.f32:
        mass = s.get_member_field("mass")
        mass[1] = 4
        return s.mass[1]

    with pytest.raises(ti.errors.TiSyntaxError, match="can only be called from Python scope"):
        fill_in_kernel()
    assert member_field() == 4.0


def test_a_python_struct_value_read_by_a_kernel_is_a_constant_in_the_cache_key(tmp_path):
    ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path))
    settings = {"value": Particle(pos=[1, 2, 3], mass=2)}

    def make():
        config = settings["value"]

        @ti.kernel
        def read() -> ti.f32:
            return config.mass * 10 + 3  # (its vector member: a NumPy array on this branch)

        return read

    first = make()
    assert first() == 23.0 and first.report["cache"] == "miss"
    again = make()
    assert again() == 23.0 and again.report["cache"] == "hit"
    settings["value"] = Particle(pos=[1, 2, 3], mass=5)
    changed = make()
    assert changed() == 53.0 and changed.report["cache"] == "miss"


def test_a_func_returns_a_field_element_as_it_is_when_it_returns():
    s = Particle.field(shape=2)

    @ti.func
    def take(i):
        return s[i], i + 1

    @ti.kernel
    def run() -> ti.f32:
        s[0].mass = 1
        taken = take(0)  # a tuple: a compile-time pair of values
        s[0].mass = 50  # after the func returned: the pair keeps the value it had
        return taken[0].mass * 10 + taken[1]

    assert run() == 11.0


def test_a_struct_field_in_a_sparse_layout():
    Cell = ti.types.struct(v=ti.types.vector(2, ti.f32), m=ti.i32)
    s = Cell.field()
    ti.root.pointer(ti.i, 4).dense(ti.i, 4).place(s)

    @ti.kernel
    def activate():
        for i in range(3, 9):
            s[i].m = i

    @ti.kernel
    def visit() -> ti.i32:
        count = 0
        for i in s:  # the active blocks' cells: blocks 0, 1 and 2
            count += 1
            s[i].v.x = s[i].m * 2
        return count

    activate()
    assert visit() == 12
    expected = [0, 0, 0, 3, 4, 5, 6, 7, 8] + [0] * 7
    assert s.to_numpy()["m"].tolist() == expected
    assert s.v.to_numpy()[:, 0].tolist() == [2.0 * m for m in expected]
