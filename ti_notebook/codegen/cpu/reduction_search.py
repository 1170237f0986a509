"""Whether LLVM's SLP vectoriser should look for horizontal reductions in a kernel.

The search for horizontal reductions (a long chain of ``+`` turned into vector adds and
one shuffle-reduce) is what O3 spends most of its time on in kernels whose loop bodies
hold long unrolled sums: a 21x21-tap stencil took 1.6 s of a 1.9 s compile in that
search (0.2 s without it), and its code ran no faster (17 against 21 ms here: the
search packed one 16-wide reduce into a scalar body). Left out of straight-line code,
though, the same chain costs more: instruction selection grows quadratically with an
unvectorised chain of loads in one block (a 1,000-term sum in a serial task: 0.45 s of
machine code without the search, 0.03 s with it; 2,000 terms: 2.2 s).

So the search stays on unless a kernel's long blocks are all loop bodies: a loop body of
``LONG_BLOCK`` statements or more, and no straight-line block that long.

    >>> from ti_notebook.ir.control_stmts import OffloadedStmt
    >>> from ti_notebook.ir.kernel_ir import KernelIR
    >>> from ti_notebook.ir.stmt import Block, Stmt
    >>> from ti_notebook.ir.types import f32
    >>> task = OffloadedStmt("range_for")
    >>> for _ in range(LONG_BLOCK):
    ...     _ = task.body.append(Stmt(f32))
    >>> kernel = KernelIR("k", Block([task]), None)
    >>> wants_horizontal_reductions(kernel)
    False
    >>> serial = OffloadedStmt("serial")
    >>> for _ in range(LONG_BLOCK):
    ...     _ = serial.body.append(Stmt(f32))
    >>> _ = kernel.block.append(serial)
    >>> wants_horizontal_reductions(kernel)
    True
"""

from __future__ import annotations

from ti_notebook.ir.control_stmts import OffloadedStmt, RangeForStmt, StructForStmt, WhileStmt
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.stmt import Block

# Statements in one block (its own, not its children's) from which the search's cost
# shows: a 9x9 stencil's body (about 500) spends half of O3 in it, a 3x3 one's (about
# 60) little.
LONG_BLOCK = 256

_LOOPS = (RangeForStmt, StructForStmt, WhileStmt)


def wants_horizontal_reductions(kernel: KernelIR) -> bool:
    """False when the kernel's long blocks are all loop bodies (see the module's text)."""
    longest_in_loop, longest_straight = _longest_blocks(kernel.block, in_loop=False)
    return not (longest_in_loop >= LONG_BLOCK and longest_straight < LONG_BLOCK)


def _longest_blocks(block: Block, in_loop: bool) -> tuple[int, int]:
    """(the longest block inside a loop, the longest outside one), counted in statements."""
    in_loop_n, straight_n = (len(block.stmts), 0) if in_loop else (0, len(block.stmts))
    for stmt in block.stmts:
        if not stmt.block_names:
            continue
        for name in stmt.block_names:
            child = getattr(stmt, name)
            if child is None:
                continue
            looping = in_loop or _is_loop_body(stmt, name)
            a, b = _longest_blocks(child, looping)
            in_loop_n, straight_n = max(in_loop_n, a), max(straight_n, b)
    return in_loop_n, straight_n


def _is_loop_body(stmt, block_name: str) -> bool:
    if isinstance(stmt, OffloadedStmt):
        return stmt.kind != "serial" and block_name == "body"
    return isinstance(stmt, _LOOPS)
