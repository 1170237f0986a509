"""Vectorised transcendental math (issue 18): libmvec through the loop vectoriser, each
function within 2 ulp of glibc's libm over random and special inputs, in a parallel
loop (the vector path) and a serial one; the vector calls really are in the code."""

import ctypes
import ctypes.util
import importlib.util
import sys

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.codegen import vector_math
from ti_notebook.runtime.cpu.jit import jit

pytestmark = pytest.mark.cpu

MAPPED = sorted(vector_math.available(jit().cpu_features))
needs_libmvec = pytest.mark.skipif(not MAPPED, reason="no AVX2 or no libmvec on this host")
LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
KERNELS = """
import ti_notebook as ti

@ti.kernel
def parallel(a: ti.types.ndarray(dtype=DT, ndim=1), b: ti.types.ndarray(dtype=DT, ndim=1),
             out: ti.types.ndarray(dtype=DT, ndim=1)):
    for i in range(a.shape[0]):
        out[i] = EXPR

@ti.kernel
def serial(a: ti.types.ndarray(dtype=DT, ndim=1), b: ti.types.ndarray(dtype=DT, ndim=1),
           out: ti.types.ndarray(dtype=DT, ndim=1)):
    ti.loop_config(serialize=True)
    for i in range(a.shape[0]):
        out[i] = EXPR
"""


def _kernels(tmp_path, op: str, bits: int):
    expr = f"ti.{op}(a[i], b[i])" if vector_math.arity(op) == 2 else f"ti.{op}(a[i])"
    source = KERNELS.replace("DT", f"ti.f{bits}").replace("EXPR", expr)
    path = tmp_path / f"vm_{op}_{bits}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def _inputs(op: str, dtype) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(42)
    special = [0.0, -0.0, 1e-40, -1e-40, 1e-30, np.inf, -np.inf, np.nan, 1e6, -1e6, 1e20]
    special += [np.pi, 88.7, 89.0, -103.0, 1e-8, 0.5, 1.0, -1.0, 2.0]
    a = np.concatenate(
        [rng.uniform(-10, 10, 6000), rng.uniform(-1, 1, 2000), rng.uniform(-200, 200, 1000)]
        + [rng.uniform(0, 1e6, 1000), np.array(special)]
    ).astype(dtype)
    b = a[::-1].copy()
    if op == "pow":
        a = np.abs(a)
    return a, b


def _libm(op: str, bits: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    fn = getattr(LIBM, op + ("f" if bits == 32 else ""))
    ctype = ctypes.c_float if bits == 32 else ctypes.c_double
    fn.restype, fn.argtypes = ctype, [ctype] * vector_math.arity(op)
    if vector_math.arity(op) == 2:
        values = [fn(float(x), float(y)) for x, y in zip(a, b, strict=True)]
    else:
        values = [fn(float(x)) for x in a]
    return np.array(values, dtype=a.dtype)


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Distance in units in the last place (both NaN: 0)."""
    ints = np.int32 if got.dtype == np.float32 else np.int64

    def ordered(x):
        i = x.view(ints).astype(np.int64)
        return np.where(i < 0, np.iinfo(ints).min - i, i)

    distance = np.abs(ordered(got) - ordered(want))
    return np.where(np.isnan(got) & np.isnan(want), 0, distance)


@needs_libmvec
@pytest.mark.parametrize("op, bits", [pair for pair in MAPPED if hasattr(ti, pair[0])])
@pytest.mark.parametrize("fast_math", [True, False])
def test_within_two_ulp_of_libm(tmp_path, op, bits, fast_math):
    ti.init(arch=ti.cpu, fast_math=fast_math, offline_cache=False)
    kernels = _kernels(tmp_path, op, bits)
    a, b = _inputs(op, np.float32 if bits == 32 else np.float64)
    want = _libm(op, bits, a, b)
    for kernel in (kernels.parallel, kernels.serial):
        got = np.zeros_like(a)
        kernel(a, b, got)
        worst = int(np.argmax(_ulps(got, want)))
        assert _ulps(got, want).max() <= 2, (kernel.__name__, a[worst], got[worst], want[worst])


@needs_libmvec
def test_the_loop_calls_the_vector_functions(tmp_path):
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, 1024)
    y = ti.field(ti.f32, 1024)

    @ti.kernel
    def chain():
        for i in x:
            v = x[i]
            y[i] = ti.sin(v) * ti.exp(-v) + ti.log(1 + v * v) + ti.atan2(v, 1.5)

    x.from_numpy(np.linspace(-3, 3, 1024, dtype=np.float32))
    chain()
    text = chain.stages()["llvm_optimized"]
    assert "<8 x float> @_ZGVdN8v_sinf(" in text
    assert "expf" not in text  # inline (codegen/inline_exp.py)
    assert "ZGVdN4v_log" in text and "ZGVdN4vv_atan2" in text  # f32 log/atan2 in f64
    v = np.linspace(-3, 3, 1024).astype(np.float32).astype(np.float64)
    want = np.sin(v) * np.exp(-v) + np.log(1 + v * v) + np.arctan2(v, 1.5)
    np.testing.assert_allclose(y.to_numpy(), want, rtol=1e-5, atol=1e-5)


def test_no_mapping_without_avx2_or_libmvec(monkeypatch):
    assert vector_math.available("+sse2,+avx,-avx2") == frozenset()
    monkeypatch.setattr(vector_math, "library", lambda: None)
    assert vector_math.available.__wrapped__("+avx2") == frozenset()
