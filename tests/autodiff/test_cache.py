"""Grad kernels in the offline cache: keyed apart from their primal, loaded warm."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

CELL = """
import ti_notebook as ti

x = ti.field(ti.f64, shape=8, needs_grad=True)
loss = ti.field(ti.f64, shape=(), needs_grad=True)


@ti.kernel
def energy():
    for i in x:
        p = x[i]
        for _ in range(3):
            p = p * 0.9 + 0.1
        loss[None] += p * p
"""


def _run_cell(path):
    namespace: dict = {}
    exec(compile(CELL, str(path), "exec"), namespace)  # noqa: S102 - the test's own cell
    x, loss, energy = namespace["x"], namespace["loss"], namespace["energy"]
    x.from_numpy(np.linspace(-1.0, 1.0, 8))
    with ti.ad.Tape(loss=loss):
        energy()
    return x.grad.to_numpy(), energy.report["cache"], energy.grad.report["cache"]


def test_grad_kernel_is_cached_apart_from_its_primal(tmp_path):
    ti.init(arch=ti.cpu, default_fp=ti.f64, offline_cache_file_path=str(tmp_path / "cache"))
    source = tmp_path / "cell.py"
    source.write_text(CELL)
    first, primal_first, grad_first = _run_cell(source)
    second, primal_second, grad_second = _run_cell(source)
    assert (primal_first, grad_first) == ("miss", "miss")  # the grad is not the primal's entry
    assert (primal_second, grad_second) == ("hit", "hit")
    values = np.linspace(-1.0, 1.0, 8)
    exact = 2 * (values * 0.9**3 + 1 - 0.9**3) * 0.9**3
    np.testing.assert_allclose(first, exact, rtol=1e-12)
    np.testing.assert_allclose(second, exact, rtol=1e-12)
