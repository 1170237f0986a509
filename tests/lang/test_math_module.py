"""``ti.math``: every name of Taichi 1.7's ``taichi.math``, in kernels and from Python.

Reference values marked "Taichi 1.7.4" were computed by taichi 1.7.4 (in
/work/main/.venv, ``ti.init(arch=ti.cpu, default_fp=ti.f64)``, inside a kernel: its
``ti.math`` functions are ti.funcs there); the rest are NumPy / ``cmath`` / by hand.
Observed there: ``sign(vec3(-2, 0, 3)) == [-1, 0, 1]``, ``fract(vec2(-1.25, 2.75)) ==
[0.75, 0.75]``, ``mod(vec2(-1, 5.5), 3) == [2, 2.5]``, ``refract`` past the critical
angle is the zero vector, ``popcnt(-1) == 32``, ``clz(1) == 31``, ``clz(0) == 32``,
``popcnt(ti.i64(-1)) == 64``.
"""

import cmath
import math

import numpy as np
import pytest

import ti_notebook as ti
import ti_notebook.math as tm
from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.frontend.tracer import DISPATCHER

pytestmark = pytest.mark.cpu

TAICHI_NAMES = [
    "acos",
    "asin",
    "atan2",
    "ceil",
    "clamp",
    "clz",
    "cos",
    "cross",
    "degrees",
    "determinant",
    "distance",
    "dot",
    "e",
    "exp",
    "eye",
    "floor",
    "fract",
    "inf",
    "inverse",
    "isinf",
    "isnan",
    "ivec2",
    "ivec3",
    "ivec4",
    "length",
    "log",
    "log2",
    "mat2",
    "mat3",
    "mat4",
    "max",
    "min",
    "mix",
    "mod",
    "translate",
    "scale",
    "nan",
    "normalize",
    "pi",
    "pow",
    "popcnt",
    "radians",
    "reflect",
    "refract",
    "rot_by_axis",
    "rot_yaw_pitch_roll",
    "rotation2d",
    "rotation3d",
    "round",
    "sign",
    "sin",
    "smoothstep",
    "sqrt",
    "step",
    "tan",
    "tanh",
    "uvec2",
    "uvec3",
    "uvec4",
    "vdir",
    "vec2",
    "vec3",
    "vec4",
    "cconj",
    "cdiv",
    "cexp",
    "cinv",
    "clog",
    "cmul",
    "cpow",
    "csqrt",
]

# Taichi 1.7.4 (f64): rot_by_axis(vec3(1, 2, 3), 0.7), rot_yaw_pitch_roll(0.3, 0.5, 0.7),
# rotation3d(0.52, -0.785, 1.046), row by row
ROT_BY_AXIS = [
    [0.7816391739070251, 0.5501172307043584, -0.29395787843858057, 0.0],
    [-0.4829292842142122, 0.8320301337746346, 0.27295633888831433, 0.0],
    [0.3947397981737998, -0.07139249941787587, 0.9160150668873173, 0.0],
    [0.0, 0.0, 0.0, 1.0],
]
YAW_PITCH_ROLL = [
    [0.8219543695041275, 0.5653542083811438, 0.06903356805788474, 0.0],
    [-0.5070818727544463, 0.6712121661589577, 0.5406867876359134, 0.0],
    [0.2593433800522308, -0.479425538604203, 0.8383866435942036, 0.0],
    [0.0, 0.0, 0.0, 1.0],
]
ROTATION3D = [
    [0.050483507831255214, -0.613396448842365, -0.7881600167381161, 0.0],
    [0.6583315396666862, 0.6138851074622719, -0.4355968993417254, 0.0],
    [0.7510332877557038, -0.49688013784373675, 0.43480930222253444, 0.0],
    [0.0, 0.0, 0.0, 1.0],
]


def test_every_taichi_math_name_exists():
    assert sorted(set(TAICHI_NAMES) - set(tm.__all__)) == []
    assert all(hasattr(tm, name) for name in tm.__all__)
    assert ti.math is tm
    assert (tm.e, tm.pi, tm.inf) == (math.e, math.pi, math.inf) and math.isnan(tm.nan)


def test_types_take_the_init_defaults_when_used():
    assert (tm.vec3.shape, tm.mat3.shape, tm.ivec4.n) == ((3,), (3, 3), 4)
    assert (tm.vec2.dtype, tm.ivec2.dtype, tm.uvec2.dtype, tm.mat2.dtype) == (
        ti.f32,
        ti.i32,
        ti.u32,
        ti.f32,
    )
    ti.init(arch=ti.cpu, default_fp=ti.f64, default_ip=ti.i64)
    assert (tm.vec3.dtype, tm.ivec3.dtype, tm.uvec3.dtype, tm.mat4.dtype) == (
        ti.f64,
        ti.i64,
        ti.u64,
        ti.f64,
    )
    assert tm.vec3(1, 2, 3).dtype == ti.f64 and tm.uvec2(1, 2).to_numpy().dtype == np.uint64


# -- Python scope ---------------------------------------------------------------------------
def test_glsl_functions_on_scalars():
    assert tm.mix(2.0, 10.0, 0.25) == 4.0
    assert (tm.clamp(-1.0, 0.0, 1.0), tm.clamp(0.5, 0.0, 1.0), tm.clamp(3, 0, 2)) == (0.0, 0.5, 2)
    assert (tm.step(0.5, 0.4), tm.step(0.5, 0.5)) == (0.0, 1.0)
    assert (tm.fract(1.25), tm.fract(-1.25)) == (0.25, 0.75)
    assert (tm.smoothstep(0.0, 1.0, -1.0), tm.smoothstep(0.0, 1.0, 0.25)) == (0.0, 0.15625)
    assert (tm.sign(-3.0), tm.sign(0.0), tm.sign(2), tm.sign(-0.0)) == (-1.0, 0.0, 1.0, 0.0)
    assert tm.log2(8.0) == 3.0 and tm.degrees(math.pi) == 180.0
    assert tm.radians(90.0) == math.pi / 2
    assert (tm.mod(-1.0, 3.0), tm.mod(5.5, 3.0), tm.mod(1.0, -3.0)) == (2.0, 2.5, -2.0)
    assert tm.isinf(-math.inf) and not tm.isinf(1e300) and tm.isnan(math.nan)
    assert not tm.isnan(1.0)
    assert (tm.popcnt(11), tm.popcnt(-1), tm.clz(1), tm.clz(0), tm.clz(-1)) == (3, 32, 31, 32, 0)
    assert (tm.popcnt(np.int64(-1)), tm.popcnt(1 << 40)) == (64, 1)
    assert tm.sqrt(4.0) == 2.0 and tm.max(1, 5, 3) == 5 and tm.atan2(1.0, 1.0) == math.pi / 4


def test_glsl_functions_on_vectors_match_numpy():
    x = np.array([-1.25, 0.5, 2.75])
    v = tm.vec3(x)
    np.testing.assert_allclose(tm.fract(v).to_numpy(), x - np.floor(x))
    np.testing.assert_allclose(tm.clamp(v, 0.0, 1.0).to_numpy(), np.clip(x, 0, 1))
    np.testing.assert_allclose(tm.clamp(v, tm.vec3(0, 1, 2), 2.5).to_numpy(), [0, 1, 2.5])
    np.testing.assert_allclose(tm.sign(tm.vec3(-2, 0, 3)).to_numpy(), [-1, 0, 1])
    np.testing.assert_allclose(tm.step(0.5, v).to_numpy(), (x >= 0.5).astype(float))
    np.testing.assert_allclose(tm.mix(v, tm.vec3(1.0), 0.5).to_numpy(), (x + 1) / 2)
    np.testing.assert_allclose(tm.mod(tm.vec2(-1, 5.5), 3.0).to_numpy(), [2.0, 2.5])  # Taichi 1.7.4
    np.testing.assert_allclose(tm.normalize(v).to_numpy(), x / np.linalg.norm(x), rtol=1e-6)
    assert tm.length(v) == pytest.approx(np.linalg.norm(x))
    assert tm.distance(v, tm.vec3(0.0)) == pytest.approx(np.linalg.norm(x))
    assert tm.dot(v, v) == pytest.approx(x @ x)
    np.testing.assert_allclose(tm.cross(v, tm.vec3(0, 0, 1)).to_numpy(), np.cross(x, [0, 0, 1]))
    n = np.array([0.0, 1.0, 0.0])
    np.testing.assert_allclose(tm.reflect(v, tm.vec3(n)).to_numpy(), x - 2 * (x @ n) * n)
    np.testing.assert_allclose(tm.degrees(tm.vec2(math.pi, -math.pi / 2)).to_numpy(), [180, -90])
    np.testing.assert_allclose(tm.log2(tm.vec2(1.0, 8.0)).to_numpy(), [0.0, 3.0])
    np.testing.assert_allclose(tm.vdir(math.pi / 2).to_numpy(), [0.0, 1.0], atol=1e-7)
    assert tm.isinf(tm.vec4(math.inf, -math.inf, math.nan, 1)).tolist() == [1, 1, 0, 0]
    assert tm.isnan(tm.vec4(math.inf, -math.inf, math.nan, 1)).tolist() == [0, 0, 1, 0]
    assert tm.popcnt(tm.ivec2(7, -1)).tolist() == [3, 32]
    np.testing.assert_allclose(tm.sqrt(tm.vec2(4, 9)).to_numpy(), [2, 3])
    np.testing.assert_allclose(tm.smoothstep(0.0, 1.0, v).to_numpy(), [0, 0.5, 1])


def test_refract_matches_taichi_and_glsl():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    incident = tm.normalize(tm.vec3(1.0, -1.0, 0.0))
    normal = tm.vec3(0.0, 1.0, 0.0)
    bent = tm.refract(incident, normal, 0.8)  # Taichi 1.7.4
    np.testing.assert_allclose(bent.to_numpy(), [0.565685424949238, -0.824621125123532, 0])
    grazing = tm.normalize(tm.vec3(1.0, -0.2, 0.0))
    assert tm.refract(grazing, normal, 1.5).tolist() == [0.0, 0.0, 0.0]  # total reflection


def test_matrix_functions_and_transforms():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    m = tm.mat3([[2, 1, 0], [1, 3, 1], [0, 1, 4]])
    a = m.to_numpy()
    assert tm.determinant(m) == pytest.approx(np.linalg.det(a))
    np.testing.assert_allclose(tm.inverse(m).to_numpy(), np.linalg.inv(a))
    assert tm.eye(3).tolist() == np.eye(3).tolist() and tm.eye(2).dtype == ti.f64
    np.testing.assert_allclose(tm.rot_by_axis(tm.vec3(1, 2, 3), 0.7).to_numpy(), ROT_BY_AXIS)
    np.testing.assert_allclose(tm.rot_yaw_pitch_roll(0.3, 0.5, 0.7).to_numpy(), YAW_PITCH_ROLL)
    np.testing.assert_allclose(tm.rotation3d(0.52, -0.785, 1.046).to_numpy(), ROTATION3D)
    c, s = math.cos(0.3), math.sin(0.3)
    np.testing.assert_allclose(tm.rotation2d(0.3).to_numpy(), [[c, -s], [s, c]])
    point = tm.vec4(1, 2, 3, 1)
    assert (tm.translate(1, -2, 3) @ point).tolist() == [2.0, 0.0, 6.0, 1.0]
    assert (tm.scale(2, 3, 4) @ point).tolist() == [2.0, 6.0, 12.0, 1.0]


def test_complex_helpers_match_cmath():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    z1, z2 = complex(1.0, 2.0), complex(-3.0, 4.0)

    def vec(z):
        return tm.vec2(z.real, z.imag)

    def check(got, want):
        np.testing.assert_allclose(got.to_numpy(), [want.real, want.imag], atol=1e-12)

    check(tm.cmul(vec(z1), vec(z2)), z1 * z2)
    check(tm.cdiv(vec(z1), vec(z2)), z1 / z2)
    check(tm.cconj(vec(z1)), z1.conjugate())
    check(tm.cinv(vec(z2)), 1 / z2)
    check(tm.csqrt(vec(z2)), cmath.sqrt(z2))
    check(tm.cpow(vec(z1), 2.5), z1**2.5)
    check(tm.cexp(vec(z1)), cmath.exp(z1))
    check(tm.clog(vec(z2)), cmath.log(z2))
    assert tm.csqrt(tm.vec2(0.0)).tolist() == [0.0, 0.0] == tm.cpow(tm.vec2(0.0), 2).tolist()


def test_python_scope_misuse():
    with pytest.raises(TiTypeError, match="2-D or two 3-D vectors, got 4-D"):
        tm.cross(tm.vec4(1), tm.vec4(2))
    with pytest.raises(TiTypeError, match="square matrix, got a value of shape"):
        tm.inverse(ti.Matrix([[1, 2, 3], [4, 5, 6]]))
    with pytest.raises(TiValueError, match="singular"):
        tm.inverse(tm.mat2(1, 2, 2, 4))
    with pytest.raises(TiTypeError, match=r"length\(\): 'float' object has no attribute 'norm'"):
        tm.length(3.0)
    with pytest.raises(TiTypeError, match="takes 3 values"):
        tm.vec3(1, 2)
    with pytest.raises(TiTypeError, match="needs an integer"):
        tm.popcnt(1.5)
    with pytest.raises(TiTypeError, match="needs integers"):
        tm.clz(tm.vec2(1.0))


# -- in kernels ----------------------------------------------------------------------------
def test_functions_in_a_kernel_agree_with_python_and_taichi():
    ti.init(arch=ti.cpu, default_fp=ti.f64)

    @ti.kernel
    def run(out: ti.types.ndarray()):
        v = tm.vec3(-1.25, 0.5, 2.75)
        r = tm.rot_by_axis(tm.vec3(1.0, 2.0, 3.0), 0.7)
        for i in ti.static(range(3)):
            out[i] = tm.fract(v)[i]
            out[3 + i] = tm.clamp(v, 0.0, 1.0)[i]
            out[6 + i] = tm.sign(tm.vec3(-2.0, 0.0, 3.0))[i]
            out[9 + i] = tm.normalize(v)[i]
            out[12 + i] = tm.refract(tm.normalize(tm.vec3(1.0, -1.0, 0.0)), tm.vec3(0, 1, 0), 0.8)[
                i
            ]
            out[15 + i] = tm.refract(tm.normalize(tm.vec3(1.0, -0.2, 0)), tm.vec3(0, 1, 0), 1.5)[i]
            out[18 + i] = r[i, i] + r[i, 3 - i]
            out[21 + i] = tm.smoothstep(0.0, 1.0, v)[i] + tm.step(0.5, v)[i]
        out[24] = tm.length(v) + tm.distance(v, tm.vec3(0.0)) + tm.dot(v, v)
        out[25] = tm.mod(-1.0, 3.0) + tm.mix(2.0, 10.0, 0.25) + tm.log2(8.0)
        out[26] = tm.degrees(tm.pi) + tm.radians(180.0)
        out[27] = tm.cross(tm.vec2(1.0, 2.0), tm.vec2(3.0, 4.0)) + tm.cross(v, v).norm()
        out[28] = tm.reflect(v, tm.vec3(0.0, 1.0, 0.0)).y + tm.vdir(tm.pi / 2).y
        out[29] = tm.rotation2d(0.3)[1, 0] + tm.eye(3)[2, 2] + tm.scale(2, 3, 4)[1, 1]
        out[30] = (tm.translate(1, -2, 3) @ tm.vec4(1, 2, 3, 1)).z + tm.rotation3d(
            0.52, -0.785, 1.046
        )[1, 0]
        out[31] = tm.rot_yaw_pitch_roll(0.3, 0.5, 0.7)[2, 1] + tm.sqrt(16.0) + tm.max(1.0, 2.0)

    out = np.zeros(32, np.float64)
    run(out)
    x = np.array([-1.25, 0.5, 2.75])
    np.testing.assert_allclose(out[0:3], [0.75, 0.5, 0.75])
    np.testing.assert_allclose(out[3:6], np.clip(x, 0, 1))
    np.testing.assert_allclose(out[6:9], [-1, 0, 1])
    np.testing.assert_allclose(out[9:12], x / np.linalg.norm(x))
    np.testing.assert_allclose(out[12:15], [0.565685424949238, -0.824621125123532, 0], atol=1e-15)
    assert out[15:18].tolist() == [0.0, 0.0, 0.0]
    rows = np.array(ROT_BY_AXIS)
    np.testing.assert_allclose(out[18:21], [rows[i, i] + rows[i, 3 - i] for i in range(3)])
    python = [
        tm.smoothstep(0.0, 1.0, tm.vec3(x))[i] + tm.step(0.5, tm.vec3(x))[i] for i in range(3)
    ]
    np.testing.assert_allclose(out[21:24], python)
    np.testing.assert_allclose(out[24], 2 * np.linalg.norm(x) + x @ x)
    np.testing.assert_allclose(out[25:27], [2.0 + 4.0 + 3.0, 180.0 + math.pi])
    np.testing.assert_allclose(out[27:29], [-2.0, -0.5 + 1.0])
    np.testing.assert_allclose(out[29], math.sin(0.3) + 1.0 + 3.0)
    np.testing.assert_allclose(out[30], 6.0 + ROTATION3D[1][0])
    np.testing.assert_allclose(out[31], YAW_PITCH_ROLL[2][1] + 4.0 + 2.0)


def test_complex_and_bit_functions_in_a_kernel():
    ti.init(arch=ti.cpu, default_fp=ti.f64)

    @ti.kernel
    def run(out: ti.types.ndarray(), big: ti.i64):
        z1, z2 = tm.vec2(1.0, 2.0), tm.vec2(-3.0, 4.0)
        values = [
            tm.cmul(z1, z2),
            tm.cdiv(z1, z2),
            tm.cconj(z1),
            tm.cinv(z2),
            tm.csqrt(z2),
            tm.cpow(z1, 2.5),
            tm.cexp(z1),
            tm.clog(z2),
            tm.csqrt(tm.vec2(0.0)),
        ]
        for k in ti.static(range(9)):
            out[2 * k] = values[k].x
            out[2 * k + 1] = values[k].y
        out[18] = tm.popcnt(-1) * 100 + tm.clz(1)
        out[19] = tm.clz(0) * 100 + tm.popcnt(big)
        bits = tm.popcnt(tm.ivec2(7, 8))
        out[20] = bits.x * 10 + bits.y
        flags = tm.isinf(tm.vec4(tm.inf, -tm.inf, tm.nan, 1.0))
        nans = tm.isnan(tm.vec4(tm.inf, -tm.inf, tm.nan, 1.0))
        out[21] = flags[0] * 1000 + flags[1] * 100 + flags[2] * 10 + flags[3]
        out[22] = nans[0] * 1000 + nans[1] * 100 + nans[2] * 10 + nans[3]

    out = np.zeros(23, np.float64)
    run(out, -1)
    z1, z2 = complex(1.0, 2.0), complex(-3.0, 4.0)
    want = [z1 * z2, z1 / z2, z1.conjugate(), 1 / z2, cmath.sqrt(z2), z1**2.5]
    want += [cmath.exp(z1), cmath.log(z2), 0j]
    np.testing.assert_allclose(out[:18], [p for z in want for p in (z.real, z.imag)], atol=1e-12)
    assert out[18:].tolist() == [3231.0, 3264.0, 31.0, 1100.0, 10.0]


def test_bit_functions_refuse_floats_in_kernels():
    @ti.kernel
    def bad(a: ti.f32) -> ti.i32:
        return tm.popcnt(a)

    with pytest.raises(TiTypeError) as info:
        bad(1.0)
    text = str(info.value)
    assert "Kernel 'bad'" in text and "popcnt() needs an integer, got f32" in text
    assert "return tm.popcnt(a)" in text and "hint: cast first" in text


@pytest.mark.skipif(
    not {"determinant", "inverse"} <= set(DISPATCHER.methods),
    reason="m.determinant()/m.inverse() in kernels come with the kernel-side matrix work",
)
def test_determinant_and_inverse_in_a_kernel():
    @ti.kernel
    def run(out: ti.types.ndarray()):
        m = tm.mat2(4.0, 1.0, 2.0, 3.0)
        out[0] = tm.determinant(m)
        out[1] = tm.inverse(m)[0, 1]

    out = np.zeros(2, np.float32)
    run(out)
    np.testing.assert_allclose(out, [10.0, np.linalg.inv([[4, 1], [2, 3]])[0, 1]])


def test_kernel_misuse_points_at_the_users_call():
    @ti.kernel
    def cross4() -> ti.f32:
        return tm.cross(tm.vec4(1.0), tm.vec4(2.0)).x

    @ti.kernel
    def inverse23() -> ti.f32:
        m = ti.Matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        return tm.inverse(m)[0, 0]

    @ti.kernel
    def short() -> ti.f32:
        return tm.length(tm.vec3(1.0, 2.0))

    for kernel, message, line in (
        (
            cross4,
            "2- and 3-vectors, got 4-vectors",
            "return tm.cross(tm.vec4(1.0), tm.vec4(2.0)).x",
        ),
        (inverse23, "needs a square matrix, got shape (2, 3)", "return tm.inverse(m)[0, 0]"),
        (short, "takes 3 values (or one to fill it), got 2", "return tm.length(tm.vec3(1.0, 2.0))"),
    ):
        with pytest.raises(TiTypeError) as info:
            kernel()
        text = str(info.value)
        assert message in text and line in text and __file__ in text, text
        assert f"Kernel '{kernel.name}'" in text and "ti_notebook/math" not in text


def test_math_in_a_func_with_vector_annotations():
    @ti.func
    def shade(normal: tm.vec3, light: tm.vec3) -> ti.f32:
        return tm.clamp(tm.dot(tm.normalize(normal), light), 0.0, 1.0)

    @ti.kernel
    def run() -> ti.f32:
        return shade(ti.Vector([0, 2, 0]), tm.vec3(0.0, 0.5, 0.0)) + shade(tm.vec3(1), tm.vec3(-1))

    assert run() == 0.5
