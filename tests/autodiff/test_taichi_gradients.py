"""Gradients against Taichi 1.7.4's own (its Tape on the same kernels, in a subprocess).
Skipped where Taichi is not installed."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("taichi")

pytestmark = [pytest.mark.taichi, pytest.mark.cpu]

PROGRAM = """
import json
import sys

import numpy as np

if sys.argv[1] == "taichi":
    import taichi as ti
else:
    import ti_notebook as ti
ti.init(arch=ti.cpu, default_fp=ti.f64)
n = 4
x = ti.field(ti.f64, shape=n, needs_grad=True)
loss = ti.field(ti.f64, shape=(), needs_grad=True)


@ti.kernel
def carried(steps: ti.i32):
    for i in x:
        p = x[i]
        for _ in range(steps):
            p = p * 0.9 + 0.1
        loss[None] += p * p


@ti.kernel
def algebra():
    for i in x:
        v = ti.Vector([x[i], x[(i + 1) % n], 0.5])
        m = ti.Matrix([[v[0], 1.0], [v[1], v[0] * v[1] + 2.0]])
        loss[None] += ti.sin(v.norm()) * m.determinant() + ti.atan2(v[0], 2.0)
        loss[None] += ti.exp(-v[1] ** 2) + ti.max(v[0], v[1]) ** 2 + ti.sqrt(v[0] ** 2 + 1.0)


@ti.kernel
def stores():
    for i in x:
        y = ti.tanh(x[i]) / (1.0 + x[i] ** 2)
        if y > 0.0:
            loss[None] += y**3
        else:
            loss[None] -= ti.cos(y)


out = {}
values = np.array([0.1, 0.5, -0.3, 1.2])
cases = (("carried", carried, (5,)), ("algebra", algebra, ()), ("stores", stores, ()))
for name, kernel, args in cases:
    x.from_numpy(values)
    with ti.ad.Tape(loss=loss):
        kernel(*args)
    out[name] = x.grad.to_numpy().tolist()
print("RESULT" + json.dumps(out))
"""


def _gradients(tmp_path, which: str) -> dict:
    script = tmp_path / f"grads_{which}.py"
    script.write_text(PROGRAM)
    done = subprocess.run(
        [sys.executable, str(script), which], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT"))
    return json.loads(line[len("RESULT") :])


def test_gradients_equal_taichis(tmp_path):
    theirs = _gradients(tmp_path, "taichi")
    ours = _gradients(tmp_path, "ours")
    assert set(ours) == set(theirs)
    for name in ours:
        np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-10, atol=1e-12)
        assert np.any(np.array(ours[name]) != 0)
