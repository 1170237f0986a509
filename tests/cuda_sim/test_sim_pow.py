"""Powers on the GPU: a float base with a runtime integer exponent (``llvm.powi`` on the
CPU, libdevice's ``pow`` on NVPTX) and integer powers with negative exponents, the
emulator against the CPU and NumPy."""

import numpy as np
import pytest
from sim_compare import assert_same

import ti_notebook as ti
from ti_notebook.codegen.nvptx import target as nvptx_target

BASES = [2.0, -2.0, 0.5, -1.5, 3.0, 0.0, -1.0, 10.0]
EXPONENTS = [-7, -3, -1, 0, 1, 2, 3, 10, 17]


@pytest.mark.parametrize(
    ("dtype", "np_dtype", "rtol"), [(ti.f32, np.float32, 4e-6), (ti.f64, np.float64, 1e-13)]
)
def test_float_base_runtime_integer_exponent(gpu, dtype, np_dtype, rtol):
    xs = np.array([b for b in BASES for _ in EXPONENTS], np_dtype)
    ns = np.array([n for _ in BASES for n in EXPONENTS], np.int32)

    def build():
        x = ti.field(dtype, shape=len(xs))
        n = ti.field(ti.i32, shape=len(xs))
        out = ti.field(dtype, shape=(2, len(xs)))
        x.from_numpy(xs)
        n.from_numpy(ns)

        @ti.kernel
        def run():
            for i in x:
                out[0, i] = x[i] ** n[i]
                out[1, i] = ti.pow(x[i], n[i])

        run()
        return out.to_numpy()

    cpu, values = gpu.against_cpu(build)
    with np.errstate(divide="ignore"):
        want = np.power(xs.astype(np.float64), ns.astype(np.float64)).astype(np_dtype)
    assert_same(np.stack([want, want]), values, rtol=rtol)
    assert_same(cpu, values, rtol=2 * rtol)


def test_integer_power_with_negative_exponents(gpu):
    pairs = [(b, n) for b in range(-3, 4) for n in range(-3, 4)]

    def build():
        b = ti.field(ti.i32, shape=len(pairs))
        n = ti.field(ti.i32, shape=len(pairs))
        out = ti.field(ti.i32, shape=len(pairs))
        b.from_numpy(np.array([p[0] for p in pairs], np.int32))
        n.from_numpy(np.array([p[1] for p in pairs], np.int32))

        @ti.kernel
        def run():
            for i in b:
                out[i] = b[i] ** n[i]

        run()
        return out.to_numpy()

    cpu, values = gpu.against_cpu(build)
    assert_same(cpu, values)
    exact = {1: lambda n: 1, -1: lambda n: -1 if n % 2 else 1}
    want = [base**n if n >= 0 else exact.get(base, lambda n: 0)(n) for base, n in pairs]
    assert values.tolist() == want


@pytest.mark.ptx
@pytest.mark.skipif(nvptx_target.find_libdevice() is None, reason="f64 pow needs libdevice")
@pytest.mark.parametrize("fast_math", [True, False])
def test_cuda_code_of_integer_exponents_calls_no_external_function(fast_math):
    """NVPTX has no helper library: the PTX must define everything it calls."""
    ti.init(arch=ti.cpu, fast_math=fast_math)

    @ti.kernel
    def powers(x: ti.f32, n: ti.i32, d: ti.f64, m: ti.i64) -> ti.f64:
        return x**n + ti.pow(d, m) + d**n + ti.pow(n, m)

    ptx = powers.stages(2.0, 3, 2.0, 3, arch="cuda")["ptx"]
    assert ".extern" not in ptx and "__powi" not in ptx
    assert powers(2.0, 3, 2.0, 3) == 8 + 8 + 8 + 27
