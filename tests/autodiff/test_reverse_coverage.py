"""More differentiable statements against central finite differences (f64): the
``ti.math`` functions, vector and matrix operations (norm, normalize, cross, inverse,
determinant, transpose, trace, outer products), complex-number helpers, casts, atomics
into locals and fields, vector ndarrays. ``test_reverse_ops.py`` has the arithmetic."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ti_notebook as ti
from tests.autodiff.fd import (
    assert_close,
    check_elementwise_gradient,
    field_loss,
    numeric_gradient,
    tape_gradient,
)

pytestmark = pytest.mark.cpu

N = 4
tm = ti.math


@ti.func
def vec(a, b):
    return ti.Vector([a, b, a * b + 0.5])


@ti.func
def f_clamp_mix(a, b):
    return tm.clamp(a * 2.0, -1.0, 1.0) + tm.mix(a, b, 0.3) + tm.mix(1.0, a, b)


@ti.func
def f_smoothstep_step(a, b):
    return tm.smoothstep(-2.0, 2.0, a * b) + tm.step(0.1, a) * b


@ti.func
def f_sign_round(a, b):
    return tm.sign(a) * b * b + tm.round(a) * b + ti.ceil(b) * a


@ti.func
def f_log2_radians(a, b):
    return tm.log2(a * a + 1.0) + tm.radians(b) * tm.degrees(a)


@ti.func
def f_mod_pow(a, b):
    return tm.mod(a + 5.0, b * b + 1.0) + tm.pow(b * b + 0.5, a)


@ti.func
def f_length_normalize(a, b):
    v = vec(a, b)
    return tm.length(v) + tm.normalize(v).x * 3.0


@ti.func
def f_dot_cross(a, b):
    u, v = vec(a, b), vec(b, 0.5 * a)
    return tm.dot(u, v) + tm.cross(u, v).z * 2.0


@ti.func
def f_distance_reflect(a, b):
    u, v = vec(a, b), ti.Vector([0.6, 0.0, 0.8])
    return tm.distance(u, v) + tm.reflect(u, v).y


@ti.func
def f_refract(a, b):
    incident = tm.normalize(ti.Vector([a, -1.5, b]))
    return tm.refract(incident, ti.Vector([0.0, 1.0, 0.0]), 0.7).sum()


@ti.func
def f_norms(a, b):
    v = vec(a, b)
    return v.norm() + v.norm_sqr() + v.norm(1e-3) + v.normalized().y


@ti.func
def f_vector_reductions(a, b):
    v = vec(a, b)
    return v.sum() * v.max() + v.min()


@ti.func
def f_matmul_transpose_trace(a, b):
    m = ti.Matrix([[a, b], [a * b, 1.5]])
    return (m @ m.transpose()).trace() + (m @ ti.Vector([b, a])).x


@ti.func
def f_determinant_2x2(a, b):
    return ti.Matrix([[a + 2.0, b], [a * b, 1.5]]).determinant()


@ti.func
def f_determinant_3x3(a, b):
    m = ti.Matrix([[a + 2.0, b, 0.1], [a * b, 1.5, a], [0.3, b, 2.5]])
    return m.determinant() + tm.determinant(m)


@ti.func
def f_inverse_2x2(a, b):
    m = ti.Matrix([[a + 3.0, b], [a * b, 2.5]]).inverse()
    return m[0, 0] + 2.0 * m[0, 1] + m[1, 0] * m[1, 1]


@ti.func
def f_inverse_3x3(a, b):
    m = ti.Matrix([[a + 3.0, b, 0.1], [a * b, 2.5, a], [0.3, b, 3.5]])
    inv = tm.inverse(m)
    return inv.sum() + inv[2, 0] * inv[0, 2]


@ti.func
def f_outer_product(a, b):
    m = vec(a, b).outer_product(vec(b, a))
    return m.sum() + m[1, 2] * m[2, 1]


@ti.func
def f_rotation(a, b):
    return (tm.rotation2d(a) @ ti.Vector([b, 1.0])).dot(ti.Vector([0.3, 0.7]))


@ti.func
def f_complex(a, b):
    z, w = ti.Vector([a, b]), ti.Vector([b + 2.0, 0.5])
    return (
        tm.cmul(z, w).x
        + tm.cdiv(z, w).y
        + tm.cexp(z).x
        + tm.clog(w).y
        + tm.csqrt(w).x
        + tm.cinv(w).x
        + tm.cconj(z).y
    )


@ti.func
def f_casts(a, b):
    half = ti.cast(a, ti.f32) * ti.cast(b, ti.f32)  # through f32 and back
    truncated = ti.cast(ti.cast(a * 3.0, ti.i32), ti.f64)  # flat: no derivative
    return ti.cast(half, ti.f64) + truncated * b + float(ti.cast(b, ti.f32))


@ti.func
def f_select_vectors(a, b):
    u, v = vec(a, b), vec(b, a)
    return ti.select(a > b, u, v).sum() + ti.max(u, v).sum()


@ti.func
def f_local_atomics(a, b):
    acc = 0.0
    ti.atomic_add(acc, a * b)
    acc -= b
    ti.atomic_sub(acc, a * a)
    acc += ti.exp(0.2 * b)
    return acc


@ti.func
def f_static_unrolled(a, b):
    total = 0.0
    for k in ti.static(range(3)):
        total += ti.sin(a * (k + 1)) * b**k
    return total


CASES = [
    f_clamp_mix,
    f_smoothstep_step,
    f_sign_round,
    f_log2_radians,
    f_mod_pow,
    f_length_normalize,
    f_dot_cross,
    f_distance_reflect,
    f_refract,
    f_norms,
    f_vector_reductions,
    f_matmul_transpose_trace,
    f_determinant_2x2,
    f_determinant_3x3,
    f_inverse_2x2,
    f_inverse_3x3,
    f_outer_product,
    f_rotation,
    f_complex,
    f_casts,
    f_select_vectors,
    f_local_atomics,
    f_static_unrolled,
]
# operations through f32: the loss is quantised to ~1e-7 relative
ROUNDED = {"f_casts"}


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.name)
def test_adjoint_matches_finite_differences(f):
    got = check_elementwise_gradient(f, N, seed=11, span=1.2, rounded=f.name in ROUNDED)
    assert np.any(got != 0)


def _tape_vs_fd(kernel, x, loss, values, args=()):
    got = tape_gradient(kernel, x, loss, values, args)
    want = numeric_gradient(field_loss(kernel, x, loss, args), values)
    assert_close(got, want, rtol=1e-6, atol=1e-6)
    assert np.any(got != 0)


def test_field_atomics_of_every_differentiable_kind():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=6, needs_grad=True)
    mid = ti.field(ti.f64, shape=3, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def scatter():
        for i in x:
            ti.atomic_add(mid[i % 3], x[i] * x[i])
            ti.atomic_sub(mid[(i + 1) % 3], 0.5 * x[i])
            mid[i // 2] -= ti.sin(x[i])

    @ti.kernel
    def gather():
        for k in mid:
            loss[None] += mid[k] * (k + 1.0)

    def both():
        mid.fill(0.0)
        scatter()
        gather()

    values = np.linspace(-1.0, 1.3, 6)

    def loss_of(v):
        x.from_numpy(v)
        loss[None] = 0.0
        both()
        return loss[None]

    x.from_numpy(values)
    with ti.ad.Tape(loss=loss):
        both()
    assert_close(x.grad.to_numpy(), numeric_gradient(loss_of, values), rtol=1e-6, atol=1e-6)


def test_a_scalar_parameter_read_by_every_iteration():
    """w.grad[None] and p.grad[1] gather from every iteration (thread-local reductions)."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    n = 1000
    params = ti.field(ti.f64, shape=3, needs_grad=True)
    w = ti.field(ti.f64, shape=(), needs_grad=True)
    data = ti.field(ti.f64, shape=n)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)
    data.from_numpy(np.linspace(-2.0, 2.0, n))
    w[None] = 0.7

    @ti.kernel
    def fit():
        for i in data:
            residual = params[0] * data[i] ** 2 + params[1] * data[i] + params[2] - w[None]
            loss[None] += residual**2 / n

    _tape_vs_fd(fit, params, loss, np.array([0.3, -0.2, 0.1]))
    report = fit.grad.report
    assert {r.destination for r in report.thread_local} >= {"params.grad[0]", "params.grad[1]"}


def test_vector_ndarray_arguments():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    points = ti.Vector.ndarray(3, ti.f64, 5, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def spread(p: ti.types.ndarray(dtype=ti.math.vec3, ndim=1)):
        for i in p:
            loss[None] += (p[i] - p[(i + 1) % 5]).norm() + p[i].dot(p[i]) * 0.1

    values = np.random.default_rng(3).uniform(-1, 1, (5, 3))

    def loss_of(v):
        points.from_numpy(v)
        loss[None] = 0.0
        spread(points)
        return loss[None]

    points.from_numpy(values)
    with ti.ad.Tape(loss=loss):
        spread(points)
    got = points.grad.to_numpy()
    assert_close(got, numeric_gradient(loss_of, values), rtol=1e-6, atol=1e-6)


def test_matrix_field_inverse_and_determinant_in_a_loop():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    m = ti.Matrix.field(2, 2, ti.f64, shape=3, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def energy():
        for i in m:
            inv = m[i].inverse()
            loss[None] += ti.log(m[i].determinant()) + (inv @ inv.transpose()).trace()

    values = np.array([[[2.0, 0.3], [0.1, 1.5]]] * 3) + np.arange(3)[:, None, None] * 0.2
    _tape_vs_fd(energy, m, loss, values)


def test_constant_exponents_lower_to_constants_in_the_grad_kernel():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=N, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def squares():
        for i in x:
            loss[None] += x[i] ** 2 + 0.5 * x[i] ** 3

    _tape_vs_fd(squares, x, loss, np.linspace(-1.0, 1.0, N))
    ir_text = squares.grad.stages()["ir_optimized"]
    consts = dict(re.findall(r"(\$\d+) : f64 = const (\S+)", ir_text))
    exponents = [consts.get(e) for e in re.findall(r"= pow \$\d+, (\$\d+)", ir_text)]
    # x ** 2's derivative is 2 * x (no pow), x ** 3's is 3 * x ** 2.0: a constant
    assert exponents == ["2.0"], ir_text


def test_atomic_max_and_min_into_fields_take_the_winner():
    """The value that ended in the field gets the adjoint (Taichi 1.7 gives it to all)."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=7, needs_grad=True)
    high = ti.field(ti.f64, shape=(), needs_grad=True)
    low = ti.field(ti.f64, shape=2, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def extremes():
        for i in x:
            ti.atomic_max(high[None], x[i] * x[i])
            ti.atomic_min(low[i % 2], ti.sin(x[i]))

    @ti.kernel
    def combine():
        loss[None] += 3.0 * high[None] + low[0] * low[1]

    def both():
        high[None] = -10.0  # set outside the kernels, as a starting value
        low.fill(10.0)
        extremes()
        combine()

    values = np.array([0.1, 0.9, 0.3, -0.2, 0.5, -1.1, 0.05])

    def loss_of(v):
        x.from_numpy(v)
        loss[None] = 0.0
        both()
        return loss[None]

    x.from_numpy(values)
    high[None] = -10.0
    low.fill(10.0)
    with ti.ad.Tape(loss=loss):
        extremes()
        combine()
    got = x.grad.to_numpy()
    assert_close(got, numeric_gradient(loss_of, values), rtol=1e-6, atol=1e-6)
    # x = -1.1 wins the max and lane 1's min, x = 0.05 lane 0's min: no one else
    assert np.flatnonzero(got).tolist() == [5, 6]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_atomic_max_and_min_on_locals(mode):
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=5, needs_grad=True, needs_dual=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True, needs_dual=True)

    @ti.kernel
    def clipped():
        for i in x:
            top = 0.0
            ti.atomic_max(top, x[i] * 2.0)
            bottom = 1.0
            old = ti.atomic_min(bottom, ti.exp(x[i]))
            loss[None] += top * bottom + old

    values = np.array([0.5, -0.3, 0.2, -0.7, 0.1])

    def loss_of(v):
        x.from_numpy(v)
        loss[None] = 0.0
        clipped()
        return loss[None]

    want = numeric_gradient(loss_of, values)
    x.from_numpy(values)
    if mode == "reverse":
        with ti.ad.Tape(loss=loss):
            clipped()
        got = x.grad.to_numpy()
    else:
        got = np.zeros(5)
        for k in range(5):
            seed = [0.0] * 5
            seed[k] = 1.0
            with ti.ad.FwdMode(loss=loss, param=x, seed=seed):
                clipped()
            got[k] = loss.dual[None]
    assert_close(got, want, rtol=1e-6, atol=1e-6)
    assert np.count_nonzero(got) >= 3


def test_values_computed_inside_branches_reach_their_adjoints():
    """The adjoint of an if runs in an if of its own after the forward sweep: the values
    its branches computed (gathers whose bounds stay checked, nested ifs, serial code,
    serial loops) are carried across."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=6, needs_grad=True)
    index = ti.field(ti.i32, shape=6)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)
    index.from_numpy(np.array([3, 2, 1, 0, 5, 4], dtype=np.int32))

    @ti.kernel
    def branches():
        if x[0] > -5.0:  # serial code at the kernel's top level
            t = x[0] * x[1]
            loss[None] += ti.sin(t)
        for i in x:
            if index[i] >= 0:
                v = x[index[i]] * x[index[i]]
                if v > 0.01:
                    w = ti.exp(0.3 * v)
                    loss[None] += ti.sin(v) * w
                else:
                    loss[None] += v
            acc = x[i]
            for _ in range(3):
                if acc > 0.0:
                    u = acc * 0.5
                    acc = acc + ti.sin(u)
            loss[None] += acc

    _tape_vs_fd(branches, x, loss, np.array([0.5, -0.3, 0.2, 0.9, 0.05, -0.7]))
