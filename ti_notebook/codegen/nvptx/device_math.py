"""Transcendental math on NVPTX: libdevice, or the hardware's approximations.

LLVM's NVPTX back end cannot select ``llvm.sin/cos/tan/pow`` (without ``afn``),
``llvm.sin.f64`` or ``llvm.exp/log``: it aborts the whole process ("Cannot select"),
which would kill a notebook's kernel. So the CPU's intrinsics
(``Arithmetic.transcendental`` in ``codegen/arithmetic.py``) are replaced here:

- with ``fast_math`` (the default), f32 ``sin cos tan exp log`` use the special
  function unit's approximations (``sin.approx.f32``, ``ex2.approx.f32``...), as CUDA's
  ``-use_fast_math`` does;
- everything else calls libdevice (``__nv_sinf``, ``__nv_atan2``...), which
  ``codegen/nvptx/target.py`` links into the module. :data:`PRECISE_UNDER_FAST_MATH`
  always do, as under CUDA's ``-use_fast_math``: ``pow`` (``__nv_powf``, as Taichi's
  CUDA backend; the fast ``__powf`` is ``2^(y log2 x)``, NaN for every negative base,
  where the CPU gives ``(-2)**3 == -8``) and ``tanh`` (``tanh.approx.f32`` is off by up
  to 2^-11 relative, a thousand times the other approximations);
- without libdevice, a call that needs it is a compile error saying how to get it; f32
  ``tanh`` under fast math then uses the approximation, and ``pow`` too, with the sign
  and the special cases of C's ``powf`` restored (:func:`approximate_pow`).

f16 is computed in f32. The ops are :data:`~ti_notebook.codegen.arithmetic.TRANSCENDENTAL`
plus ``pow`` and ``atan2``. The NVPTX emitter's arithmetic part,
:class:`DeviceArithmetic`, sends its ``transcendental`` and ``scalar_math`` (which
the shared arithmetic calls) to :func:`transcendental`, with the emitter as ``e``.

    >>> libdevice_name("sin", 32), libdevice_name("atan2", 64)
    ('__nv_sinf', '__nv_atan2')
    >>> sorted(APPROXIMATE)
    ['cos', 'exp', 'log', 'pow', 'sin', 'tan', 'tanh']
"""

from __future__ import annotations

import math
import re

import llvmlite.ir as ll

from ti_notebook.codegen.arithmetic import Arithmetic
from ti_notebook.codegen.function import FunctionEmitter
from ti_notebook.codegen.llvm_types import llvm_type
from ti_notebook.codegen.nvptx import target as nvptx_target
from ti_notebook.errors import TiRuntimeError
from ti_notebook.ir import types

APPROXIMATE = frozenset({"sin", "cos", "tan", "exp", "log", "pow", "tanh"})
# approximated under fast math only when libdevice is missing
PRECISE_UNDER_FAST_MATH = frozenset({"pow", "tanh"})
_F32 = ll.FloatType()


class DeviceArithmetic(Arithmetic):
    """The shared arithmetic, with the GPU's transcendentals."""

    def transcendental(self, op: str, args: list, dtype: types.DataType) -> ll.Value:
        return transcendental(self.emitter, op, args, dtype)

    def scalar_math(self, op: str, a: ll.Value, dtype: types.DataType) -> ll.Value:
        # a GPU thread computes one lane anyway: the same libdevice call as everywhere
        return transcendental(self.emitter, op, [a], dtype)


def libdevice_name(op: str, bits: int) -> str:
    """libdevice's function for ``op`` on a float of ``bits`` (32: the ``f`` variant)."""
    return f"__nv_{op}{'f' if bits == 32 else ''}"


def transcendental(e: FunctionEmitter, op: str, args: list, dtype: types.DataType):
    """``op`` of ``args`` on the GPU: an approximation or a libdevice call (see above)."""
    if dtype.bits == 16:  # no f16 forms: compute in f32
        wide = [e.b.fpext(a, _F32) for a in args]
        return e.b.fptrunc(transcendental(e, op, wide, types.f32), llvm_type(dtype))
    has_libdevice = nvptx_target.find_libdevice() is not None
    if e.fast_math and dtype.bits == 32 and op in APPROXIMATE:
        if op not in PRECISE_UNDER_FAST_MATH:
            return approximate(e, op, args)
        if not has_libdevice:
            return approximate_pow(e, *args) if op == "pow" else approximate(e, op, args)
    if not has_libdevice:
        raise TiRuntimeError(
            f"ti.{op} on {dtype} needs CUDA's libdevice, which was not found",
            e.current_pos(),
            hint="set CUDA_HOME to a CUDA toolkit (it holds nvvm/libdevice/libdevice.10.bc), "
            "or pip install nvidia-cuda-nvcc; f32 sin/cos/tan/exp/log/pow/tanh work "
            "without it under fast_math",
        )
    t = llvm_type(dtype)
    fn = e.declare(libdevice_name(op, dtype.bits), t, [t] * len(args))
    return e.b.call(fn, args)


def approximate(e: FunctionEmitter, op: str, args: list) -> ll.Value:
    """The special function unit's f32 approximation of ``op`` (fast math)."""
    b = e.b

    def sfu(name: str, value: ll.Value) -> ll.Value:
        suffix = "f32" if name == "tanh" else "f"
        fn = e.declare(f"llvm.nvvm.{name}.approx.{suffix}", _F32, [_F32])
        return b.call(fn, [value])

    def const(value: float) -> ll.Constant:
        return ll.Constant(_F32, value)

    x = args[0]
    if op in ("sin", "cos", "tanh"):
        return sfu(op, x)
    if op == "tan":
        return e.arith.flagged(b.fdiv(sfu("sin", x), sfu("cos", x)))
    if op == "exp":  # e^x = 2^(x log2 e)
        return sfu("ex2", e.arith.flagged(b.fmul(x, const(math.log2(math.e)))))
    if op == "log":  # ln x = log2(x) ln 2
        return e.arith.flagged(b.fmul(sfu("lg2", x), const(math.log(2.0))))
    # pow: 2^(y log2 x), CUDA's __powf (NaN for x < 0, as there)
    return sfu("ex2", e.arith.flagged(b.fmul(args[1], sfu("lg2", x))))


def approximate_pow(e: FunctionEmitter, x: ll.Value, y: ll.Value) -> ll.Value:
    """f32 ``x ** y`` as ``2^(y log2 |x|)`` with C's ``powf`` cases restored: a
    negative base with an integer exponent (the sign of an odd one), NaN for a
    negative base with a fractional exponent, and ``x ** 0 == 1`` (also for 0 and
    NaN). Used under fast math when libdevice is missing."""
    b = e.b
    zero, one = ll.Constant(_F32, 0.0), ll.Constant(_F32, 1.0)
    fabs = e.declare("llvm.fabs.f32", _F32, [_F32])
    floor = e.declare("llvm.floor.f32", _F32, [_F32])
    magnitude = approximate(e, "pow", [b.call(fabs, [x]), y])
    # no fast-math flags below: they would let LLVM assume away the NaN and the sign
    integral = b.fcmp_ordered("==", b.call(floor, [y]), y)
    half = b.fmul(y, ll.Constant(_F32, 0.5))
    odd = b.and_(integral, b.fcmp_ordered("!=", b.call(floor, [half]), half))
    negative = b.fcmp_ordered("<", x, zero)
    signed = b.select(b.and_(negative, odd), b.fneg(magnitude), magnitude)
    nan = ll.Constant(_F32, float("nan"))
    result = b.select(b.and_(negative, b.not_(integral)), nan, signed)
    return b.select(b.fcmp_ordered("==", y, zero), one, result)


def forbidden_intrinsics(module_text: str) -> list[str]:
    """The calls in ``module_text`` that abort LLVM's NVPTX back end, or leave a libm
    symbol no GPU has: what :func:`transcendental` must never emit. (LLVM's own passes may
    turn an approximation into ``llvm.tanh.f32`` with ``afn``, which NVPTX selects.)

        >>> forbidden_intrinsics('%r = call float @"llvm.sin.f32"(float %x)')
        ['llvm.sin.f32']
        >>> forbidden_intrinsics('%r = call afn float @llvm.sin.f32(float %x)')
        []
        >>> forbidden_intrinsics('%r = call afn double @llvm.sin.f64(double %x)')
        ['llvm.sin.f64']
        >>> forbidden_intrinsics('%r = call float @"llvm.exp2.f32"(float %x)')
        []
    """
    found = set()
    for line in module_text.splitlines():
        if "call " not in line:
            continue
        for name in _CALLEE.findall(line):
            if name in _LIBM:
                found.add(name)
            match = _FORBIDDEN.fullmatch(name)
            if match is None:
                continue
            op, bits = match.groups()
            selectable = op in _WITH_AFN and bits == "32" and re.search(r"\bafn\b", line)
            if not selectable:
                found.add(name)
    return sorted(found)


_CALLEE = re.compile(r'@"?([A-Za-z_][\w.]*)"?\(')
_FORBIDDEN = re.compile(r"llvm\.(sin|cos|tan|tanh|pow|exp|log|log2|log10|exp10)\.f(16|32|64)")
_WITH_AFN = {"sin", "cos", "tanh", "pow"}  # f32 with afn: approximate instructions
_LIBM = {f"{op}{sfx}" for op in ("asin", "acos", "atan", "atan2", "tanh") for sfx in ("", "f")}
