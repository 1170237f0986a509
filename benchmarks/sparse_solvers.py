"""Direct SPD solves for ``ti.linalg.SparseSolver("LLT")``: SciPy's SuperLU in symmetric
mode against CHOLMOD through ``cholespy``, on matrices typical of Taichi's examples.

Each row: factorise (from the CSR matrix a ``SparseMatrix`` holds, conversions included)
and one solve, in CPU seconds (``time.process_time``: both libraries run on one thread
here, and the machine may be shared), the median of ``--repeat`` runs, and the relative
residual ``‖A x - b‖ / ‖b‖``. "SuperLU reuse" is a factorisation with the column
ordering of an earlier one (what ``SparseSolver.factorize`` does for a pattern it has
seen).

    python -m benchmarks.sparse_solvers [--repeat 5] [--only lap2d_512]

CHOLMOD's columns need ``pip install cholespy`` (not a dependency of ti_notebook).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def lap2d(m: int) -> sp.csr_matrix:
    """The 5-point Laplacian on an m x m grid, Dirichlet boundary (SPD)."""
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    i = sp.identity(m)
    return (sp.kron(i, t) + sp.kron(t, i)).tocsr()


def lap3d(m: int) -> sp.csr_matrix:
    """The 7-point Laplacian on an m³ grid, Dirichlet boundary (SPD)."""
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    i = sp.identity(m)
    return (
        sp.kron(sp.kron(i, i), t) + sp.kron(sp.kron(i, t), i) + sp.kron(sp.kron(t, i), i)
    ).tocsr()


def mass_spring(side: int, h: float = 1e-2, k: float = 1e4) -> sp.csr_matrix:
    """``M + h² K`` of a side x side cloth of 2-D particles (2 dofs each) with
    structural, shear and bending springs; K is the springs' PSD Jacobian ``k d̂d̂ᵀ``."""
    rng = np.random.default_rng(0)
    ij = np.stack(np.meshgrid(np.arange(side), np.arange(side), indexing="ij"), -1)
    pos = ij.reshape(-1, 2) / side + 1e-3 * rng.standard_normal((side * side, 2))
    index = np.arange(side * side).reshape(side, side)
    pairs = []
    for di, dj in ((1, 0), (0, 1), (1, 1), (1, -1), (2, 0), (0, 2)):
        a = index[max(0, -di) : side - max(0, di), max(0, -dj) : side - max(0, dj)]
        b = index[max(0, di) : side + min(0, di) or None, max(0, dj) : side + min(0, dj) or None]
        pairs.append(np.stack([a.ravel(), b.ravel()], 1))
    p = np.concatenate(pairs)
    d = pos[p[:, 1]] - pos[p[:, 0]]
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    block = k * h * h * d[:, :, None] * d[:, None, :]  # (springs, 2, 2)
    rows, cols, vals = [], [], []
    for s, t, sign in ((0, 0, 1), (1, 1, 1), (0, 1, -1), (1, 0, -1)):
        for a in range(2):
            for b in range(2):
                rows.append(2 * p[:, s] + a)
                cols.append(2 * p[:, t] + b)
                vals.append(sign * block[:, a, b])
    n = 2 * side * side
    stiff = sp.coo_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)
    )
    return (sp.identity(n) + stiff).tocsr()


MATRICES = {
    "lap2d_64": lambda: lap2d(64),
    "lap2d_256": lambda: lap2d(256),
    "lap2d_512": lambda: lap2d(512),
    "lap3d_32": lambda: lap3d(32),
    "lap3d_64": lambda: lap3d(64),
    "mass_spring_100": lambda: mass_spring(100),
}


def superlu(csr: sp.csr_matrix, b: np.ndarray, perm=None):
    """Today's LLT: SuperLU without pivoting in symmetric mode (MMD on A + Aᵀ), or with
    the symmetric permutation ``perm`` applied first and SuperLU's NATURAL ordering."""
    if perm is not None:
        csr = csr[perm][:, perm]
    lu = spla.splu(
        csr.tocsc(),
        permc_spec="NATURAL" if perm is not None else "MMD_AT_PLUS_A",
        diag_pivot_thresh=0.0,
        options={"SymmetricMode": True},
    )
    return lu, (lambda: lu.solve(b[perm])[np.argsort(perm)] if perm is not None else lu.solve(b))


def cholmod(csr: sp.csr_matrix, b: np.ndarray):
    """CHOLMOD's simplicial LLᵀ (METIS nested dissection) through cholespy, given the
    lower triangle; factorises in f64, solves in the vectors' dtype."""
    from cholespy import CholeskySolverD, CholeskySolverF, MatrixType

    lower = sp.tril(csr, format="csr")
    cls = CholeskySolverF if csr.dtype == np.float32 else CholeskySolverD
    solver = cls(
        csr.shape[0],
        lower.indptr.astype(np.int32),
        lower.indices.astype(np.int32),
        lower.data.astype(np.float64),
        MatrixType.CSR,
    )

    def solve():
        x = np.empty_like(b)
        solver.solve(b, x)
        return x

    return solver, solve


def measure(fn, repeat: int):
    """Median CPU and wall seconds of ``fn()`` and its last result."""
    cpu, wall, out = [], [], None
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        out = fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default="", help="a substring of the matrix names")
    args = parser.parse_args()
    try:
        import cholespy  # noqa: F401
    except ImportError:
        raise SystemExit(
            "sparse_solvers: CHOLMOD's columns need cholespy: pip install cholespy"
        ) from None
    print(
        "| matrix | n | nnz | dtype | SuperLU fact. [s] | SuperLU reuse [s] | CHOLMOD fact. [s] "
        "| SuperLU solve [ms] | CHOLMOD solve [ms] | fact. ratio | residual SuperLU | "
        "residual CHOLMOD |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, build in MATRICES.items():
        if args.only not in name:
            continue
        a64 = build()
        repeat = max(1, args.repeat if a64.shape[0] < 100_000 else args.repeat // 2)
        for dtype in (np.float32, np.float64):
            a = a64.astype(dtype)
            b = np.random.default_rng(1).standard_normal(a.shape[0]).astype(dtype)
            row = {}
            for lib, factor in (("superlu", superlu), ("cholmod", cholmod)):
                c, _, (fac, solve) = measure(lambda f=factor, a=a, b=b: f(a, b), repeat)
                sc, _, x = measure(solve, max(repeat, 5))
                res = np.linalg.norm(a64 @ x.astype(np.float64) - b) / np.linalg.norm(b)
                row[lib] = (c, sc, res, fac)
                del fac
            perm = np.argsort(row["superlu"][3].perm_c)  # A·Pc takes column argsort(perm_c)[j]
            reuse, _, _ = measure(lambda a=a, b=b, p=perm: superlu(a, b, p), repeat)
            (lc, ls, lr, _), (cc, cs, cr, _) = row["superlu"], row["cholmod"]
            print(
                f"| {name} | {a.shape[0]} | {a.nnz} | {np.dtype(dtype).name} | {lc:.3f} | "
                f"{reuse:.3f} | {cc:.3f} | {1e3 * ls:.2f} | {1e3 * cs:.2f} | {lc / cc:.1f}x | "
                f"{lr:.1e} | {cr:.1e} |",
                flush=True,
            )
            row.clear()


if __name__ == "__main__":
    main()
