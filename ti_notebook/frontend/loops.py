"""For loops: range, ti.ndrange, ti.grouped, struct-for over a field, ti.static unrolling.

A for at the kernel's top level (not inside an if, a while or another loop; inlined
funcs count as where they are called) is parallel unless ``ti.loop_config(
serialize=True)`` precedes it; the offload pass turns it into a task.
"""

from __future__ import annotations

import ast
import builtins

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend import local_storage
from ti_notebook.frontend.values import LoopIndex, NdarrayArg, Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import ops, types
from ti_notebook.lang.field import Field
from ti_notebook.lang.snode import SNode

_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1


class LoopsMixin:
    def stmt_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.unsupported(node, "'for ... else'")
        config = dict(self.state.pending_loop_config)
        self.state.pending_loop_config.clear()
        if self.is_outermost():
            # Kernel.configure's defaults (lang/kernel.py); ti.loop_config wins per value.
            config = {**getattr(self.state.config, "default_loop_config", {}), **config}
        iterable = node.iter
        grouped = False
        if isinstance(iterable, ast.Call):
            func = self.expr(iterable.func)
            if func is ops.static:
                self.unroll(node)
                return
            if func is ops.grouped:
                grouped = True
                if len(iterable.args) != 1:
                    raise self.error(TiTypeError, iterable, "ti.grouped takes one argument")
                iterable = iterable.args[0]
                func = self.expr(iterable.func) if isinstance(iterable, ast.Call) else None
            if func is builtins.range:
                bounds = self.range_bounds(iterable)
                self.emit_range_for(node, [bounds], config, grouped, plain_range=True)
                return
            if func is ops.ndrange:
                bounds = [self.ndrange_axis(arg) for arg in iterable.args]
                self.emit_range_for(node, bounds, config, grouped, plain_range=False)
                return
        value = self.expr(iterable)
        if hasattr(value, "components"):  # a vector/matrix field: its cells
            value = value.components[0]
        if isinstance(value, Field):
            self.emit_struct_for(node, value, config, grouped)
            return
        if isinstance(value, SNode) and value.kind not in ("root", "place"):
            # ``for i, j in blk``: the node's cells, in its own index space.
            self.emit_struct_for(node, value, config, grouped)
            return
        if isinstance(value, NdarrayArg):
            b = self.builder
            bounds = [
                (0, b.emit(ir.ExternalShapeStmt(value.arg_index, axis, types.i32)))
                for axis in range(value.ndim)
            ]
            self.emit_range_for(node, bounds, config, grouped, plain_range=value.ndim == 1)
            return
        raise self.unsupported(
            iterable,
            f"iterating over '{ast.unparse(iterable)}'",
            "iterate over range(...), ti.ndrange(...), ti.grouped(...), a field, "
            "or ti.static(...) for compile-time unrolling",
        )

    # -- iteration spaces ------------------------------------------------------------------
    def range_bounds(self, call: ast.Call) -> tuple:
        args = [self.expr(a) for a in call.args]
        if call.keywords or not 1 <= len(args) <= 2:
            raise self.error(
                TiSyntaxError, call, "range() in a kernel takes (stop) or (start, stop)"
            )
        start, stop = (0, args[0]) if len(args) == 1 else args
        return self.as_index(start, call), self.as_index(stop, call)

    def ndrange_axis(self, arg: ast.expr) -> tuple:
        value = self.expr(arg)
        if isinstance(value, (tuple, list)):
            if len(value) != 2:
                raise self.error(TiTypeError, arg, "an ndrange axis is n or (start, stop)")
            return self.as_index(value[0], arg), self.as_index(value[1], arg)
        return 0, self.as_index(value, arg)

    def as_index(self, value, node: ast.AST):
        if isinstance(value, float) or (isinstance(value, ir.Stmt) and value.dtype.is_float):
            raise self.error(TiTypeError, node, "loop bounds must be integers")
        if isinstance(value, ir.Stmt):
            return self.builder.cast(value, types.i32)
        if isinstance(value, int):
            if not _I32_MIN <= value <= _I32_MAX:
                raise self.error(
                    TiTypeError,
                    node,
                    f"loop bound {value} does not fit the loop's index type i32",
                    "loop indices are 32-bit, as in Taichi: split the range into an outer "
                    "and an inner loop (e.g. ti.ndrange) or loop over a smaller range",
                )
            return value
        self.check_scalar(value, node)
        return value

    # -- loops -----------------------------------------------------------------------------
    def is_outermost(self) -> bool:
        return self.state.depth == 0

    def loop_targets(self, node: ast.For, count: int, grouped: bool) -> list[str] | str:
        target = node.target
        if grouped:
            if not isinstance(target, ast.Name):
                raise self.error(TiSyntaxError, target, "ti.grouped binds one name: 'for I in'")
            return target.id
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        if not all(isinstance(n, ast.Name) for n in names):
            raise self.error(TiSyntaxError, target, "loop variables must be plain names")
        if len(names) != count:
            raise self.error(
                TiTypeError,
                target,
                f"this loop has {count} index(es) but binds {len(names)} name(s)",
                "use one name per axis, or 'for I in ti.grouped(...)'",
            )
        return [n.id for n in names]

    def emit_range_for(self, node, bounds, config, grouped, plain_range) -> None:
        b = self.builder
        names = self.loop_targets(node, len(bounds), grouped)
        if plain_range and not grouped:
            start, stop = bounds[0]
            loop = ir.RangeForStmt(b.value(start, types.i32), b.value(stop, types.i32), config)
        else:
            self.check_iteration_count(bounds, node.iter)
            extents, starts = [], []
            for start, stop in bounds:
                extent = b.binary("sub", stop, start)
                extent = b.binary("max", extent, 0)
                extents.append(b.value(extent, types.i32))
                starts.append(b.value(start, types.i32))
            total = extents[0]
            for extent in extents[1:]:
                total = b.binary("mul", total, extent)
            loop = ir.RangeForStmt(b.const(0, types.i32), b.value(total, types.i32), config)
            loop.extents, loop.starts = extents, starts
        self.emit_loop(node, loop, names, len(bounds))

    def check_iteration_count(self, bounds, node: ast.AST) -> None:
        """An ndrange runs one flat i32 counter: its constant product must fit."""
        if not all(isinstance(v, int) for pair in bounds for v in pair):
            return
        total = 1
        for start, stop in bounds:
            total *= max(stop - start, 0)
        if total > _I32_MAX:
            raise self.error(
                TiTypeError,
                node,
                f"this loop runs {total} iterations, more than its i32 counter holds",
                "split it into an outer loop and an inner serial loop",
            )

    def emit_struct_for(self, node, field: Field | SNode, config, grouped) -> None:
        names = self.loop_targets(node, field.ndim, grouped)
        if field.ndim == 0:
            raise self.error(TiSyntaxError, node.iter, "cannot loop over a 0-D field")
        self.state.captured.setdefault(("field", id(field)), field)
        loop = ir.StructForStmt(field, config)
        self.emit_loop(node, loop, names, field.ndim)

    def emit_loop(self, node: ast.For, loop: ir.Stmt, names, ndim: int) -> None:
        b = self.builder
        parallel = self.is_outermost() and not loop.config.get("serialize", False)
        b.emit(loop)
        self.state.depth += 1
        self.state.loops.append((loop, parallel))
        self.push_scope()
        try:
            with b.inside(loop.body):
                indices = [b.emit(ir.LoopIndexStmt(loop, axis, types.i32)) for axis in range(ndim)]
                if isinstance(names, str):
                    self.bind(names, Vector(indices))
                else:
                    for name, index in zip(names, indices, strict=True):
                        self.bind(name, LoopIndex(index))
                local_storage.attach_pending(self.state, loop, b)
                self.run_block(node.body)
        finally:
            self.pop_scope()
            self.state.loops.pop()
            self.state.depth -= 1

    def unroll(self, node: ast.For) -> None:
        """``for x in ti.static(iterable)``: the body once per item, at compile time."""
        iterable = node.iter
        if len(iterable.args) != 1:
            raise self.error(TiSyntaxError, iterable, "ti.static(...) takes one iterable here")
        inner = iterable.args[0]
        grouped = False
        if isinstance(inner, ast.Call) and self.expr(inner.func) is ops.grouped:
            grouped, inner = True, inner.args[0]
        items = self.static_eval(inner)
        try:
            items = list(items)
        except TypeError:
            raise self.error(
                TiTypeError, inner, f"ti.static(...) needs an iterable, got {items!r}"
            ) from None
        self.state.loops.append(("static", False))
        try:
            for item in items:
                self.push_scope()
                try:
                    if grouped:
                        item = Vector(list(item) if isinstance(item, tuple) else [item])
                    self.bind_static_target(node.target, item)
                    self.run_block(node.body)
                finally:
                    self.pop_scope()
        finally:
            self.state.loops.pop()

    def bind_static_target(self, target: ast.expr, item) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, item)
            return
        if isinstance(target, ast.Tuple):
            values = self.unpack(item, len(target.elts), target)
            for element, value in zip(target.elts, values, strict=True):
                self.bind_static_target(element, value)
            return
        raise self.error(TiSyntaxError, target, "loop variables must be plain names")
