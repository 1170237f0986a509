"""Fields declared with ``offset=`` are indexed from it, everywhere: kernels, struct-fors,
Python scope, to/from_numpy, sparse layouts, gradients and bounds-check messages."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def _cpu():
    ti.init(arch=ti.cpu)


def test_kernel_reads_writes_and_struct_for_indices():
    x = ti.field(ti.i32, shape=(4, 3), offset=(-2, 5))
    seen = ti.field(ti.i32, shape=(4, 3))

    @ti.kernel
    def fill():
        for i, j in x:
            x[i, j] = i * 100 + j
            seen[i + 2, j - 5] += 1

    @ti.kernel
    def read(i: ti.i32, j: ti.i32) -> ti.i32:
        return x[i, j]

    fill()
    expected = np.array([[i * 100 + j for j in range(5, 8)] for i in range(-2, 2)])
    assert (x.to_numpy() == expected).all()
    assert (seen.to_numpy() == 1).all()  # every cell once, no other
    assert x.shape == (4, 3) and x[-2, 5] == -195 and read(1, 7) == 107
    x[0, 6] = 42
    assert x.to_numpy()[2, 1] == 42 and read(0, 6) == 42


def test_from_numpy_maps_element_zero_to_the_offset():
    x = ti.field(ti.f32, shape=5, offset=-3)
    x.from_numpy(np.arange(5, dtype=np.float32))
    assert [x[i] for i in range(-3, 2)] == [0.0, 1.0, 2.0, 3.0, 4.0]
    x.fill(2.0)
    assert x.to_numpy().tolist() == [2.0] * 5


def test_python_scope_refuses_indices_outside_the_offset_range():
    x = ti.field(ti.f32, shape=(4, 4), offset=(-2, -2))
    with pytest.raises(ti.errors.TiIndexError, match=r"indexed from \(-2, -2\)"):
        x[2, 0]
    with pytest.raises(ti.errors.TiIndexError):
        x[-3, 0] = 1.0


def test_bounds_check_reports_the_offset_range():
    ti.init(arch=ti.cpu, debug=True)
    x = ti.field(ti.f32, shape=(4, 4), offset=(-2, -2))

    @ti.kernel
    def get(i: ti.i32, j: ti.i32) -> ti.f32:
        return x[i, j]

    assert get(-2, 1) == 0.0
    with pytest.raises(ti.errors.TiIndexError) as caught:
        get(2, 1)
    message = str(caught.value)
    assert "index (2, 1)" in message and "[-2, 2) x [-2, 2)" in message


def test_vector_matrix_and_struct_fields():
    v = ti.Vector.field(2, ti.i32, shape=3, offset=5)
    m = ti.Matrix.field(2, 2, ti.f32, shape=(2, 2), offset=(-1, -1))
    s = ti.Struct.field({"a": ti.f32, "b": ti.math.vec2}, shape=3, offset=-1)

    @ti.kernel
    def fill():
        for i in v:
            v[i] = [i, 2 * i]
        for i, j in m:
            m[i, j] = ti.Matrix([[i, j], [i + j, 1]])
        for i in s:
            s[i].a = i
            s[i].b = [i, -i]

    fill()
    assert v.to_numpy().tolist() == [[5, 10], [6, 12], [7, 14]]
    assert v[6].tolist() == [6, 12]
    assert m.to_numpy()[0, 1].tolist() == [[-1.0, 0.0], [-1.0, 1.0]]
    assert m[-1, 0].tolist() == [[-1.0, 0.0], [-1.0, 1.0]]
    assert s.to_numpy()["a"].tolist() == [-1.0, 0.0, 1.0] and s[1].b.tolist() == [1.0, -1.0]
    v.from_numpy(np.array([[1, 2], [3, 4], [5, 6]], dtype=np.int32))
    assert v[5].tolist() == [1, 2]


@pytest.mark.parametrize("kind", ["pointer", "bitmasked"])
def test_sparse_fields_with_an_offset(kind):
    x = ti.field(ti.f32)
    getattr(ti.root, kind)(ti.ij, 2).dense(ti.ij, 2).place(x, offset=(-2, 1))
    x[-2, 1] = 3.0
    x[1, 4] = 5.0

    @ti.kernel
    def visited() -> ti.i32:
        total = 0
        for i, j in x:
            total += i * 100 + j
        return total

    # the two active 2x2 blocks: (-2..-1, 1..2) and (0..1, 3..4)
    assert visited() == sum(i * 100 + j for i in (-2, -1) for j in (1, 2)) + sum(
        i * 100 + j for i in (0, 1) for j in (3, 4)
    )
    out = x.to_numpy()
    assert out[0, 0] == 3.0 and out[3, 3] == 5.0 and out.sum() == 8.0
    x.from_numpy(np.ones((4, 4), dtype=np.float32))
    assert x.to_numpy().sum() == 8.0  # active cells only
    y = ti.field(ti.f32)
    ti.root.dense(ti.ij, 4).place(y, offset=(-2, 1))
    y.copy_from(x)
    assert y[-2, 1] == 1.0 and y[0, 1] == 0.0


def test_gradient_fields_share_the_offset():
    x = ti.field(ti.f32, shape=4, offset=-2, needs_grad=True)

    @ti.kernel
    def bump():
        for i in x:
            x.grad[i] += i

    bump()
    assert x.grad.to_numpy().tolist() == [-2.0, -1.0, 0.0, 1.0]


def test_plan_and_layout_widget_data_show_the_users_indices():
    from ti_notebook.widgets.layout_data import layout_data

    x = ti.field(ti.f32, shape=(2, 3), offset=(10, -1))
    plan = x.layout()
    assert plan.origin == (10, -1) and plan.position((11, 1)) == (1, 2)
    assert plan.user_index((0, 0)) == (10, -1) and "indices from (10, -1)" in plan.describe()
    data = layout_data(x)
    assert data.corner == (10, -1)
    cell = data.cell((11, 1))
    assert cell["index"] == (11, 1) and cell["address"] == plan.address((1, 2))
    walked = layout_data(x, loop="struct-for", corner=(11, -1), window=(1, 3))
    assert walked.visit[0].tolist() == [10, -1] and walked.corner == (11, -1)
    assert walked.cell((10, 0))["visited_at"] == 1
    assert walked.byte_strip[0].index == (10, -1)


def test_offset_errors():
    with pytest.raises(ti.errors.TiValueError, match="needs a shape"):
        ti.field(ti.f32, offset=(1, 1))
    with pytest.raises(ti.errors.TiValueError, match="offset"):
        ti.field(ti.f32, shape=(2, 2), offset=(1, 1, 1))
    with pytest.raises(ti.errors.TiValueError, match="axes"):
        ti.root.dense(ti.i, 4).place(ti.field(ti.f32), offset=(1, 2))
    with pytest.raises(ti.errors.TiTypeError, match="integer"):
        ti.field(ti.f32, shape=2, offset=0.5)
    x = ti.field(ti.f32, shape=(2, 2), offset=(0, 0))  # zeros: no offset
    assert x.layout().index_offset == ()
