"""What the PTX says: warp reductions, atomic scopes, read-only loads, math, contract.

These read the emitted text (LLVM IR or PTX) for the property each GPU-specific choice
promises; ptxas checks the PTX where a test has the ``needs_ptxas`` marker.
"""

import dataclasses
import warnings

import pytest
from ptx_helpers import assert_ptxas_accepts, cuda_stages, entries, instructions

import ti_notebook as ti
from ti_notebook.cache.compile import compile_cached
from ti_notebook.codegen.nvptx import target as nvptx_target
from ti_notebook.codegen.nvptx.device_math import forbidden_intrinsics
from ti_notebook.compiler.backends.cuda import ptx_backend
from ti_notebook.compiler.request import CacheSettings, CompileRequest
from ti_notebook.frontend.source import FunctionSource
from ti_notebook.ir.options import CompileOptions

pytestmark = pytest.mark.ptx

UNARY = ("sin", "cos", "tan", "exp", "log", "asin", "acos", "tanh", "sqrt", "floor", "ceil")


def _sum_kernel(dtype=ti.f32, block_dim=128):
    x = ti.field(dtype, shape=4096)
    s = ti.field(dtype, shape=())

    @ti.kernel
    def total():
        ti.loop_config(block_dim=block_dim)
        for i in x:
            s[None] += x[i]

    return total


@pytest.mark.needs_ptxas
def test_a_thread_local_sum_shuffles_and_does_one_atomic_per_block():
    ptx = cuda_stages(_sum_kernel())["ptx"]
    assert_ptxas_accepts(ptx, "sm_80")
    (kernel,) = entries(ptx).values()
    # offsets 16, 8, 4, 2, 1 within each warp, then again over the warps' totals
    assert len(instructions(kernel, "shfl.sync.down")) == 2 * 5
    assert len(instructions(kernel, "st.shared")) == 1 and "bar.sync" in kernel
    (atomic,) = instructions(kernel, "atom")
    assert "add.f32" in atomic


@pytest.mark.needs_ptxas
def test_a_one_warp_block_does_one_atomic_per_warp_without_shared_memory():
    ptx = cuda_stages(_sum_kernel(block_dim=32))["ptx"]
    assert_ptxas_accepts(ptx, "sm_80")
    (kernel,) = entries(ptx).values()
    assert len(instructions(kernel, "shfl.sync.down")) == 5
    assert "bar.sync" not in kernel and "shared" not in kernel
    (atomic,) = instructions(kernel, "atom")
    # the atomic sits behind a test of the lane number (tid.x & 31)
    assert "and.b32" in kernel and ", 31;" in kernel


@pytest.mark.parametrize("op", ["min", "max"])
def test_block_min_and_max_fill_missing_warps_with_a_real_total(op):
    x = ti.field(ti.i32, shape=4096)
    s = ti.field(ti.i32, shape=())

    @ti.kernel
    def extreme():
        ti.loop_config(block_dim=96)  # three warps: lanes 3..31 of the second round idle
        for i in x:
            (ti.atomic_min if op == "min" else ti.atomic_max)(s[None], x[i])

    llvm = cuda_stages(extreme)["llvm"]
    # lanes past the warp count read slot 0 (a real total), never a made-up identity
    assert "warp_totals" in llvm and "select" in llvm


@pytest.mark.needs_ptxas
def test_a_block_size_off_the_warp_size_keeps_one_atomic_per_thread():
    stages = cuda_stages(_sum_kernel(block_dim=48))
    assert_ptxas_accepts(stages["ptx"], "sm_80")
    assert "shfl" not in stages["ptx"] and len(instructions(stages["ptx"], "atom")) == 1
    assert not stages["report"].launches[0]["warp_reduction"]


@pytest.mark.parametrize("dtype", [ti.f64, ti.i64, ti.i8])
def test_wide_and_narrow_reductions_shuffle_in_32_bit_pieces(dtype):
    ptx = cuda_stages(_sum_kernel(dtype))["ptx"]
    pieces = 2 if dtype.bits == 64 else 1
    rounds = 2  # within each warp, then over the warps' totals
    assert len(instructions(ptx, "shfl.sync.down.b32")) == 5 * pieces * rounds


def test_atomics_are_device_scoped_never_system_scoped():
    x = ti.field(ti.f32, shape=8)
    n = ti.field(ti.i32, shape=8)

    @ti.kernel
    def hits():
        for i in range(100):
            x[i % 8] += 1.0
            ti.atomic_max(x[i % 8], 2.0)
            n[i % 8] += 1
            ti.atomic_min(n[i % 8], i)

    stages = cuda_stages(hits)
    assert 'syncscope("device")' in stages["llvm"]
    atomics = instructions(stages["ptx"], "atom")
    assert atomics and not [a for a in atomics if ".sys" in a]


def test_fields_the_kernel_only_reads_load_through_the_read_only_path():
    a = ti.field(ti.f32, shape=256)
    b = ti.field(ti.f32, shape=256)  # the same tree as a: its own field all the same
    c = ti.field(ti.f32, shape=256)

    @ti.kernel
    def combine():
        for i in a:
            c[i] = a[i] * 2.0 + b[i] + c[i]

    kernel = next(iter(entries(cuda_stages(combine)["ptx"]).values()))
    loads = [line for line in instructions(kernel, "ld.global") if ".b32" in line]
    assert len([line for line in loads if ".nc." in line]) == 2  # a and b
    assert len([line for line in loads if ".nc." not in line]) == 1  # c: written here


def test_an_ndarray_is_read_only_only_when_the_kernel_writes_no_ndarray():
    @ti.kernel
    def copy(src: ti.types.ndarray(), dst: ti.types.ndarray()):
        for i in range(src.shape[0]):
            dst[i] = src[i]

    @ti.kernel
    def total(src: ti.types.ndarray()) -> ti.f32:
        s = 0.0
        for i in range(src.shape[0]):
            s += src[i]
        return s

    import numpy as np

    a = np.ones(4, np.float32)
    # dst may be src (one array passed twice): no read-only loads of either
    assert "ld.global.nc.b32" not in cuda_stages(copy, a, a)["ptx"]
    assert "ld.global.nc.b32" in cuda_stages(total, a)["ptx"]


def _math_kernel(dtype):
    x = ti.field(dtype, shape=64)

    @ti.kernel
    def every_op():
        for i in x:
            a = x[i]
            total = a**a + ti.atan2(a, a + 1) + ti.round(a) + abs(a) + ti.max(a, 1.0)
            for op in ti.static(UNARY):
                total += getattr(ti, op)(a)
            x[i] = total + ti.randn(dtype)

    return every_op


@pytest.mark.needs_ptxas
@pytest.mark.parametrize("fast_math", [True, False])
@pytest.mark.parametrize("dtype", [ti.f32, ti.f64, ti.f16])
def test_every_math_op_compiles_with_no_intrinsic_that_aborts_nvptx(dtype, fast_math):
    ti.init(arch=ti.cpu, fast_math=fast_math)
    stages = cuda_stages(_math_kernel(dtype), cc="sm_90")
    assert forbidden_intrinsics(stages["llvm"]) == []
    assert forbidden_intrinsics(stages["llvm_optimized"]) == []
    assert_ptxas_accepts(stages["ptx"], "sm_90")
    externs = [line for line in stages["ptx"].splitlines() if line.startswith(".extern")]
    assert externs == []  # libdevice was linked in: nothing left to resolve
    approximate = "sin.approx.f32" in stages["ptx"]
    assert approximate == (fast_math and dtype is not ti.f64)


def test_the_forbidden_intrinsic_scan_finds_what_the_cpu_emits():
    stages = _math_kernel(ti.f64).stages()  # the CPU's own code uses llvm.sin.f64 & co
    found = forbidden_intrinsics(stages["llvm"])
    assert {"llvm.sin.f64", "llvm.log.f64", "atan2", "tanh"} <= set(found)


def test_libdevice_is_linked_only_into_modules_that_call_it():
    x = ti.field(ti.f64, shape=8)

    @ti.kernel
    def plain():
        for i in x:
            x[i] = x[i] * 2.0

    @ti.kernel
    def transcendental():
        for i in x:
            x[i] = ti.sin(x[i])

    assert "__nv_" not in cuda_stages(plain)["llvm_optimized"]
    optimized = cuda_stages(transcendental)["llvm_optimized"]
    assert "__nv_sin" in optimized and "__nvvm_reflect" not in optimized  # resolved
    assert 'nvvm-reflect-ftz", i32 1' in cuda_stages(transcendental)["llvm"]  # fast math


def test_without_libdevice_a_call_that_needs_it_is_a_clear_compile_error(monkeypatch):
    monkeypatch.setattr(nvptx_target, "find_libdevice", lambda: None)
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f64, shape=8)
    y = ti.field(ti.f32, shape=8)

    @ti.kernel
    def needs_it():
        for i in x:
            x[i] = ti.sin(x[i])

    @ti.kernel
    def approximated():
        for i in y:
            y[i] = ti.sin(y[i]) + ti.exp(y[i])

    with pytest.raises(ti.errors.TiRuntimeError, match="libdevice") as caught:
        cuda_stages(needs_it)
    assert caught.value.lineno is not None and "CUDA_HOME" in str(caught.value)
    assert "sin.approx.f32" in cuda_stages(approximated)["ptx"]  # fast math needs none


def test_stages_for_cuda_leave_the_cpu_kernel_alone():
    x = ti.field(ti.i32, shape=8)

    @ti.kernel
    def fill(v: ti.i32) -> ti.i32:
        for i in x:
            x[i] = v
        return x[3]

    stages = fill.stages(0, arch="cuda")
    assert {"ptx", "llvm", "llvm_optimized", "report"} <= set(stages) and "asm" not in stages
    assert fill(7) == 7 and "asm" in fill.stages()
    assert ti.current_arch() == "cpu"
    with pytest.raises(ti.errors.TiValueError, match="not a target"):
        fill.stages(0, arch="metal")


def test_the_launch_table_survives_the_offline_cache(tmp_path):
    x = ti.field(ti.f32, shape=300)

    def scale(k: ti.f32):
        for i in x:
            x[i] *= k

    request = CompileRequest(
        "scale",
        FunctionSource.of(scale),
        params=[],
        template_values={},
        return_type=None,
        options=CompileOptions(),
        backend=ptx_backend(compute_capability="sm_80"),
        cache=CacheSettings(path=str(tmp_path)),
    )
    from ti_notebook.compiler.request import Param

    request.params = [Param("k", "scalar", ti.f32)]
    first, first_stages, _ = compile_cached(request)
    again, again_stages, _ = compile_cached(dataclasses.replace(request))
    assert (first_stages["report"].cache, again_stages["report"].cache) == ("miss", "hit")
    assert again.artifact.launches == first.artifact.launches
    assert again.artifact.launches[0].grid_dim == 3  # 300 cells, 128 a block
    assert again.ptx == first.ptx and again_stages["ptx"] == first.ptx
    assert list(tmp_path.glob("cuda-sm_80/*"))
    with pytest.raises(ti.errors.TiRuntimeError, match="its PTX is not loaded on a device"):
        again.launch([2.0])


def test_kernels_compile_for_cuda_whatever_the_sessions_arch(monkeypatch):
    from ti_notebook.runtime import devices

    monkeypatch.setattr(devices, "cuda_unavailable_reason", lambda: "no CUDA device (test)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the CPU fallback's warning: tests/compiler has it
        ti.init(arch=ti.cuda)
    assert ti.current_arch() == "cpu"

    @ti.kernel
    def one() -> ti.i32:
        return 1

    assert ".entry" in one.stages(arch="cuda")["ptx"] and one() == 1


def _long_loop(body_branches: bool = False, n: int = 1 << 24):
    x = ti.field(ti.f32, shape=n)
    s = ti.field(ti.f32, shape=())

    @ti.kernel
    def total():
        for i in x:
            if ti.static(body_branches):
                if x[i] > 0:
                    s[None] += x[i]
            else:
                s[None] += x[i]

    return total


@pytest.mark.needs_ptxas
def test_a_long_loop_with_a_small_body_is_unrolled_to_keep_loads_in_flight():
    stages = cuda_stages(_long_loop())
    assert_ptxas_accepts(stages["ptx"], "sm_80")
    assert "llvm.loop.unroll.count" in stages["llvm"]
    (kernel,) = entries(stages["ptx"]).values()
    # four loads in the unrolled body, one in the remainder
    assert len(instructions(kernel, "ld.global.nc.b32")) >= 4 + 1


@pytest.mark.parametrize("branches, n", [(True, 1 << 24), (False, 4096)])
def test_branching_bodies_and_short_loops_keep_their_loop(branches, n):
    stages = cuda_stages(_long_loop(branches, n))
    assert "llvm.loop" not in stages["llvm"]
    (kernel,) = entries(stages["ptx"]).values()
    assert len(instructions(kernel, "ld.global.nc.b32")) == 1
