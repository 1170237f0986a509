"""Loop emission: range and ndrange loops by rows, and the row loops struct-fors become.

A loop over an N-D space runs over a flat counter ``[begin, end)`` (a task's chunk).
Splitting the counter into indices costs a division and a remainder per axis, so it is
done once per *row* - a run of the innermost axis - and the row is a plain counted loop
LLVM can vectorise:

    flat = begin
    while flat < end:
        indices = split(flat)                      # once per row
        n = min(end - flat, width - flat % width)  # the rest of this row
        for k in range(n): body(indices, innermost + k)
        flat += n

A struct-for arrives as a *row loop* (``passes/lower_struct_for.py``): its row head
(the split and the skipping of inactive blocks, as IR) takes the place of ``split``,
``RowStart`` is ``flat``, ``RowOffset`` is ``k`` and ``SkipRows`` moves ``flat`` on.

An emitter holds a :class:`Loops` (``emitter.loops``: the loops' indices and rows being
emitted, and the ways to emit a loop); the ``emit_*`` functions here are the emit
table's entries for loop statements, taking the emitter first.
"""

from __future__ import annotations

import math

import llvmlite.ir as ll

from ti_notebook.codegen.emit_table import Emitter
from ti_notebook.codegen.interrupts import STRIP, short_constant_range
from ti_notebook.codegen.llvm_types import I32
from ti_notebook.ir import nodes as ir


class RowState:
    """The state of the row loop being emitted: its counter, its header, this row."""

    def __init__(self, counter: ll.Value, header: ll.Block, flat: ll.Value) -> None:
        self.counter, self.header, self.flat = counter, header, flat
        self.offset: ll.Value | None = None


class Loops:
    """``emitter``'s loops: the indices of each loop being emitted, its row loops' state,
    and the loop shapes (counted, by rows, strip-mined) the task and body loops use."""

    def __init__(self, emitter: Emitter) -> None:
        self.emitter = emitter
        self.indices: dict[int, list[ll.Value]] = {}  # by loop id
        self.rows: dict[int, RowState] = {}  # the row loops being emitted, by loop id

    # -- index splitting ---------------------------------------------------------------
    def split_index(self, flat, extents, starts) -> list[ll.Value]:
        b = self.emitter.b
        indices = []
        rest = flat
        for axis in range(len(extents) - 1, -1, -1):
            if axis == 0:
                local = rest
            else:
                local = b.urem(rest, extents[axis])
                rest = b.udiv(rest, extents[axis])
            indices.append(b.add(local, starts[axis], flags=["nsw"]))
        return indices[::-1]

    # -- loops -------------------------------------------------------------------------
    def counted_loop(self, loop, begin, end, extents, starts, body) -> None:
        """``for flat in [begin, end)``, splitting ``flat`` into indices once per row."""
        e = self.emitter
        if not extents:

            def one_axis(i: ll.Value) -> None:
                self.indices[loop.id] = [i]
                e.random.iteration(loop, lambda: i)

            if short_constant_range(begin, end):
                self.simple_loop(begin, end, body, one_axis)
            else:
                e.polls.strip_mined_loop(begin, end, body, one_axis)
            return
        inner_axis = len(extents) - 1
        first: list[ll.Value] = []  # the row's first indices

        def row_head(flat: ll.Value) -> None:
            first[:] = self.split_index(flat, extents, starts)

        def cell(flat: ll.Value, k: ll.Value) -> None:
            indices = list(first)
            indices[inner_axis] = e.b.add(indices[inner_axis], k, flags=["nsw"])
            self.indices[loop.id] = indices
            e.random.iteration(loop, lambda: e.b.add(flat, k, flags=["nsw"]))

        self.rows_of(loop, begin, end, extents[-1], row_head, cell, body)

    def row_loop(self, owner, loop, begin, end) -> None:
        """The row loop a struct-for became (``ir.StructForStmt`` says what it means):
        ``owner`` (the loop, or its task) holds ``row_width``, ``row_head`` and ``body``."""
        e = self.emitter
        width = ll.Constant(I32, owner.row_width)

        def row_head(flat: ll.Value) -> None:
            e.block(owner.row_head)

        def cell(flat: ll.Value, k: ll.Value) -> None:
            self.rows[loop.id].offset = k
            e.random.iteration(loop, lambda: e.b.add(flat, k, flags=["nsw"]))

        self.rows_of(loop, begin, end, width, row_head, cell, owner.body)

    def rows_of(self, loop, begin, end, width, row_head, cell, body) -> None:
        """Runs ``[begin, end)`` by rows ending at multiples of ``width``: ``row_head(flat)``
        once per row (it may skip rows), then ``cell(flat, k)`` and ``body`` per cell."""
        e = self.emitter
        b = e.b
        counter = e.alloca(I32, "flat")
        b.store(begin, counter)
        header = e.fn.append_basic_block("rows")
        row = e.fn.append_basic_block("row")
        exit_block = e.fn.append_basic_block("endrows")
        b.branch(header)
        b.position_at_end(header)
        flat = b.load(counter, typ=I32)
        b.cbranch(b.icmp_signed("<", flat, end), row, exit_block)
        b.position_at_end(row)
        long_loop = not short_constant_range(begin, end)
        if long_loop:
            e.polls.poll()
        self.rows[loop.id] = RowState(counter, header, flat)
        row_head(flat)
        left_in_row = b.sub(width, b.urem(flat, width))
        count = b.sub(end, flat)
        count = b.select(b.icmp_signed("<", count, left_in_row), count, left_in_row)
        if long_loop:  # a long row is run as strips, with a poll before each
            strip = ll.Constant(I32, STRIP)
            count = b.select(b.icmp_signed("<", count, strip), count, strip)
        row_done = e.fn.append_basic_block("row_done")
        # ``continue`` goes to the next cell of the row, ``break`` leaves every row
        self.simple_loop(ll.Constant(I32, 0), count, body, lambda k: cell(flat, k), exit_block)
        b.branch(row_done)
        b.position_at_end(row_done)
        b.store(b.add(flat, count, flags=["nsw"]), counter)
        b.branch(header)
        b.position_at_end(exit_block)

    def simple_loop(self, begin, end, body, set_indices, break_to=None) -> None:
        """``for i in [begin, end)``: ``set_indices(i)`` binds the loop's indices."""
        e = self.emitter
        b = e.b
        counter = e.alloca(I32, "i")
        b.store(begin, counter)
        header = e.fn.append_basic_block("for")
        body_block = e.fn.append_basic_block("body")
        latch = e.fn.append_basic_block("next")
        exit_block = e.fn.append_basic_block("endfor")
        b.branch(header)
        b.position_at_end(header)
        i = b.load(counter, typ=I32)
        b.cbranch(b.icmp_signed("<", i, end), body_block, exit_block)
        b.position_at_end(body_block)
        set_indices(i)
        e.loop_targets.append((latch, break_to or exit_block))
        e.block(body)
        e.loop_targets.pop()
        if not b.block.is_terminated:
            b.branch(latch)
        b.position_at_end(latch)
        b.store(b.add(i, ll.Constant(I32, 1), flags=["nsw"]), counter)
        b.branch(header)
        b.position_at_end(exit_block)


# -- the emit table's entries (codegen/function.py) -------------------------------------
def emit_range_for(e: Emitter, s: ir.RangeForStmt) -> None:
    """A range or ndrange loop in a task's body, by rows."""
    extents = [e.v(x) for x in s.extents]
    starts = [e.v(x) for x in s.starts]
    e.loops.counted_loop(s, e.v(s.begin), e.v(s.end), extents, starts, s.body)


def emit_struct_for(e: Emitter, s: ir.StructForStmt) -> None:
    """A struct-for in a task's body: a row loop over all of its field's cells."""
    zero = ll.Constant(I32, 0)
    end = ll.Constant(I32, math.prod(s.field.shape))
    e.loops.row_loop(s, s, zero, end)


def emit_loop_index(e: Emitter, s: ir.LoopIndexStmt) -> ll.Value:
    return e.loops.indices[s.loop.id][s.axis]


def emit_row_start(e: Emitter, s: ir.RowStartStmt) -> ll.Value:
    return e.loops.rows[s.loop.id].flat


def emit_row_offset(e: Emitter, s: ir.RowOffsetStmt) -> ll.Value:
    return e.loops.rows[s.loop.id].offset


def emit_skip_rows(e: Emitter, s: ir.SkipRowsStmt) -> None:
    """Moves the row loop's counter to ``s.next`` and goes on with that row."""
    rows = e.loops.rows[s.loop.id]
    e.b.store(e.v(s.next), rows.counter)
    e.b.branch(rows.header)
