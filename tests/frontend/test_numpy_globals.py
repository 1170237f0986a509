"""NumPy arrays read from Python scope inside kernels (frontend/numpy_globals.py)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiIndexError, TiTypeError

CUBE = np.array([5] * 3)
SIZES = np.array([4, 3, 2], dtype=np.int32)
WEIGHTS = np.array([0.5, 1.5, 2.5], dtype=np.float32)
GRID = np.array([[1.5, 2.0], [3.0, 4.0]])
GRID_INT = np.array([[1, 2, 3], [4, 5, 6]])
CUBE3 = np.arange(8).reshape(2, 2, 2)
BIG = np.arange(1000)
NAMES = np.array(["x", "y"])


@pytest.fixture(autouse=True)
def _cpu():
    ti.init(arch=ti.cpu)


def test_constant_index_1d_int():
    @ti.kernel
    def read() -> ti.i32:
        return CUBE[1] * 100 + SIZES[0] * 10 + SIZES[2]

    assert read() == 542


def test_constant_index_float_and_2d():
    @ti.kernel
    def read() -> ti.f32:
        return GRID[1, 0] + GRID[0][1] + WEIGHTS[2] + GRID_INT[1, 2]

    assert read() == pytest.approx(3.0 + 2.0 + 2.5 + 6)


def test_numpy_arithmetic_while_compiling_feeds_ndrange():
    # the implicit_fem pattern: ti.ndrange(*(n - 1)), (n[1] - 1) in index arithmetic
    @ti.kernel
    def cells() -> ti.i32:
        count = 0
        for c in ti.grouped(ti.ndrange(*(CUBE - 1))):
            e = (c.x * (CUBE[1] - 1) + c.y) * (CUBE[2] - 1) + c.z
            ti.atomic_max(count, e + 1)
        return count

    assert cells() == 64


def test_arithmetic_results_and_negation():
    @ti.kernel
    def mixed(k: ti.i32) -> ti.i32:
        doubled = SIZES * 2 + 1
        return doubled[0] * 100 + (-SIZES)[1] * 10 + k * SIZES[2] + len(GRID_INT)

    assert mixed(3) == 9 * 100 - 30 + 6 + 2


def test_runtime_index_reads_a_constant_vector_and_matrix():
    @ti.kernel
    def pick(i: ti.i32, j: ti.i32) -> ti.f32:
        return WEIGHTS[i] + GRID[i % 2, j] + SIZES[j]

    for i, j in [(0, 0), (1, 1), (2, 0)]:
        assert pick(i, j) == pytest.approx(WEIGHTS[i] + GRID[i % 2, j] + SIZES[j])


def test_array_meets_kernel_values_as_a_constant_vector():
    @ti.kernel
    def combine(s: ti.f32) -> ti.f32:
        v = ti.Vector([1.0, 2.0, 3.0]) * s + WEIGHTS
        m = GRID @ ti.Vector([1.0, 1.0])
        return v[2] + m[1]

    assert combine(2.0) == pytest.approx(6.0 + 2.5 + 7.0)


def test_vector_and_matrix_made_from_an_array():
    @ti.kernel
    def build(i: ti.i32) -> ti.f32:
        v = ti.Vector(WEIGHTS)
        m = ti.Matrix(GRID)
        return v[i] + m[1, 1] + m.n * 10

    assert build(1) == pytest.approx(1.5 + 4.0 + 20)


def test_in_ti_func_and_local_alias():
    @ti.func
    def flat(p):
        return (p[0] * SIZES[1] + p[1]) * SIZES[2] + p[2]

    @ti.kernel
    def last() -> ti.i32:
        top = 0
        sizes = SIZES
        for c in ti.grouped(ti.ndrange(*sizes)):
            ti.atomic_max(top, flat(c))
        return top

    assert last() == 4 * 3 * 2 - 1


@pytest.mark.parametrize(
    ("body", "error", "words"),
    [
        ("return BIG[i]", TiTypeError, ["'BIG'", "too big", "1000 elements"]),
        ("return CUBE3[i, 0, 0]", TiTypeError, ["'CUBE3'", "shape (2, 2, 2)"]),
        ("return NAMES[i] + 1", TiTypeError, ["'NAMES'", "dtype <U1"]),
        ("return CUBE[3] + i", TiIndexError, ["out of range", "shape (3,)"]),
        ("return ti.sqrt(GRID) + i", TiTypeError, ["NumPy array of shape (2, 2)"]),
    ],
)
def test_errors_name_kernel_line_and_hint(body, error, words, tmp_path):
    scope = {"ti": ti, "BIG": BIG, "CUBE3": CUBE3, "NAMES": NAMES, "CUBE": CUBE}
    scope["GRID"] = GRID
    source = f"def bad(i: ti.i32) -> ti.i32:\n    {body}\n"
    path = _write_module(tmp_path, source)
    code = compile(source, path, "exec")
    exec(code, scope)
    kernel = ti.kernel(scope["bad"])
    with pytest.raises(error) as caught:
        kernel(0)
    text = str(caught.value)
    assert "Kernel 'bad'" in text and "line 2" in text
    for word in words:
        assert word in text
    if error is TiTypeError and "sqrt" not in body:
        assert "ti.types.ndarray()" in text and "field" in text
    # the process keeps working after the error
    assert _fresh_kernel_result() == 5


def test_a_later_change_is_not_seen_and_is_reported(capsys, tmp_path):
    values = np.array([1, 2, 3])
    scope = {"ti": ti, "VALUES": values}
    source = "def first() -> ti.i32:\n    return VALUES[0]\n"
    exec(compile(source, _write_module(tmp_path, source), "exec"), scope)
    kernel = ti.kernel(scope["first"])
    assert kernel() == 1
    values[0] = 7  # baked in at compile time, as in Taichi
    assert kernel() == 1
    err = capsys.readouterr().err
    assert "captured VALUES = array([1, 2, 3]) at compile time" in err
    assert "array([7, 2, 3])" in err


def _fresh_kernel_result() -> int:
    @ti.kernel
    def fine() -> ti.i32:
        return CUBE[0]

    return fine()


def _write_module(folder, source: str) -> str:
    """A file holding ``source``, so that errors can show its lines."""
    path = folder / "kernel_source.py"
    path.write_text(source)
    return str(path)


# -- differential: the same kernels under Taichi 1.7.4 ----------------------------------
DIFFERENTIAL = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    ti = __import__(sys.argv[1])
    ti.init(arch=ti.cpu)
    n_cube = np.array([5] * 3)
    w = np.array([0.5, 1.5, 2.5], dtype=np.float32)
    m = np.array([[1.5, 2.0], [3.0, 4.0]])

    @ti.func
    def i2p(I):
        return (I.x * n_cube[1] + I.y) * n_cube[2] + I.z

    @ti.kernel
    def cells() -> ti.i32:
        top = 0
        for I in ti.grouped(ti.ndrange(*(n_cube - 1))):
            e = ((I.x * (n_cube[1] - 1) + I.y) * (n_cube[2] - 1) + I.z) * 5
            ti.atomic_max(top, e + i2p(I))
        return top

    @ti.kernel
    def floats(s: ti.f32) -> ti.f32:
        return w[2] * s + m[1, 0] + m[0][1] + (m * 2)[1][1] + len(w)

    @ti.kernel
    def ints(k: ti.i32) -> ti.i32:
        t = 0
        for i in ti.static(range(3)):
            t += n_cube[i] * (i + 1)
        return t + k * (n_cube * 2 + 1)[0] - (-n_cube)[2] + ti.Vector(n_cube)[1]

    print(json.dumps([cells(), floats(3.0), ints(4)]))
    """
)


@pytest.mark.taichi
@pytest.mark.skipif(importlib.util.find_spec("taichi") is None, reason="needs taichi")
def test_same_results_as_taichi(tmp_path):
    script = tmp_path / "numpy_globals_case.py"
    script.write_text(DIFFERENTIAL)
    results = {}
    for module in ("taichi", "ti_notebook"):
        run = subprocess.run(
            [sys.executable, str(script), module], capture_output=True, text=True, timeout=300
        )
        assert run.returncode == 0, run.stderr[-2000:]
        results[module] = json.loads(run.stdout.strip().splitlines()[-1])
    want, got = results["taichi"], results["ti_notebook"]
    assert got[0] == want[0] and got[2] == want[2]
    assert got[1] == pytest.approx(want[1], rel=1e-6)
