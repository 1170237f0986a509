"""Every pass does work linear in the kernel's size: an unrolled body four times longer
costs each pass about four times the IR walks and operand visits, not sixteen (a pass
that walks the whole tree once per rewritten statement is quadratic)."""

from __future__ import annotations

import collections

import pytest

import ti_notebook as ti
from ti_notebook.ir import stmt as ir_stmt
from ti_notebook.passes import pipeline

pytestmark = pytest.mark.cpu


def _visits_per_pass(monkeypatch, make_kernel, n: int) -> collections.Counter:
    """Calls of ``Stmt.operands`` and ``Block.walk`` made by each pass compiling the
    kernel ``make_kernel(n)``."""
    counts: collections.Counter = collections.Counter()
    current = ["outside"]
    operands, walk = ir_stmt.Stmt.operands, ir_stmt.Block.walk

    def counted_operands(self):
        counts[current[0]] += 1
        return operands(self)

    def counted_walk(self):
        counts[current[0]] += 1
        return walk(self)

    def timed(name, run_pass):
        def run(*args):
            current[0] = name
            try:
                return run_pass(*args)
            finally:
                current[0] = "outside"

        return run

    real_run = pipeline.run

    def run(kernel, options, capabilities, passes=pipeline.PASSES):
        return real_run(kernel, options, capabilities, [(n, timed(n, p)) for n, p in passes])

    with monkeypatch.context() as patch:
        patch.setattr(ir_stmt.Stmt, "operands", counted_operands)
        patch.setattr(ir_stmt.Block, "walk", counted_walk)
        patch.setattr(pipeline, "run", run)
        make_kernel(n)()
    del counts["outside"]
    return counts


def _unrolled_struct_for(n: int):
    x = ti.field(ti.f32, shape=64)
    out = ti.field(ti.f32, shape=64)
    c = ti.field(ti.f32, shape=n)

    @ti.kernel
    def unrolled():
        for i in x:
            acc = 0.0
            for t in ti.static(range(n)):
                acc += ti.sin(x[i] * c[t]) * c[t]
            out[i] = acc

    return unrolled


def _unrolled_serial(n: int):
    x = ti.field(ti.f32, shape=n)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def unrolled():
        acc = 0.0
        for t in ti.static(range(n)):
            x[t] = t * 0.5
            total[None] += x[t]
            acc += x[t]
        for i in range(4):  # a top-level local read by a parallel loop: a temporary
            x[i] += acc

    return unrolled


@pytest.mark.parametrize("make_kernel", [_unrolled_struct_for, _unrolled_serial])
def test_ir_visits_per_pass_grow_linearly(monkeypatch, make_kernel):
    ti.init(arch=ti.cpu, offline_cache=False)  # every kernel compiles: visits to count
    small = _visits_per_pass(monkeypatch, make_kernel, 50)
    large = _visits_per_pass(monkeypatch, make_kernel, 200)
    ratios = {name: large[name] / max(small[name], 1) for name in large}
    quadratic = {name: r for name, r in ratios.items() if r > 6}  # linear: 4, quadratic: 16
    assert not quadratic, f"IR visits per pass grow faster than the kernel: {quadratic}"
    assert small and sum(large.values()) / sum(small.values()) < 6
