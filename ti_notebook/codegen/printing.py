"""``print`` in a kernel as a call of the runtime's ``tin_print(ctx, print_id, args)``.

The module generator registers the statement's format (``register_print``); the call
passes its number and the values as 64-bit words: floats as f64 bits, integers widened
to i64 or u64. This is the CPU runtime's entry; the NVPTX emitter's table calls
``vprintf`` instead (``codegen/nvptx/printing.py``).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def show(k: ti.i32):
    ...     print("k =", k)
    >>> "tin_print" in show.stages(1)["llvm"]
    True
"""

from __future__ import annotations

import llvmlite.ir as ll

from ti_notebook.codegen.emit_table import Emitter
from ti_notebook.codegen.llvm_types import I32, I64, PTR, VOID
from ti_notebook.ir import nodes as ir
from ti_notebook.ir import types


def emit_print(e: Emitter, s: ir.PrintStmt) -> None:
    """Stores ``s``'s values into an i64 array and calls ``tin_print`` with it."""
    print_id = e.gen.register_print(s)
    b = e.b
    array = e.alloca(I64, "print_args") if len(s.values) <= 1 else None
    if array is None:
        array = e.entry_builder.alloca(I64, size=len(s.values), name="print_args")
    for k, item in enumerate(s.values):
        raw = e.v(item)
        if item.dtype.is_float:
            raw = b.bitcast(e.arith.cast(raw, item.dtype, types.f64), I64)
        else:
            wide = types.i64 if item.dtype.is_signed else types.u64
            raw = e.arith.cast(raw, item.dtype, wide)
        b.store(raw, b.gep(array, [ll.Constant(I64, k)], source_etype=I64))
    fn = e.declare("tin_print", VOID, [PTR, I32, PTR])
    b.call(fn, [e.ctx, ll.Constant(I32, print_id), array])
