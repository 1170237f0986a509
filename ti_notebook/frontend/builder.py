"""Emits typed IR: Taichi's typing rules for literals, promotion and casts live here.

The AST visitors call these methods with *values*: IR statements (typed), or Python
numbers (compile-time constants, typed only when they meet an IR value: ``int`` as
``default_ip``, ``float`` as ``default_fp``, as Taichi does).

    >>> from ti_notebook.ir.options import CompileOptions
    >>> from ti_notebook.ir.nodes import Block
    >>> b = IRBuilder(CompileOptions(), Block())
    >>> b.binary("truediv", b.const(1), b.const(2)).dtype
    f32
"""

from __future__ import annotations

import contextlib
import math
import operator

import numpy as np

from ti_notebook.errors import SourcePos, TiTypeError, TiZeroDivisionError
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.options import CompileOptions
from ti_notebook.lang import types

ARITH = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "min", "max", "atan2"}
BITWISE = {"bit_and", "bit_or", "bit_xor", "shl", "shr"}
COMPARE = {"lt", "le", "gt", "ge", "eq", "ne"}
LOGICAL = {"logical_and", "logical_or"}
FLOAT_ONLY_UNARY = {"sqrt", "sin", "cos", "tan", "exp", "log", "asin", "acos", "atan", "tanh"}

_PY_BINARY = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "pow": operator.pow,
    "min": min,
    "max": max,
    "atan2": math.atan2,
    "bit_and": operator.and_,
    "bit_or": operator.or_,
    "bit_xor": operator.xor,
    "shl": operator.lshift,
    "shr": operator.rshift,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
}


def is_constant(value) -> bool:
    return isinstance(value, (bool, int, float)) and not isinstance(value, ir.Stmt)


class IRBuilder:
    """Appends statements to the current block and types them."""

    def __init__(self, config: CompileOptions, block: ir.Block) -> None:
        self.config = config
        self.blocks: list[ir.Block] = [block]
        self.pos: SourcePos | None = None

    # -- blocks ------------------------------------------------------------------------
    @property
    def block(self) -> ir.Block:
        return self.blocks[-1]

    @contextlib.contextmanager
    def inside(self, block: ir.Block):
        self.blocks.append(block)
        try:
            yield block
        finally:
            self.blocks.pop()

    def emit(self, stmt: ir.Stmt) -> ir.Stmt:
        stmt.pos = self.pos
        return self.block.append(stmt)

    def error(self, cls, message: str, hint: str = ""):
        return cls(message, self.pos, hint)

    # -- values ------------------------------------------------------------------------
    def literal_type(self, value) -> types.DataType:
        if isinstance(value, float):
            return self.config.default_fp
        return self.config.default_ip

    def data_type(self, spec) -> types.DataType:
        """``spec`` as a DataType: ``ti.f32`` itself, or Python's ``float``/``int`` (the
        default types), as every ``dtype`` argument of Taichi's API accepts."""
        found = types.to_dtype(spec, self.config.default_ip, self.config.default_fp)
        if found is None:
            raise self.error(
                TiTypeError, f"{spec!r} is not a type", hint="use e.g. ti.f32, ti.i32 or float"
            )
        return found

    def const(self, value, dtype: types.DataType | None = None) -> ir.ConstStmt:
        """A constant of ``dtype``; without one, a Python literal typed like Taichi."""
        if dtype is not None and not isinstance(dtype, types.DataType):
            dtype = self.data_type(dtype)
        if dtype is None:
            dtype = self.literal_type(value)
            if not dtype.is_float and not _fits(int(value), dtype):
                raise self.error(
                    TiTypeError,
                    f"the integer {value} does not fit in {dtype} (the default integer type)",
                    hint="use ti.init(default_ip=ti.i64), or ti.cast(..., ti.i64) on a "
                    "smaller value",
                )
        if dtype.is_float:
            with np.errstate(over="ignore"):  # 1e300 as f32 is inf, as Taichi makes it
                value = float(dtype.np_dtype.type(value))
        else:
            value = dtype.wrap(int(value))
        return self.emit(ir.ConstStmt(value, dtype))

    def value(self, value, dtype: types.DataType | None = None) -> ir.Stmt:
        """Turns a Python number into a constant statement; checks it is a scalar.

        ``dtype`` types a constant directly (loop bounds); otherwise Python literals get
        the default types, as in Taichi.
        """
        if isinstance(value, ir.Stmt):
            if value.dtype is None:
                raise self.error(TiTypeError, "this expression has no value")
            return value
        if is_constant(value):
            return self.const(value, dtype)
        raise self.error(
            TiTypeError,
            f"a {type(value).__name__} value cannot be used in a kernel expression",
            hint="kernels compute with numbers (ti.i32, ti.f32...), fields and vectors",
        )

    def cast(self, value, dtype: types.DataType, *, exact_literal: bool = False) -> ir.Stmt:
        """``value`` as ``dtype``. A Python number first takes its default type
        (``default_fp``/``default_ip``), as Taichi types literals, then converts: ``x +
        0.1`` with an f64 ``x`` adds the f32 0.1, as in Taichi. ``exact_literal``: the
        number converts once, straight to ``dtype`` (``ti.f64(0.1)``, a typed
        constructor: Taichi keeps the double there)."""
        if not isinstance(dtype, types.DataType):
            dtype = self.data_type(dtype)  # float, int, np.float32...
        if exact_literal and is_constant(value):
            return self._typed_literal(value, dtype)
        value = self.value(value)
        if value.dtype is dtype:
            return value
        if isinstance(value, ir.ConstStmt):
            converted = np.array(value.value, dtype=value.dtype.np_dtype)
            with np.errstate(all="ignore"):
                return self.const(converted.astype(dtype.np_dtype).item(), dtype)
        return self.emit(ir.CastStmt(value, dtype))

    def _typed_literal(self, value, dtype: types.DataType) -> ir.ConstStmt:
        """A Python number converted once to ``dtype``: ``ti.f64(0.1)`` keeps the double
        0.1 (through ``default_fp`` it would be rounded to f32 first, and 1e300 become
        inf)."""
        if dtype.is_float:
            try:
                return self.const(float(value), dtype)
            except OverflowError:  # an int beyond any double: inf, as a cast gives
                return self.const(math.copysign(math.inf, value), dtype)
        if isinstance(value, float):  # float to int truncates (NaN/inf: as a cast does)
            with np.errstate(all="ignore"):
                value = np.array(value).astype(dtype.np_dtype).item()
        return self.const(int(value), dtype)

    # -- operations --------------------------------------------------------------------
    def binary(self, op: str, lhs, rhs):
        if is_constant(lhs) and is_constant(rhs):
            try:
                return _fold_python(op, lhs, rhs)
            except ZeroDivisionError:
                raise self.error(
                    TiZeroDivisionError,
                    f"division by zero in constants ({lhs!r} {_SYMBOLS.get(op, op)} {rhs!r})",
                    hint="the divisor is a constant zero; a kernel value divided by zero at "
                    "run time gives 0 for integers and inf/nan for floats",
                ) from None
        if op in LOGICAL:
            a = self.truth(lhs)
            b = self.truth(rhs)
            return self.emit(ir.BinaryOpStmt(op, a, b, types.i32))
        lt = self.value(lhs).dtype if not is_constant(lhs) else self.literal_type(lhs)
        rt = self.value(rhs).dtype if not is_constant(rhs) else self.literal_type(rhs)
        if op in BITWISE and (lt.is_float or rt.is_float):
            raise self.error(
                TiTypeError,
                f"bit operation '{op}' needs integers, got {lt} and {rt}",
                hint="cast with ti.cast(x, ti.i32) first",
            )
        if op == "pow" and not rt.is_float:
            return self._integral_power(lhs, rhs, lt, rt)
        if op in ("shl", "shr"):
            dtype = lt
        elif op in ("truediv", "atan2"):
            # an integer operand counts as default_fp (Taichi's rule: i32 / f16 is f32);
            # it converts straight to the result type, so f64 / i32 keeps every bit of
            # the integer (Taichi rounds it through f32 first)
            fp = self.config.default_fp
            dtype = types.promote(lt if lt.is_float else fp, rt if rt.is_float else fp)
        else:
            dtype = types.promote(lt, rt)
        a, b = self.cast(lhs, dtype), self.cast(rhs, dtype)
        result = types.i32 if op in COMPARE else dtype
        return self.emit(ir.BinaryOpStmt(op, a, b, result))

    def _integral_power(self, lhs, rhs, lt: types.DataType, rt: types.DataType) -> ir.Stmt:
        """``x ** n`` with an integer ``n`` has the base's type (Taichi's rule). An integer
        power is computed in the promoted type, which keeps the exponent's value, and
        wrapped to the base's type (the low bits of a product depend only on the
        operands' low bits). A float power takes the sign from the exponent's parity:
        the exponent as a float may be rounded to an even number (2**63 - 1 -> 2**63)."""
        if not lt.is_float:
            dtype = types.promote(lt, rt)
            a, b = self.cast(lhs, dtype), self.cast(rhs, dtype)
            if dtype.is_signed and self.config.debug:
                self._check_exponent(rhs, b)
            return self.cast(self.emit(ir.BinaryOpStmt("pow", a, b, dtype)), lt)
        base = self.cast(lhs, lt)
        mantissa = {16: 11, 32: 24, 64: 53}[lt.bits]
        if is_constant(rhs):  # even, or held exactly by the float type: pow is right
            exact = rhs % 2 == 0 or abs(rhs) <= 1 << mantissa
        else:
            exact = rt.bits - rt.is_signed <= mantissa
        if exact:
            return self.emit(ir.BinaryOpStmt("pow", base, self.cast(rhs, lt), lt))
        magnitude = self.binary("pow", self.unary("abs", base), self.cast(rhs, lt))
        flip = self.binary("lt", base, self.cast(0, lt))
        if not is_constant(rhs):
            odd = self.binary("ne", self.binary("bit_and", rhs, self.cast(1, rt)), 0)
            flip = self.binary("logical_and", odd, flip)
        return self.select(flip, self.unary("neg", magnitude), magnitude)

    def _check_exponent(self, rhs, exponent: ir.Stmt) -> None:
        """Debug mode: an integer power's exponent must not be negative (Taichi's
        check); without debug the power is exact where it can be (codegen/arithmetic.py)."""
        if is_constant(rhs) and rhs >= 0:
            return
        ok = self.binary("ge", exponent, 0)
        message = "negative exponent in pow(int, int) is not allowed"
        self.emit(ir.AssertStmt(ok, message, [exponent], kind="assert"))

    def truth(self, value) -> ir.Stmt:
        """A value as 0/1 i32 (Python truthiness of numbers)."""
        value = self.value(value)
        if value.dtype is types.i32 and _is_boolean(value):
            return value
        return self.binary("ne", value, 0.0 if value.dtype.is_float else 0)

    def unary(self, op: str, operand):
        if is_constant(operand):
            return _fold_unary(op, operand)
        operand = self.value(operand)
        dtype = operand.dtype
        if op == "bit_not" and dtype.is_float:
            raise self.error(TiTypeError, f"'~' needs an integer, got {dtype}")
        if op == "logical_not":
            return self.binary("eq", operand, 0.0 if dtype.is_float else 0)
        if op in FLOAT_ONLY_UNARY and not dtype.is_float:
            operand = self.cast(operand, self.config.default_fp)
            dtype = operand.dtype
        if op in ("floor", "ceil", "round") and not dtype.is_float:
            return operand
        return self.emit(ir.UnaryOpStmt(op, operand, dtype))

    def select(self, cond, a, b) -> ir.Stmt:
        cond = self.truth(cond)
        at = a.dtype if isinstance(a, ir.Stmt) else self.literal_type(a)
        bt = b.dtype if isinstance(b, ir.Stmt) else self.literal_type(b)
        dtype = types.promote(at, bt)
        return self.emit(ir.SelectStmt(cond, self.cast(a, dtype), self.cast(b, dtype), dtype))


def _is_boolean(stmt: ir.Stmt) -> bool:
    return isinstance(stmt, ir.BinaryOpStmt) and stmt.op in COMPARE | LOGICAL


def _fits(value: int, dtype: types.DataType) -> bool:
    if dtype.is_signed:
        return -(1 << (dtype.bits - 1)) <= value < 1 << (dtype.bits - 1)
    return 0 <= value < 1 << dtype.bits


_SYMBOLS = {"floordiv": "//", "mod": "%", "truediv": "/"}


def _fold_python(op: str, a, b):
    if op == "logical_and":
        return a and b
    if op == "logical_or":
        return a or b
    if op in ("floordiv", "mod", "truediv") and b == 0:
        raise ZeroDivisionError
    result = _PY_BINARY[op](a, b)
    return int(result) if isinstance(result, bool) else result


def _fold_unary(op: str, a):
    table = {
        "neg": operator.neg,
        "bit_not": operator.invert,
        "logical_not": lambda v: int(not v),
        "abs": abs,
        "sqrt": math.sqrt,
        "sin": math.sin,
        "cos": math.cos,
        "tan": math.tan,
        "exp": math.exp,
        "log": math.log,
        "tanh": math.tanh,
        "asin": math.asin,
        "acos": math.acos,
        "atan": math.atan,
        "floor": lambda v: float(math.floor(v)) if isinstance(v, float) else v,
        "ceil": lambda v: float(math.ceil(v)) if isinstance(v, float) else v,
        "round": lambda v: float(round(v)) if isinstance(v, float) else v,
    }
    try:
        return table[op](a)
    except ValueError:  # out of the domain (sqrt(-1), asin(2)): NaN, as the machine gives
        return math.nan
