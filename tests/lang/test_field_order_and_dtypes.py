"""``order=``, ``layout=``, ``ndim=`` and vector/matrix/struct dtypes in field declarations:
each builds the tree Taichi's documentation says it stands for."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def _cpu():
    ti.init(arch=ti.cpu)


def _relative(field):
    plan = field.layout()
    return plan.addresses() - plan.offset


@pytest.mark.parametrize(
    "order, build",
    [
        ("ji", lambda x: ti.root.dense(ti.j, 5).dense(ti.i, 3).place(x)),
        ("ij", lambda x: ti.root.dense(ti.i, 3).dense(ti.j, 5).place(x)),
    ],
)
def test_2d_order_addresses_equal_the_hand_built_tree(order, build):
    x = ti.field(ti.f32, shape=(3, 5), order=order)
    y = ti.field(ti.f32)
    build(y)
    assert x.shape == y.shape == (3, 5)
    assert (_relative(x) == _relative(y)).all()
    data = np.arange(15, dtype=np.float32).reshape(3, 5)
    x.from_numpy(data)
    assert (x.to_numpy() == data).all() and x[1, 4] == 9.0


@pytest.mark.parametrize("order", ["kji", "ikj", "jki"])
def test_3d_orders(order):
    shape = (2, 3, 4)
    x = ti.field(ti.i32, shape=shape, order=order)
    y = ti.field(ti.i32)
    node = ti.root
    for axis in order:
        a = "ijk".index(axis)
        node = node.dense(ti.axes(a), shape[a])
    node.place(y)
    assert (_relative(x) == _relative(y)).all()

    @ti.kernel
    def fill():
        for i, j, k in x:
            x[i, j, k] = i * 100 + j * 10 + k

    fill()
    expected = np.fromfunction(lambda i, j, k: i * 100 + j * 10 + k, shape, dtype=np.int32)
    assert (x.to_numpy() == expected).all()


def test_vector_and_matrix_fields_take_order_and_layout():
    v = ti.Vector.field(2, ti.f32, shape=(3, 4), order="ji")
    w = ti.Vector.field(2, ti.f32)
    ti.root.dense(ti.j, 4).dense(ti.i, 3).place(w)
    assert all(
        (_relative(a) == _relative(b)).all()
        for a, b in zip(v.components, w.components, strict=True)
    )
    soa = ti.Matrix.field(2, 2, ti.f32, shape=8, layout=ti.Layout.SOA)
    parents = {id(c.snode.parent()) for c in soa.components}
    assert len(parents) == 4 and soa.components[0].layout().strides == (4,)
    aos = ti.Matrix.field(2, 2, ti.f32, shape=8, layout=ti.Layout.AOS)
    assert aos.components[0].layout().strides == (16,)
    s = ti.Struct.field({"a": ti.f32, "b": ti.math.vec2}, shape=4, layout=ti.Layout.SOA)
    assert s.a.layout().strides == (4,) and s.b.components[0].layout().strides == (8,)
    soa.from_numpy(np.arange(32, dtype=np.float32).reshape(8, 2, 2))
    assert soa[3].tolist() == [[12.0, 13.0], [14.0, 15.0]]


def test_vector_matrix_and_struct_dtypes_make_those_fields():
    v = ti.field(ti.math.vec3, shape=4)
    m = ti.field(ti.types.matrix(2, 2, ti.f32), shape=(2, 2), offset=(1, 1))
    particle = ti.types.struct(pos=ti.math.vec2, mass=ti.f32)
    p = ti.field(particle, shape=3)
    assert isinstance(v, ti.MatrixField) and v.n == 3 and v.m == 1 and v.shape == (4,)
    assert m.element_shape == (2, 2) and m.shape == (2, 2)
    assert isinstance(p, ti.StructField) and p.keys == ["pos", "mass"]

    @ti.kernel
    def run() -> ti.f32:
        v[1] = [1.0, 2.0, 3.0]
        m[2, 2] = ti.Matrix([[1.0, 2.0], [3.0, 4.0]])
        p[2].pos = [5.0, 6.0]
        p[2].mass = 7.0
        return v[1].norm_sqr() + m[2, 2].trace() + p[2].pos.y + p[2].mass

    assert run() == 14.0 + 5.0 + 6.0 + 7.0
    assert v.name == "v" and m.to_numpy()[1, 1].tolist() == [[1.0, 2.0], [3.0, 4.0]]
    g = ti.field(ti.math.vec2, shape=2, needs_grad=True)
    assert g.grad.shape == (2,)


def test_ndim_and_names():
    v = ti.Matrix.field(3, 1, ti.f32, shape=2, ndim=1)
    assert v.element_shape == (3,) and v.m == 1
    assert ti.Vector.field(3, ti.f32, shape=2, ndim=1).element_shape == (3,)
    assert ti.Matrix.field(2, 2, ti.f32, shape=2, ndim=2).element_shape == (2, 2)
    assert ti.field(ti.f32, shape=2, name="named").name == "named"
    with pytest.raises(ti.errors.TiValueError, match="a vector has one"):
        ti.Matrix.field(2, 2, ti.f32, shape=2, ndim=1)
    with pytest.raises(ti.errors.TiValueError, match="1-D"):
        ti.Vector.field(2, ti.f32, shape=2, ndim=2)


def test_bad_options_say_why():
    with pytest.raises(ti.errors.TiValueError, match="does not fit"):
        ti.field(ti.f32, shape=(2, 2), order="ik")
    with pytest.raises(ti.errors.TiValueError, match="does not fit"):
        ti.field(ti.f32, shape=(2, 2), order="jj")
    with pytest.raises(ti.errors.TiValueError, match="needs a shape"):
        ti.field(ti.f32, order="ji")
    with pytest.raises(ti.errors.TiTypeError, match="ti.Layout"):
        ti.Vector.field(2, ti.f32, shape=2, layout="soa")
    with pytest.raises(TypeError, match="unexpected keyword argument 'shpe'"):
        ti.field(ti.f32, shpe=3)
    x = ti.field(ti.f32, shape=(2, 2), offset=(0, 0), needs_grad=False, order=None)
    assert x.shape == (2, 2)
