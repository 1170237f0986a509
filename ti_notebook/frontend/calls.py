"""Calls inside kernels: ``ti.*`` builtins, Python builtins, casts and ti.func inlining."""

from __future__ import annotations

import ast
import builtins

from ti_notebook.errors import TiError, TiSyntaxError, TiTypeError
from ti_notebook.frontend import (
    field_methods,
    local_storage,
    loop_config_ops,
    matrices,
    random_ops,
    sparse_ops,
)
from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.matrices import BoundMethod
from ti_notebook.frontend.values import LoopIndex, Vector, VectorVariable
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import ops, types

_UNARY_BUILTINS = {
    ops.sqrt: "sqrt",
    ops.sin: "sin",
    ops.cos: "cos",
    ops.tan: "tan",
    ops.asin: "asin",
    ops.acos: "acos",
    ops.tanh: "tanh",
    ops.exp: "exp",
    ops.log: "log",
    ops.abs: "abs",
    builtins.abs: "abs",
}
_ROUNDING = {ops.floor: "floor", ops.ceil: "ceil", ops.round: "round"}
_ATOMICS = {
    ops.atomic_add: "add",
    ops.atomic_sub: "sub",
    ops.atomic_min: "min",
    ops.atomic_max: "max",
    ops.atomic_and: "bit_and",
    ops.atomic_or: "bit_or",
    ops.atomic_xor: "bit_xor",
}
_MAX_INLINE_DEPTH = 48
_MATRIX_CONSTRUCTORS = matrices.constructors()
_MATRIX_CONSTRUCTORS[ops.zero] = lambda t, node: t.zero_like(node)


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


class CallsMixin:
    def expr_Call(self, node: ast.Call):
        func = self.expr(node.func)
        if isinstance(func, BoundMethod):
            keywords = {kw.arg: self.expr(kw.value) for kw in node.keywords}
            return self.call_method(func, [self.expr(a) for a in node.args], node, keywords)
        if field_methods.is_container_method(func):  # x.fill(v) is a loop, not a Python call
            return field_methods.call(self, func, node)
        if not _hashable(func):
            raise self.error(TiTypeError, node, f"'{ast.unparse(node.func)}' is not callable")
        builder_fn = _MATRIX_CONSTRUCTORS.get(func)
        if builder_fn is not None:
            return builder_fn(self, node)
        if func is ops.static:
            values = [self.static_eval(a) for a in node.args]
            return values[0] if len(values) == 1 else tuple(values)
        if func in _UNARY_BUILTINS:
            (value,) = self.call_args(node, 1)
            return self.map_vector(value, lambda v: self.builder.unary(_UNARY_BUILTINS[func], v))
        if func in _ROUNDING:
            return self.call_rounding(node, _ROUNDING[func])
        if func in _ATOMICS:
            return self.call_atomic(node, _ATOMICS[func])
        from ti_notebook.lang.func import Func, KernelBase

        if isinstance(func, Func):
            return self.inline_func(func, node)
        if isinstance(func, KernelBase):
            raise self.error(
                TiSyntaxError,
                node,
                "a kernel cannot call another kernel",
                "make the callee a @ti.func, or call both kernels from Python",
            )
        if isinstance(func, types.DataType):
            (value,) = self.call_args(node, 1)
            return self.map_vector(value, lambda v: self.builder.cast(v, func))
        handler = _SPECIAL.get(func)
        if handler is not None:
            return handler(self, node)
        return self.call_python(func, node)

    # -- helpers ----------------------------------------------------------------------
    def call_args(self, node: ast.Call, count: int | None = None) -> list:
        if node.keywords and count is not None:
            raise self.error(TiSyntaxError, node, "this call takes no keyword arguments")
        args = [self.expr(a) for a in node.args]
        if count is not None and len(args) != count:
            name = ast.unparse(node.func)
            raise self.error(TiTypeError, node, f"{name}() takes {count} argument(s)")
        return args

    def keywords(self, node: ast.Call) -> dict:
        return {kw.arg: self.static_eval(kw.value) for kw in node.keywords}

    def map_vector(self, value, fn):
        if isinstance(value, Vector):
            return Vector([fn(v) for v in value], value.shape)
        self.check_scalar(value, self.builder_node())
        return fn(value)

    def builder_node(self):
        return None

    def call_rounding(self, node: ast.Call, op: str):
        args = [self.expr(a) for a in node.args]
        kw = self.keywords(node)
        dtype = kw.get("dtype", args[1] if len(args) > 1 else None)
        result = self.map_vector(args[0], lambda v: self.builder.unary(op, v))
        if dtype is not None:
            result = self.map_vector(result, lambda v: self.builder.cast(v, dtype))
        return result

    def call_atomic(self, node: ast.Call, op: str):
        """``ti.atomic_add(dest, value)`` and friends: the old value, per component too."""
        if len(node.args) != 2:
            raise self.error(TiTypeError, node, "atomic operations take (destination, value)")
        dest, value_node = node.args
        value = self.expr(value_node)
        targets = (ast.Name, ast.Subscript, ast.Attribute)
        slot = self.lvalue(dest) if isinstance(dest, targets) else None
        if slot is None:
            raise self.error(
                TiTypeError,
                dest,
                "the destination of an atomic must be a field element or a local variable",
                "e.g. ti.atomic_add(x[i], 1) or ti.atomic_add(total, x[i])",
            )
        # On a local too: a kernel-scope local that a parallel loop updates is shared.
        return self.atomic_update(op, slot, value, dest)

    def call_python(self, func, node: ast.Call):
        args = [self.expr(a) for a in node.args]
        kwargs = {kw.arg: self.expr(kw.value) for kw in node.keywords}
        dynamic = [a for a in [*args, *kwargs.values()] if isinstance(a, (ir.Stmt, Vector))]
        if not dynamic and callable(func):
            self.state.reads.python_call(func, args, kwargs, node)
            helpers = ops.compiling_helper
            helpers.depth = getattr(helpers, "depth", 0) + 1
            try:
                result = func(*args, **kwargs)
            except Exception as exc:
                detail, hint = (exc.message, exc.hint) if isinstance(exc, TiError) else (exc, "")
                message = f"calling '{ast.unparse(node.func)}' failed: {detail}"
                raise self.error(TiSyntaxError, node, message, hint) from None
            finally:
                helpers.depth -= 1
            self.state.reads.python_result(result, node)
            return result
        raise self.error(
            TiSyntaxError,
            node,
            f"'{ast.unparse(node.func)}' is a Python function and cannot run on kernel values",
            "decorate it with @ti.func to call it from a kernel",
        )

    # -- ti.func inlining -----------------------------------------------------------------
    def inline_func(self, func, node: ast.Call):
        state = self.state
        if state.inline_depth >= _MAX_INLINE_DEPTH:
            raise self.error(
                TiSyntaxError, node, "ti.func calls nest too deep (recursion is not supported)"
            )
        source = func.source()
        state.reached_funcs[func.qualname] = source.digest()
        params = func.parameters()
        args = [self.expr(a) for a in node.args]
        kwargs = {kw.arg: self.expr(kw.value) for kw in node.keywords}
        try:
            bound = func.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise self.error(TiTypeError, node, f"calling {func.name}(): {exc}") from None
        bound.apply_defaults()
        callee = type(self)(state, source, is_kernel=False)  # a FunctionTracer
        callee.entry_depth = state.depth
        b = self.builder
        for name, value in bound.arguments.items():
            if params.get(name) == "template" or not (
                isinstance(value, (ir.Stmt, Vector)) or is_constant(value)
            ):
                callee.bind(name, value)
            elif isinstance(value, Vector):
                allocas = []
                for item in value:
                    alloca = b.emit(ir.AllocaStmt(b.value(item).dtype, name))
                    b.emit(ir.LocalStoreStmt(alloca, b.value(item)))
                    allocas.append(alloca)
                callee.bind(name, VectorVariable(allocas, value.shape))
            else:
                dtype = params.get(name)
                item = b.value(value) if dtype is None else b.cast(value, dtype)
                alloca = b.emit(ir.AllocaStmt(item.dtype, name))
                b.emit(ir.LocalStoreStmt(alloca, item))
                callee.bind(name, alloca)
        state.inline_depth += 1
        saved_pos = b.pos
        try:
            callee.run_block(source.function_def.body, new_scope=False)
        finally:
            state.inline_depth -= 1
            b.pos = saved_pos
        value = callee.func_return_value
        from ti_notebook.frontend.values import MISSING as _MISSING

        return None if value is _MISSING else value

    def func_return_statement(self, node: ast.Return) -> None:
        from ti_notebook.frontend.values import MISSING as _MISSING

        if self.state.depth != getattr(self, "entry_depth", 0) or (
            self.func_return_value is not _MISSING
        ):
            raise self.error(
                TiSyntaxError,
                node,
                "a ti.func may return only once, as its last statement, outside loops and ifs",
                "store the result in a local and return it at the end",
            )
        value = None if node.value is None else self.expr(node.value)
        if isinstance(value, ir.AllocaStmt | VectorVariable | LoopIndex):
            value = self.read(value)
        self.func_return_value = value


# -- the builtins that need the AST ---------------------------------------------------------
def _print(tracer, node: ast.Call):
    kw = {k.arg: tracer.static_eval(k.value) for k in node.keywords}
    items: list = []
    for arg in node.args:
        if isinstance(arg, ast.JoinedStr):
            items.extend(_fstring_items(tracer, arg))
        else:
            items.extend(_print_items(tracer, tracer.expr(arg), None))
        items.append(None)  # a separator position
    if items:
        items.pop()
    stmt = ir.PrintStmt(items, end=kw.get("end", "\n"), sep=kw.get("sep", " "))
    tracer.builder.emit(stmt)


def _print_items(tracer, value, spec: str | None) -> list:
    """What one printed value contributes: text, or (statement, format spec) pairs."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Vector):
        items: list = ["["]
        for i, item in enumerate(value):
            items.extend([", "] if i else [])
            items.extend(_print_items(tracer, item, spec))
        return [*items, "]"]
    if isinstance(value, ir.Stmt) or is_constant(value):
        # Constants print with their kernel type, as Taichi does (True as 1, 1.5 as f32).
        return [(tracer.builder.value(int(value) if isinstance(value, bool) else value), spec)]
    return [repr(value)]


def _fstring_items(tracer, node: ast.JoinedStr) -> list:
    items: list = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            items.append(str(part.value))
            continue
        spec = None
        if part.format_spec is not None:
            spec = "".join(str(tracer.static_eval(v)) for v in part.format_spec.values)
        items.extend(_print_items(tracer, tracer.expr(part.value), spec))
    return items


def _cast(tracer, node: ast.Call):
    if len(node.args) != 2:
        raise tracer.error(TiTypeError, node, "ti.cast takes (value, dtype)")
    value = tracer.expr(node.args[0])
    dtype = tracer.static_eval(node.args[1])
    dtype = types.to_dtype(dtype, tracer.config.default_ip, tracer.config.default_fp)
    if dtype is None:
        raise tracer.error(TiTypeError, node.args[1], "ti.cast needs a type such as ti.f32")
    return tracer.map_vector(value, lambda v: tracer.builder.cast(v, dtype))


def _int(tracer, node: ast.Call):
    (value,) = tracer.call_args(node, 1)
    if not isinstance(value, (ir.Stmt, Vector)):
        return _python_call(tracer, node, int, value)  # int(3.7), int("64"): compile time
    # int(vector) truncates each component, as in Taichi's mpm3d example
    return tracer.map_vector(value, lambda v: tracer.builder.cast(v, tracer.config.default_ip))


def _float(tracer, node: ast.Call):
    (value,) = tracer.call_args(node, 1)
    if not isinstance(value, (ir.Stmt, Vector)):
        return _python_call(tracer, node, float, value)
    return tracer.map_vector(value, lambda v: tracer.builder.cast(v, tracer.config.default_fp))


def _python_call(tracer, node: ast.Call, convert, value):
    try:
        return convert(value)
    except (TypeError, ValueError) as exc:
        raise tracer.error(TiTypeError, node, f"{convert.__name__}() failed: {exc}") from None


def _minmax(op: str):
    def handler(tracer, node: ast.Call):
        args = tracer.call_args(node)
        if len(args) == 1 and isinstance(args[0], (Vector, tuple, list)):
            args = list(args[0])
        if len(args) < 2:
            raise tracer.error(TiTypeError, node, f"{op}() needs at least two values")
        result = args[0]
        for value in args[1:]:
            result = tracer.binary(op, result, value, node)
        return result

    return handler


def _binary(op: str):
    def handler(tracer, node: ast.Call):
        a, b = tracer.call_args(node, 2)
        return tracer.binary(op, a, b, node)

    return handler


def _select(tracer, node: ast.Call):
    cond, a, b = tracer.call_args(node, 3)
    if isinstance(a, Vector) or isinstance(b, Vector):
        size = len(a) if isinstance(a, Vector) else len(b)
        pairs = zip(tracer.as_vector(a, size, node), tracer.as_vector(b, size, node), strict=True)
        return Vector([tracer.builder.select(cond, x, y) for x, y in pairs])
    return tracer.builder.select(cond, a, b)


def _clock(tracer, node: ast.Call):
    return tracer.builder.emit(ir.ClockStmt(types.i64))


def _len(tracer, node: ast.Call):
    (value,) = tracer.call_args(node, 1)
    if isinstance(value, (Vector, tuple, list)):
        return len(value)
    raise tracer.error(TiTypeError, node, "len() needs a vector or tuple")


_SPECIAL = {
    builtins.print: _print,
    ops.cast: _cast,
    builtins.int: _int,
    builtins.float: _float,
    builtins.min: _minmax("min"),
    builtins.max: _minmax("max"),
    ops.min: _minmax("min"),
    ops.max: _minmax("max"),
    ops.pow: _binary("pow"),
    ops.atan2: _binary("atan2"),
    ops.select: _select,
    ops.clock_counter: _clock,
    builtins.len: _len,
    **loop_config_ops.HANDLERS,
    **sparse_ops.HANDLERS,
    **random_ops.HANDLERS,
    **local_storage.HANDLERS,
}
