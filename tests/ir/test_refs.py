"""The IR is self-contained: it refers to frozen descriptors of fields and SNodes
(``ir/refs.py``), never to the user's live ``Field``/``SNode`` objects.

Each kernel below is compiled with ``driver.trace_kernel`` wrapped; every statement's
attributes (through lists, tuples, dicts and descriptors) are walked after tracing and
again after the passes.
"""

from __future__ import annotations

import dataclasses

import pytest

import ti_notebook as ti
from ti_notebook.compiler import driver
from ti_notebook.errors import TiRuntimeError
from ti_notebook.frontend.descriptors import field_ref, node_ref
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.refs import FieldRef, NodeRef
from ti_notebook.lang.field import Field
from ti_notebook.lang.snode import SNode

pytestmark = pytest.mark.cpu

LIVE = (Field, SNode)


def _live_objects(value, where: str, seen: set) -> list[str]:
    """Paths to the live fields and SNodes reachable from ``value``'s attributes."""
    if isinstance(value, LIVE):
        return [where]
    if id(value) in seen or isinstance(value, (ir.Stmt, ir.Block)):
        return []  # statements are walked on their own
    seen.add(id(value))
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _live_objects(key, f"{where} key", seen)
            found += _live_objects(item, f"{where}[{key!r}]", seen)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for k, item in enumerate(value):
            found += _live_objects(item, f"{where}[{k}]", seen)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            found += _live_objects(getattr(value, f.name), f"{where}.{f.name}", seen)
    return found


def _live_in_ir(block: ir.Block) -> list[str]:
    found, seen = [], set()
    for stmt in block.walk():
        for name, value in vars(stmt).items():
            if name != "parent":
                found += _live_objects(value, f"{type(stmt).__name__}.{name}", seen)
    return found


@pytest.fixture
def traced(monkeypatch):
    """The IRs compiled while the test runs: (kernel after tracing's findings, kernel)."""
    kernels = []
    original = driver.trace_kernel

    def trace(request):
        kernel, inputs = original(request)
        kernels.append((_live_in_ir(kernel.block), kernel))
        return kernel, inputs

    monkeypatch.setattr(driver, "trace_kernel", trace)
    return kernels


def _check(kernels, compiled: int) -> None:
    assert len(kernels) == compiled
    for after_tracing, kernel in kernels:
        assert after_tracing == []
        assert _live_in_ir(kernel.block) == []


def test_dense_fields_vectors_and_struct_fors(traced):
    x = ti.field(ti.f32, shape=(4, 4))
    total = ti.field(ti.f32, shape=())
    v = ti.Vector.field(2, ti.i32, shape=4)

    @ti.kernel
    def run():
        for i, j in x:
            x[i, j] = i + j
            total[None] += x[i, j]
        for i in v:
            v[i] = ti.Vector([i, 2 * i])

    run()
    _check(traced, 1)
    assert total[None] == 48 and v.to_numpy()[3].tolist() == [3, 6]
    loops = [s for s in traced[0][1].block.walk() if isinstance(s, ir.OffloadedStmt)]
    assert all(isinstance(t.field, FieldRef) for t in loops if t.kind == "struct_for")


def test_sparse_nodes_and_block_local(traced):
    a = ti.field(ti.f32, name="a")
    b = ti.field(ti.f32, name="b")
    for f in (a, b):
        ti.root.pointer(ti.ij, 4).dense(ti.ij, 4).place(f)
    blk = a.snode.parent(2)

    @ti.kernel
    def fill():
        for i, j in ti.ndrange(16, 16):
            a[i, j] = 1.0
        ti.deactivate(blk, [1, 1])

    @ti.kernel
    def smooth() -> ti.i32:
        for i, j in a:
            ti.block_local(a)
            b[i, j] = a[i, j] + a[i, j + 1]
        n = 0
        for cell in ti.grouped(blk):
            n += ti.is_active(blk, cell)
        return n

    fill()
    assert smooth() == 15
    _check(traced, 2)
    assert smooth.stages()["report"]["block_local"][0]["field"] == "a"


def test_descriptors_compare_by_what_they_describe():
    x = ti.field(ti.f32, shape=8)
    y = ti.field(ti.f32, shape=8)
    ref = field_ref(x)
    copy = FieldRef(ref.name, ref.label, ref.dtype, ref.plan, ref.path)
    assert copy == ref and hash(copy) == hash(ref) and copy is not ref
    assert field_ref(y) != ref and len({ref, copy, field_ref(y)}) == 2
    assert ref.parent() == node_ref(x.snode.parent()) and ref.parent(2) is None
    assert isinstance(ref.parent(), NodeRef) and ref.parent().shape == (8,)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ref.name = "z"


def test_a_destroyed_tree_is_reported_as_before_descriptors():
    """Describing a field at trace time raises what compiling it raised: same message,
    located at the kernel."""
    fb = ti.FieldsBuilder()
    x = ti.field(ti.f32, name="x")
    fb.dense(ti.i, 4).place(x)
    fb.finalize().destroy()

    @ti.kernel
    def loop():
        for i in x:
            x[i] = 1.0

    with pytest.raises(TiRuntimeError, match="belongs to an SNode tree that was destroyed"):
        loop()
