"""Grad-kernel time, ti_notebook against Taichi 1.7.4 (not a test).

The same workloads, written once against a ``ti`` module, run in one subprocess per
peer (the two compilers never share a process) and are timed by the project's timing
protocol (``workloads/measure.py``: the checked first call apart, then 9 samples, 5 or
3 for slow rows; median and interquartile range):

  1. a 1M-element f32 loss ``loss[None] += (x[i] * w[None] - y[i]) ** 2``: the kernel,
     and its grad kernel (``x.grad[i]`` per element, ``w.grad[None]`` from every i);
     then ``(x[i] * p[0] + p[1] - y[i]) ** 2``: two parameters, elements of one field;
  2. the energy of Taichi's ``examples/simulation/fem128.py`` (``update_U``: per face the
     deformation gradient, its determinant and a Neo-Hookean energy summed into ``U``)
     and its grad kernel, on the example's 12x12 mesh (288 faces: the launch dominates)
     and on a 512x512 one (524,288 faces: the arithmetic does).

Each peer checks its gradients before timing (the loss against NumPy's closed form;
fem128's ``pos.grad`` between the two peers, by the parent).

    python benchmarks/autodiff.py                 # both peers, a table
    python benchmarks/autodiff.py --peer taichi   # one peer in this process
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
from workloads.measure import Timer, attempt, check

MARK = "@@autodiff "
N_LOSS = 1 << 20
FEM_SIZES = (12, 512)


def loss_rows(ti: ModuleType, timer: Timer) -> dict:
    """The 1M-element loss, one scalar parameter and two parameters in one field."""
    ti.init(arch=ti.cpu, default_fp=ti.f32)
    rng = np.random.default_rng(0)
    xs, ys = rng.random(N_LOSS, np.float32), rng.random(N_LOSS, np.float32)
    x = ti.field(ti.f32, shape=N_LOSS, needs_grad=True)
    y = ti.field(ti.f32, shape=N_LOSS)
    w = ti.field(ti.f32, shape=(), needs_grad=True)
    p = ti.field(ti.f32, shape=2, needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)
    x.from_numpy(xs)
    y.from_numpy(ys)
    w[None], p[0], p[1] = 0.5, 0.5, 0.1

    @ti.kernel
    def scalar_loss():
        for i in x:
            loss[None] += (x[i] * w[None] - y[i]) ** 2

    @ti.kernel
    def element_loss():
        for i in x:
            loss[None] += (x[i] * p[0] + p[1] - y[i]) ** 2

    x64, y64 = xs.astype(np.float64), ys.astype(np.float64)
    r = x64 * 0.5 - y64
    scalar_loss()
    loss.grad[None] = 1.0
    scalar_loss.grad()
    check("loss 1M: w.grad", w.grad[None], 2 * (r * x64).sum(), rtol=1e-3)
    check("loss 1M: x.grad", x.grad.to_numpy(), 2 * r * 0.5, rtol=1e-4, atol=1e-6)
    element_loss()
    p.grad.fill(0.0)
    element_loss.grad()
    r = x64 * 0.5 + 0.1 - y64
    check("loss 1M: p.grad", p.grad.to_numpy(), [2 * (r * x64).sum(), 2 * r.sum()], rtol=1e-3)
    return {
        "loss 1M f32: kernel": timer.figure(scalar_loss),
        "loss 1M f32: grad kernel (w[None])": timer.figure(scalar_loss.grad),
        "loss 1M f32: grad kernel (p[0], p[1])": timer.figure(element_loss.grad),
    }


def fem_rows(ti: ModuleType, timer: Timer, n: int) -> dict:
    """fem128's ``update_U`` and its grad kernel on an n x n mesh; pos.grad's checksum."""
    ti.init(arch=ti.cpu, default_fp=ti.f32)
    dx = 1 / n
    faces, verts = 2 * n**2, (n + 1) ** 2
    E, nu = 4e4, 0.2
    mu, lam = E / 2 / (1 + nu), E * nu / (1 + nu) / (1 - 2 * nu)
    pos = ti.Vector.field(2, float, verts, needs_grad=True)
    f2v = ti.Vector.field(3, int, faces)
    B = ti.Matrix.field(2, 2, float, faces)
    F = ti.Matrix.field(2, 2, float, faces, needs_grad=True)
    V = ti.field(float, faces)
    phi = ti.field(float, faces)
    U = ti.field(float, (), needs_grad=True)

    @ti.kernel
    def update_U():  # fem128's, as it is
        for i in range(faces):
            ia, ib, ic = f2v[i]
            a, b, c = pos[ia], pos[ib], pos[ic]
            V[i] = abs((a - c).cross(b - c))
            D_i = ti.Matrix.cols([a - c, b - c])
            F[i] = D_i @ B[i]
        for i in range(faces):
            F_i = F[i]
            log_J_i = ti.log(F_i.determinant())
            phi_i = mu / 2 * ((F_i.transpose() @ F_i).trace() - 2)
            phi_i -= mu * log_J_i
            phi_i += lam / 2 * log_J_i**2
            phi[i] = phi_i
            U[None] += V[i] * phi_i

    @ti.kernel
    def init_mesh():
        for i, j in ti.ndrange(n, n):
            k = (i * n + j) * 2
            a = i * (n + 1) + j
            b = a + 1
            c = a + n + 2
            d = a + n + 1
            f2v[k + 0] = [a, b, c]
            f2v[k + 1] = [c, d, a]

    @ti.kernel
    def init_pos():
        for i, j in ti.ndrange(n + 1, n + 1):
            k = i * (n + 1) + j
            pos[k] = ti.Vector([i, j]) / n * 0.25 + ti.Vector([0.45, 0.45])
        for i in range(faces):
            ia, ib, ic = f2v[i]
            a, b, c = pos[ia], pos[ib], pos[ic]
            B[i] = ti.Matrix.cols([a - c, b - c]).inverse()

    init_mesh()
    init_pos()
    # a deformed mesh: the energy and its gradient are not zero
    deformed = pos.to_numpy()
    deformed += np.random.default_rng(1).normal(0, 0.1 * dx * 0.25, deformed.shape)
    pos.from_numpy(deformed.astype(np.float32))
    U[None] = 0.0
    update_U()
    U.grad[None] = 1.0
    update_U.grad()
    grad = pos.grad.to_numpy().astype(np.float64)
    label = f"fem128 energy, {n}x{n} mesh ({faces:,} faces)"
    return {
        f"{label}: kernel": timer.figure(update_U),
        f"{label}: grad kernel": timer.figure(update_U.grad),
        f"checksum {n}": {"pos_grad": grad.tolist(), "U": float(U[None])},
    }


def run_peer(peer: str) -> dict:
    ti = importlib.import_module(peer)
    timer = Timer(getattr(ti, "sync", None))
    rows: dict = {}
    for name, fn, args in [("loss", loss_rows, ()), *(("fem", fem_rows, (n,)) for n in FEM_SIZES)]:
        got = attempt(fn, ti, timer, *args)
        # a failing workload is one row that says why; the others still run
        rows.update({f"{name}{list(args)}: failed": got} if "error" in got else got)
    return rows


def spawn(peer: str) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--peer", peer, "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    for line in done.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK) :])
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return {"error": f"{peer} exited {done.returncode}: {tail}"}


def cell(figure: dict | None) -> str:
    if not figure:
        return "–"
    if "error" in figure:
        return figure["error"][:60]
    return f"{figure['median'] * 1e3:.3g} ({figure['q1'] * 1e3:.3g}–{figure['q3'] * 1e3:.3g})"


def compare_checksums(ours: dict, theirs: dict) -> list[str]:
    """Whether both peers computed fem128's gradient alike (f32: relative 1e-3)."""
    lines = []
    for n in FEM_SIZES:
        a, b = ours.get(f"checksum {n}"), theirs.get(f"checksum {n}")
        if not a or not b or "pos_grad" not in a or "pos_grad" not in b:
            lines.append(f"fem {n}x{n}: no gradient to compare")
            continue
        ga, gb = np.asarray(a["pos_grad"]), np.asarray(b["pos_grad"])
        scale = np.abs(gb).max()
        worst = np.abs(ga - gb).max() / scale
        verdict = "agree" if worst < 1e-3 else "DIFFER"
        lines.append(f"fem {n}x{n}: pos.grad {verdict} (max |diff| / max |grad| = {worst:.1e})")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", choices=["ti_notebook", "taichi"])
    parser.add_argument("--json", action="store_true", help="child output: one JSON line")
    args = parser.parse_args(argv)
    if args.peer:
        rows = run_peer(args.peer)
        if args.json:
            print(MARK + json.dumps(rows), flush=True)
        else:
            for name, figure in rows.items():
                if not name.startswith("checksum"):
                    print(f"{name:58s} {cell(figure)} ms")
        return
    ours, theirs = spawn("ti_notebook"), spawn("taichi")
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(
        "| workload | ti_notebook [ms] | taichi 1.7.4 [ms] | ti_nb/taichi |\n|---|---:|---:|---:|"
    )
    names = [k for k in {**ours, **theirs} if not k.startswith("checksum") and k != "error"]
    for name in names:
        a, b = ours.get(name), theirs.get(name)
        ratio = (
            f"{a['median'] / b['median']:.2f}"
            if a and b and "median" in a and "median" in b
            else "–"
        )
        print(f"| {name} | {cell(a)} | {cell(b)} | {ratio} |")
    for peer, rows in (("ti_notebook", ours), ("taichi", theirs)):
        if "error" in rows:
            print(f"{peer}: {rows['error']}")
    for line in compare_checksums(ours, theirs):
        print(line)


if __name__ == "__main__":
    main()
