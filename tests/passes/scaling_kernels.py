"""Kernels whose size grows with ``n`` (``ti.static`` unrolling), each shaped to make some
passes rewrite a lot: the families ``test_compile_scaling.py`` compiles at two sizes.
Each ``make(ti, n)`` returns a kernel; ``ARGS`` holds the arguments of those that take
some. No ``from __future__ import annotations`` here: a kernel's annotations are read
as objects (``ti.f32``), and ``ti`` is a parameter, not a global of this module."""


def unrolled_struct_for(ti, n: int):
    x = ti.field(ti.f32, shape=64)
    out = ti.field(ti.f32, shape=64)
    c = ti.field(ti.f32, shape=n)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def unrolled():
        for i in x:
            acc = 0.0
            for t in ti.static(range(n)):
                acc += ti.sin(x[i] * c[t]) * c[t]
            out[i] = acc
            total[None] += acc  # a sum into one element: a thread-local one

    return unrolled


def unrolled_serial(ti, n: int):
    x = ti.field(ti.f32, shape=n)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def unrolled():
        acc = 0.0
        for t in ti.static(range(n)):
            x[t] = t * 0.5
            total[None] += x[t]
            acc += x[t]
        for i in range(4):  # a top-level local read by a parallel loop: a temporary
            x[i] += acc

    return unrolled


def unrolled_svd(ti, n: int):
    """``n`` scalarised 3x3 SVDs (each a Jacobi ``while`` loop and branches)."""
    a = ti.Matrix.field(3, 3, ti.f32, shape=8)
    out = ti.Matrix.field(3, 3, ti.f32, shape=8)

    @ti.kernel
    def svds():
        for i in a:
            for t in ti.static(range(n)):
                u, s, v = ti.svd(a[i] + t)
                out[i] += u @ s @ v.transpose()

    return svds


def unrolled_branches(ti, n: int):
    """Branches in an innermost loop that ``if_convert`` flattens."""
    x = ti.field(ti.f32, shape=64)
    y = ti.field(ti.i32, shape=64)

    @ti.kernel
    def branches():
        for i in x:
            acc = 0.0
            for t in ti.static(range(n)):
                if x[i] > t:
                    acc += x[i] * t
                y[i] += 1
            x[i] = acc

    return branches


def sparse_writes(ti, n: int):
    """Activating stores, atomics into a ``no_activate`` field whose old value is used,
    and ``ti.is_active``: ``lower_sparse`` rewrites each of them."""
    x = ti.field(ti.f32)
    y = ti.field(ti.i32)
    block = ti.root.pointer(ti.i, 8)
    block.dense(ti.i, 8).place(x, y)

    @ti.kernel
    def writes():
        ti.no_activate(y)
        for i in range(64):
            for t in ti.static(range(n)):
                old = ti.atomic_add(y[(i + t) % 4], t)
                x[i] += old * ti.is_active(block, i // 8)

    return writes


def block_local_stencil(ti, n: int):
    """A stencil of ``n`` taps through a ``ti.block_local`` buffer."""
    a = ti.field(ti.f32)
    b = ti.field(ti.f32)
    ti.root.pointer(ti.ij, 8).dense(ti.ij, 8).place(a, b)

    @ti.kernel
    def stencil():
        for i, j in b:
            ti.block_local(a)
            acc = 0.0
            for t in ti.static(range(n)):
                acc += a[i + t % 3 - 1, j + t // 3 % 3 - 1] * (t + 1)
            b[i, j] = acc

    return stencil


def promoted_accumulators(ti, n: int):
    """``n`` fields, each one element accumulated across a serial inner loop."""
    ys = [ti.field(ti.f32, shape=8) for _ in range(n)]
    a = ti.field(ti.f32, shape=(8, 16))

    @ti.kernel
    def accumulate():
        for i in range(8):
            for j in range(16):
                for t in ti.static(range(n)):
                    ys[t][i] += a[i, j] * t

    return accumulate


def scattered_adds(ti, n: int):
    """Atomic adds to a small histogram: ``privatize_scatter`` gives each chunk a copy."""
    h = ti.field(ti.f32, shape=16)
    idx = ti.field(ti.i32, shape=100000)

    @ti.kernel
    def scatter():
        for i in idx:
            for t in ti.static(range(n)):
                h[(idx[i] + t) % 16] += 1.0 * t

    return scatter


def column_major_rows(ti, n: int):
    """Rows of a column-major field updated: ``interchange_loops`` swaps the loops."""
    a = ti.field(ti.f32)
    ti.root.dense(ti.j, 1024).dense(ti.i, 1024).place(a)

    @ti.kernel
    def rows(scale: ti.f32):
        for i in range(1024):
            base = i * scale
            for j in range(1024):
                v = base + j
                for t in ti.static(range(n)):
                    v = v * scale + t
                a[i, j] += v

    return rows


FAMILIES = {
    "struct_for": unrolled_struct_for,
    "serial": unrolled_serial,
    "svd": unrolled_svd,
    "branches": unrolled_branches,
    "sparse": sparse_writes,
    "block_local": block_local_stencil,
    "promote": promoted_accumulators,
    "scatter": scattered_adds,
    "interchange": column_major_rows,
}
# their arguments, where they take some
ARGS = {"interchange": (1.0,)}
