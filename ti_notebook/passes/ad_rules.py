"""The derivative of every differentiable statement, for both autodiff modes.

:func:`partials` gives, for a float statement ``s = f(a, b, ...)``, each operand with
its partial derivative ``∂s/∂operand`` as IR computed from the primal values; the
reverse pass (``make_adjoint``) accumulates ``adjoint(s) * ∂s/∂a`` into ``a``'s adjoint,
the forward pass (``make_dual``) sums ``∂s/∂a * dual(a)``. A factor of ``1.0`` or
``-1.0`` (a Python float) is a sign, so ``add`` and ``neg`` cost no multiplication.

    >>> from ti_notebook.ir import nodes as ir
    >>> from ti_notebook.ir.types import f64
    >>> x = ir.ConstStmt(2.0, f64)
    >>> s = ir.UnaryOpStmt("sin", x, f64)
    >>> block = ir.Block()
    >>> [(operand is x, factor.op) for operand, factor in partials(s, lambda v: v, Math(block))]
    [(True, 'cos')]
"""

from __future__ import annotations

from ti_notebook.errors import TiNotImplementedError
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.types import DataType, i32

# ops whose result does not change with their operands (almost everywhere)
_FLAT_UNARY = frozenset({"floor", "ceil", "round"})
_FLAT_BINARY = frozenset({"floordiv"})


class Math:
    """Emits float arithmetic into ``block`` (at ``pos``)."""

    def __init__(self, block: ir.Block, pos=None) -> None:
        self.block, self.pos = block, pos

    def emit(self, stmt: ir.Stmt) -> ir.Stmt:
        stmt.pos = self.pos
        return self.block.append(stmt)

    def const(self, value: float, dtype: DataType) -> ir.Stmt:
        return self.emit(ir.ConstStmt(value, dtype))

    def bin(self, op: str, a: ir.Stmt, b: ir.Stmt) -> ir.Stmt:
        return self.emit(ir.BinaryOpStmt(op, a, b, a.dtype))

    def un(self, op: str, a: ir.Stmt) -> ir.Stmt:
        return self.emit(ir.UnaryOpStmt(op, a, a.dtype))

    def cmp(self, op: str, a: ir.Stmt, b: ir.Stmt) -> ir.Stmt:
        return self.emit(ir.BinaryOpStmt(op, a, b, i32))

    def select(self, cond: ir.Stmt, a: ir.Stmt, b: ir.Stmt) -> ir.Stmt:
        return self.emit(ir.SelectStmt(cond, a, b, a.dtype))

    def scale(self, value: ir.Stmt, factor) -> ir.Stmt:
        """``value * factor`` where ``factor`` is a statement, 1.0 or -1.0."""
        if factor == 1.0 and not isinstance(factor, ir.Stmt):
            return value
        if not isinstance(factor, ir.Stmt):
            return self.un("neg", value)
        return self.bin("mul", value, factor)


def differentiable(stmt: ir.Stmt) -> bool:
    """Whether ``stmt`` has a float value that can carry a derivative."""
    return stmt.dtype is not None and stmt.dtype.is_float


def partials(stmt: ir.Stmt, primal, m: Math) -> list[tuple[ir.Stmt, object]]:
    """``[(operand, ∂stmt/∂operand), ...]`` for a float value statement; ``primal``
    maps an original statement to its value where the code is emitted. Operands that
    are not floats (a select's condition, an int cast to float) are left out."""
    p = primal
    dt = stmt.dtype
    if isinstance(stmt, ir.UnaryOpStmt):
        return [(stmt.operand, _unary(stmt.op, p(stmt.operand), p(stmt), m, stmt))]
    if isinstance(stmt, ir.BinaryOpStmt):
        if not dt.is_float or stmt.op in _FLAT_BINARY:
            return []
        return _binary(stmt, p(stmt.lhs), p(stmt.rhs), p(stmt), m)
    if isinstance(stmt, ir.CastStmt):
        if stmt.bitcast or not stmt.operand.dtype.is_float or not dt.is_float:
            return []
        return [(stmt.operand, 1.0)]  # the caller casts the derivative to the operand's type
    if isinstance(stmt, ir.SelectStmt):
        cond = p(stmt.cond)
        one, zero = m.const(1.0, dt), m.const(0.0, dt)
        return [
            (stmt.true_value, m.select(cond, one, zero)),
            (stmt.false_value, m.select(cond, zero, one)),
        ]
    return []


def _unary(op: str, x: ir.Stmt, s: ir.Stmt, m: Math, stmt: ir.Stmt):
    dt = x.dtype
    one = lambda: m.const(1.0, dt)  # noqa: E731 - emitted only where a rule needs it
    if op == "neg":
        return -1.0
    if op == "abs":
        zero = m.const(0.0, dt)
        sign = m.select(m.cmp("gt", x, zero), one(), zero)
        return m.select(m.cmp("lt", x, zero), m.const(-1.0, dt), sign)
    if op == "sqrt":  # 1 / (2 sqrt(x))
        return m.bin("truediv", m.const(0.5, dt), s)
    if op == "sin":
        return m.un("cos", x)
    if op == "cos":
        return m.un("neg", m.un("sin", x))
    if op == "tan":  # 1 + tan²
        return m.bin("add", one(), m.bin("mul", s, s))
    if op == "exp":
        return s
    if op == "log":
        return m.bin("truediv", one(), x)
    if op in ("asin", "acos"):  # ±1 / sqrt(1 - x²)
        root = m.un("sqrt", m.bin("sub", one(), m.bin("mul", x, x)))
        d = m.bin("truediv", one(), root)
        return d if op == "asin" else m.un("neg", d)
    if op == "atan":
        return m.bin("truediv", one(), m.bin("add", one(), m.bin("mul", x, x)))
    if op == "tanh":
        return m.bin("sub", one(), m.bin("mul", s, s))
    if op in _FLAT_UNARY:
        return m.const(0.0, dt)
    raise TiNotImplementedError(
        f"autodiff: the derivative of '{op}' is not defined", stmt.pos, hint="write it by hand"
    )


def _binary(stmt: ir.BinaryOpStmt, a: ir.Stmt, b: ir.Stmt, s: ir.Stmt, m: Math) -> list:
    op, dt = stmt.op, stmt.dtype
    lhs, rhs = stmt.lhs, stmt.rhs
    if op == "add":
        return [(lhs, 1.0), (rhs, 1.0)]
    if op == "sub":
        return [(lhs, 1.0), (rhs, -1.0)]
    if op == "mul":
        return [(lhs, b), (rhs, a)]
    if op == "truediv":  # d/da = 1/b, d/db = -s/b
        inverse = m.bin("truediv", m.const(1.0, dt), b)
        return [(lhs, inverse), (rhs, m.un("neg", m.bin("mul", s, inverse)))]
    if op == "pow":  # b a^(b-1); s log(a), taken as 0 where a <= 0 (a constant b there)
        found = []
        if _varies(lhs):
            found.append((lhs, m.bin("mul", b, _lower_power(a, rhs, b, m))))
        if _varies(rhs):
            zero = m.const(0.0, dt)
            positive = m.cmp("gt", a, zero)
            safe = m.select(positive, a, m.const(1.0, dt))
            found.append((rhs, m.select(positive, m.bin("mul", s, m.un("log", safe)), zero)))
        return found
    if op in ("min", "max"):  # the chosen operand gets it all (the left one on a tie)
        pick = m.cmp("le" if op == "min" else "ge", a, b)
        one, zero = m.const(1.0, dt), m.const(0.0, dt)
        return [(lhs, m.select(pick, one, zero)), (rhs, m.select(pick, zero, one))]
    if op == "atan2":  # atan2(y, x): (x, -y) / (x² + y²)
        r2 = m.bin("add", m.bin("mul", a, a), m.bin("mul", b, b))
        return [(lhs, m.bin("truediv", b, r2)), (rhs, m.un("neg", m.bin("truediv", a, r2)))]
    if op == "mod":  # a - floor(a / b) b
        return [(lhs, 1.0), (rhs, m.un("neg", m.un("floor", m.bin("truediv", a, b))))]
    return []  # comparisons and bit operations: no float result


def _lower_power(a: ir.Stmt, exponent: ir.Stmt, b: ir.Stmt, m: Math) -> ir.Stmt:
    """``a ** (b - 1)``; for a constant exponent (``x ** 2``: the usual case) the lowered
    exponent is a constant too, and ``a`` itself for 2, so the grad kernel's IR reads
    ``2.0 * a`` rather than ``pow(a, 2.0 - 1.0)``."""
    if isinstance(exponent, ir.ConstStmt) and not isinstance(exponent.value, bool):
        lower = exponent.value - 1
        if lower == 1:
            return a
        return m.bin("pow", a, m.const(lower, exponent.dtype))
    return m.bin("pow", a, m.bin("sub", b, m.const(1.0, a.dtype)))


def _varies(stmt: ir.Stmt) -> bool:
    return not isinstance(stmt, ir.ConstStmt)
