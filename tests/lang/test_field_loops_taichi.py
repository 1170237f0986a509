"""Sparse fields' Python-scope methods against Taichi 1.7.4's own (one program, run by
each in a subprocess). Skipped where Taichi is not installed.

Each step's ``to_numpy()`` and the cells a struct-for visits are compared exactly, for
pointer, bitmasked, nested pointer/bitmasked and dynamic fields, scalar and vector:
``fill``/``from_numpy`` after writes from Python and from a kernel, after a cell was
deactivated and after ``deactivate_all``, and ``copy_from`` both ways. (A deactivated
bitmasked cell is never read back once reactivated: Taichi keeps its old value there,
ti_notebook zeroes it.)
"""

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
ti.init(arch=ti.cpu, offline_cache=False)
N = 8


def pointer(f):
    node = ti.root.pointer(ti.ij, 4)
    node.dense(ti.ij, 2).place(f)
    return node, [1, 2]


def bitmasked(f):
    node = ti.root.bitmasked(ti.ij, N)
    node.place(f)
    return node, [5, 1]


def nested(f):
    outer = ti.root.pointer(ti.ij, 2)
    outer.bitmasked(ti.ij, 4).place(f)
    return outer, [1, 0]


def dynamic(f):
    node = ti.root.dense(ti.i, N).dynamic(ti.j, N, chunk_size=4)
    node.place(f)
    return node, [2]


@ti.kernel
def bump(f: ti.template()):
    for i, j in ti.ndrange(N, N):
        if (i * 3 + j) % 11 == 0:
            f[i, j] = f[i, j] + 1


@ti.kernel
def visited(f: ti.template(), out: ti.types.ndarray()):
    for i, j in f:
        out[i, j] = 1


@ti.kernel
def deactivate_one(node: ti.template(), i: ti.i32, j: ti.i32):
    ti.deactivate(node, [i, j])


@ti.kernel
def empty_list(node: ti.template(), i: ti.i32):
    ti.deactivate(node, [i])


results = {}
for layout in (pointer, bitmasked, nested, dynamic):
    for width in (1, 3):
        make = (lambda: ti.field(ti.f32)) if width == 1 else (lambda: ti.Vector.field(3, ti.f32))
        f = make()
        node, cell = layout(f)
        element = () if width == 1 else (3,)
        steps = []

        def record(f=f):
            mask = np.zeros((N, N), np.int32)
            visited(f, mask)
            steps.append([f.to_numpy().tolist(), mask.tolist()])

        for index in [(0, 1), (3, 4), (5, 2), (7, 7), (2, 0)]:
            f[index] = 2.0 if width == 1 else [1.0, 2.0, 3.0]
        record()
        f.fill(5.0)
        record()
        source = np.arange(N * N * width, dtype=np.float32).reshape((N, N) + element)
        f.from_numpy(source)
        record()
        bump(f)
        record()
        if layout is dynamic:
            empty_list(node, cell[0])
        else:
            deactivate_one(node, cell[0], cell[1])
        record()
        f.fill(-1.0)
        record()
        f.from_numpy(source * 2)
        record()
        if width == 1:
            dense = ti.field(ti.f32, shape=(N, N))
        else:
            dense = ti.Vector.field(3, ti.f32, shape=(N, N))
        dense.from_numpy(source + 100)
        f.copy_from(dense)
        record()
        node.deactivate_all()
        record()
        f.fill(7.0)
        f.from_numpy(source)
        record()
        f[4, 4] = 1.0 if width == 1 else [4.0, 5.0, 6.0]
        if layout is not bitmasked:  # Taichi's inactive bitmasked cells keep stale values
            dense.copy_from(f)
            steps.append([dense.to_numpy().tolist()])
        results[f"{layout.__name__}-{width}"] = steps
print(json.dumps(results))
"""


def run(module: str, folder) -> dict:
    script = folder / "sparse_methods.py"  # kernels need a file to read their source from
    script.write_text(PROGRAM)
    env = {**os.environ, "TI_LOG_LEVEL": "error"}
    env.pop("TI_ARCH", None)  # both on the CPU: the comparison is of the semantics
    done = subprocess.run(
        [sys.executable, str(script), module],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_sparse_python_scope_methods_match_taichi(tmp_path):
    ours, theirs = run("ti_notebook", tmp_path), run("taichi", tmp_path)
    assert ours.keys() == theirs.keys()
    for case, steps in theirs.items():
        for k, (mine, expected) in enumerate(zip(ours[case], steps, strict=True)):
            assert mine == expected, f"{case}: step {k} differs"
