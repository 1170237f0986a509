"""Whether LLVM's straight-line (SLP) vectoriser should run on a kernel.

The SLP vectoriser packs isomorphic scalar operations of one block into vector ones; its
search for horizontal reductions (a long chain of ``+`` turned into vector adds and one
shuffle-reduce) is what O3 spends most of its time on in kernels whose loop bodies hold
long unrolled code, and there it buys nothing: the loop vectoriser has already made the
loop's lanes (a 9x9 stencil), or the body is scalar code with a loop inside (a 3x3 SVD's
Jacobi sweeps). Measured on this project's 2-core machine, CPU time of O3 with it and
without it, and the kernel's time per launch (one thread) both ways:

- 21x21-tap stencil: O3 1.8 s -> 0.16 s; 15.6 ms per launch both ways;
- 3x3 SVD of 65,536 matrices: O3 0.062 s -> 0.021 s; 17.4 ms both ways;
- tutorial 07's MPM substep: within noise both ways (0.22-0.23 ms).

Left out of long straight-line code, though, it costs more than it saves: instruction
selection grows quadratically with an unvectorised chain of loads in one block (a
1,000-term unrolled sum in a serial task: 0.45 s of machine code without the reduction
search, 0.03 s with it; 2,000 terms: 2.2 s).

So the vectoriser runs unless a kernel's long blocks are all loop bodies: a loop body of
``LONG_BLOCK`` statements or more, and no straight-line block that long.

    >>> from ti_notebook.ir.control_stmts import OffloadedStmt
    >>> from ti_notebook.ir.kernel_ir import KernelIR
    >>> from ti_notebook.ir.stmt import Block, Stmt
    >>> from ti_notebook.ir.types import f32
    >>> task = OffloadedStmt("range_for")
    >>> for _ in range(LONG_BLOCK):
    ...     _ = task.body.append(Stmt(f32))
    >>> kernel = KernelIR("k", Block([task]), None)
    >>> wants_slp(kernel)
    False
    >>> serial = OffloadedStmt("serial")
    >>> for _ in range(LONG_BLOCK):
    ...     _ = serial.body.append(Stmt(f32))
    >>> _ = kernel.block.append(serial)
    >>> wants_slp(kernel)
    True
"""

from __future__ import annotations

from ti_notebook.ir.control_stmts import OffloadedStmt, RangeForStmt, StructForStmt, WhileStmt
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.stmt import Block

# Statements in one block (its own, not its children's) from which the vectoriser's
# cost shows: a 9x9 stencil's body (about 500) spends half of O3 in it, a 3x3 one's
# (about 60) little.
LONG_BLOCK = 256

_LOOPS = (RangeForStmt, StructForStmt, WhileStmt)


def wants_slp(kernel: KernelIR) -> bool:
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
