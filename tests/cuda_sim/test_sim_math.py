"""Math on the GPU (``codegen/nvptx/device_math.py``): every ``ti`` math function, f32 and f64,
with and without fast math, against NumPy and the CPU backend.

Tolerances are a real GPU's, not the emulator's: under fast math f32 ``sin cos tan exp
log tanh`` use the special function unit's approximations (about 2^-21 absolute for
sin/cos/lg2, 2 ulp relative for ex2), elsewhere libdevice's functions (1-4 ulp).
"""

import numpy as np
import pytest
from sim_compare import assert_same

import ti_notebook as ti
from ti_notebook.codegen.nvptx import target as nvptx_target

N = 256


@ti.func
def _sin(x):
    return ti.sin(x)


@ti.func
def _cos(x):
    return ti.cos(x)


@ti.func
def _tan(x):
    return ti.tan(x)


@ti.func
def _exp(x):
    return ti.exp(x)


@ti.func
def _log(x):
    return ti.log(x)


@ti.func
def _sqrt(x):
    return ti.sqrt(x)


@ti.func
def _asin(x):
    return ti.asin(x)


@ti.func
def _acos(x):
    return ti.acos(x)


@ti.func
def _tanh(x):
    return ti.tanh(x)


@ti.func
def _floor(x):
    return ti.floor(x)


@ti.func
def _ceil(x):
    return ti.ceil(x)


@ti.func
def _round(x):
    return ti.round(x)


@ti.func
def _abs(x):
    return ti.abs(x)


@ti.func
def _pow(x, y):
    return x**y


@ti.func
def _ti_pow(x, y):
    return ti.pow(x, y)


@ti.func
def _atan2(x, y):
    return ti.atan2(x, y)


@ti.func
def _min(x, y):
    return ti.min(x, y)


@ti.func
def _max(x, y):
    return ti.max(x, y)


@ti.func
def _floordiv(x, y):
    return x // y


@ti.func
def _mod(x, y):
    return x % y


# name -> (the kernel's expression of x, NumPy's reference, input range)
UNARY = {
    "sin": (_sin, np.sin, (-6.0, 6.0)),
    "cos": (_cos, np.cos, (-6.0, 6.0)),
    "tan": (_tan, np.tan, (-1.2, 1.2)),
    "exp": (_exp, np.exp, (-8.0, 8.0)),
    "log": (_log, np.log, (1e-3, 1e3)),
    "sqrt": (_sqrt, np.sqrt, (0.0, 1e4)),
    "asin": (_asin, np.arcsin, (-1.0, 1.0)),
    "acos": (_acos, np.arccos, (-1.0, 1.0)),
    "tanh": (_tanh, np.tanh, (-5.0, 5.0)),
    "floor": (_floor, np.floor, (-50.0, 50.0)),
    "ceil": (_ceil, np.ceil, (-50.0, 50.0)),
    "round": (_round, lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), (-8, 8)),
    "abs": (_abs, np.abs, (-50.0, 50.0)),
}
VARIANTS = {
    "f32_fast": (ti.f32, np.float32, True),
    "f32_precise": (ti.f32, np.float32, False),
    "f64": (ti.f64, np.float64, True),
    "f16": (ti.f16, np.float16, True),  # computed in f32 on both backends
}
TOLERANCE = {  # (rtol, atol) against NumPy in float64
    "f32_fast": (4e-6, 2e-6),
    "f32_precise": (1e-6, 1e-7),
    "f64": (1e-14, 1e-15),
    "f16": (1e-3, 1e-3),
}


def _inputs(name: str, low: float, high: float, np_dtype) -> np.ndarray:
    values = np.linspace(low, high, N)
    if name == "round":  # halves round away from zero
        values = np.concatenate([values[: N - 4], [-0.5, 0.5, 2.5, -2.5]])
    return values.astype(np_dtype)


def _apply(expression, dtype, inputs: np.ndarray):
    """A build() running ``expression`` on every input in a parallel loop."""

    def build():
        x = ti.field(dtype, shape=len(inputs))
        y = ti.field(dtype, shape=len(inputs))
        x.from_numpy(inputs)

        @ti.kernel
        def run():
            for i in x:
                y[i] = expression(x[i])

        run()
        return y.to_numpy()

    return build


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_function(gpu, name, variant):
    expression, reference, (low, high) = UNARY[name]
    dtype, np_dtype, fast_math = VARIANTS[variant]
    inputs = _inputs(name, low, high, np_dtype)
    cpu, values = gpu.against_cpu(_apply(expression, dtype, inputs), fast_math=fast_math)
    rtol, atol = TOLERANCE[variant]
    want = reference(inputs.astype(np.float64))
    assert_same(want, values, rtol=rtol, atol=atol * max(1.0, float(np.abs(want).max())))
    assert_same(cpu, values, rtol=2 * rtol, atol=2 * atol * max(1.0, float(np.abs(cpu).max())))
    if name in ("floor", "ceil", "round", "abs"):  # exact on every target
        assert_same(cpu, values)
    elif name == "sqrt":  # exact, but for fast math's sqrt.approx.f32 on a GPU (1 ulp)
        assert_same(cpu, values, rtol=2.0**-22 if variant == "f32_fast" else 0.0)


BINARY = {
    "pow": _pow,
    "ti_pow": _ti_pow,
    "atan2": _atan2,
    "min": _min,
    "max": _max,
    "floordiv": _floordiv,
    "mod": _mod,
}
NUMPY_BINARY = {
    "pow": np.power,
    "ti_pow": np.power,
    "atan2": np.arctan2,
    "min": np.minimum,
    "max": np.maximum,
    "floordiv": lambda x, y: np.floor(x / y),
    "mod": lambda x, y: x - y * np.floor(x / y),
}


def _pairs(name: str, np_dtype) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(len(name))
    if name in ("pow", "ti_pow"):
        # negative bases with integer exponents: (-2) ** 3 == -8 on every backend
        base = np.concatenate([rng.uniform(0.1, 4.0, 96), -rng.integers(1, 5, 32)])
        exponent = np.concatenate([rng.uniform(-3.0, 3.0, 96), rng.integers(-3, 4, 32)])
        return base.astype(np_dtype), exponent.astype(np_dtype)
    x, y = rng.uniform(-20, 20, 128), rng.uniform(-20, 20, 128)
    if name == "atan2":  # every quadrant and the axes
        x[:8], y[:8] = [0, 0, 1, -1, 1, -1, 1, -1], [1, -1, 0, 0, 1, 1, -1, -1]
    y[np.abs(y) < 0.5] = 0.5 if name in ("floordiv", "mod") else y[np.abs(y) < 0.5]
    return x.astype(np_dtype), y.astype(np_dtype)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_function(gpu, name, variant):
    dtype, np_dtype, fast_math = VARIANTS[variant]
    xs, ys = _pairs(name, np_dtype)
    expression = BINARY[name]

    def build():
        x, y, out = (ti.field(dtype, shape=len(xs)) for _ in range(3))
        x.from_numpy(xs)
        y.from_numpy(ys)

        @ti.kernel
        def run():
            for i in x:
                out[i] = expression(x[i], y[i])

        run()
        return out.to_numpy()

    cpu, values = gpu.against_cpu(build, fast_math=fast_math)
    rtol, atol = TOLERANCE[variant]
    want = NUMPY_BINARY[name](xs.astype(np.float64), ys.astype(np.float64))
    if name == "mod":  # x - y * floor(x / y): cancellation, so absolute in y's scale
        atol = max(atol, 8 * np.finfo(np_dtype).eps * 20)
    assert_same(want, values, rtol=rtol * 4, atol=atol * 4)
    assert_same(cpu, values, rtol=rtol * 4, atol=atol * 4)
    if name in ("min", "max"):
        assert_same(cpu, values)


@pytest.mark.parametrize("dtype_name", ["i32", "i64"])
def test_integer_math(gpu, dtype_name):
    dtype = getattr(ti, dtype_name)
    pairs = [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3), (-1, 7), (3, 19), (2, 0)]

    def build():
        a = ti.field(dtype, shape=len(pairs))
        b = ti.field(dtype, shape=len(pairs))
        out = ti.field(dtype, shape=(len(pairs), 6))
        a.from_numpy(np.array([p[0] for p in pairs]))
        b.from_numpy(np.array([p[1] for p in pairs]))

        @ti.kernel
        def run():
            for k in a:
                x, y = a[k], b[k]
                out[k, 0] = ti.abs(x)
                out[k, 1] = ti.min(x, y)
                out[k, 2] = ti.max(x, y)
                out[k, 3] = x // y if y != 0 else 0
                out[k, 4] = x % y if y != 0 else 0
                out[k, 5] = x ** ti.abs(y)

        run()
        return out.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    want = [
        [abs(x), min(x, y), max(x, y), x // y if y else 0, x % y if y else 0, x ** abs(y)]
        for x, y in pairs
    ]
    assert_same(np.array(want), actual)


def test_special_values_without_fast_math(gpu):
    inputs = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1e-40], np.float32)

    def build():
        x = ti.field(ti.f32, shape=len(inputs))
        out = ti.field(ti.f32, shape=(len(inputs), 4))
        x.from_numpy(inputs)

        @ti.kernel
        def run():
            for i in x:
                out[i, 0] = ti.sqrt(x[i])
                out[i, 1] = ti.log(x[i])
                out[i, 2] = ti.exp(x[i])
                out[i, 3] = ti.abs(x[i])

        run()
        return out.to_numpy()

    expected, actual = gpu.against_cpu(build, fast_math=False)
    with np.errstate(all="ignore"):
        want = np.stack([np.sqrt(inputs), np.log(inputs), np.exp(inputs), np.abs(inputs)], 1)
    assert_same(want, actual, rtol=1e-6)
    assert_same(expected, actual, rtol=1e-6)


@pytest.mark.cuda_sim
def test_fast_pow_without_libdevice_keeps_the_sign_and_special_cases(sim, monkeypatch):
    monkeypatch.setattr(nvptx_target, "find_libdevice", lambda: None)
    sim.init(offline_cache=False)
    base = np.array([2.0, 2.0, -2.0, -2.0, -2.0, 0.0, 0.0, np.nan, -3.0, 10.0], np.float32)
    exponent = np.array([0.5, -1.0, 3.0, 2.0, 0.5, 0.0, 2.0, 0.0, -3.0, -2.0], np.float32)
    x, y, out = (ti.field(ti.f32, shape=len(base)) for _ in range(3))
    x.from_numpy(base)
    y.from_numpy(exponent)

    @ti.kernel
    def run():
        for i in x:
            out[i] = x[i] ** y[i]

    run()
    assert "__nv_powf" not in run.stages()["llvm"]  # with libdevice, the call is there
    with np.errstate(invalid="ignore"):
        want = np.power(base.astype(np.float64), exponent.astype(np.float64))
    assert_same(want, out.to_numpy(), rtol=4e-6)


@pytest.mark.ptx
def test_fast_math_approximates_only_what_cuda_fast_math_does():
    """``tanh.approx.f32`` (2^-11 relative) and ``__powf`` (NaN for negative bases) are
    too far from the CPU's results: under fast math they stay libdevice's."""
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32, shape=8)

    @ti.kernel
    def mixed():
        for i in x:
            x[i] = ti.sin(x[i]) + ti.tanh(x[i]) + x[i] ** 1.5

    ptx = mixed.stages(arch="cuda")["ptx"]
    assert "sin.approx.f32" in ptx
    assert "tanh.approx" not in ptx and "__nv_tanhf" in mixed.stages(arch="cuda")["llvm"]
