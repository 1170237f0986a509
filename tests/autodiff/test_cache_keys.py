"""The offline cache's keys for grad and forward-mode kernels: where the program places
the gradients is part of the grad kernel's key, and a forward-mode kernel has its own
entry, loaded warm."""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.session.ad_kernel import adjoint_kernel

pytestmark = pytest.mark.cpu

CELL = """
import numpy as np
import ti_notebook as ti

x = ti.field(ti.f64)
loss = ti.field(ti.f64)
ti.root.dense(ti.i, 8).place(x)
ti.root.place(loss)
if MODE == "beside":
    ti.root.lazy_grad()
else:  # the gradients in a layout of their own, at other addresses
    ti.root.place(loss.grad)
    ti.root.dense(ti.i, 16).place(ti.field(ti.f64))
    ti.root.dense(ti.i, 8).place(x.grad)


@ti.kernel
def energy():
    for i in x:
        loss[None] += x[i] * x[i]


y = ti.field(ti.f64, shape=8, needs_dual=True)
out = ti.field(ti.f64, shape=(), needs_dual=True)


@ti.kernel
def cubes():
    for i in y:
        out[None] += y[i] ** 3
"""


def _session(path, mode):
    """(x.grad, out.dual, the grad kernel's cache state, the forward kernel's)."""
    ti.init(arch=ti.cpu, default_fp=ti.f64, offline_cache_file_path=str(path.parent / "cache"))
    namespace: dict = {"MODE": mode}
    exec(compile(CELL, str(path), "exec"), namespace)  # noqa: S102 - the test's own cell
    x, loss, energy = namespace["x"], namespace["loss"], namespace["energy"]
    y, out, cubes = namespace["y"], namespace["out"], namespace["cubes"]
    x.from_numpy(np.arange(8.0))
    with ti.ad.Tape(loss=loss):
        energy()
    y.from_numpy(np.arange(8.0))
    with ti.ad.FwdMode(loss=out, param=y, seed=[1.0] * 8):
        cubes()
    forward = adjoint_kernel(cubes, "forward")
    return (
        x.grad.to_numpy().tolist(),
        out.dual[None],
        energy.grad.report["cache"],
        forward.report["cache"],
    )


def test_gradient_placement_keys_the_grad_kernel(tmp_path):
    source = tmp_path / "cell.py"
    source.write_text(CELL)
    caches = []
    for mode in ("beside", "beside", "apart", "apart", "beside"):
        grads, dual, grad_cache, forward_cache = _session(source, mode)
        assert grads == [2.0 * i for i in range(8)]  # never the other layout's code
        assert dual == 3.0 * sum(i * i for i in range(8))
        caches.append((grad_cache, forward_cache))
    assert [grad for grad, _ in caches] == ["miss", "hit", "miss", "hit", "hit"]
    # the forward kernel has an entry of its own: made, then loaded in a session alike
    forwards = [forward for _, forward in caches]
    assert forwards[0] == "miss" and forwards[1] == forwards[3] == forwards[4] == "hit"
