"""The rewrite of NVPTX modules for the host: kernel forms, parameters, NVVM math,
printf formatting."""

import ctypes
import struct

import numpy as np
import pytest

from ti_notebook.runtime.simt import SimtModule
from ti_notebook.runtime.simt.vprintf import format_printf

# The pre-LLVM-20 kernel form: a plain function listed in !nvvm.annotations.
ANNOTATED_KERNEL = """
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
define void @old_style(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %t to i64
  %p = getelementptr i32, ptr %out, i64 %t64
  store i32 %t, ptr %p, align 4
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @old_style, !"kernel", i32 1}
"""

# Every scalar parameter type, written back as 64-bit words.
PARAMETERS = """
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @params(i8 %a, i16 %b, i64 %c, double %d, half %e, i1 %f, float %g,
                               ptr addrspace(1) %out) {
  %a64 = sext i8 %a to i64
  store i64 %a64, ptr addrspace(1) %out, align 8
  %p1 = getelementptr i64, ptr addrspace(1) %out, i64 1
  %b64 = zext i16 %b to i64
  store i64 %b64, ptr addrspace(1) %p1, align 8
  %p2 = getelementptr i64, ptr addrspace(1) %out, i64 2
  store i64 %c, ptr addrspace(1) %p2, align 8
  %p3 = getelementptr i64, ptr addrspace(1) %out, i64 3
  store double %d, ptr addrspace(1) %p3, align 8
  %p4 = getelementptr i64, ptr addrspace(1) %out, i64 4
  %ed = fpext half %e to double
  store double %ed, ptr addrspace(1) %p4, align 8
  %p5 = getelementptr i64, ptr addrspace(1) %out, i64 5
  %f64 = zext i1 %f to i64
  store i64 %f64, ptr addrspace(1) %p5, align 8
  %p6 = getelementptr i64, ptr addrspace(1) %out, i64 6
  %gd = fpext float %g to double
  store double %gd, ptr addrspace(1) %p6, align 8
  ret void
}
"""

# NVVM math intrinsics as libdevice leaves them after inlining, and libdevice helpers.
NVVM_MATH = """
target triple = "nvptx64-nvidia-cuda"
declare float @llvm.nvvm.fma.rn.f(float, float, float)
declare i32 @llvm.nvvm.d2i.hi(double)
declare double @llvm.nvvm.lohi.i2d(i32, i32)
declare float @llvm.nvvm.saturate.f(float)
declare i32 @llvm.nvvm.f2i.rn(float)
declare float @llvm.nvvm.ex2.approx.ftz.f32(float)
declare double @llvm.nvvm.rcp.rn.d(double)
declare float @llvm.nvvm.fmin.nan.f(float, float)
declare i32 @llvm.nvvm.mulhi.ui(i32, i32)
declare i32 @llvm.nvvm.brev32(i32)
declare i32 @__nv_isnanf(float)
declare i32 @__nv_umax(i32, i32)

define ptx_kernel void @nvvm_math(ptr %out) {
  %r0 = call float @llvm.nvvm.fma.rn.f(float 2.0, float 3.0, float 0.5)
  %d0 = fpext float %r0 to double
  store double %d0, ptr %out, align 8
  %hi = call i32 @llvm.nvvm.d2i.hi(double 1.0)
  %both = call double @llvm.nvvm.lohi.i2d(i32 0, i32 %hi)
  %p1 = getelementptr double, ptr %out, i64 1
  store double %both, ptr %p1, align 8
  %sat = call float @llvm.nvvm.saturate.f(float 7.5)
  %d2 = fpext float %sat to double
  %p2 = getelementptr double, ptr %out, i64 2
  store double %d2, ptr %p2, align 8
  %rounded = call i32 @llvm.nvvm.f2i.rn(float 2.5)
  %d3 = sitofp i32 %rounded to double
  %p3 = getelementptr double, ptr %out, i64 3
  store double %d3, ptr %p3, align 8
  %ex2 = call float @llvm.nvvm.ex2.approx.ftz.f32(float 10.0)
  %d4 = fpext float %ex2 to double
  %p4 = getelementptr double, ptr %out, i64 4
  store double %d4, ptr %p4, align 8
  %rcp = call double @llvm.nvvm.rcp.rn.d(double 4.0)
  %p5 = getelementptr double, ptr %out, i64 5
  store double %rcp, ptr %p5, align 8
  %nan = fdiv float 0.0, 0.0
  %mn = call float @llvm.nvvm.fmin.nan.f(float 1.0, float %nan)
  %isnan = call i32 @__nv_isnanf(float %mn)
  %d6 = sitofp i32 %isnan to double
  %p6 = getelementptr double, ptr %out, i64 6
  store double %d6, ptr %p6, align 8
  %mh = call i32 @llvm.nvvm.mulhi.ui(i32 -1, i32 16)
  %d7 = uitofp i32 %mh to double
  %p7 = getelementptr double, ptr %out, i64 7
  store double %d7, ptr %p7, align 8
  %br = call i32 @llvm.nvvm.brev32(i32 1)
  %d8 = uitofp i32 %br to double
  %p8 = getelementptr double, ptr %out, i64 8
  store double %d8, ptr %p8, align 8
  %mx = call i32 @__nv_umax(i32 -1, i32 3)
  %d9 = uitofp i32 %mx to double
  %p9 = getelementptr double, ptr %out, i64 9
  store double %d9, ptr %p9, align 8
  ret void
}
"""


@pytest.mark.cpu
def test_kernels_listed_in_nvvm_annotations_are_found():
    module = SimtModule(ANNOTATED_KERNEL)
    out = np.zeros(4, np.int32)
    module.launch("old_style", grid=1, block=4, params=[out])
    assert out.tolist() == [0, 1, 2, 3]


@pytest.mark.cpu
@pytest.mark.parametrize("optimize", [True, False])
def test_host_module_keeps_no_nvvm_intrinsic(optimize):
    module = SimtModule(ANNOTATED_KERNEL, optimize=optimize)
    assert "llvm.nvvm." not in module.host_ir.replace("__simt.llvm.nvvm.", "")
    assert "ptx_kernel" not in module.host_ir
    assert "nvptx64" not in module.host_ir


@pytest.mark.cpu
def test_every_scalar_parameter_type_arrives():
    module = SimtModule(PARAMETERS)
    out = np.zeros(7, np.int64)
    module.launch("params", params=[-5, 65535, -(2**40), 2.25, 0.5, True, 1.5, out])
    doubles = out.view(np.float64)
    assert out[[0, 1, 2, 5]].tolist() == [-5, 65535, -(2**40), 1]
    assert doubles[[3, 4, 6]].tolist() == [2.25, 0.5, 1.5]


@pytest.mark.cpu
def test_modules_with_the_same_kernel_name_do_not_clash():
    first, second = SimtModule(ANNOTATED_KERNEL), SimtModule(ANNOTATED_KERNEL)
    a, b = np.zeros(2, np.int32), np.zeros(3, np.int32)
    second.launch("old_style", grid=1, block=3, params=[b])
    first.launch("old_style", grid=1, block=2, params=[a])
    assert a.tolist() == [0, 1] and b.tolist() == [0, 1, 2]


@pytest.mark.cpu
def test_nvvm_math_intrinsics_and_libdevice_helpers():
    out = np.zeros(10, np.float64)
    SimtModule(NVVM_MATH).launch("nvvm_math", params=[out])
    assert out.tolist() == [6.5, 1.0, 1.0, 2.0, 1024.0, 0.25, 1.0, 15.0, 2.0**31, 2.0**32 - 1]


def _args(fmt: str, *values) -> ctypes.Array:
    return ctypes.create_string_buffer(struct.pack("<" + fmt, *values))


@pytest.mark.unit
@pytest.mark.parametrize(
    ("fmt", "packed", "expected"),
    [
        (b"%d|%u|%x", ("iIi", -3, 4294967295, 255), "-3|4294967295|ff"),
        (b"%ld %lld", ("qq", -(2**40), 7), f"{-(2**40)} 7"),
        (b"%5.1f|%e|%g", ("ddd", 3.14159, 1500.0, 0.0001), "  3.1|1.500000e+03|0.0001"),
        (b"%c%c", ("ii", 72, 105), "Hi"),
        (b"%*d|", ("ii", 4, 7), "   7|"),
        (b"100%% %s", ("Q", 0), "100% (null)"),
    ],
)
def test_printf_formats_like_c(fmt, packed, expected):
    layout, *values = packed
    buffer = _args(layout, *values)
    assert format_printf(fmt, ctypes.addressof(buffer)) == expected


@pytest.mark.unit
def test_printf_aligns_each_argument_to_its_size():
    # int at 0, then a double at 8 (not 4), then an int at 16
    buffer = _args("i4xdi", 1, 2.5, 3)
    assert format_printf(b"%d %.1f %d", ctypes.addressof(buffer)) == "1 2.5 3"
