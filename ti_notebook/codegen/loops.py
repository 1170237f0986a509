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
"""

from __future__ import annotations

import math

import llvmlite.ir as ll

from ti_notebook.codegen.interrupts import STRIP, short_constant_range
from ti_notebook.codegen.llvm_types import I32
from ti_notebook.ir import nodes as ir


class RowState:
    """The state of the row loop being emitted: its counter, its header, this row."""

    def __init__(self, counter: ll.Value, header: ll.Block, flat: ll.Value) -> None:
        self.counter, self.header, self.flat = counter, header, flat
        self.offset: ll.Value | None = None


class LoopsMixin:
    def emit_range_for(self, s: ir.RangeForStmt):
        extents = [self.v(e) for e in s.extents]
        starts = [self.v(x) for x in s.starts]
        self.counted_loop(s, self.v(s.begin), self.v(s.end), extents, starts, s.body)

    def emit_struct_for(self, s: ir.StructForStmt):
        zero = ll.Constant(I32, 0)
        end = ll.Constant(I32, math.prod(s.field.shape))
        self.row_loop(s, s, zero, end)

    def emit_row_start(self, s: ir.RowStartStmt):
        return self.rows[s.loop.id].flat

    def emit_row_offset(self, s: ir.RowOffsetStmt):
        return self.rows[s.loop.id].offset

    def emit_skip_rows(self, s: ir.SkipRowsStmt):
        rows = self.rows[s.loop.id]
        self.b.store(self.v(s.next), rows.counter)
        self.b.branch(rows.header)

    # -- index splitting ---------------------------------------------------------------
    def split_index(self, flat, extents, starts) -> list[ll.Value]:
        b = self.b
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
        if not extents:

            def one_axis(i: ll.Value) -> None:
                self.loop_indices[loop.id] = [i]
                self.random_iteration(loop, lambda: i)

            if short_constant_range(begin, end):
                self.simple_loop(begin, end, body, one_axis)
            else:
                self.strip_mined_loop(begin, end, body, one_axis)
            return
        inner_axis = len(extents) - 1
        first: list[ll.Value] = []  # the row's first indices

        def row_head(flat: ll.Value) -> None:
            first[:] = self.split_index(flat, extents, starts)

        def cell(flat: ll.Value, k: ll.Value) -> None:
            indices = list(first)
            indices[inner_axis] = self.b.add(indices[inner_axis], k, flags=["nsw"])
            self.loop_indices[loop.id] = indices
            self.random_iteration(loop, lambda: self.b.add(flat, k, flags=["nsw"]))

        self.rows_of(loop, begin, end, extents[-1], row_head, cell, body)

    def row_loop(self, owner, loop, begin, end) -> None:
        """The row loop a struct-for became (``ir.StructForStmt`` says what it means):
        ``owner`` (the loop, or its task) holds ``row_width``, ``row_head`` and ``body``."""
        width = ll.Constant(I32, owner.row_width)

        def row_head(flat: ll.Value) -> None:
            self.block(owner.row_head)

        def cell(flat: ll.Value, k: ll.Value) -> None:
            self.rows[loop.id].offset = k
            self.random_iteration(loop, lambda: self.b.add(flat, k, flags=["nsw"]))

        self.rows_of(loop, begin, end, width, row_head, cell, owner.body)

    def rows_of(self, loop, begin, end, width, row_head, cell, body) -> None:
        """Runs ``[begin, end)`` by rows ending at multiples of ``width``: ``row_head(flat)``
        once per row (it may skip rows), then ``cell(flat, k)`` and ``body`` per cell."""
        b = self.b
        counter = self.alloca(I32, "flat")
        b.store(begin, counter)
        header = self.fn.append_basic_block("rows")
        row = self.fn.append_basic_block("row")
        exit_block = self.fn.append_basic_block("endrows")
        b.branch(header)
        b.position_at_end(header)
        flat = b.load(counter, typ=I32)
        b.cbranch(b.icmp_signed("<", flat, end), row, exit_block)
        b.position_at_end(row)
        long_loop = not short_constant_range(begin, end)
        if long_loop:
            self.poll_interrupt()
        self.rows[loop.id] = RowState(counter, header, flat)
        row_head(flat)
        left_in_row = b.sub(width, b.urem(flat, width))
        count = b.sub(end, flat)
        count = b.select(b.icmp_signed("<", count, left_in_row), count, left_in_row)
        if long_loop:  # a long row is run as strips, with a poll before each
            strip = ll.Constant(I32, STRIP)
            count = b.select(b.icmp_signed("<", count, strip), count, strip)
        row_done = self.fn.append_basic_block("row_done")
        # ``continue`` goes to the next cell of the row, ``break`` leaves every row
        self.simple_loop(ll.Constant(I32, 0), count, body, lambda k: cell(flat, k), exit_block)
        b.branch(row_done)
        b.position_at_end(row_done)
        b.store(b.add(flat, count, flags=["nsw"]), counter)
        b.branch(header)
        b.position_at_end(exit_block)

    def simple_loop(self, begin, end, body, set_indices, break_to=None) -> None:
        """``for i in [begin, end)``: ``set_indices(i)`` binds the loop's indices."""
        b = self.b
        counter = self.alloca(I32, "i")
        b.store(begin, counter)
        header = self.fn.append_basic_block("for")
        body_block = self.fn.append_basic_block("body")
        latch = self.fn.append_basic_block("next")
        exit_block = self.fn.append_basic_block("endfor")
        b.branch(header)
        b.position_at_end(header)
        i = b.load(counter, typ=I32)
        b.cbranch(b.icmp_signed("<", i, end), body_block, exit_block)
        b.position_at_end(body_block)
        set_indices(i)
        self.loop_targets.append((latch, break_to or exit_block))
        self.block(body)
        self.loop_targets.pop()
        if not b.block.is_terminated:
            b.branch(latch)
        b.position_at_end(latch)
        b.store(b.add(i, ll.Constant(I32, 1), flags=["nsw"]), counter)
        b.branch(header)
        b.position_at_end(exit_block)
