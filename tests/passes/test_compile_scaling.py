"""Every pass does work linear in the kernel's size. Kernels of each family in
``scaling_kernels.py`` are compiled at two sizes (the larger four times the smaller)
and, per pass, three things are counted (never timed):

- the walks of the whole kernel (``Block.walk`` of its root block): the same number at
  both sizes, whatever the size (a pass that walks the kernel once per rewritten
  statement makes as many walks as it rewrites);
- the statements all its walks visit (of any block: a task, a loop, a branch), as a
  multiple of the kernel's size: about the same at both sizes (a walk of a loop per
  statement of that loop counts here);
- its calls of ``Stmt.operands``: about four times as many, not sixteen.

The CPU's passes run on every family; the CUDA backend's (``spill_between_tasks``,
``warp_accesses``) on the CUDA backend's own code through the SIMT emulator.
"""

from __future__ import annotations

import collections
import dataclasses
import sys

import pytest

import ti_notebook as ti
from tests.passes import scaling_kernels
from ti_notebook.ir import stmt as ir_stmt
from ti_notebook.passes import pipeline

pytestmark = pytest.mark.cpu

SMALL, LARGE = 10, 40
# a family whose unit is already thousands of statements (a scalarised SVD is ~4,500)
# grows by the same factor from a smaller start
SIZES = {"svd": (3, 12)}


@dataclasses.dataclass
class Counts:
    """Per pass name: walks of the root block, walks of any block, statements those
    walks visited, ``operands()`` calls; and the kernels' sizes before the passes."""

    root_walks: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    walks: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    visited: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    operands: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    fired: set = dataclasses.field(default_factory=set)
    size: int = 0


def _count(monkeypatch, make_kernel, n: int, args=()) -> Counts:
    """Compiles (and runs) ``make_kernel(ti, n)`` with every pass's IR visits counted."""
    counts = Counts()
    current, root = ["outside"], [None]
    real_walk, real_operands, real_run = ir_stmt.Block.walk, ir_stmt.Stmt.operands, pipeline.run
    walk_code = real_walk.__code__

    def counted_visits(block):
        name = current[0]
        counts.walks[name] += 1
        counts.root_walks[name] += block is root[0]
        for stmt in real_walk(block):
            counts.visited[name] += 1
            yield stmt

    def walk(self):
        if sys._getframe(1).f_code is walk_code:  # a walk's own step into a child block
            return real_walk(self)
        return counted_visits(self)

    def operands(self):
        counts.operands[current[0]] += 1
        return real_operands(self)

    def attributed(name, run_pass):
        def run(*call):
            current[0] = name
            for counter in (counts.root_walks, counts.walks, counts.visited, counts.operands):
                counter[name] += 0  # a pass that returns at once is counted too
            try:
                return run_pass(*call)
            finally:
                current[0] = "outside"

        return run

    def run(kernel, options, capabilities, passes=pipeline.PASSES):
        root[0] = kernel.block
        counts.size += sum(1 for _ in real_walk(kernel.block))
        records = real_run(
            kernel, options, capabilities, [(n, attributed(n, p)) for n, p in passes]
        )
        counts.fired.update(r.name for r in records if r.changed)
        return records

    with monkeypatch.context() as patch:
        patch.setattr(ir_stmt.Block, "walk", walk)
        patch.setattr(ir_stmt.Stmt, "operands", operands)
        patch.setattr(pipeline, "run", run)
        make_kernel(ti, n)(*args)
    for counter in (counts.root_walks, counts.walks, counts.visited, counts.operands):
        del counter["outside"]
    return counts


def _assert_linear(small: Counts, large: Counts) -> None:
    assert large.size > 3 * small.size  # the family grows with n
    assert set(large.walks) == set(small.walks)
    for name in large.walks:
        assert large.root_walks[name] == small.root_walks[name], (
            f"{name} walks the whole kernel {small.root_walks[name]} times at size "
            f"{small.size}, {large.root_walks[name]} times at size {large.size}"
        )
        per_small = small.visited[name] / small.size  # whole-kernel walks, in effect
        per_large = large.visited[name] / large.size
        assert per_large <= 1.25 * per_small + 1, (
            f"{name}: its walks visit {per_small:.1f}x the kernel at size {small.size}, "
            f"{per_large:.1f}x at size {large.size}"
        )
        ratio = large.operands[name] / max(small.operands[name], 1)
        assert ratio < 6, f"{name}: operand visits grow {ratio:.1f}x for a 4x larger kernel"


@pytest.mark.parametrize("family", sorted(scaling_kernels.FAMILIES))
def test_ir_walks_per_pass_do_not_grow_with_kernel_size(monkeypatch, family):
    ti.init(arch=ti.cpu, offline_cache=False)  # every kernel compiles: visits to count
    make = scaling_kernels.FAMILIES[family]
    args = scaling_kernels.ARGS.get(family, ())
    small_n, large_n = SIZES.get(family, (SMALL, LARGE))
    small = _count(monkeypatch, make, small_n, args)
    large = _count(monkeypatch, make, large_n, args)
    assert set(small.walks) == {name for name, _ in pipeline.PASSES}  # each one counted
    _assert_linear(small, large)


def test_the_families_make_every_rewriting_pass_fire(monkeypatch):
    """The counts above mean something only for passes that rewrote something."""
    ti.init(arch=ti.cpu, offline_cache=False)
    fired = set()
    for family, make in scaling_kernels.FAMILIES.items():
        fired |= _count(monkeypatch, make, 4, scaling_kernels.ARGS.get(family, ())).fired
    rewriting = {name for name, _ in pipeline.PASSES} - {
        "typecheck",  # checks; adds casts only to mixed-type code
        "typecheck_final",
        "make_adjoint",  # autodiff: a grad kernel (below)
        "make_dual",  # forward-mode autodiff
        "memory_traffic",  # an analysis: changes nothing
        "prove_bounds",  # rewrites nothing here: these kernels' accesses are proven
    }
    assert rewriting <= fired, f"no family makes {sorted(rewriting - fired)} fire"


def test_grad_kernel_passes_do_not_grow(monkeypatch):
    """``make_adjoint`` writes the reverse of an unrolled kernel: linear too."""
    ti.init(arch=ti.cpu, offline_cache=False)

    def make(ti, n):
        x = ti.field(ti.f32, shape=n, needs_grad=True)
        loss = ti.field(ti.f32, shape=(), needs_grad=True)

        @ti.kernel
        def energy():
            for t in ti.static(range(n)):
                loss[None] += ti.sin(x[t]) * x[(t + 1) % n]

        def run():
            energy()
            loss.grad[None] = 1.0
            energy.grad()

        return run

    small, large = _count(monkeypatch, make, SMALL), _count(monkeypatch, make, LARGE)
    assert "make_adjoint" in small.fired
    _assert_linear(small, large)


@pytest.mark.cuda_sim
@pytest.mark.parametrize("family", ["serial", "sparse"])
def test_cuda_passes_do_not_grow_with_kernel_size(monkeypatch, family):
    """The CUDA backend's pipeline: values crossing tasks spilled, warps analysed."""
    ti.init(arch=ti.cuda, cuda_sim=True, offline_cache=False)
    make = scaling_kernels.FAMILIES[family]
    small = _count(monkeypatch, make, SMALL)
    large = _count(monkeypatch, make, LARGE)
    assert set(small.walks) == {name for name, _ in pipeline.KERNEL_PER_TASK_PASSES}
    assert "spill_between_tasks" in small.fired
    _assert_linear(small, large)
