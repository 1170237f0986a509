"""Compile time (not a test): a kernel's first call in ti_notebook and in Taichi 1.7.4.

Each sample is a fresh subprocess per framework, with the offline cache off
(``ti.init(offline_cache=False)``): an empty kernel is called first (the runtime's own
start-up is not the kernel's), then the kernel's first call is timed (trace, compile,
load and one launch). A cell is the median of ``--samples`` such processes (one when a
call takes over 10 s), the two frameworks alternated sample by sample. Kernels of
about 10 to 5,000 IR statements (``IR lines``: the traced IR's text, a statement a line
but for block headers):

- ``sum N``: ``acc += x[t] * (t + 1)`` unrolled N times (``ti.static``) in serial code;
- ``stencil KxK``: a K x K-tap 2-D stencil unrolled in a parallel loop;
- ``stencil KxK, 8x8 blocks``: the same over fields laid out in 8x8 blocks;
- ``svd3x3``: ``ti.svd`` of each 3x3 matrix of a field (scalarised Jacobi sweeps);
- ``readme``: the README's ``fill`` kernel;
- ``mpm``: the MPM ``substep`` of ``notebooks/07-simulations.ipynb`` (mpm88's).

For ti_notebook each row also shows where the time went (``kernel.report.stage_times``:
tracing, the passes and the slowest of them, the IR's text, LLVM IR generation, LLVM's
O3 optimisation, machine code, the rest). Taichi runs that pass ``--taichi-timeout``
seconds are stopped and shown as ``> T``.

    python benchmarks/compile_time.py               # every row; Taichi's sum 5000: "> 120"
    python benchmarks/compile_time.py --taichi-timeout 600   # ... timed too (~7 minutes)
    python benchmarks/compile_time.py --quick       # without the sum of 5,000 and the 21x21 stencil
    python benchmarks/compile_time.py --peers ti_notebook
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

ROWS = (
    ("sum", 10),
    ("sum", 100),
    ("sum", 1000),
    ("sum", 5000),
    ("stencil", 3),
    ("stencil", 9),
    ("stencil", 21),
    ("blocked", 9),
    ("svd3x3", 1),
    ("readme", 1),
    ("mpm", 1),
)
QUICK = {("sum", 10), ("sum", 100), ("sum", 1000), ("stencil", 3), ("stencil", 9), ("blocked", 9)}
QUICK |= {("svd3x3", 1), ("readme", 1), ("mpm", 1)}

# The K x K stencil over the fields ``a`` and ``b`` (declared dense or blocked before it)
STENCIL = """
R = N // 2

@ti.kernel
def kernel():
    for i, j in ti.ndrange((R, 256 - R), (R, 256 - R)):
        acc = 0.0
        for di, dj in ti.static(ti.ndrange((-R, R + 1), (-R, R + 1))):
            acc += a[i + di, j + dj] * (1.0 + di * 0.5 + dj * 0.25)
        b[i, j] = acc

ARGS = ()
"""

# The kernels, as source run in the child with ``ti`` either framework; ``N`` the size.
KERNELS = {
    "sum": """
x = ti.field(ti.f32, shape=N)
total = ti.field(ti.f32, shape=())

@ti.kernel
def kernel():
    acc = 0.0
    for t in ti.static(range(N)):
        acc += x[t] * (t + 1)
    total[None] = acc

ARGS = ()
""",
    "stencil": """
a = ti.field(ti.f32, shape=(256, 256))
b = ti.field(ti.f32, shape=(256, 256))
"""
    + STENCIL,
    "blocked": """
a, b = ti.field(ti.f32), ti.field(ti.f32)
for f in (a, b):
    ti.root.dense(ti.ij, 32).dense(ti.ij, 8).place(f)
"""
    + STENCIL,
    "svd3x3": """
A = ti.Matrix.field(3, 3, ti.f32, shape=1024)
USV = ti.Matrix.field(3, 3, ti.f32, shape=1024)

@ti.kernel
def kernel():
    for i in A:
        U, S, V = ti.svd(A[i])
        USV[i] = U @ S @ V.transpose()

ARGS = ()
""",
    "readme": """
x = ti.field(ti.f32, shape=1024)

@ti.kernel
def kernel(v: ti.f32):
    for i in x:
        x[i] = v * i

ARGS = (2.0,)
""",
    "mpm": """
n_particles, n_grid = 8192, 128
dx, dt = 1 / n_grid, 2e-4
p_rho, p_vol = 1, (dx * 0.5) ** 2
p_mass = p_vol * p_rho
bound, E = 3, 400
PUSH_RADIUS = 0.15
x = ti.Vector.field(2, float, n_particles)
v = ti.Vector.field(2, float, n_particles)
C = ti.Matrix.field(2, 2, float, n_particles)
J = ti.field(float, n_particles)
grid_v = ti.Vector.field(2, float, (n_grid, n_grid))
grid_m = ti.field(float, (n_grid, n_grid))

@ti.kernel
def kernel(gravity: float, push_at: ti.math.vec2, push: float):
    for i, j in grid_m:
        grid_v[i, j] = [0, 0]
        grid_m[i, j] = 0
    ti.loop_config(serialize=True)
    for p in x:
        Xp = x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        stress = -dt * 4 * E * p_vol * (J[p] - 1) / dx**2
        affine = ti.Matrix([[stress, 0], [0, stress]]) + p_mass * C[p]
        for i, j in ti.static(ti.ndrange(3, 3)):
            offset = ti.Vector([i, j])
            dpos = (offset - fx) * dx
            weight = w[i].x * w[j].y
            grid_v[base + offset] += weight * (p_mass * v[p] + affine @ dpos)
            grid_m[base + offset] += weight * p_mass
    for i, j in grid_m:
        if grid_m[i, j] > 0:
            grid_v[i, j] /= grid_m[i, j]
        grid_v[i, j].y -= dt * gravity
        away = ti.Vector([i, j]) * dx - push_at
        r = away.norm()
        if r < PUSH_RADIUS:
            grid_v[i, j] += dt * push * away / (r + 1e-3)
        if i < bound and grid_v[i, j].x < 0:
            grid_v[i, j].x = 0
        if i > n_grid - bound and grid_v[i, j].x > 0:
            grid_v[i, j].x = 0
        if j < bound and grid_v[i, j].y < 0:
            grid_v[i, j].y = 0
        if j > n_grid - bound and grid_v[i, j].y > 0:
            grid_v[i, j].y = 0
    for p in x:
        Xp = x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_v = ti.Vector.zero(float, 2)
        new_C = ti.Matrix.zero(float, 2, 2)
        for i, j in ti.static(ti.ndrange(3, 3)):
            offset = ti.Vector([i, j])
            dpos = (offset - fx) * dx
            weight = w[i].x * w[j].y
            g_v = grid_v[base + offset]
            new_v += weight * g_v
            new_C += 4 * weight * g_v.outer_product(dpos) / dx**2
        v[p] = new_v
        x[p] += dt * v[p]
        J[p] *= 1 + dt * new_C.trace()
        C[p] = new_C

ARGS = (9.8, ti.math.vec2(0.5, 0.5), 0.0)
""",
}

# the child: one framework, one kernel, one first call; prints a JSON line. It is a file
# (both frameworks read a kernel's source from its file)
CHILD = """
import json, sys, time
peer, kind, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
if peer == "taichi":
    import taichi as ti
    ti.init(arch=ti.cpu, offline_cache=False, log_level=ti.WARN)
else:
    import ti_notebook as ti
    ti.init(arch=ti.cpu, offline_cache=False)

@ti.kernel
def empty():
    pass

empty()  # the runtime started before the clock does
KERNEL_SOURCE
started = time.perf_counter()
kernel(*ARGS)
first = time.perf_counter() - started
row = {"first_call_s": first}
if peer == "ti_notebook":
    report = kernel.report
    row["compile_s"] = report.compile_time_s
    row["stages"] = dict(report.stage_times)
    row["passes"] = {p.name: p.time_s for p in report.pass_records}
    row["ir_lines"] = len(kernel.stages()["ir"].splitlines())
print("RESULT " + json.dumps(row))
"""


def measure(peers: dict, kind: str, n: int, samples: int) -> dict:
    """Per peer (name -> timeout in seconds), the median first call of up to ``samples``
    fresh processes, the peers alternated sample by sample so both see the same load (a
    shared machine's load moves a 20 ms compile by 2x); one sample only for a peer whose
    call took over :data:`LONG_S`, None for one that ran past its timeout."""
    runs: dict[str, list | None] = {peer: [] for peer in peers}
    for _ in range(samples):
        for peer, timeout in peers.items():
            done = runs[peer]
            if done is None or (done and done[-1]["first_call_s"] > LONG_S):
                continue
            row = run_child(peer, kind, n, timeout)
            runs[peer] = None if row is None else done + [row]
    medians = {}
    for peer, done in runs.items():
        if done is None:
            medians[peer] = None
            continue
        done.sort(key=lambda r: r["first_call_s"])
        medians[peer] = dict(done[len(done) // 2], samples=len(done))
    return medians


LONG_S = 10.0


def run_child(peer: str, kind: str, n: int, timeout: float) -> dict | None:
    """One first call in a fresh process; None when it ran past ``timeout``."""
    source = CHILD.replace("KERNEL_SOURCE", textwrap.dedent(KERNELS[kind]))
    env = dict(os.environ, TI_OFFLINE_CACHE="0")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, f"compile_time_{kind}.py")
        with open(path, "w") as file:
            file.write(source)
        try:
            done = subprocess.run(
                [sys.executable, path, peer, kind, str(n)],
                capture_output=True,
                text=True,
                timeout=timeout,
                env=env,
            )
        except subprocess.TimeoutExpired:
            return None
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise RuntimeError(f"{peer} {kind} {n} failed:\n{done.stdout}\n{done.stderr[-3000:]}")


STAGE_LABELS = {
    "tracing": "trace",
    "passes": "passes",
    "ir_text": "IR text",
    "llvm_ir": "LLVM IR",
    "llvm_parse": "parse",
    "llvm_optimise": "O3",
    "machine_code": "code",
    "load": "load",
    "other": "other",
}


def split_text(row: dict) -> str:
    """``trace 0.12 | passes 0.05 (lower_access 0.01) | ...`` in seconds."""
    parts = []
    for name, seconds in row["stages"].items():
        text = f"{STAGE_LABELS.get(name, name)} {seconds:.3f}"
        if name == "passes" and row["passes"]:
            slowest = max(row["passes"], key=row["passes"].get)
            text += f" ({slowest} {row['passes'][slowest]:.3f})"
        parts.append(text)
    return " | ".join(parts)


def label(kind: str, n: int) -> str:
    labels = {"sum": f"sum {n}", "stencil": f"stencil {n}x{n}", "blocked": f"{n}x{n} blocked"}
    return labels.get(kind, kind)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="without the two largest rows")
    parser.add_argument("--peers", default="ti_notebook,taichi")
    parser.add_argument(
        "--taichi-timeout",
        type=float,
        default=120.0,
        help="seconds before a Taichi call is stopped (its sum of 5,000 takes ~7 minutes)",
    )
    parser.add_argument("--samples", type=int, default=5, help="fresh processes per cell")
    args = parser.parse_args()
    peers = args.peers.split(",")
    rows = [r for r in ROWS if not args.quick or r in QUICK]
    print(
        f"first call, seconds: the median of up to {args.samples} fresh processes each "
        f"(one above {LONG_S:.0f} s), the peers alternated, offline caches off; {time.ctime()}"
    )
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    head = f"{'kernel':14s} {'IR lines':>8s} {'ti_notebook':>11s} {'taichi':>9s} {'ratio':>6s}"
    print(head + "  ti_notebook's split (s)")
    timeouts = {"ti_notebook": 3600.0, "taichi": args.taichi_timeout}
    for kind, n in rows:
        found = measure({p: timeouts[p] for p in peers}, kind, n, args.samples)
        mine, theirs, taichi = found.get("ti_notebook"), found.get("taichi"), None
        if "taichi" in peers:
            taichi = (
                f"{theirs['first_call_s']:9.3f}"
                if theirs
                else f"{f'> {args.taichi_timeout:.0f}':>9s}"
            )
        ratio = ""
        if mine and theirs:
            ratio = f"{mine['first_call_s'] / theirs['first_call_s']:6.2f}"
        elif mine and taichi:
            ratio = f"< {mine['first_call_s'] / args.taichi_timeout:.2f}"
        stmts = mine["ir_lines"] if mine else "?"
        first = f"{mine['first_call_s']:11.3f}" if mine else f"{'-':>11s}"
        print(
            f"{label(kind, n):14s} {stmts:>8} {first} {taichi or '-':>9s} {ratio:>6s}  "
            + (split_text(mine) if mine else ""),
            flush=True,
        )
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
