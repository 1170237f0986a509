"""Expressions: names, literals, operators, comparisons, subscripts, attributes."""

from __future__ import annotations

import ast

from ti_notebook.errors import TiIndexError, TiRuntimeError, TiSyntaxError, TiTypeError
from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.matrices import is_matrix_field
from ti_notebook.frontend.values import LoopIndex, NdarrayArg, Vector, VectorVariable
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import types
from ti_notebook.lang.field import Field

BINARY_OPS = {
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
COMPARE_OPS = {
    ast.Lt: "lt",
    ast.LtE: "le",
    ast.Gt: "gt",
    ast.GtE: "ge",
    ast.Eq: "eq",
    ast.NotEq: "ne",
}
UNARY_OPS = {ast.USub: "neg", ast.Invert: "bit_not", ast.Not: "logical_not"}


class ExpressionsMixin:
    def expr_Constant(self, node: ast.Constant):
        if isinstance(node.value, (bool, int, float, str)) or node.value is None:
            return node.value
        raise self.unsupported(node, f"the constant {node.value!r}")

    def expr_Name(self, node: ast.Name):
        value = self.lookup(node.id, node)
        return self.read(value)

    def read(self, value):
        """A binding's current value: locals are loaded, everything else passes."""
        b = self.builder
        if isinstance(value, ir.AllocaStmt):
            return b.emit(ir.LocalLoadStmt(value))
        if isinstance(value, VectorVariable):
            return Vector([b.emit(ir.LocalLoadStmt(a)) for a in value.allocas], value.shape)
        if isinstance(value, LoopIndex):
            return value.stmt
        return value

    def expr_Tuple(self, node: ast.Tuple):
        return tuple(self.expr(e) for e in node.elts)

    def expr_List(self, node: ast.List):
        return [self.expr(e) for e in node.elts]

    def expr_Attribute(self, node: ast.Attribute):
        base = self.expr(node.value)
        if isinstance(base, NdarrayArg):
            if node.attr == "shape":
                b = self.builder
                return tuple(
                    b.emit(ir.ExternalShapeStmt(base.arg_index, axis, types.i32))
                    for axis in range(base.ndim)
                )
            if node.attr == "dtype":
                return base.dtype
            raise self.error(TiSyntaxError, node, f"ndarray arguments have no '.{node.attr}'")
        if isinstance(base, Vector):
            return self.matrix_attribute(base, node)
        if isinstance(base, ir.Stmt):
            raise self.error(TiSyntaxError, node, f"a kernel value has no attribute '{node.attr}'")
        try:
            value = getattr(base, node.attr)
        except AttributeError:
            raise self.error(
                TiSyntaxError, node, f"'{ast.unparse(node.value)}' has no attribute '{node.attr}'"
            ) from None
        self.state.reads.attribute(base, node.attr, value, node)  # Params.scale, cfg.N
        return value

    # -- operators --------------------------------------------------------------------
    def expr_BinOp(self, node: ast.BinOp):
        if isinstance(node.op, ast.MatMult):
            return self.matmul(self.expr(node.left), self.expr(node.right), node)
        op = BINARY_OPS.get(type(node.op))
        if op is None:
            raise self.unsupported(node, f"the operator {type(node.op).__name__}")
        return self.binary(op, self.expr(node.left), self.expr(node.right), node)

    def binary(self, op: str, lhs, rhs, node: ast.AST):
        if isinstance(lhs, Vector) or isinstance(rhs, Vector):
            if isinstance(lhs, Vector) and isinstance(rhs, Vector) and lhs.shape != rhs.shape:
                raise self.error(
                    TiTypeError,
                    node,
                    f"cannot apply '{op}' to a vector of shape {lhs.shape} and one of shape "
                    f"{rhs.shape}",
                    "element-wise operations need operands of the same shape",
                )
            size = len(lhs) if isinstance(lhs, Vector) else len(rhs)
            left = self.as_vector(lhs, size, node)
            right = self.as_vector(rhs, size, node)
            shape = lhs.shape if isinstance(lhs, Vector) else rhs.shape
            pairs = zip(left, right, strict=True)
            return Vector([self.binary(op, a, b, node) for a, b in pairs], shape)
        for side in (lhs, rhs):
            self.check_scalar(side, node)
        return self.builder.binary(op, lhs, rhs)

    def check_scalar(self, value, node: ast.AST) -> None:
        if isinstance(value, ir.Stmt) or is_constant(value):
            return
        what = type(value).__name__
        if isinstance(value, Field):
            what = f"field '{value.name}' (index it: x[i])"
        raise self.error(
            TiTypeError,
            node,
            f"unsupported operand: {what}",
            "kernel arithmetic works on numbers; index fields and arrays first",
        )

    def expr_UnaryOp(self, node: ast.UnaryOp):
        operand = self.expr(node.operand)
        if isinstance(node.op, ast.UAdd):
            return operand
        op = UNARY_OPS[type(node.op)]
        if isinstance(operand, Vector):
            return Vector([self.builder.unary(op, v) for v in operand], operand.shape)
        self.check_scalar(operand, node)
        return self.builder.unary(op, operand)

    def expr_BoolOp(self, node: ast.BoolOp):
        op = "logical_and" if isinstance(node.op, ast.And) else "logical_or"
        result = self.expr(node.values[0])
        for value in node.values[1:]:
            rhs = self.expr(value)
            for side in (result, rhs):
                self.check_scalar(side, node)
            if is_constant(result) and is_constant(rhs):
                result = self.builder.binary(op, result, rhs)
            elif op == "logical_and":  # Python's value: a if a is falsy else b
                result = self.builder.select(result, rhs, result)
            else:
                result = self.builder.select(result, result, rhs)
        return result

    def expr_Compare(self, node: ast.Compare):
        left = self.expr(node.left)
        result = None
        for op_node, comparator in zip(node.ops, node.comparators, strict=True):
            op = COMPARE_OPS.get(type(op_node))
            if op is None:
                raise self.unsupported(node, f"the comparison '{type(op_node).__name__}'")
            right = self.expr(comparator)
            this = self.binary(op, left, right, node)
            result = this if result is None else self.builder.binary("logical_and", result, this)
            left = right
        return result

    def expr_IfExp(self, node: ast.IfExp):
        static = self.static_condition(node.test)
        if static is not None:
            return self.expr(node.body if static else node.orelse)
        cond = self.expr(node.test)
        a, b = self.expr(node.body), self.expr(node.orelse)
        if is_constant(cond):
            return a if cond else b
        return self.builder.select(cond, a, b)

    # -- subscripts ---------------------------------------------------------------------
    def expr_Subscript(self, node: ast.Subscript):
        inner = node.value
        if (
            isinstance(inner, ast.Subscript)
            and isinstance(inner.value, (ast.Name, ast.Attribute))
            and is_matrix_field(self.expr(inner.value))
        ):
            # v[i][k]: load the one component, not the whole element first
            return self.load(self.lvalue(node))
        base = self.expr(node.value)
        if isinstance(base, Vector):
            return self.matrix_element(base, node)
        if is_matrix_field(base):
            return self.load_matrix(base, self.index_values(node.slice), node)
        if isinstance(base, (tuple, list)):
            index = self.static_eval(node.slice)
            if not isinstance(index, int):
                raise self.error(
                    TiIndexError, node.slice, "a vector index must be a compile-time integer"
                )
            try:
                return base[index]
            except IndexError:
                raise self.error(
                    TiIndexError, node.slice, f"index {index} out of range for size {len(base)}"
                ) from None
        indices = self.index_values(node.slice)
        ptr = self.subscript_pointer(base, indices, node)
        return self.builder.emit(ir.GlobalLoadStmt(ptr))

    def index_values(self, slice_node: ast.expr) -> list:
        value = self.expr(slice_node)
        if value is None:
            return []
        if isinstance(value, (tuple, list)):
            flat = []
            for item in value:
                flat.extend(item if isinstance(item, Vector) else [item])
            return flat
        if isinstance(value, Vector):
            return list(value)
        return [value]

    def subscript_pointer(self, base, indices: list, node: ast.Subscript) -> ir.Stmt:
        b = self.builder
        if isinstance(base, Field):
            self.check_placed(base, node)
        if isinstance(base, (Field, NdarrayArg)):
            ndim, name = base.ndim, base.name
        else:
            raise self.error(
                TiTypeError,
                node.value,
                f"'{ast.unparse(node.value)}' cannot be indexed in a kernel",
                "only fields, ndarray arguments and vectors can be indexed",
            )
        if len(indices) != ndim:
            hint = "index a 0-D field with x[None]" if ndim == 0 else ""
            raise self.error(
                TiIndexError,
                node,
                f"'{name}' has {ndim} dimension(s) but is indexed with {len(indices)}",
                hint,
            )
        cast = []
        for index in indices:
            self.check_scalar(index, node)
            value = b.value(index)
            if value.dtype.is_float:
                raise self.error(
                    TiTypeError,
                    node.slice,
                    f"index of '{name}' is a float ({value.dtype})",
                    "indices must be integers: use ti.cast(i, ti.i32) or int(i)",
                )
            cast.append(b.cast(value, types.i32))
        if isinstance(base, Field):
            self.state.captured.setdefault(("field", id(base)), base)
            return b.emit(ir.GlobalPtrStmt(base, cast))
        return b.emit(ir.ExternalPtrStmt(base.arg_index, base.ndim, cast, base.dtype))

    def check_placed(self, field: Field, node: ast.AST) -> None:
        """An unplaced, unfinalized or destroyed field: an error at the line using it."""
        try:
            field.layout()
        except TiRuntimeError as exc:
            raise self.error(TiRuntimeError, node, exc.message, exc.hint) from None

    # -- compile-time evaluation ----------------------------------------------------------
    def static_eval(self, node: ast.expr):
        value = self.expr(node)
        if isinstance(value, (ir.Stmt, Vector)):
            raise self.error(
                TiSyntaxError,
                node,
                f"'{ast.unparse(node)}' must be known at compile time",
                "use Python values, template arguments or constants here",
            )
        return value

    def static_condition(self, test: ast.expr):
        """The value of ``ti.static(cond)`` when ``test`` is one, else None."""
        if not (isinstance(test, ast.Call) and self.is_static_call(test)):
            return None
        if len(test.args) != 1:
            raise self.error(TiSyntaxError, test, "ti.static(cond) takes one argument here")
        return bool(self.static_eval(test.args[0]))

    def is_static_call(self, node: ast.Call) -> bool:
        from ti_notebook.lang import ops

        try:
            func = self.expr(node.func)
        except Exception:
            return False
        return func is ops.static
