"""Loop emission: range, ndrange and struct-for loops, by rows.

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

A struct-for over a field whose cells sit under sparse levels also skips, per row, every
block whose deepest non-leaf sparse cell is inactive, in one step (its cells are
consecutive in memory order); a sparse leaf level is checked per cell in the IR
(``passes/lower_sparse.py``). Activation keeps the ancestors of an active cell active,
so the deepest sparse level above the leaf decides.
"""

from __future__ import annotations

import math

import llvmlite.ir as ll

from ti_notebook.codegen import common as c
from ti_notebook.codegen.interrupts import STRIP, short_constant_range
from ti_notebook.ir import nodes as ir
from ti_notebook.plan import visit


class LoopsMixin:
    def emit_RangeFor(self, s: ir.RangeForStmt):
        extents = [self.v(e) for e in s.extents]
        starts = [self.v(x) for x in s.starts]
        self.counted_loop(s, self.v(s.begin), self.v(s.end), extents, starts, s.body)

    def emit_StructFor(self, s: ir.StructForStmt):
        layout = s.field.layout()
        zero = ll.Constant(c.I32, 0)
        end = ll.Constant(c.I32, math.prod(layout.shape))
        self.counted_loop(s, zero, end, None, None, s.body, layout=layout)

    def emit_LoopLinearIndex(self, s: ir.LoopLinearIndexStmt):
        return self.loop_linear[s.loop.id]

    # -- index splitting ---------------------------------------------------------------
    def struct_indices(self, flat: ll.Value, layout) -> list[ll.Value]:
        """Field indices of cell number ``flat`` in memory order (the plan's levels)."""
        b = self.b
        indices = [ll.Constant(c.I32, 0)] * len(layout.shape)
        rest = flat
        levels = layout.levels
        for depth in range(len(levels) - 1, -1, -1):
            level = levels[depth]
            if depth == 0:
                local = rest
            else:
                count = ll.Constant(c.I32, level.num_cells)
                local, rest = b.urem(rest, count), b.udiv(rest, count)
            for k in range(len(level.axes) - 1, -1, -1):
                axis, extent, below = level.axes[k], level.extents[k], level.below[k]
                if k == 0:
                    part = local
                else:
                    size = ll.Constant(c.I32, extent)
                    part, local = b.urem(local, size), b.udiv(local, size)
                if below > 1:
                    part = b.mul(part, ll.Constant(c.I32, below), flags=["nuw"])
                indices[axis] = b.add(indices[axis], part, flags=["nuw"])
        return indices

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
    def counted_loop(self, loop, begin, end, extents, starts, body, layout=None) -> None:
        """``for flat in [begin, end)``, splitting ``flat`` into indices once per row."""
        if layout is None and not extents:

            def one_axis(i: ll.Value) -> None:
                self.loop_indices[loop.id] = [i]
                self.random_iteration(loop, lambda: i)

            if short_constant_range(begin, end):
                self.simple_loop(begin, end, body, one_axis)
            else:
                self.strip_mined_loop(begin, end, body, one_axis)
            return
        b = self.b
        leaf = layout.levels[-1] if layout is not None else None
        # A nested layout's leaf block is short per axis (8 cells for 8x8 blocks): its
        # rows span the whole leaf block, whose own indices come from a few shifts.
        # ``plan/visit.py`` decides the rows, and replays them as ``visit_order``.
        whole_blocks = False
        if layout is not None:
            rows = visit.struct_rows(layout)
            width, inner_axis = ll.Constant(c.I32, rows.width), rows.inner_axis
            whole_blocks = rows.whole_blocks
        else:
            width, inner_axis = extents[-1], len(extents) - 1
        counter = self.alloca(c.I32, "flat")
        b.store(begin, counter)
        header = self.fn.append_basic_block("rows")
        row = self.fn.append_basic_block("row")
        exit_block = self.fn.append_basic_block("endrows")
        b.branch(header)
        b.position_at_end(header)
        flat = b.load(counter, typ=c.I32)
        b.cbranch(b.icmp_signed("<", flat, end), row, exit_block)
        b.position_at_end(row)
        long_loop = not short_constant_range(begin, end)
        if long_loop:
            self.poll_interrupt()
        into_row = b.urem(flat, width)
        if whole_blocks:
            indices = self.struct_indices(b.sub(flat, into_row), layout)  # the block's corner
            self.skip_inactive_blocks(layout, indices, flat, counter, header)
        elif layout is not None:
            indices = self.struct_indices(flat, layout)
            self.skip_inactive_blocks(layout, indices, flat, counter, header)
        else:
            indices = self.split_index(flat, extents, starts)
        left_in_row = b.sub(width, into_row)
        count = b.sub(end, flat)
        count = b.select(b.icmp_signed("<", count, left_in_row), count, left_in_row)
        if long_loop:  # a long row is run as strips, with a poll before each
            strip = ll.Constant(c.I32, STRIP)
            count = b.select(b.icmp_signed("<", count, strip), count, strip)
        row_done = self.fn.append_basic_block("row_done")

        def row_indices(k: ll.Value) -> None:
            in_row = list(indices)
            if whole_blocks:
                local = b.add(into_row, k, flags=["nuw"])
                for n in range(len(leaf.axes) - 1, -1, -1):
                    size = ll.Constant(c.I32, leaf.extents[n])
                    part = local if n == 0 else b.urem(local, size)
                    local = b.udiv(local, size) if n else local
                    in_row[leaf.axes[n]] = b.add(in_row[leaf.axes[n]], part, flags=["nuw"])
            else:
                in_row[inner_axis] = b.add(indices[inner_axis], k, flags=["nsw"])
            self.loop_indices[loop.id] = in_row
            if layout is not None:  # the memory-order cell number, for linear addresses
                self.loop_linear[loop.id] = b.sext(b.add(flat, k, flags=["nsw"]), c.I64)
            self.random_iteration(loop, lambda: b.add(flat, k, flags=["nsw"]))

        # ``continue`` goes to the next cell of the row, ``break`` leaves every row
        self.simple_loop(ll.Constant(c.I32, 0), count, body, row_indices, exit_block)
        b.branch(row_done)
        b.position_at_end(row_done)
        b.store(b.add(flat, count, flags=["nsw"]), counter)
        b.branch(header)
        b.position_at_end(exit_block)

    def simple_loop(self, begin, end, body, set_indices, break_to=None) -> None:
        """``for i in [begin, end)``: ``set_indices(i)`` binds the loop's indices."""
        b = self.b
        counter = self.alloca(c.I32, "i")
        b.store(begin, counter)
        header = self.fn.append_basic_block("for")
        body_block = self.fn.append_basic_block("body")
        latch = self.fn.append_basic_block("next")
        exit_block = self.fn.append_basic_block("endfor")
        b.branch(header)
        b.position_at_end(header)
        i = b.load(counter, typ=c.I32)
        b.cbranch(b.icmp_signed("<", i, end), body_block, exit_block)
        b.position_at_end(body_block)
        set_indices(i)
        self.loop_targets.append((latch, break_to or exit_block))
        self.block(body)
        self.loop_targets.pop()
        if not b.block.is_terminated:
            b.branch(latch)
        b.position_at_end(latch)
        b.store(b.add(i, ll.Constant(c.I32, 1), flags=["nsw"]), counter)
        b.branch(header)
        b.position_at_end(exit_block)

    def skip_inactive_blocks(self, layout, indices, flat, counter, header) -> None:
        """Jumps over a whole block when its deepest non-leaf sparse cell is inactive."""
        found = visit.skip_level(layout)
        if found is None:
            return
        depth, span = found
        level = layout.levels[depth]
        b = self.b
        number = ll.Constant(c.I32, 0)
        divisors = layout.cell_divisors(level)
        for a, (cells, divisor) in enumerate(zip(level.grid, divisors, strict=True)):
            coord = indices[a] if divisor == 1 else b.udiv(indices[a], ll.Constant(c.I32, divisor))
            number = b.add(b.mul(number, ll.Constant(c.I32, cells)), coord)
        word_index = b.zext(b.lshr(number, ll.Constant(c.I32, 5)), c.I64)
        offset = b.add(
            b.mul(word_index, ll.Constant(c.I64, 4)), ll.Constant(c.I64, level.mask_offset)
        )
        word_ptr = b.gep(self.mask_root(layout.tree_id), [offset], source_etype=c.I8)
        word = b.load(word_ptr, typ=c.I32)
        bit = b.shl(ll.Constant(c.I32, 1), b.and_(number, ll.Constant(c.I32, 31)))
        active = b.icmp_unsigned("!=", b.and_(word, bit), ll.Constant(c.I32, 0))
        go_on = self.fn.append_basic_block("block_active")
        skip = self.fn.append_basic_block("block_skip")
        b.cbranch(active, go_on, skip)
        b.position_at_end(skip)
        span_value = ll.Constant(c.I32, span)
        next_block = b.mul(b.add(b.udiv(flat, span_value), ll.Constant(c.I32, 1)), span_value)
        b.store(next_block, counter)
        b.branch(header)
        b.position_at_end(go_on)
