"""The code generator leaves LLVM's straight-line (SLP) vectoriser out of kernels whose
long blocks are loop bodies (unrolled stencils, scalarised matrix code) and keeps it for
long straight-line code (an unrolled sum in a serial task), where instruction selection
would otherwise grow quadratically. Checked here: the choice each kernel gets, that it
reaches LLVM's pipeline, and that the kernels compute the same values either way."""

from __future__ import annotations

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.codegen.cpu import slp_vectoriser
from ti_notebook.runtime.cpu import compile_server

pytestmark = pytest.mark.cpu


@pytest.fixture
def choices(monkeypatch):
    """The choice made for each kernel compiled, by kernel name."""
    made = {}
    real = slp_vectoriser.wants_slp

    def recording(kernel):
        made[kernel.name] = real(kernel)
        return made[kernel.name]

    monkeypatch.setattr(slp_vectoriser, "wants_slp", recording)
    ti.init(arch=ti.cpu, offline_cache=False)
    return made


def _stencil(radius: int):
    a = ti.field(ti.f32, shape=(32, 32))
    b = ti.field(ti.f32, shape=(32, 32))

    @ti.kernel
    def stencil():
        for i, j in ti.ndrange((radius, 32 - radius), (radius, 32 - radius)):
            acc = 0.0
            for di, dj in ti.static(ti.ndrange((-radius, radius + 1), (-radius, radius + 1))):
                acc += a[i + di, j + dj] * (1.0 + di * 0.5 + dj * 0.25)
            b[i, j] = acc

    return a, b, stencil


def _stencil_reference(a: np.ndarray, radius: int) -> np.ndarray:
    out = np.zeros_like(a)
    n = a.shape[0]
    for di in range(-radius, radius + 1):
        for dj in range(-radius, radius + 1):
            w = np.float32(1.0 + di * 0.5 + dj * 0.25)
            out[radius : n - radius, radius : n - radius] += (
                a[radius + di : n - radius + di, radius + dj : n - radius + dj] * w
            )
    return out


@pytest.mark.parametrize("radius, searched", [(1, True), (4, False)])
def test_a_long_unrolled_loop_body_goes_without_the_vectoriser(choices, radius, searched):
    a, b, stencil = _stencil(radius)
    values = np.random.default_rng(1).random((32, 32), dtype=np.float32)
    a.from_numpy(values)
    stencil()
    assert choices["stencil"] is searched
    np.testing.assert_allclose(b.to_numpy(), _stencil_reference(values, radius), rtol=1e-5)


def test_a_long_straight_line_sum_keeps_the_vectoriser(choices):
    n = 600
    x = ti.field(ti.f32, shape=n)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def unrolled_sum():
        acc = 0.0
        for t in ti.static(range(n)):
            acc += x[t] * (t + 1)
        total[None] = acc

    values = np.random.default_rng(2).random(n, dtype=np.float32)
    x.from_numpy(values)
    unrolled_sum()
    assert choices["unrolled_sum"] is True
    expected = float(np.dot(values.astype(np.float64), np.arange(1, n + 1)))
    assert total[None] == pytest.approx(expected, rel=1e-4)


def test_a_kernel_with_both_keeps_the_vectoriser(choices):
    """A long serial block beside a long loop body: the straight-line code decides."""
    n = 300
    x = ti.field(ti.f32, shape=n)
    y = ti.field(ti.f32, shape=n)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def both():
        acc = 0.0
        for t in ti.static(range(n)):
            acc += x[t]
        total[None] = acc
        for i in y:
            s = 0.0
            for t in ti.static(range(n)):
                s += x[t] * i
            y[i] = s

    x.from_numpy(np.ones(n, dtype=np.float32))
    both()
    assert choices["both"] is True
    assert total[None] == pytest.approx(n)
    assert y[3] == pytest.approx(3 * n)


@pytest.mark.parametrize("wanted", [True, False])
def test_the_choice_reaches_the_pipeline(monkeypatch, wanted):
    import llvmlite.binding as llvm

    seen = []
    real = llvm.create_pass_builder

    def recording(machine, options):
        seen.append(options.slp_vectorization)
        return real(machine, options)

    monkeypatch.setattr(llvm, "create_pass_builder", recording)
    machine = compile_server.target_machine(*compile_server.host_target())
    module = llvm.parse_assembly("define void @k() {\n  ret void\n}\n")
    compile_server.optimise(module, machine, 3, slp_vectorize=wanted)
    assert seen == [wanted]
