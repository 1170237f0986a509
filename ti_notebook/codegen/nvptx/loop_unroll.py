"""Unrolling a small task's grid-stride loop, so each thread keeps several loads in flight.

A GPU thread issues its instructions in order: in ``acc += x[i]`` it waits for the load
before the add, and so before the next iteration's load. With one load in flight per
thread, a full device holds too few bytes in flight to cover the memory latency (an
8M f32 sum reached a third of an H100's bandwidth). Unrolled by :data:`GRID_UNROLL`,
the loop issues that many independent loads before the first add needs one.

LLVM's NVPTX target asks for runtime unrolling, but not when the trip count needs a
division (a grid stride is only known at launch), unless the loop carries a
``llvm.loop.unroll.count`` hint. Loop metadata must refer to itself, which llvmlite's
IR builder cannot write: the hint is emitted with a placeholder first operand and
:func:`self_referential` rewrites it in the module text.

Only small, branch-free bodies are unrolled (:func:`unrolls`): a big body (an MPM
scatter) has loads enough in flight already and would only grow its registers.

    >>> text = '!7 = !{ !"ti.loop.self.0", !6 }'
    >>> self_referential(text)
    '!7 = distinct !{ !7, !6 }'
"""

from __future__ import annotations

import re

import llvmlite.ir as ll

from ti_notebook.codegen.llvm_types import I32
from ti_notebook.ir import nodes as ir

GRID_UNROLL = 4  # loads in flight per thread in an unrolled grid-stride loop
MAX_BODY_STMTS = 48  # larger bodies keep their loop as it is
_PLACEHOLDER = "ti.loop.self."
_LOOP_ID = re.compile(r'^(!\d+) = !\{ !"ti\.loop\.self\.\d+", (.*)\}$', re.M)
_BRANCHING = (ir.IfStmt, ir.WhileStmt, ir.RangeForStmt, ir.StructForStmt, ir.ContinueStmt)


def unrolls(task: ir.OffloadedStmt, threads: int) -> bool:
    """Whether ``task``'s grid-stride loop is unrolled: a thread may run more than one
    iteration (the count is unknown, or above ``threads``, the grid's), and its body is
    small and has no branches or loops (they would be copied too)."""
    if GRID_UNROLL <= 1:
        return False
    known = isinstance(task.begin, int) and isinstance(task.end, int)
    if known and task.end - task.begin <= threads:
        return False
    count = 0
    for block in (task.row_head, task.body) if task.kind == "struct_for" else (task.body,):
        if block is None:
            continue
        for stmt in block.walk():
            count += 1
            if count > MAX_BODY_STMTS or isinstance(stmt, _BRANCHING):
                return False
    return True


def mark_unrolled(module: ll.Module, branch: ll.Instruction) -> None:
    """Puts the unroll hint on ``branch``, the grid-stride loop's back edge."""
    count = getattr(module, "_ti_unrolled_loops", 0)  # loops marked in this module
    module._ti_unrolled_loops = count + 1
    hint = module.add_metadata(
        [ll.MetaDataString(module, "llvm.loop.unroll.count"), ll.Constant(I32, GRID_UNROLL)]
    )
    # a name unique to this loop, so no two loops share (and llvmlite does not merge) an ID
    loop_id = module.add_metadata([ll.MetaDataString(module, f"{_PLACEHOLDER}{count}"), hint])
    branch.set_metadata("llvm.loop", loop_id)


def self_referential(module_text: str) -> str:
    """``module_text`` with each placeholder loop ID made the distinct, self-referring
    node that LLVM's loop passes look for."""
    return _LOOP_ID.sub(r"\1 = distinct !{ \1, \2}", module_text)
