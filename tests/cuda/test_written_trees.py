"""Which trees a task writes (``CudaDeviceRuntime``'s ``written_tree_slots``)."""

from __future__ import annotations

import pytest

from ti_notebook.compiler.backends.cuda_device import written_tree_slots
from ti_notebook.ir import nodes as ir
from ti_notebook.ir import types as T

pytestmark = pytest.mark.unit


def task_of(*stmts) -> ir.OffloadedStmt:
    task = ir.OffloadedStmt("serial")
    for stmt in stmts:
        task.body.append(stmt)
    return task


def at(base, offset=0):
    return ir.PtrOffsetStmt(base, ir.ConstStmt(offset, T.i64), T.f32)


def store(address):
    return ir.GlobalStoreStmt(address, ir.ConstStmt(1.0, T.f32))


def test_stores_and_atomics_are_traced_to_their_tree():
    one = ir.RootPtrStmt(7)
    other = ir.RootPtrStmt(9)
    task = task_of(
        store(at(at(one, 8), 4)), ir.AtomicOpStmt("add", at(other), ir.ConstStmt(1.0, T.f32))
    )
    assert written_tree_slots(task, [9, 7, 3]) == [0, 1]


def test_reads_and_temporaries_write_no_tree():
    root = ir.RootPtrStmt(7)
    task = task_of(
        ir.GlobalLoadStmt(at(root)),
        store(ir.TempPtrStmt(0, T.f32)),
        ir.AtomicOpStmt("add", ir.AllocaStmt(T.f32), ir.ConstStmt(1.0, T.f32)),
    )
    assert written_tree_slots(task, [7]) == []


def test_an_address_of_unknown_origin_may_write_anything():
    condition = ir.ConstStmt(1, T.i32)
    select = ir.SelectStmt(condition, ir.RootPtrStmt(7), ir.RootPtrStmt(9), T.f32)
    assert written_tree_slots(task_of(store(select)), [7, 9]) is None
