"""ti.field: shapes 0-D..4-D, Python-scope indexing, fill, to_numpy/from_numpy, shape/dtype.

Every expectation here was checked against real Taichi 1.7.4 (``import taichi as ti``),
except the ones guarded by ``if not _is_taichi()``, where ti_notebook is stricter.
"""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _is_taichi() -> bool:
    """True when ``ti_notebook`` is the test shim that re-exports real Taichi."""
    return ti.kernel.__module__.split(".")[0] == "taichi"


def test_0d_field():
    x = ti.field(ti.f32, shape=())
    assert x.shape == ()
    assert x[None] == 0.0

    @ti.kernel
    def set_value(v: ti.f32):
        x[None] = v * 2

    @ti.kernel
    def get_value() -> ti.f32:
        return x[None]

    for v in [1.25, -3.5, 0.0, 1e10]:
        set_value(v)
        assert x[None] == float(np.float32(v * 2))
        assert get_value() == x[None]
        x[None] = v
        assert get_value() == float(np.float32(v))
    arr = x.to_numpy()
    assert arr.shape == ()
    assert arr.dtype == np.float32
    assert arr == np.float32(1e10)


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4), (2, 3, 2, 3)])
def test_nd_field_kernel_and_python_access(shape):
    x = ti.field(ti.i32, shape=shape)
    assert x.shape == shape
    assert x.dtype == ti.i32
    ndim = len(shape)

    @ti.kernel
    def fill_index():
        for I in ti.grouped(x):  # noqa: E741
            v = 0
            for k in ti.static(range(ndim)):
                v = v * 10 + I[k]
            x[I] = v - 500

    fill_index()
    expect = np.zeros(shape, dtype=np.int32)
    for idx in np.ndindex(*shape):
        v = 0
        for k in idx:
            v = v * 10 + k
        expect[idx] = v - 500
    arr = x.to_numpy()
    assert arr.dtype == np.int32
    assert arr.shape == shape
    np.testing.assert_array_equal(arr, expect)

    # Python-scope __getitem__ / __setitem__
    for idx in [tuple(0 for _ in shape), tuple(s - 1 for s in shape)]:
        key = idx[0] if ndim == 1 else idx
        assert x[key] == expect[idx]
        x[key] = -7
        assert x[key] == -7
        expect[idx] = -7
    np.testing.assert_array_equal(x.to_numpy(), expect)


def test_1d_index_with_int_and_tuple():
    x = ti.field(ti.i32, shape=4)
    x[2] = 5
    assert x[2] == 5
    assert x[(2,)] == 5
    assert isinstance(x[2], int)
    y = ti.field(ti.f64, shape=4)
    y[1] = 0.1
    assert isinstance(y[1], float)
    assert y[1] == 0.1


def test_fill():
    f = ti.field(ti.f32, shape=(3, 4))
    i = ti.field(ti.i32, shape=5)
    u = ti.field(ti.u8, shape=3)
    for v in [1.5, -2.25, 0.0]:
        f.fill(v)
        np.testing.assert_array_equal(f.to_numpy(), np.full((3, 4), v, dtype=np.float32))
    f.fill(2)  # int fill value into a float field
    np.testing.assert_array_equal(f.to_numpy(), np.full((3, 4), 2.0, dtype=np.float32))
    for v in [-3, 0, 2**31 - 1]:
        i.fill(v)
        np.testing.assert_array_equal(i.to_numpy(), np.full(5, v, dtype=np.int32))
    u.fill(255)
    assert u.to_numpy().tolist() == [255, 255, 255]
    z = ti.field(ti.i32, shape=())
    z.fill(9)
    assert z[None] == 9


@pytest.mark.parametrize(
    "dt,np_dtype",
    [("i32", np.int32), ("f32", np.float32), ("f64", np.float64), ("u8", np.uint8)],
)
def test_from_numpy_to_numpy_round_trip(dt, np_dtype):
    rng = np.random.default_rng(0)
    shape = (4, 6)
    if np.issubdtype(np_dtype, np.integer):
        info = np.iinfo(np_dtype)
        src = rng.integers(info.min, info.max, size=shape, endpoint=True).astype(np_dtype)
    else:
        src = (rng.standard_normal(shape) * 100).astype(np_dtype)
    x = ti.field(getattr(ti, dt), shape=shape)
    x.from_numpy(src)
    out = x.to_numpy()
    assert out.dtype == np_dtype
    np.testing.assert_array_equal(out, src)
    # to_numpy returns a copy
    out[0, 0] = 0
    assert x[0, 0] == src[0, 0]

    # the kernel sees what from_numpy wrote
    total = ti.field(ti.f64, shape=())

    @ti.kernel
    def sum_all():
        for i, j in x:
            total[None] += ti.cast(x[i, j], ti.f64)

    sum_all()
    assert total[None] == pytest.approx(float(src.astype(np.float64).sum()), rel=1e-12)


def test_from_numpy_converts_dtype():
    x = ti.field(ti.i32, shape=5)
    x.from_numpy(np.array([0.0, 1.9, -1.9, 3.0, 4.5], dtype=np.float64))
    assert x.to_numpy().tolist() == [0, 1, -1, 3, 4]
    assert x.to_numpy().dtype == np.int32
    f = ti.field(ti.f32, shape=3)
    f.from_numpy(np.array([1, -2, 3], dtype=np.int64))
    assert f.to_numpy().tolist() == [1.0, -2.0, 3.0]


def test_from_numpy_0d():
    x = ti.field(ti.f64, shape=())
    x.from_numpy(np.array(2.5))
    assert x[None] == 2.5


def test_from_numpy_wrong_shape():
    x = ti.field(ti.i32, shape=5)
    x.fill(3)
    for bad_shape in [(4,), (6,), (5, 1), (1, 5), ()]:
        # Taichi 1.7.4 raises ValueError too
        with pytest.raises(ValueError):
            x.from_numpy(np.zeros(bad_shape, dtype=np.int32))
        assert x.to_numpy().tolist() == [3] * 5  # unchanged


def test_from_numpy_wrong_shape_2d():
    x = ti.field(ti.f32, shape=(3, 4))
    with pytest.raises(ValueError):
        x.from_numpy(np.zeros((4, 3), dtype=np.float32))
    with pytest.raises(ValueError):
        x.from_numpy(np.zeros(12, dtype=np.float32))


def test_out_of_range_python_index():
    x = ti.field(ti.i32, shape=4)
    y = ti.field(ti.f32, shape=(2, 3))
    x[3] = 1
    y[1, 2] = 1.0
    assert x[3] == 1
    assert y[1, 2] == 1.0
    if _is_taichi():
        # ti_notebook stricter than Taichi: Taichi 1.7.4 does not check Python-scope
        # indices (reads return garbage, a negative write can segfault), so do not try.
        return
    for bad in [4, 5, -1, 100]:
        with pytest.raises(IndexError):
            x[bad]
        with pytest.raises(IndexError):
            x[bad] = 0
    for bad in [(2, 0), (0, 3), (-1, 0), (0, -1)]:
        with pytest.raises(IndexError):
            y[bad]
        with pytest.raises(IndexError):
            y[bad] = 1.0
    z = ti.field(ti.i32, shape=())
    z[None] = 2
    assert z[None] == 2


def test_many_fields_independent():
    fields = [ti.field(ti.i32, shape=3) for _ in range(4)]

    @ti.kernel
    def write(f: ti.template(), v: ti.i32):
        for i in f:
            f[i] = v + i

    for k, f in enumerate(fields):
        write(f, k * 10)
    for k, f in enumerate(fields):
        assert f.to_numpy().tolist() == [k * 10, k * 10 + 1, k * 10 + 2]
