"""Statements: assignment, if, while, break/continue, return, print-as-statement.

Taichi's local-variable rules: the first assignment to a name declares a local in the
current block, typed by its value; later assignments cast to that type; a local
declared inside a block is gone after the block ends.
"""

from __future__ import annotations

import ast
import warnings

from ti_notebook.errors import TiPrecisionWarning, TiSyntaxError, TiTypeError
from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.matrices import is_matrix_field
from ti_notebook.frontend.values import (
    ComponentPointers,
    LoopIndex,
    NdarrayArg,
    Slots,
    Vector,
    VectorVariable,
)
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import types

_AUG_OPS = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "truediv",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.BitAnd: "bit_and",
    ast.BitOr: "bit_or",
    ast.BitXor: "bit_xor",
    ast.LShift: "shl",
    ast.RShift: "shr",
}
# Augmented assignments that are atomic, as in Taichi.
_ATOMIC_AUG = {"add", "sub", "bit_and", "bit_or", "bit_xor"}


class StatementsMixin:
    # -- simple statements ----------------------------------------------------------
    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and (
            isinstance(node.value.value, str) or node.value.value is Ellipsis
        ):
            return  # a docstring, or '...' as a placeholder body
        self.expr(node.value)

    def stmt_Assign(self, node: ast.Assign) -> None:
        value = self.expr(node.value)
        for target in node.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        annotation = self.static_eval(node.annotation)
        dtype = types.to_dtype(annotation, self.config.default_ip, self.config.default_fp)
        if dtype is None or not isinstance(node.target, ast.Name):
            raise self.error(TiTypeError, node, "a local annotation must name a scalar type")
        if node.value is None:
            raise self.error(TiSyntaxError, node, "an annotated local needs a value")
        name = node.target.id
        if self.find_local(name) is not _missing():
            raise self.error(TiSyntaxError, node, f"'{name}' is already declared")
        self.declare(name, self.builder.cast(self.expr(node.value), dtype))

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        op = _AUG_OPS.get(type(node.op))
        if op is None:
            raise self.unsupported(node, f"the operator {type(node.op).__name__}=")
        value = self.expr(node.value)
        target = node.target
        slot = self.lvalue(target)
        if slot is None:  # not a local or an element: assign() says what is wrong
            self.assign(target, self.binary(op, self.expr(target), value, node))
            return
        if op in _ATOMIC_AUG:
            # Taichi: '+=' is atomic, on fields and also on a kernel-scope local that a
            # parallel loop updates; codegen demotes it where no other thread sees it.
            self.atomic_update(op, slot, value, target)
            return
        self.store(slot, self.binary(op, self.load(slot), value, node), target)

    # -- assignment -----------------------------------------------------------------
    @property
    def config(self):
        return self.state.config

    def declare(self, name: str, value) -> None:
        b = self.builder
        if isinstance(value, Vector):
            allocas = []
            for item in value:
                alloca = b.emit(ir.AllocaStmt(b.value(item).dtype, name))
                b.emit(ir.LocalStoreStmt(alloca, b.value(item)))
                allocas.append(alloca)
            self.bind(name, VectorVariable(allocas, value.shape))
        elif isinstance(value, ir.Stmt) or is_constant(value):
            value = b.value(value)
            alloca = b.emit(ir.AllocaStmt(value.dtype, name))
            b.emit(ir.LocalStoreStmt(alloca, value))
            self.bind(name, alloca)
        else:
            # Fields, ndarrays, funcs, tuples...: a compile-time alias.
            self.bind(name, value)

    def assign(self, target: ast.expr, value) -> None:
        if isinstance(target, ast.Name):
            current = self.find_local(target.id)
            if isinstance(current, (ir.AllocaStmt, VectorVariable)):
                self.store(self.lvalue(target), value, target)
            elif isinstance(current, LoopIndex):
                raise self.error(
                    TiSyntaxError,
                    target,
                    f"cannot assign to loop variable '{target.id}'",
                    f"copy it first: 'k = {target.id}', then change k",
                )
            elif current is _missing():
                self.declare(target.id, value)
            else:
                raise self.error(
                    TiSyntaxError,
                    target,
                    f"'{target.id}' is a compile-time value and cannot be assigned in a kernel",
                    "use a new local name",
                )
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = self.unpack(value, len(target.elts), target)
            for element, item in zip(target.elts, items, strict=True):
                self.assign(element, item)
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            self.store(self.lvalue(target), value, target)
        else:
            raise self.unsupported(target, f"assigning to '{ast.unparse(target)}'")

    def unpack(self, value, count: int, node: ast.AST) -> list:
        if isinstance(value, (tuple, list, Vector)):
            items = list(value)
        else:
            raise self.error(TiTypeError, node, f"cannot unpack a scalar into {count} names")
        if len(items) != count:
            raise self.error(
                TiTypeError, node, f"cannot unpack {len(items)} values into {count} names"
            )
        return items

    def as_vector(self, value, count: int, node: ast.AST) -> list:
        if isinstance(value, (Vector, tuple, list)):
            return self.unpack(value, count, node)
        return [value] * count

    def lvalue(self, node: ast.expr):
        """What an assignment target names: one pointer or alloca, or a vector's Slots.

        None for a name that is not a local variable (``assign`` reports those).
        """
        if isinstance(node, ast.Name):
            local = self.find_local(node.id)
            if isinstance(local, VectorVariable):
                return Slots(local.allocas, local.shape)
            return local if isinstance(local, ir.AllocaStmt) else None
        if not isinstance(node, (ast.Subscript, ast.Attribute)):
            raise self.unsupported(node, f"assigning to '{ast.unparse(node)}'")
        nested = isinstance(node.value, (ast.Name, ast.Subscript))
        inner = self.lvalue(node.value) if nested else None
        if isinstance(node, ast.Attribute):
            if not isinstance(inner, Slots):
                raise self.error(
                    TiSyntaxError,
                    node,
                    f"cannot assign to '{ast.unparse(node)}': '{ast.unparse(node.value)}' is "
                    "not a vector",
                    "only the .x/.y/.z/.w components of a local vector or of a vector "
                    "field's element can be assigned",
                )
            return self.component_slot(inner, node)
        if isinstance(inner, Slots):  # d[1], v[i][k], m[i][r, c], M[r]
            return self.select_slots(inner, node)
        if inner is not None:
            raise self.error(
                TiTypeError,
                node.value,
                f"'{ast.unparse(node.value)}' is a scalar and cannot be indexed",
                "only vectors, matrices, fields and ndarrays take [index]",
            )
        base = self.expr(node.value)
        indices = self.index_values(node.slice)
        if is_matrix_field(base):
            components = base.components
            pointers = ComponentPointers(
                lambda k: self.subscript_pointer(components[k], indices, node), len(components)
            )
            return Slots(pointers, base.element_shape)
        return self.subscript_pointer(base, indices, node)

    def load(self, slot):
        """The current value of an lvalue."""
        b = self.builder
        if isinstance(slot, Slots):
            return Vector([self.load(item) for item in slot.items], slot.shape)
        if isinstance(slot, ir.AllocaStmt):
            return b.emit(ir.LocalLoadStmt(slot))
        return b.emit(ir.GlobalLoadStmt(slot))

    def store(self, slot, value, node: ast.expr) -> None:
        """``slot = value``, cast to the slot's type; a scalar fills every component."""
        b = self.builder
        if isinstance(slot, Slots):
            self.check_shape(slot, value, node)
            parts = self.as_vector(value, len(slot.items), node)
            for item, part in zip(slot.items, parts, strict=True):
                self.store(item, part, node)
            return
        if isinstance(value, (Vector, tuple, list)):
            raise self.error(TiTypeError, node, "cannot store a vector into a scalar")
        self.check_scalar(value, node)
        if isinstance(slot, ir.AllocaStmt):
            self.warn_if_narrowing(value, slot, node)
            b.emit(ir.LocalStoreStmt(slot, b.cast(value, slot.dtype)))
        else:
            b.emit(ir.GlobalStoreStmt(slot, b.cast(value, slot.dtype)))

    def warn_if_narrowing(self, value, slot: ir.AllocaStmt, node: ast.expr) -> None:
        """Taichi's precision warning: a float stored into an integer local (or a wider
        float into a narrower one) loses digits; the local keeps its first type."""
        target = slot.dtype
        if isinstance(value, float):
            lossy = not target.is_float and not value.is_integer()
            source = "a float"
        elif isinstance(value, ir.Stmt) and value.dtype is not None and value.dtype.is_float:
            lossy = not target.is_float or value.dtype.bits > target.bits
            source = str(value.dtype)
        else:
            return
        if not lossy:
            return
        pos = self.source.pos(node, self.state.name)
        warnings.warn_explicit(
            f"kernel '{self.state.name}': assigning {source} to the {target} local "
            f"'{getattr(slot, 'name', '')}' may lose precision; a local keeps the type of "
            f"its first value (write ti.cast(..., {target}), or start it as a float)",
            TiPrecisionWarning,
            pos.filename,
            pos.lineno,
        )

    def atomic_update(self, op: str, slot, value, node: ast.expr):
        """An atomic ``op`` on an lvalue; the old value (a Vector for Slots)."""
        if isinstance(slot, Slots):
            self.check_shape(slot, value, node)
            parts = self.as_vector(value, len(slot.items), node)
            pairs = zip(slot.items, parts, strict=True)
            return Vector([self.atomic(op, item, part) for item, part in pairs], slot.shape)
        if isinstance(value, (Vector, tuple, list)):
            raise self.error(TiTypeError, node, "cannot apply a vector to a scalar")
        self.check_scalar(value, node)
        return self.atomic(op, slot, value)

    def check_shape(self, slots: Slots, value, node: ast.expr) -> None:
        if isinstance(value, Vector) and value.shape != slots.shape:
            raise self.error(
                TiTypeError,
                node,
                f"cannot assign a value of shape {value.shape} to one of shape {slots.shape}",
            )

    def atomic(self, op: str, ptr: ir.Stmt, value) -> ir.Stmt:
        b = self.builder
        if op in ("bit_and", "bit_or", "bit_xor") and ptr.dtype.is_float:
            name = {"bit_and": "atomic_and", "bit_or": "atomic_or", "bit_xor": "atomic_xor"}
            raise b.error(
                TiTypeError,
                f"ti.{name[op]} needs an integer destination, got {ptr.dtype}",
                hint="bit operations work on integer fields and locals (ti.i32, ti.u32...)",
            )
        return b.emit(ir.AtomicOpStmt(op, ptr, b.cast(value, ptr.dtype)))

    # -- control flow ---------------------------------------------------------------
    def stmt_If(self, node: ast.If) -> None:
        static = self.static_condition(node.test)
        if static is not None:
            self.run_block(node.body if static else node.orelse)
            return
        cond = self.condition(node.test)
        if_stmt = self.builder.emit(ir.IfStmt(cond))
        self.state.depth += 1
        try:
            with self.builder.inside(if_stmt.true_block):
                self.run_block(node.body)
            with self.builder.inside(if_stmt.false_block):
                self.run_block(node.orelse)
        finally:
            self.state.depth -= 1

    def stmt_While(self, node: ast.While) -> None:
        if node.orelse:
            raise self.unsupported(node, "'while ... else'")
        loop = self.builder.emit(ir.WhileStmt())
        self.state.depth += 1
        self.state.loops.append((loop, False))
        try:
            with self.builder.inside(loop.body):
                cond = self.condition(node.test)
                exit_if = self.builder.emit(ir.IfStmt(self.builder.unary("logical_not", cond)))
                with self.builder.inside(exit_if.true_block):
                    self.builder.emit(ir.BreakStmt())
                self.run_block(node.body)
        finally:
            self.state.loops.pop()
            self.state.depth -= 1

    def condition(self, test: ast.expr) -> ir.Stmt:
        """An if/while condition: an integer (comparisons give i32), as Taichi requires."""
        value = self.expr(test)
        self.check_scalar(value, test)
        stmt = self.builder.value(value)
        if stmt.dtype.is_float:
            raise self.error(
                TiTypeError,
                test,
                f"a condition must be an integer, but this one is {stmt.dtype}",
                f"compare explicitly, e.g. '{ast.unparse(test)} != 0'",
            )
        return self.builder.truth(stmt)

    def stmt_Break(self, node: ast.Break) -> None:
        self.check_in_loop(node, "break")
        loop, parallel = self.state.loops[-1]
        if parallel:
            raise self.error(
                TiSyntaxError,
                node,
                "'break' in an outermost (parallel) for loop",
                "iterations of a parallel loop run at once; add "
                "'ti.loop_config(serialize=True)' before the loop to run it serially",
            )
        self.builder.emit(ir.BreakStmt())

    def stmt_Continue(self, node: ast.Continue) -> None:
        self.check_in_loop(node, "continue")
        self.builder.emit(ir.ContinueStmt())

    def check_in_loop(self, node: ast.AST, word: str) -> None:
        if not self.state.loops or self.state.loops[-1][0] == "static":
            raise self.error(
                TiSyntaxError,
                node,
                f"'{word}' outside a loop" if not self.state.loops else f"'{word}' in ti.static",
                "ti.static loops are unrolled at compile time; use a plain range",
            )

    def stmt_Return(self, node: ast.Return) -> None:
        if not self.is_kernel:
            self.func_return_statement(node)
            return
        if self.state.depth != 0:
            raise self.error(
                TiSyntaxError,
                node,
                "'return' inside a loop or if of a kernel",
                "store the result in a local and return it at the end of the kernel",
            )
        if self.state.return_type is None:
            if node.value is None:
                self.state.returned = True
                return
            raise self.error(
                TiTypeError,
                node,
                "this kernel returns a value but has no return annotation",
                "annotate it, e.g. 'def f() -> ti.i32:'",
            )
        if node.value is None:
            raise self.error(TiTypeError, node, "this kernel must return a value")
        value = self.expr(node.value)
        if isinstance(value, (Vector, tuple, list)):
            raise self.error(TiTypeError, node.value, "kernels return one scalar value")
        value = self.builder.cast(value, self.state.return_type)
        self.builder.emit(ir.ReturnStmt(value))
        self.state.returned = True

    def stmt_Assert(self, node: ast.Assert) -> None:
        if not self.config.debug:
            return
        cond = self.builder.truth(self.expr(node.test))
        message = "assertion failed"
        if node.msg is not None:
            msg = self.static_eval(node.msg)
            message = str(msg)
        self.builder.emit(ir.AssertStmt(cond, message, [], kind="assert"))

    def ndarray_of(self, value) -> NdarrayArg | None:
        return value if isinstance(value, NdarrayArg) else None


def _missing():
    from ti_notebook.frontend.values import MISSING as _MISSING

    return _MISSING
