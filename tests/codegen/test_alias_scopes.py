"""Field alias scopes (issue 18): loads and stores of different fields carry LLVM
``!alias.scope``/``!noalias`` so LLVM may keep ``y[i]`` in a register by itself."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

N = 64


def _matvec():
    a, x, y = ti.field(ti.f32, (N, N)), ti.field(ti.f32, N), ti.field(ti.f32, N)

    @ti.kernel
    def matvec():
        for i in range(N):
            for j in range(N):
                y[i] += a[i, j] * x[j]

    return a, x, y, matvec


def test_two_fields_get_scopes_and_results_hold():
    a, x, y, matvec = _matvec()
    rng = np.random.default_rng(3)
    A, v = rng.random((N, N), dtype=np.float32), rng.random(N, dtype=np.float32)
    a.from_numpy(A)
    x.from_numpy(v)
    matvec()
    np.testing.assert_allclose(y.to_numpy(), A @ v, rtol=1e-5)
    text = matvec.stages()["llvm"]
    assert "!alias.scope" in text and "!noalias" in text
    assert '!"field.0.' in text and "ti_notebook.fields" in text


def test_one_field_or_optimisation_off_says_nothing():
    x = ti.field(ti.f32, N)

    @ti.kernel
    def bump():
        for i in range(N):
            x[i] += 1.0

    bump()
    assert "!alias.scope" not in bump.stages()["llvm"]
    ti.init(arch=ti.cpu, advanced_optimization=False)
    *_, matvec = _matvec()
    matvec()
    assert "!alias.scope" not in matvec.stages()["llvm"]
