"""``ti.exp`` on f32 is computed inline on the CPU (``codegen/inline_exp.py``): within
1 ulp of the correctly rounded result over the whole range (every float near the
overflow and subnormal edges, random ones elsewhere, the special values), in a parallel
loop (vectorised) and a serial one, with and without fast math; the loop calls nothing."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _ordered(x: np.ndarray) -> np.ndarray:
    i = x.view(np.int32).astype(np.int64)
    return np.where(i < 0, np.iinfo(np.int32).min - i, i)


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    distance = np.abs(_ordered(got) - _ordered(want))
    return np.where(np.isnan(got) & np.isnan(want), 0, distance)


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(7)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e-45, 88.72283, 88.72284]
    special += [-87.33655, -103.97207, -103.97208, -104.0, -1e4, 1e4, 0.5, -0.5, 1.0, 20.0]
    every = [  # every float in [88, 89), [-96, -106) and around 1
        np.arange(0x42B00000, 0x42B20000, dtype=np.uint32).view(np.float32),
        np.arange(0xC2C00000, 0xC2D40000, dtype=np.uint32).view(np.float32),
        np.arange(0x3F7F0000, 0x3F810000, dtype=np.uint32).view(np.float32),
    ]
    spread = [rng.uniform(-110, 90, 200_000), rng.uniform(-1, 1, 50_000)]
    return np.concatenate([np.array(special), *spread, *every]).astype(np.float32)


def _correctly_rounded(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.exp(x.astype(np.float64)).astype(np.float32)


@pytest.mark.parametrize("fast_math", [True, False])
def test_within_one_ulp_everywhere(fast_math):
    ti.init(arch=ti.cpu, fast_math=fast_math, offline_cache=False)

    @ti.kernel
    def parallel(a: ti.types.ndarray(dtype=ti.f32, ndim=1), out: ti.types.ndarray(ti.f32, 1)):
        for i in range(a.shape[0]):
            out[i] = ti.exp(a[i])

    @ti.kernel
    def serial(a: ti.types.ndarray(dtype=ti.f32, ndim=1), out: ti.types.ndarray(ti.f32, 1)):
        ti.loop_config(serialize=True)
        for i in range(a.shape[0]):
            out[i] = ti.exp(a[i])

    a = _inputs()
    want = _correctly_rounded(a)
    for kernel in (parallel, serial):
        got = np.zeros_like(a)
        kernel(a, got)
        distance = _ulps(got, want)
        worst = int(np.argmax(distance))
        assert distance.max() <= 1, (kernel.__name__, a[worst], got[worst], want[worst])
        assert np.isnan(got[np.isnan(a)]).all()
        assert got[a == -np.inf][0] == 0.0 and got[a == np.inf][0] == np.inf


def test_the_parallel_loop_is_vectorised_and_calls_nothing():
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.Vector.field(2, ti.f32, shape=4096)
    centre = ti.Vector.field(2, ti.f32, shape=4)

    @ti.kernel
    def swirl():  # the shape of a Biot-Savart sum: exp far below its underflow
        for i in x:
            u = ti.Vector([0.0, 0.0])
            for j in range(4):
                d = x[i] - centre[j]
                r2 = d.norm_sqr()
                u += ti.Vector([-d.y, d.x]) / r2 * (1.0 - ti.exp(-r2 / 1e-4))
            x[i] += 0.1 * u

    points = np.random.default_rng(1).uniform(-1, 1, (4096, 2)).astype(np.float32)
    x.from_numpy(points)
    centre.from_numpy(np.array([[0, 1], [0, -1], [0, 0.3], [0, -0.3]], np.float32))
    swirl()
    text = swirl.stages()["llvm_optimized"]
    assert "<8 x float>" in text and "expf" not in text
    c = centre.to_numpy().astype(np.float64)
    d = points[:, None, :].astype(np.float64) - c[None]
    r2 = (d**2).sum(-1)
    factor = (1.0 - np.exp(-r2 / 1e-4)) / r2
    u = np.stack([(-d[..., 1] * factor).sum(1), (d[..., 0] * factor).sum(1)], -1)
    np.testing.assert_allclose(x.to_numpy(), points + 0.1 * u, rtol=1e-4, atol=1e-5)
