"""ir/verify.py accepts well-formed IR and names each broken invariant."""

from __future__ import annotations

import pytest

from ti_notebook.errors import TiInternalError
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.types import i32
from ti_notebook.ir.verify import verify

pytestmark = pytest.mark.unit


def _loop_with_body():
    root = ir.Block()
    zero = root.append(ir.ConstStmt(0, i32))
    ten = root.append(ir.ConstStmt(10, i32))
    loop = root.append(ir.RangeForStmt(zero, ten))
    index = loop.body.append(ir.LoopIndexStmt(loop, 0, i32))
    loop.body.append(ir.BinaryOpStmt("add", index, ten, i32))  # an outer value: fine
    return root, loop, index


def test_well_formed_ir_passes():
    root, _loop, _index = _loop_with_body()
    verify(root, "test")


def test_a_value_used_outside_the_block_that_defines_it():
    root, _loop, index = _loop_with_body()
    root.append(ir.UnaryOpStmt("neg", index, i32))
    with pytest.raises(TiInternalError, match="after test: .* not defined before it"):
        verify(root, "test")


def test_a_value_used_before_its_definition():
    root = ir.Block()
    later = ir.ConstStmt(1, i32)
    root.append(ir.UnaryOpStmt("neg", later, i32))
    root.append(later)
    with pytest.raises(TiInternalError, match="not defined before it"):
        verify(root, "test")


def test_parents_owners_and_duplicates():
    root, loop, index = _loop_with_body()
    index.parent = root
    with pytest.raises(TiInternalError, match="parent"):
        verify(root, "test")
    root, loop, index = _loop_with_body()
    loop.body.owner = None
    with pytest.raises(TiInternalError, match="owner"):
        verify(root, "test")
    root, loop, index = _loop_with_body()
    loop.body.stmts.append(index)
    with pytest.raises(TiInternalError, match="twice"):
        verify(root, "test")


def test_untyped_operands_and_stray_breaks():
    root = ir.Block()
    untyped = root.append(ir.ConstStmt(1, i32))
    untyped.dtype = None
    root.append(ir.UnaryOpStmt("neg", untyped, i32))
    with pytest.raises(TiInternalError, match="no type"):
        verify(root, "test")
    root = ir.Block([ir.BreakStmt()])
    with pytest.raises(TiInternalError, match="not inside a loop"):
        verify(root, "test")
