"""ti.linalg.SparseMatrixBuilder filled by kernels: ``A[i, j] += v`` / ``-= v`` from
parallel loops (many threads on one entry and on different ones), overflow and index
errors, and the annotation ``ti.types.sparse_matrix_builder()``."""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiIndexError, TiRuntimeError, TiSyntaxError, TiTypeError

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _init():
    ti.init(arch=ti.cpu)


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
def test_parallel_fill_sums_duplicates(dtype):
    n, per = 16, 1000
    B = ti.linalg.SparseMatrixBuilder(n, n, max_num_triplets=n * per + n * n, dtype=dtype)

    @ti.kernel
    def fill(A: ti.types.sparse_matrix_builder()):
        for k in range(n * per):  # many threads on each diagonal entry
            A[k % n, k % n] += 0.5
        for i, j in ti.ndrange(n, n):  # one thread per off-diagonal entry
            if i != j:
                A[i, j] -= i + 0.25 * j

    fill(B)
    M = B.build()
    expected = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            expected[i, j] = per * 0.5 if i == j else -(i + 0.25 * j)
    assert M.dtype is dtype
    np.testing.assert_allclose(M.to_numpy(), expected, rtol=1e-6)


def test_build_empties_the_builder_and_refills():
    B = ti.linalg.SparseMatrixBuilder(3, 3, max_num_triplets=3)

    @ti.kernel
    def fill(A: ti.types.sparse_matrix_builder(), v: ti.f32):
        for i in range(3):
            A[i, 2 - i] += v

    fill(B, 2.0)
    assert B.build().to_numpy().tolist() == [[0, 0, 2], [0, 2, 0], [2, 0, 0]]
    assert B.build().to_numpy().sum() == 0  # Taichi: build() clears
    fill(B, 3.0)  # fits again: the count started over
    assert B.build()[0, 2] == 3.0


def test_self_attribute_builder_in_data_oriented_class():
    @ti.data_oriented
    class Springs:
        def __init__(self):
            self.K = ti.linalg.SparseMatrixBuilder(4, 4, max_num_triplets=16)

        @ti.kernel
        def assemble(self, K: ti.types.sparse_matrix_builder()):
            for i in range(3):
                K[i, i] += 1.0
                K[i, i + 1] -= 1.0
                K[i + 1, i] -= 1.0
                K[i + 1, i + 1] += 1.0

    s = Springs()
    s.assemble(s.K)
    M = s.K.build().to_numpy()
    np.testing.assert_array_equal(M, M.T)
    assert M.sum() == 0 and M[1, 1] == 2


def test_two_builders_one_kernel_specialises_each():
    a = ti.linalg.SparseMatrixBuilder(2, 2, max_num_triplets=2)
    b = ti.linalg.SparseMatrixBuilder(3, 3, max_num_triplets=2)

    @ti.kernel
    def one(A: ti.types.sparse_matrix_builder()):
        A[1, 1] += 1

    one(a)
    one(b)
    assert a.build().shape == (2, 2) and b.build()[1, 1] == 1.0


def test_print_triplets(capsys):
    B = ti.linalg.SparseMatrixBuilder(2, 2, max_num_triplets=4)

    @ti.kernel
    def fill(A: ti.types.sparse_matrix_builder()):
        A[0, 1] += 1.5

    fill(B)
    B.print_triplets()
    assert capsys.readouterr().out == "n=2, m=2, num_triplets=1 (max=4)\n[0, 1] = 1.5\n"


def test_overflow_is_an_error_naming_builder_and_call():
    B = ti.linalg.SparseMatrixBuilder(4, 4, max_num_triplets=5)

    @ti.kernel
    def fill(A: ti.types.sparse_matrix_builder()):
        for i in range(40):
            A[i % 4, i % 4] += 1.0

    fill(B)  # the kernel never writes out of bounds; the count tells
    with pytest.raises(TiRuntimeError) as info:
        B.build()
    message = str(info.value)
    assert "SparseMatrixBuilder(4, 4).build()" in message
    assert "added 40 triplets" in message and "max_num_triplets=5" in message
    with pytest.raises(TiRuntimeError, match="print_triplets"):
        B.print_triplets()


def test_index_out_of_range_is_an_error():
    B = ti.linalg.SparseMatrixBuilder(2, 3, max_num_triplets=4)

    @ti.kernel
    def fill(A: ti.types.sparse_matrix_builder()):
        A[2, 0] += 1.0

    fill(B)
    with pytest.raises(TiIndexError, match=r"build\(\): triplet \[2, 0\].*out of range"):
        B.build()


def test_other_operators_and_float_indices_are_compile_errors():
    B = ti.linalg.SparseMatrixBuilder(2, 2, max_num_triplets=4)

    @ti.kernel
    def times(A: ti.types.sparse_matrix_builder()):
        A[0, 0] *= 2.0

    @ti.kernel
    def float_index(A: ti.types.sparse_matrix_builder()):
        A[0.5, 0] += 2.0

    @ti.kernel
    def one_index(A: ti.types.sparse_matrix_builder()):
        A[0] += 2.0

    @ti.kernel
    def plain(A: ti.types.sparse_matrix_builder()):
        A[0, 0] = 2.0

    with pytest.raises(TiSyntaxError, match=r"only '\+=' and '-='"):
        times(B)
    with pytest.raises(TiSyntaxError, match=r"'SparseMatrixBuilder\(2, 2\)'.*not '='"):
        plain(B)
    with pytest.raises(TiTypeError, match="row index .* is a float"):
        float_index(B)
    with pytest.raises(TiTypeError, match="a row and a column"):
        one_index(B)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"num_rows": 0}, "num_rows"),
        ({"num_rows": 2, "max_num_triplets": 0}, "max_num_triplets"),
        ({"num_rows": 2, "max_num_triplets": 2, "dtype": ti.i32}, "dtype"),
        ({"num_rows": 2, "max_num_triplets": 2, "storage_format": "diag"}, "storage_format"),
    ],
)
def test_bad_constructor_arguments(kwargs, match):
    with pytest.raises((TiTypeError, ValueError), match=match):
        ti.linalg.SparseMatrixBuilder(**kwargs)


@pytest.mark.taichi
def test_same_matrix_as_taichi():
    taichi = pytest.importorskip("taichi")
    results = []
    for lib in (taichi, ti):
        lib.init(arch=lib.cpu)
        B = lib.linalg.SparseMatrixBuilder(5, 5, max_num_triplets=200)

        @lib.kernel
        def fill(A: lib.types.sparse_matrix_builder()):
            for k in range(100):
                A[k % 5, (k * 3) % 5] += 0.25 * k
                A[(k * 2) % 5, k % 5] -= 0.5

        fill(B)
        M = B.build()
        results.append(np.array([[M[i, j] for j in range(5)] for i in range(5)]))
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)
