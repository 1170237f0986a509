"""IR as text: what ``kernel.stages()["ir"]`` and ``["ir_optimized"]`` show.

>>> from ti_notebook.ir import nodes as ir
>>> from ti_notebook.ir.types import i32
>>> b = ir.Block()
>>> c = b.append(ir.ConstStmt(1, i32))
>>> print(format_block(b).replace(str(c.id), "N"))
$N : i32 = const 1
"""

from __future__ import annotations

from ti_notebook.ir import nodes as ir


def _name(value) -> str:
    if isinstance(value, ir.Stmt):
        return f"${value.id}"
    if isinstance(value, list):
        return "[" + ", ".join(_name(v) for v in value) + "]"
    return repr(value)


def _describe(stmt: ir.Stmt) -> str:
    kind = type(stmt).__name__.removesuffix("Stmt")
    match stmt:
        case ir.ConstStmt():
            return f"const {stmt.value!r}"
        case ir.ArgLoadStmt():
            return f"arg {stmt.arg_index}"
        case ir.ExternalShapeStmt():
            return f"arg {stmt.arg_index}.shape[{stmt.axis}]"
        case ir.BinaryOpStmt():
            return f"{stmt.op} {_name(stmt.lhs)}, {_name(stmt.rhs)}"
        case ir.UnaryOpStmt():
            return f"{stmt.op} {_name(stmt.operand)}"
        case ir.CastStmt():
            return f"{'bitcast' if stmt.bitcast else 'cast'} {_name(stmt.operand)}"
        case ir.LoopIndexStmt():
            return f"loop_index {_name(stmt.loop)} axis {stmt.axis}"
        case ir.LoopLinearIndexStmt():
            return f"loop_linear_index {_name(stmt.loop)}"
        case ir.RowStartStmt():
            return f"row_start {_name(stmt.loop)}"
        case ir.RowOffsetStmt():
            return f"row_offset {_name(stmt.loop)}"
        case ir.SkipRowsStmt():
            return f"skip_rows {_name(stmt.loop)} to {_name(stmt.next)}"
        case ir.AllocaStmt():
            return f"alloca {stmt.name}"
        case ir.GlobalPtrStmt():
            private = f" in private {_name(stmt.private[0])}" if stmt.private else ""
            return (
                f"global_ptr {stmt.field.name}[{', '.join(_name(i) for i in stmt.indices)}]"
                f"{private}"
            )
        case ir.ExternalPtrStmt():
            return f"external_ptr arg{stmt.arg_index}{_name(stmt.indices)}"
        case ir.RootPtrStmt():
            return f"root_ptr tree {stmt.tree_id}"
        case ir.TempPtrStmt():
            return f"temp_ptr +{stmt.offset}"
        case ir.AtomicOpStmt():
            return f"atomic_{stmt.op} {_name(stmt.dest)}, {_name(stmt.value)}"
        case ir.PrintStmt():
            parts = [
                repr(i) if isinstance(i, str) else _name(stmt.values[i])
                for i in stmt.layout
                if i is not None
            ]
            return f"print {', '.join(parts)}"
        case ir.AssertStmt():
            return f"assert {_name(stmt.cond)}, {stmt.message!r} {_name(stmt.args)}"
        case ir.RangeForStmt():
            extra = f" ndrange{_name(stmt.extents)}" if stmt.extents else ""
            return f"range_for {_name(stmt.begin)}..{_name(stmt.end)}{extra} {stmt.config or ''}"
        case ir.StructForStmt():
            rows = f" rows of {stmt.row_width}" if stmt.row_width else ""
            return f"struct_for {stmt.field.name}{rows} {stmt.config or ''}".rstrip()
        case ir.OffloadedStmt():
            rng = f" {_name(stmt.begin)}..{_name(stmt.end)}" if stmt.kind != "serial" else ""
            rows = f" rows of {stmt.row_width}" if stmt.row_width else ""
            return f"offloaded {stmt.kind}{rng}{rows} {stmt.config or ''}".rstrip()
        case ir.SNodeOpStmt():
            values = f" <- {_name(stmt.values)}" if stmt.values else ""
            return f"{stmt.op} {stmt.snode.name}{_name(stmt.indices)}{values}"
        case ir.BlockLocalStmt():
            return f"block_local {', '.join(f.name for f in stmt.fields)}"
        case ir.LocalArrayStmt():
            return f"local_array {stmt.name}[{stmt.count}]"
        case ir.ScratchAllocStmt():
            return f"scratch_alloc {stmt.nbytes}"
        case ir.MemsetZeroStmt():
            return f"memset_zero {_name(stmt.ptr)}, {stmt.nbytes}"
        case ir.CountIterationStmt():
            return "count_iteration"
        case ir.RandStmt():
            return "randn" if stmt.normal else "random"
        case ir.ReturnStmt() if stmt.slot:
            return f"return[{stmt.slot}] {_name(stmt.value)}"
    operands = ", ".join(_name(getattr(stmt, n)) for n in stmt.operand_names)
    return f"{kind.lower()} {operands}".rstrip()


_OMITTED_WHEN_EMPTY = ("false_block", "prologue", "row_head", "epilogue")


def format_stmt(stmt: ir.Stmt) -> str:
    """One statement on one line, without the blocks it owns: ``$7 : f32 = add $5, $6``."""
    typed = f" : {stmt.dtype}" if stmt.dtype is not None else ""
    return f"${stmt.id}{typed} = {_describe(stmt)}"


def format_block(block: ir.Block, indent: int = 0) -> str:
    lines: list[str] = []
    pad = "  " * indent
    for stmt in block.stmts:
        lines.append(pad + format_stmt(stmt))
        for name in stmt.block_names:
            child = getattr(stmt, name)
            if child is None or (not child.stmts and name in _OMITTED_WHEN_EMPTY):
                continue
            lines.append(f"{pad}  {name}:")
            text = format_block(child, indent + 2)
            if text:
                lines.append(text)
    return "\n".join(lines)
