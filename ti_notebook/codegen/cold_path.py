"""The cold path of a failed check (``AssertStmt``): record the failure, leave the task.

The hot code keeps a compare and a branch that branch weights mark as almost never
taken, so LLVM lays the failure out of line; the failure itself is a call of one
``cold``, ``noinline`` function per module, so nothing of it is inlined into loops.
Chunks of a parallel task can fail at the same time: a compare-and-swap on the error
slot lets only the first write its arguments, so a message never mixes two failures
(the launcher reads them after every chunk has finished). :func:`emit_assert` is the
emit table's entry for an ``AssertStmt``.

    >>> import llvmlite.ir as ll
    >>> module = ll.Module()
    >>> fn = fail_function(module)
    >>> sorted(fn.attributes), fail_function(module) is fn
    (['cold', 'noinline'], True)
"""

from __future__ import annotations

import llvmlite.ir as ll

from ti_notebook.codegen.emit_table import Emitter
from ti_notebook.codegen.llvm_types import I8, I64, PTR, VOID
from ti_notebook.ir import launch_abi as abi
from ti_notebook.ir import nodes as ir
from ti_notebook.ir import types

NAME = "tin_check_failed"
# Branch weights, passing : failing. Any large ratio makes LLVM treat failing as cold.
PASSING_WEIGHT = 1 << 20


def fail_function(module: ll.Module) -> ll.Function:
    """``tin_check_failed(ctx, code, arg0..arg7)``: the module's one failure routine."""
    existing = module.globals.get(NAME)
    if existing is not None:
        return existing
    params = [PTR, I64] + [I64] * abi.ERROR_ARG_SLOTS
    fn = ll.Function(module, ll.FunctionType(VOID, params), NAME)
    fn.linkage = "internal"
    fn.attributes.add("cold")
    fn.attributes.add("noinline")
    ctx, code, *args = fn.args
    entry, first, done = (fn.append_basic_block(n) for n in ("entry", "first", "done"))
    b = ll.IRBuilder(entry)
    slot = b.gep(ctx, [ll.Constant(I64, abi.CTX_ERROR)], source_etype=I8)
    swapped = b.cmpxchg(slot, ll.Constant(I64, 0), code, "monotonic", "monotonic")
    b.cbranch(b.extract_value(swapped, 1), first, done)
    b.position_at_end(first)
    for k, arg in enumerate(args):
        b.store(arg, b.gep(ctx, [ll.Constant(I64, abi.CTX_ERROR_ARGS + 8 * k)], source_etype=I8))
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()
    return fn


def branch(builder: ll.IRBuilder, ok: ll.Value, go_on: ll.Block, fail: ll.Block) -> None:
    """``ok ? go_on : fail``, with ``fail`` marked as (almost) never taken."""
    builder.cbranch(ok, go_on, fail).set_weights([PASSING_WEIGHT, 1])


def fail(builder: ll.IRBuilder, ctx: ll.Value, code: int, args: list[ll.Value]) -> None:
    """Calls the failure routine with assert ``code`` and up to 8 i64 ``args``."""
    fn = fail_function(builder.module)
    values = list(args[: abi.ERROR_ARG_SLOTS])
    values += [ll.Constant(I64, 0)] * (abi.ERROR_ARG_SLOTS - len(values))
    builder.call(fn, [ctx, ll.Constant(I64, code), *values])


def emit_assert(e: Emitter, s: ir.AssertStmt) -> None:
    """``assert cond, message`` (with its arguments) in ``e``'s function: the failure is
    recorded and the code goes where ``e.leave_failed_check`` says."""
    code = e.gen.register_assert(s)
    b = e.b
    fail_block = e.fn.append_basic_block("assert_fail")
    ok = e.fn.append_basic_block("assert_ok")
    branch(b, e.arith.truth(e.v(s.cond)), ok, fail_block)
    b.position_at_end(fail_block)
    args = [e.arith.cast(e.v(arg), arg.dtype, types.i64) for arg in s.args]
    fail(b, e.ctx, code, args)
    e.leave_failed_check()
    b.position_at_end(ok)
