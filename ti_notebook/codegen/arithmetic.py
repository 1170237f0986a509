"""Typed arithmetic, casts and math in LLVM IR: the emitter's arithmetic part.

Arithmetic follows Python where Taichi does: ``//`` floors, ``%`` takes the divisor's
sign, integer division by zero gives 0 instead of trapping (a trap would kill the
notebook's kernel process).

An emitter holds an :class:`Arithmetic` (``emitter.arith``), which writes with the
emitter's current builder ``b``; a target picks its variant by the emitter's class
(the NVPTX one calls libdevice for transcendentals: ``codegen/nvptx/device_math.py``).
``a // b`` on i32 divides by 1 where ``b`` is 0 (then selects 0), floors a quotient
whose remainder's sign differs from ``b``'s:

    >>> from ti_notebook.codegen.llvm_types import I32
    >>> from ti_notebook.ir import types
    >>> class Owner:  # what the part reads from its emitter
    ...     fast_math = False
    ...     module = ll.Module()
    >>> owner = Owner()
    >>> fn = ll.Function(owner.module, ll.FunctionType(I32, [I32, I32]), "f")
    >>> owner.b = ll.IRBuilder(fn.append_basic_block())
    >>> arith = Arithmetic(owner)
    >>> a, b = fn.args
    >>> quotient = arith.binary("floordiv", a, b, types.i32)
    >>> [i.opname for i in owner.b.block.instructions if i.opname in ("sdiv", "srem", "select")]
    ['select', 'select', 'sdiv', 'srem', 'select', 'select']
    >>> arith.cast(a, types.i32, types.f32).opname
    'sitofp'
"""

from __future__ import annotations

import llvmlite.ir as ll

from ti_notebook.codegen import inline_exp, vector_math
from ti_notebook.codegen.emit_table import Emitter
from ti_notebook.codegen.llvm_types import I1, I32, declare, llvm_type
from ti_notebook.ir import types

FAST_FLAGS = ("reassoc", "nsz", "arcp", "contract", "afn")
# unary math that is a call or a long expansion on some target (Arithmetic.transcendental)
TRANSCENDENTAL = frozenset({"sin", "cos", "tan", "exp", "log", "asin", "acos", "atan", "tanh"})


class Arithmetic:
    """Emits typed operations into ``emitter``'s module with its current builder (the
    emitter moves ``b`` into the entry block at times: ``FunctionEmitter.with_entry``)."""

    def __init__(self, emitter: Emitter) -> None:
        self.emitter = emitter
        self.module: ll.Module = emitter.module
        self.fast_math: bool = emitter.fast_math

    @property
    def b(self) -> ll.IRBuilder:
        return self.emitter.b

    def intrinsic(self, name: str, ret: ll.Type, args: list) -> ll.Value:
        """A call of ``name`` (declared on first use), fast-math flagged when it is a
        float function and the kernel allows it."""
        fn = declare(self.module, name, ret, [a.type for a in args])
        is_float = isinstance(ret, (ll.FloatType, ll.DoubleType, ll.HalfType))
        flags = FAST_FLAGS if self.fast_math and is_float else ()
        return self.b.call(fn, args, fastmath=flags)

    def flagged(self, inst: ll.Instruction, contract: bool = True) -> ll.Instruction:
        if self.fast_math:
            # no 'contract' on f16: a CPU computes half in float, so a fused multiply-add
            # would keep a float product instead of rounding each step to f16 (Taichi)
            contract = contract and not isinstance(inst.type, ll.HalfType)
            inst.flags.extend(f for f in FAST_FLAGS if contract or f != "contract")
        return inst

    def suffix(self, dtype: types.DataType) -> str:
        return {16: "f16", 32: "f32", 64: "f64"}[dtype.bits]

    # -- casts ---------------------------------------------------------------------
    def cast(self, value: ll.Value, src: types.DataType, dst: types.DataType) -> ll.Value:
        b, target = self.b, llvm_type(dst)
        if src is dst:
            return value
        half, single = types.f16, types.f32
        if half in (src, dst) and not (src.is_float and dst.is_float):
            # an integer to or from f16 goes through f32, as LLVM would itself (exact:
            # every f16 value and every integer up to f16's range is an f32). f64 <->
            # f16 is direct: one rounding, as NumPy's (through f32 it rounded twice); on
            # a CPU without AVX512-FP16 it calls libgcc's __truncdfhf2, which the JIT
            # binds (runtime/cpu/native_symbols.py).
            return self.cast(self.cast(value, src, single), single, dst)
        if src.is_float and dst.is_float:
            return b.fpext(value, target) if dst.bits > src.bits else b.fptrunc(value, target)
        if src.is_float:
            name = "llvm.fptosi.sat" if dst.is_signed else "llvm.fptoui.sat"
            fn_name = f"{name}.i{dst.bits}.{self.suffix(src)}"
            return self.intrinsic(fn_name, target, [value])
        if dst.is_float:
            return b.sitofp(value, target) if src.is_signed else b.uitofp(value, target)
        if dst.bits < src.bits:
            return b.trunc(value, target)
        if dst.bits > src.bits:
            return b.sext(value, target) if src.is_signed else b.zext(value, target)
        return value

    def truth(self, value: ll.Value) -> ll.Value:
        return self.b.icmp_unsigned("!=", value, ll.Constant(value.type, 0))

    # -- binary --------------------------------------------------------------------
    def binary(self, op: str, a: ll.Value, c: ll.Value, dtype: types.DataType) -> ll.Value:
        b = self.b
        if op in ("lt", "le", "gt", "ge", "eq", "ne"):
            return b.zext(self.compare(op, a, c, dtype), I32)
        if op in ("logical_and", "logical_or"):
            x, y = self.truth(a), self.truth(c)
            return b.zext(b.and_(x, y) if op == "logical_and" else b.or_(x, y), I32)
        if dtype.is_float:
            return self.float_binary(op, a, c, dtype)
        return self.int_binary(op, a, c, dtype)

    def compare(self, op: str, a, c, dtype: types.DataType) -> ll.Value:
        symbol = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}[op]
        if dtype.is_float:
            if op == "ne":
                return self.b.fcmp_unordered(symbol, a, c)
            return self.b.fcmp_ordered(symbol, a, c)
        if dtype.is_signed:
            return self.b.icmp_signed(symbol, a, c)
        return self.b.icmp_unsigned(symbol, a, c)

    def float_binary(self, op: str, a, c, dtype) -> ll.Value:
        b, t, sfx = self.b, llvm_type(dtype), self.suffix(dtype)
        simple = {"add": b.fadd, "sub": b.fsub, "mul": b.fmul, "truediv": b.fdiv}
        if op in simple:
            return self.flagged(simple[op](a, c))
        if op == "floordiv":
            return self.intrinsic(f"llvm.floor.{sfx}", t, [self.flagged(b.fdiv(a, c))])
        if op == "mod":
            q = self.intrinsic(f"llvm.floor.{sfx}", t, [self.flagged(b.fdiv(a, c))])
            # unfused, as Taichi: an FMA would keep the exact product c * q, and the
            # remainder of a quotient beyond the type's precision would differ
            product = self.flagged(b.fmul(c, q), contract=False)
            return self.flagged(b.fsub(a, product), contract=False)
        if op in ("pow", "atan2"):
            return self.transcendental(op, [a, c], dtype)
        if op in ("min", "max"):
            return self.intrinsic(f"llvm.{op}num.{sfx}", t, [a, c])
        raise NotImplementedError(op)

    def int_binary(self, op: str, a, c, dtype) -> ll.Value:
        b, t = self.b, llvm_type(dtype)
        zero, one = ll.Constant(t, 0), ll.Constant(t, 1)
        simple = {
            "add": b.add,
            "sub": b.sub,
            "mul": b.mul,
            "bit_and": b.and_,
            "bit_or": b.or_,
            "bit_xor": b.xor,
            "shl": b.shl,
        }
        if op in simple:
            return simple[op](a, c)
        if op == "shr":
            return b.ashr(a, c) if dtype.is_signed else b.lshr(a, c)
        if op in ("min", "max"):
            symbol = "<" if op == "min" else ">"
            cmp = b.icmp_signed if dtype.is_signed else b.icmp_unsigned
            return b.select(cmp(symbol, a, c), a, c)
        if op in ("floordiv", "mod", "truediv"):
            divisor = getattr(c, "constant", None) if isinstance(c, ll.Constant) else None
            # a constant divisor other than 0 (and -1, if signed) needs no guard: the
            # common case, index arithmetic (``i // 8``), stays four instructions shorter;
            # its bits decide, whichever way the constant's integer was written (-1 or
            # 2**32 - 1 are the same i32)
            all_ones = (1 << dtype.bits) - 1
            bits = divisor & all_ones if isinstance(divisor, int) else None
            guarded = bits in (None, 0) or (dtype.is_signed and bits == all_ones)
            is_zero = b.icmp_unsigned("==", c, zero) if guarded else None
            safe = b.select(is_zero, one, c) if guarded else c
            if not dtype.is_signed:
                result = b.udiv(a, safe) if op != "mod" else b.urem(a, safe)
                return b.select(is_zero, zero, result) if guarded else result
            if guarded:
                # INT_MIN // -1 overflows (x86 traps on it): divide by 1 instead, so the
                # quotient wraps to INT_MIN and the remainder is 0, two's complement.
                minimum = ll.Constant(t, -(1 << (dtype.bits - 1)))
                overflow = b.and_(
                    b.icmp_signed("==", a, minimum), b.icmp_signed("==", c, ll.Constant(t, -1))
                )
                safe = b.select(overflow, one, safe)
            q, r = b.sdiv(a, safe), b.srem(a, safe)
            # Python rounds toward -inf: adjust when the remainder's sign differs.
            adjust = b.and_(
                b.icmp_signed("!=", r, zero),
                b.icmp_signed("!=", b.icmp_signed("<", r, zero), b.icmp_signed("<", safe, zero)),
            )
            if op == "mod":
                result = b.select(adjust, b.add(r, safe), r)
            else:
                result = b.select(adjust, b.sub(q, one), q)
            return b.select(is_zero, zero, result) if guarded else result
        if op == "pow":
            fn = self.int_pow_function(dtype)
            return b.call(fn, [a, c])
        raise NotImplementedError(op)

    def int_pow_function(self, dtype) -> ll.Function:
        """``tin_ipow_<type>(base, exp)`` by squaring. A negative exponent gives the
        exact integer answer where there is one, and 0, as truncating division would,
        elsewhere: 1 for a base of 1, ``(-1)**exp`` for -1, 0 otherwise (debug mode
        stops the launch first, as Taichi does: ``frontend/builder.py``)."""
        name = f"tin_ipow_{dtype.name}"
        existing = self.module.globals.get(name)
        if existing is not None:
            return existing
        t = llvm_type(dtype)
        fn = ll.Function(self.module, ll.FunctionType(t, [t, t]), name)
        fn.linkage = "internal"
        base, exp = fn.args
        entry, loop, done = (fn.append_basic_block(n) for n in ("entry", "loop", "done"))
        b = ll.IRBuilder(entry)
        neg = b.icmp_signed("<", exp, ll.Constant(t, 0)) if dtype.is_signed else ll.Constant(I1, 0)
        negative = self.negative_power(b, base, exp, t) if dtype.is_signed else ll.Constant(t, 0)
        b.cbranch(neg, done, loop)
        b.position_at_end(loop)
        acc = b.phi(t)
        cur = b.phi(t)
        e = b.phi(t)
        odd = b.trunc(e, I1)
        acc2 = b.select(odd, b.mul(acc, cur), acc)
        e2 = b.lshr(e, ll.Constant(t, 1))
        cur2 = b.mul(cur, cur)
        acc.add_incoming(ll.Constant(t, 1), entry)
        acc.add_incoming(acc2, loop)
        cur.add_incoming(base, entry)
        cur.add_incoming(cur2, loop)
        e.add_incoming(exp, entry)
        e.add_incoming(e2, loop)
        b.cbranch(b.icmp_unsigned("==", e2, ll.Constant(t, 0)), done, loop)
        b.position_at_end(done)
        result = b.phi(t)
        result.add_incoming(negative, entry)
        result.add_incoming(acc2, loop)
        b.ret(result)
        return fn

    @staticmethod
    def negative_power(b: ll.IRBuilder, base, exp, t: ll.IntType) -> ll.Value:
        """``base ** exp`` for ``exp < 0`` in integers: 1 for base 1; for base -1, -1
        when ``exp`` is odd and 1 when it is even; 0 for any other base."""
        one, minus_one = ll.Constant(t, 1), ll.Constant(t, -1)
        odd = b.trunc(exp, I1)
        minus = b.select(odd, minus_one, one)
        small = b.select(b.icmp_signed("==", base, minus_one), minus, ll.Constant(t, 0))
        return b.select(b.icmp_signed("==", base, one), one, small)

    def atomic(self, op: str, ptr: ll.Value, value: ll.Value, dtype: types.DataType):
        """``atomicrmw`` of IR op ``op`` (add sub min max bit_*) at ``ptr``: the old value."""
        if dtype.is_float:
            kind = {"add": "fadd", "sub": "fsub", "min": "fmin", "max": "fmax"}.get(op)
            if kind is None:
                raise NotImplementedError(f"atomic {op} on floats")
        else:
            kind = {"add": "add", "sub": "sub", "bit_and": "and", "bit_or": "or"}.get(op)
            kind = kind or {"bit_xor": "xor"}.get(op)
            if op in ("min", "max"):
                kind = op if dtype.is_signed else "u" + op
        return self.b.atomic_rmw(kind, ptr, value, "monotonic")

    # -- unary ---------------------------------------------------------------------
    def unary(self, op: str, a: ll.Value, dtype: types.DataType) -> ll.Value:
        b, t = self.b, llvm_type(dtype)
        if op == "neg":
            return self.flagged(b.fneg(a)) if dtype.is_float else b.neg(a)
        if op == "bit_not":
            return b.not_(a)
        if op == "abs":
            if dtype.is_float:
                return self.intrinsic(f"llvm.fabs.{self.suffix(dtype)}", t, [a])
            if not dtype.is_signed:
                return a
            return self.intrinsic(f"llvm.abs.i{dtype.bits}", t, [a, ll.Constant(I1, 0)])
        if op in ("sqrt", "floor", "ceil", "round"):  # one instruction on every target
            return self.intrinsic(f"llvm.{op}.{self.suffix(dtype)}", t, [a])
        if op == "popcnt":  # ti.math.popcnt / clz: integers only (the frontend checks)
            return self.intrinsic(f"llvm.ctpop.i{dtype.bits}", t, [a])
        if op == "clz":  # of zero: the width, as Taichi's (is_zero_poison false)
            return self.intrinsic(f"llvm.ctlz.i{dtype.bits}", t, [a, ll.Constant(I1, 0)])
        if op in TRANSCENDENTAL:
            return self.transcendental(op, [a], dtype)
        raise NotImplementedError(op)

    def scalar_math(self, op: str, a: ll.Value, dtype: types.DataType) -> ll.Value:
        """``op`` (sin cos exp log tan) as LLVM's intrinsic: never a vector-library
        variant, so the bits do not depend on which lane computed them."""
        return self.intrinsic(f"llvm.{op}.{self.suffix(dtype)}", llvm_type(dtype), [a])

    def transcendental(self, op: str, args: list, dtype: types.DataType) -> ll.Value:
        """``op`` of :data:`TRANSCENDENTAL` (or ``pow``, ``atan2``) on float ``args``.

        On the CPU: LLVM's intrinsics where LLVM has them, else libm. A GPU's variant of
        this part replaces it (codegen/nvptx/device_math.py): some of these intrinsics
        abort NVPTX.
        """
        t = llvm_type(dtype)
        if op == "exp" and dtype.bits == 32:  # no call: vectorises with no slow lanes
            return inline_exp.exp_f32(self.b, self.module, args[0])
        gen = getattr(self.emitter, "gen", None)  # the module generator (absent in bare ones)
        if gen is not None and (op, dtype.bits) in gen.capabilities.vector_math:
            # libm with its vector variant named: the loop vectoriser calls libmvec
            flags = FAST_FLAGS if self.fast_math else ()
            if dtype.bits == 32 and op in vector_math.WIDENED_F32:  # in f64, rounded back
                wide = [self.b.fpext(a, ll.DoubleType()) for a in args]
                fn = vector_math.declare_widened(self.module, op)
                return self.b.fptrunc(self.b.call(fn, wide, fastmath=flags), t)
            fn = vector_math.declare_scalar(self.module, op, dtype.bits)
            return self.b.call(fn, args, fastmath=flags)
        if op in ("sin", "cos", "exp", "log", "tan", "pow"):
            return self.intrinsic(f"llvm.{op}.{self.suffix(dtype)}", t, args)
        if dtype.bits == 16:  # libm has no half functions: call the float one
            wide = [self.b.fpext(a, ll.FloatType()) for a in args]
            return self.b.fptrunc(self.transcendental(op, wide, types.f32), t)
        name = op + ("f" if dtype.bits == 32 else "")
        return self.b.call(declare(self.module, name, t, [t] * len(args)), args)
