"""``exp`` of an f32 as straight-line LLVM IR: no call, so a loop around it vectorises
with no slow lanes.

libm's ``expf`` and libmvec's 8-lane ``_ZGVdN8v_expf`` are fast while the argument is in
the normal range, but libmvec sends a whole vector down its scalar fallback when one lane
under- or overflows (|x| > ~87), and kernels meet such arguments all the time:
``exp(-r2 / eps**2)`` in Taichi's vortex_rings is below -100 for every tracer far from a
vortex. Measured there, vectorising the loop with libmvec gained nothing; this inline
version has no special lanes.

The method: ``n = rint(x log2 e)``, ``r = x - n ln2`` in two parts (Cody-Waite: ``n *
LN2_HI`` is exact for |n| < 256), ``e^r`` by a degree-7 Taylor polynomial on |r| <= ln2/2
(truncation error < 6e-9, under 0.05 ulp), times ``2^n`` built from exponent bits in two
halves, so results down to the smallest subnormal round once and ``n = 128`` gives inf.
NaN stays NaN; below -103.97 the result is 0 and above 88.72 inf, as libm's.
``tests/codegen/test_vector_math.py`` holds it within 1 ulp of libm over the whole range.

    >>> import llvmlite.ir as ll
    >>> module = ll.Module()
    >>> fn = ll.Function(module, ll.FunctionType(ll.FloatType(), [ll.FloatType()]), "e")
    >>> b = ll.IRBuilder(fn.append_basic_block())
    >>> _ = b.ret(exp_f32(b, module, fn.args[0]))
    >>> [line for line in str(fn).splitlines() if "call" in line and '@"llvm.' not in line]
    []
"""

from __future__ import annotations

import math

import llvmlite.ir as ll

F32 = ll.FloatType()
I32 = ll.IntType(32)
LOG2E = 1.4426950408889634
LN2_HI = 0.693145751953125  # 16 significant bits: n * LN2_HI is exact for |n| < 256
LN2_LO = math.log(2.0) - LN2_HI
# below ZERO_BELOW, e^x is under half the smallest subnormal: 0; above HIGHEST, inf
ZERO_BELOW, HIGHEST = -103.972084, 88.75
COEFFICIENTS = [1.0 / math.factorial(k) for k in range(7, -1, -1)]  # Horner: r^7 first


def _f(value: float) -> ll.Constant:
    return ll.Constant(F32, value)


def _fmuladd(b: ll.IRBuilder, module: ll.Module, x, y, z) -> ll.Value:
    fn = module.globals.get("llvm.fmuladd.f32") or ll.Function(
        module, ll.FunctionType(F32, [F32, F32, F32]), "llvm.fmuladd.f32"
    )
    return b.call(fn, [x, y, z])


def _rint(b: ll.IRBuilder, module: ll.Module, x) -> ll.Value:
    fn = module.globals.get("llvm.rint.f32") or ll.Function(
        module, ll.FunctionType(F32, [F32]), "llvm.rint.f32"
    )
    return b.call(fn, [x])


def _power_of_two(b: ll.IRBuilder, k: ll.Value) -> ll.Value:
    """``2^k`` for an i32 ``k`` in [-126, 127], from its exponent bits."""
    bits = b.shl(b.add(k, ll.Constant(I32, 127)), ll.Constant(I32, 23))
    return b.bitcast(bits, F32)


def exp_f32(b: ll.IRBuilder, module: ll.Module, x: ll.Value) -> ll.Value:
    """``e^x`` for an f32 ``x`` (no fast-math flags inside: reassociating the reduction
    would undo its two-part ln 2)."""
    # a lane whose result is 0 computes e^0 instead: multiplying down to 0 would take a
    # microcode assist (underflow) per lane. Ordered compares leave NaN as it is: it
    # falls through to the final select.
    zero = b.fcmp_ordered("<", x, _f(ZERO_BELOW))
    clamped = b.select(zero, _f(0.0), x)
    clamped = b.select(b.fcmp_ordered(">", clamped, _f(HIGHEST)), _f(HIGHEST), clamped)
    n = _rint(b, module, b.fmul(clamped, _f(LOG2E)))
    r = _fmuladd(b, module, n, _f(-LN2_HI), clamped)
    r = _fmuladd(b, module, n, _f(-LN2_LO), r)
    poly = _f(COEFFICIENTS[0])
    for coefficient in COEFFICIENTS[1:]:
        poly = _fmuladd(b, module, poly, r, _f(coefficient))
    k = b.fptosi(n, I32)  # in [-150, 128]: two halves each within the normal exponents
    half = b.ashr(k, ll.Constant(I32, 1))
    scaled = b.fmul(b.fmul(poly, _power_of_two(b, half)), _power_of_two(b, b.sub(k, half)))
    scaled = b.select(zero, _f(0.0), scaled)
    return b.select(b.fcmp_unordered("uno", x, x), x, scaled)
