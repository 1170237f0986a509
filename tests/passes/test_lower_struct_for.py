"""``passes/lower_struct_for.py``: a struct-for becomes a row loop whose index splitting
is IR, and that IR visits cells in the plan's order (``FieldLayout.visit_order()``).

The row loop is run here by a small evaluator of the lowered IR, without codegen: what
any backend emits from it visits the cells this test sees. Compiled runs of the same
layouts (sparse ones included) are checked in ``tests/plan/test_visit_order.py``.
"""

import math

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.ir import nodes as ir
from ti_notebook.ir import types
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.ir.refs import FieldRef
from ti_notebook.ir.verify import verify
from ti_notebook.passes import lower_struct_for

pytestmark = pytest.mark.cpu


def _row_major(x):
    ti.root.dense(ti.ij, (5, 7)).place(x)


def _column_major(x):
    ti.root.dense(ti.j, 7).dense(ti.i, 5).place(x)


def _blocked(x):
    ti.root.dense(ti.ij, (2, 3)).dense(ti.ij, (4, 8)).place(x)


def _three_d_nested(x):
    ti.root.dense(ti.k, 2).dense(ti.ij, (3, 2)).dense(ti.jk, (2, 3)).place(x)


def _one_d_blocks(x):
    ti.root.dense(ti.i, 5).dense(ti.i, 6).place(x)


LAYOUTS = [_row_major, _column_major, _blocked, _three_d_nested, _one_d_blocks]


def _lowered(layout) -> tuple[ir.StructForStmt, ir.PrintStmt]:
    """A serial struct-for over ``layout`` whose body prints its indices and linear
    index, after the pass (and the verifier)."""
    field = FieldRef("x", "field 'x'", types.f32, layout)
    kernel = KernelIR("visit", ir.Block())
    loop = kernel.block.append(ir.StructForStmt(field, {"serialize": True}))
    values = [loop.body.append(ir.LoopIndexStmt(loop, a, types.i32)) for a in range(field.ndim)]
    values.append(loop.body.append(ir.LoopLinearIndexStmt(loop)))
    sink = loop.body.append(ir.PrintStmt([(v, "") for v in values]))
    assert lower_struct_for.run(kernel, CompileOptions(), None)
    verify(kernel.block, "lower_struct_for")
    return loop, sink


class _Evaluator:
    """Runs the integer arithmetic of a row loop's head and body."""

    def __init__(self, loop: ir.StructForStmt) -> None:
        self.loop = loop
        self.values: dict[int, int] = {}

    def block(self, block: ir.Block, start: int, offset: int | None) -> None:
        for stmt in block.stmts:
            self.values[stmt.id] = self.value(stmt, start, offset)

    def value(self, stmt: ir.Stmt, start: int, offset: int | None):
        v = self.values
        match stmt:
            case ir.ConstStmt():
                return stmt.value
            case ir.RowStartStmt():
                return start
            case ir.RowOffsetStmt():
                return offset
            case ir.CastStmt():
                return v[stmt.operand.id]
            case ir.BinaryOpStmt():
                a, b = v[stmt.lhs.id], v[stmt.rhs.id]
                ops = {"add": a + b, "sub": a - b, "mul": a * b}
                if stmt.op in ("floordiv", "mod"):
                    return a // b if stmt.op == "floordiv" else a % b
                return ops[stmt.op]
            case ir.PrintStmt():
                return tuple(v[x.id] for x in stmt.values)
        raise AssertionError(f"unexpected {type(stmt).__name__} in a dense row loop")

    def visits(self, cells: int, sink: ir.PrintStmt) -> list[tuple]:
        width, seen, flat = self.loop.row_width, [], 0
        while flat < cells:
            self.block(self.loop.row_head, flat, None)
            count = min(width - flat % width, cells - flat)
            for k in range(count):
                self.block(self.loop.body, flat, k)
                seen.append(self.values[sink.id])
            flat += count
        return seen


@pytest.mark.parametrize("build", LAYOUTS, ids=lambda f: f.__name__.strip("_"))
def test_the_row_loop_visits_cells_in_plan_order(build):
    x = ti.field(ti.f32)
    build(x)
    layout = x.layout()
    loop, sink = _lowered(layout)
    cells = math.prod(layout.shape)
    visits = np.array(_Evaluator(loop).visits(cells, sink))
    np.testing.assert_array_equal(visits[:, :-1], layout.visit_order())
    np.testing.assert_array_equal(visits[:, -1], np.arange(cells))  # the linear index


def test_no_loop_index_of_a_lowered_loop_is_left():
    x = ti.field(ti.f32)
    _blocked(x)
    loop, _ = _lowered(x.layout())
    assert loop.row_width == 4 * 8  # a whole 4x8 leaf block per row
    left = [s for s in loop.body.walk() if isinstance(s, ir.LoopIndexStmt)]
    assert left == [] and loop.row_head.stmts


def test_a_sparse_struct_for_skips_inactive_blocks_in_its_row_head():
    x = ti.field(ti.f32)
    ti.root.pointer(ti.i, 6).dense(ti.i, 8).place(x)
    loop, _ = _lowered(x.layout())
    skips = [s for s in loop.row_head.walk() if isinstance(s, ir.SkipRowsStmt)]
    assert len(skips) == 1 and skips[0].loop is loop
    # a skipped pointer cell moves the counter to the next multiple of its 8 cells
    consts = {s.value for s in loop.row_head.walk() if isinstance(s, ir.ConstStmt)}
    assert 8 in consts


def test_print_ir_shows_the_row_loop(capsys):
    ti.init(arch=ti.cpu, print_ir=True, offline_cache=False)
    x = ti.field(ti.i32, shape=(4, 6))

    @ti.kernel
    def fill():
        for i, j in x:
            x[i, j] = i * 10 + j

    fill()
    out = capsys.readouterr().out
    after = out[out.index("after lower_struct_for") :]
    assert "rows of 6" in after and "row_head:" in after and "row_start" in after
    expected = np.arange(4)[:, None] * 10 + np.arange(6)[None, :]
    np.testing.assert_array_equal(x.to_numpy(), expected)
