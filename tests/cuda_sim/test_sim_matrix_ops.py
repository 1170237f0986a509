"""Matrix decompositions and runtime vector indices on the GPU's code, against the CPU
backend and NumPy: ti.svd (3x3 Jacobi + QR, 2x2 closed form), ti.sym_eig, and ``v[i]``
reads and writes (guarded stores into a vector field's components)."""

import numpy as np
from sim_compare import assert_same

import ti_notebook as ti


def test_svd_and_sym_eig_per_thread(gpu):
    mats = np.random.default_rng(4).uniform(-1, 1, size=(32, 3, 3)).astype(np.float32)

    def build():
        a = ti.Matrix.field(3, 3, ti.f32, shape=32)
        rebuilt = ti.Matrix.field(3, 3, ti.f32, shape=32)
        sigma = ti.Vector.field(3, ti.f32, shape=32)
        eigen = ti.Vector.field(2, ti.f32, shape=32)
        a.from_numpy(mats)

        @ti.kernel
        def compute():
            for i in a:
                U, S, V = ti.svd(a[i])
                rebuilt[i] = U @ S @ V.transpose()
                sigma[i] = ti.Vector([S[0, 0], S[1, 1], S[2, 2]])
                m = ti.Matrix([[a[i][0, 0], a[i][0, 1]], [a[i][0, 1], a[i][1, 1]]])
                values, vectors = ti.sym_eig(m)
                eigen[i] = values

        compute()
        return rebuilt.to_numpy(), sigma.to_numpy(), eigen.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual, rtol=1e-4, atol=1e-5)
    rebuilt, sigma, eigen = actual
    assert_same(mats, rebuilt, atol=2e-5)
    assert_same(np.linalg.svd(mats, compute_uv=False), np.abs(sigma), atol=2e-5)
    sym = mats[:, :2, :2].copy()
    sym[:, 1, 0] = sym[:, 0, 1]
    assert_same(np.linalg.eigvalsh(sym)[:, ::-1], eigen, atol=2e-5)


def test_runtime_indices_into_vectors(gpu):
    def build():
        x = ti.Vector.field(4, ti.i32, shape=64)

        @ti.kernel
        def compute():
            for p in x:
                w = ti.Vector.zero(ti.i32, 4)
                for d in range(4):
                    w[(d + p) % 4] = d * 10 + p
                x[p] = w
                x[p][p % 4] += 1000

        compute()
        return x.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    want = np.zeros((64, 4), np.int32)
    for p in range(64):
        for d in range(4):
            want[p, (d + p) % 4] = d * 10 + p
        want[p, p % 4] += 1000
    assert_same(want, actual)
