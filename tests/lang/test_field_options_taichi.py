"""``offset=``, ``order=`` and vector dtypes against Taichi 1.7.4 (one program, run by each
in a subprocess). Skipped where Taichi is not installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

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

ti.init(arch=ti.cpu)
x = ti.field(ti.i32, shape=(4, 3), offset=(-2, 5))
v = ti.field(ti.math.vec2, shape=5, offset=-1)
c = ti.field(ti.f32, shape=(3, 4), order="ji")
s = ti.field(ti.i32)
ti.root.pointer(ti.i, 2).dense(ti.i, 4).place(s, offset=-4)
order = ti.field(ti.i32, shape=12)
count = ti.field(ti.i32, shape=())


@ti.kernel
def run():
    for i, j in x:
        x[i, j] = i * 100 + j
    for i in v:
        v[i] = [i, 2 * i]
    for i, j in c:
        c[i, j] = i * 10 + j
    s[-3] = 7
    for i in s:
        order[ti.atomic_add(count[None], 1)] = i


run()
v.from_numpy(v.to_numpy() + 1)
out = {
    "x": x.to_numpy().tolist(),
    "x_item": x[1, 7],
    "v": v.to_numpy().tolist(),
    "c": c.to_numpy().tolist(),
    "s": s.to_numpy().tolist(),
    "visited": sorted(order.to_numpy()[: count[None]].tolist()),
    "shapes": [list(x.shape), list(v.shape), list(c.shape)],
}
print(json.dumps(out))
"""


def run(module: str, folder) -> dict:
    script = folder / "field_options.py"  # kernels need a file to read their source from
    script.write_text(PROGRAM)
    env = {**os.environ, "TI_LOG_LEVEL": "error"}
    env.pop("TI_ARCH", None)
    done = subprocess.run(
        [sys.executable, str(script), module], capture_output=True, text=True, timeout=600, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_offset_order_and_vector_dtype_match_taichi(tmp_path):
    ours, theirs = run("ti_notebook", tmp_path), run("taichi", tmp_path)
    assert ours == theirs
    assert theirs["x_item"] == 107 and theirs["visited"] == [-4, -3, -2, -1]
