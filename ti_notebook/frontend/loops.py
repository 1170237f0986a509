"""For loops: range, ti.ndrange, ti.grouped, struct-for over a field, ti.static unrolling.

A for at the kernel's top level (not inside an if, a while or another loop; inlined
funcs count as where they are called) is parallel unless ``ti.loop_config(
serialize=True)`` precedes it; the offload pass turns it into a task.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.i32, shape=(3, 4))
    >>> @ti.kernel
    ... def fill() -> ti.i32:
    ...     for i, j in x:
    ...         x[i, j] = i * 10 + j
    ...     total = 0
    ...     for I in ti.grouped(ti.ndrange((1, 3), 2)):
    ...         total += x[I]
    ...     for k in ti.static(range(2)):
    ...         total += k
    ...     return total
    >>> fill()
    63
"""

from __future__ import annotations

import ast
import builtins

from ti_notebook.errors import TiSyntaxError, TiTypeError
from ti_notebook.frontend import local_storage, offset_indices
from ti_notebook.frontend.context import TraceContext
from ti_notebook.frontend.descriptors import describe
from ti_notebook.frontend.dispatch import Handlers
from ti_notebook.frontend.operands import check_scalar, static_eval, unpack
from ti_notebook.frontend.starred import expand_call
from ti_notebook.frontend.values import LoopIndex, NdarrayArg, Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import ops, types
from ti_notebook.lang.field import Field
from ti_notebook.lang.snode import SNode

HANDLERS = Handlers()
_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1


@HANDLERS.statement(ast.For)
def _for(ctx: TraceContext, node: ast.For) -> None:
    if node.orelse:
        raise ctx.unsupported(node, "'for ... else'")
    state = ctx.state
    config = dict(state.pending_loop_config)
    state.pending_loop_config.clear()
    if ctx.outermost:
        # Kernel.configure's defaults (session/kernel.py); ti.loop_config wins per value.
        config = {**getattr(state.config, "default_loop_config", {}), **config}
    iterable = node.iter
    grouped = False
    if isinstance(iterable, ast.Call):
        func = ctx.expr(iterable.func)
        if func is ops.static:
            _unroll(ctx, node)
            return
        if func is ops.grouped:
            grouped = True
            if len(iterable.args) != 1:
                raise ctx.error(TiTypeError, iterable, "ti.grouped takes one argument")
            iterable = iterable.args[0]
            func = ctx.expr(iterable.func) if isinstance(iterable, ast.Call) else None
        if func is builtins.range or func is ops.ndrange:
            iterable = expand_call(ctx, iterable)  # ti.ndrange(*shape)
        if func is builtins.range:
            bounds = _range_bounds(ctx, iterable)
            _range_for(ctx, node, [bounds], config, grouped, plain_range=True)
            return
        if func is ops.ndrange:
            bounds = [_ndrange_axis(ctx, arg) for arg in iterable.args]
            _range_for(ctx, node, bounds, config, grouped, plain_range=False)
            return
    value = ctx.expr(iterable)
    if hasattr(value, "components"):  # a vector/matrix field: its cells
        value = value.components[0]
    if isinstance(value, Field):
        _struct_for(ctx, node, value, config, grouped)
        return
    if isinstance(value, SNode) and value.kind not in ("root", "place"):
        # ``for i, j in blk``: the node's cells, in its own index space.
        _struct_for(ctx, node, value, config, grouped)
        return
    if isinstance(value, NdarrayArg):
        b = ctx.builder
        bounds = [
            (0, b.emit(ir.ExternalShapeStmt(value.arg_index, axis, types.i32)))
            for axis in range(value.ndim)
        ]
        _range_for(ctx, node, bounds, config, grouped, plain_range=value.ndim == 1)
        return
    raise ctx.unsupported(
        iterable,
        f"iterating over '{ast.unparse(iterable)}'",
        "iterate over range(...), ti.ndrange(...), ti.grouped(...), a field, "
        "or ti.static(...) for compile-time unrolling",
    )


# -- iteration spaces ----------------------------------------------------------------------
def _range_bounds(ctx: TraceContext, call: ast.Call) -> tuple:
    args = [ctx.expr(a) for a in call.args]
    if call.keywords or not 1 <= len(args) <= 2:
        raise ctx.error(
            TiSyntaxError,
            call,
            "range() in a kernel takes (stop) or (start, stop)",
            "for a step, loop over k in range(count) and use start + k * step (as Taichi "
            "requires), or unroll ti.static(range(start, stop, step)) with known bounds",
        )
    start, stop = (0, args[0]) if len(args) == 1 else args
    return _as_index(ctx, start, call), _as_index(ctx, stop, call)


def _ndrange_axis(ctx: TraceContext, arg: ast.expr) -> tuple:
    value = ctx.expr(arg)
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ctx.error(TiTypeError, arg, "an ndrange axis is n or (start, stop)")
        return _as_index(ctx, value[0], arg), _as_index(ctx, value[1], arg)
    return 0, _as_index(ctx, value, arg)


def _as_index(ctx: TraceContext, value, node: ast.AST):
    if isinstance(value, float) or (isinstance(value, ir.Stmt) and value.dtype.is_float):
        raise ctx.error(TiTypeError, node, "loop bounds must be integers")
    if isinstance(value, ir.Stmt):
        return ctx.builder.cast(value, types.i32)
    if isinstance(value, int):
        if not _I32_MIN <= value <= _I32_MAX:
            raise ctx.error(
                TiTypeError,
                node,
                f"loop bound {value} does not fit the loop's index type i32",
                "loop indices are 32-bit, as in Taichi: split the range into an outer "
                "and an inner loop (e.g. ti.ndrange) or loop over a smaller range",
            )
        return value
    check_scalar(ctx, value, node)
    return value


def _check_iteration_count(ctx: TraceContext, bounds, node: ast.AST) -> None:
    """An ndrange runs one flat i32 counter: its constant product must fit."""
    if not all(isinstance(v, int) for pair in bounds for v in pair):
        return
    total = 1
    for start, stop in bounds:
        total *= max(stop - start, 0)
    if total > _I32_MAX:
        raise ctx.error(
            TiTypeError,
            node,
            f"this loop runs {total} iterations, more than its i32 counter holds",
            "split it into an outer loop and an inner serial loop",
        )


# -- loops ---------------------------------------------------------------------------------
def _loop_targets(ctx: TraceContext, node: ast.For, count: int, grouped: bool) -> list[str] | str:
    target = node.target
    if grouped:
        if not isinstance(target, ast.Name):
            raise ctx.error(TiSyntaxError, target, "ti.grouped binds one name: 'for I in'")
        return target.id
    names = target.elts if isinstance(target, ast.Tuple) else [target]
    if not all(isinstance(n, ast.Name) for n in names):
        raise ctx.error(TiSyntaxError, target, "loop variables must be plain names")
    if len(names) != count:
        raise ctx.error(
            TiTypeError,
            target,
            f"this loop has {count} index(es) but binds {len(names)} name(s)",
            "use one name per axis, or 'for I in ti.grouped(...)'",
        )
    return [n.id for n in names]


def _range_for(ctx: TraceContext, node, bounds, config, grouped, plain_range) -> None:
    b = ctx.builder
    names = _loop_targets(ctx, node, len(bounds), grouped)
    if plain_range and not grouped:
        start, stop = bounds[0]
        loop = ir.RangeForStmt(b.value(start, types.i32), b.value(stop, types.i32), config)
    else:
        _check_iteration_count(ctx, bounds, node.iter)
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
    _emit_loop(ctx, node, loop, names, len(bounds))


def _struct_for(ctx: TraceContext, node, field: Field | SNode, config, grouped) -> None:
    names = _loop_targets(ctx, node, field.ndim, grouped)
    if field.ndim == 0:
        raise ctx.error(TiSyntaxError, node.iter, "cannot loop over a 0-D field")
    ctx.state.captured.setdefault(("field", id(field)), field)
    loop = ir.StructForStmt(describe(field), config)
    _emit_loop(ctx, node, loop, names, field.ndim, offset_indices.offset_of(loop.field))


def _emit_loop(
    ctx: TraceContext, node: ast.For, loop: ir.Stmt, names, ndim: int, offset=()
) -> None:
    b = ctx.builder
    parallel = ctx.outermost and not loop.config.get("serialize", False)
    b.emit(loop)
    with ctx.loop(loop, parallel), ctx.scope(remember=False), b.inside(loop.body):
        indices = [b.emit(ir.LoopIndexStmt(loop, axis, types.i32)) for axis in range(ndim)]
        indices = offset_indices.to_indices(b, indices, offset)  # a field's offset=
        if isinstance(names, str):
            ctx.bind(names, Vector(indices))
        else:
            for name, index in zip(names, indices, strict=True):
                ctx.bind(name, LoopIndex(index))
        local_storage.attach_pending(ctx.state, loop, b)
        ctx.run_block(node.body)


# -- ti.static ---------------------------------------------------------------------------
def _unroll(ctx: TraceContext, node: ast.For) -> None:
    """``for x in ti.static(iterable)``: the body once per item, at compile time."""
    iterable = node.iter
    if len(iterable.args) != 1:
        raise ctx.error(TiSyntaxError, iterable, "ti.static(...) takes one iterable here")
    inner = iterable.args[0]
    grouped = False
    if isinstance(inner, ast.Call) and ctx.expr(inner.func) is ops.grouped:
        grouped, inner = True, inner.args[0]
    items = static_eval(ctx, inner)
    try:
        items = list(items)
    except TypeError:
        raise ctx.error(
            TiTypeError, inner, f"ti.static(...) needs an iterable, got {items!r}"
        ) from None
    with ctx.unrolled():
        for item in items:
            with ctx.scope(remember=False):
                if grouped:
                    item = Vector(list(item) if isinstance(item, tuple) else [item])
                _bind_static_target(ctx, node.target, item)
                ctx.run_block(node.body)


def _bind_static_target(ctx: TraceContext, target: ast.expr, item) -> None:
    if isinstance(target, ast.Name):
        ctx.bind(target.id, item)
        return
    if isinstance(target, ast.Tuple):
        values = unpack(ctx, item, len(target.elts), target)
        for element, value in zip(target.elts, values, strict=True):
            _bind_static_target(ctx, element, value)
        return
    raise ctx.error(TiSyntaxError, target, "loop variables must be plain names")
