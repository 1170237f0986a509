"""A ti.func's return annotation converts what it returns, as Taichi does: a scalar
type casts the value, a vector/matrix type casts each component, a struct type each
member."""

import warnings

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _cpu():
    ti.init(arch=ti.cpu)


def test_scalar_vector_matrix_and_struct_returns_cast():
    Pair = ti.types.struct(a=ti.i32, b=ti.f32)

    @ti.func
    def half(x) -> ti.i32:
        return x * 0.5

    @ti.func
    def halves(x) -> ti.types.vector(2, ti.i32):
        return ti.Vector([x * 0.5, x * 1.5])

    @ti.func
    def grid(x) -> ti.types.matrix(2, 2, ti.i32):
        return ti.Matrix([[x * 0.5, x * 1.5], [x * 2.5, -x * 0.5]])

    @ti.func
    def pair(x) -> Pair:
        return ti.Struct(a=x * 0.5, b=x * 0.5)

    out = ti.field(ti.f32, shape=9)

    @ti.kernel
    def run():
        out[0] = half(3)
        v = halves(3)
        out[1], out[2] = v[0] + 0.25, v[1] + 0.25
        m = grid(3)
        out[3], out[4], out[5], out[6] = m[0, 0], m[0, 1], m[1, 0], m[1, 1] + 0.25
        p = pair(3)
        out[7], out[8] = p.a + 0.25, p.b

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ti.errors.TiPrecisionWarning)
        run()
    # 1.5 -> 1, 4.5 -> 4, 7.5 -> 7, -1.5 -> -1 (toward zero); the f32 member keeps 1.5
    assert out.to_numpy().tolist() == [1, 1.25, 4.25, 1, 4, 7, -0.75, 1.25, 1.5]


def test_vector_return_of_another_shape_is_an_error():
    @ti.func
    def wrong() -> ti.types.vector(3, ti.f32):
        return ti.Vector([1.0, 2.0])

    @ti.kernel
    def k() -> ti.f32:
        return wrong()[0]

    with pytest.raises(ti.errors.TiTypeError, match="return value of 'wrong'.*shape"):
        k()
