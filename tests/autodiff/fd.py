"""Central finite differences in f64: the reference every gradient test compares with."""

from __future__ import annotations

import numpy as np

import ti_notebook as ti


def numeric_gradient(loss_of, values: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """d loss / d values by central differences; ``loss_of(values) -> float``."""
    values = np.array(values, dtype=np.float64)
    grad = np.zeros_like(values)
    flat, out = values.reshape(-1), grad.reshape(-1)
    for k in range(flat.size):
        keep = flat[k]
        flat[k] = keep + h
        up = loss_of(values.copy())
        flat[k] = keep - h
        down = loss_of(values.copy())
        flat[k] = keep
        out[k] = (up - down) / (2 * h)
    return grad


def field_loss(kernel, x, loss, args=()):
    """``values -> loss`` running ``kernel(*args)`` on field ``x`` set to values."""

    def run(values):
        x.from_numpy(values)
        loss[None] = 0.0
        kernel(*args)
        return loss[None]

    return run


def tape_gradient(kernel, x, loss, values, args=()) -> np.ndarray:
    """d loss / d x through ``ti.ad.Tape``."""
    x.from_numpy(values)
    with ti.ad.Tape(loss=loss):
        kernel(*args)
    return x.grad.to_numpy()


def assert_close(got, want, rtol: float = 1e-6, atol: float = 1e-7) -> None:
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def check_elementwise_gradient(
    fn, n: int, seed: int, span: float, rounded: bool = False
) -> np.ndarray:
    """``loss = sum_i fn(x[i], y[i])`` over two f64 fields of ``n`` values drawn in
    ``[-span, span]``: its Tape gradient against central differences (a wider step and
    bound where ``rounded``: a round trip through f32 quantises the loss to ~1e-7).
    Returns the gradients, ``(2, n)``."""
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    x = ti.field(ti.f64, shape=n, needs_grad=True)
    y = ti.field(ti.f64, shape=n, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def compute(f: ti.template()):
        for i in x:
            loss[None] += f(x[i], y[i])

    rng = np.random.default_rng(seed)
    xs = rng.uniform(-span, span, n)
    ys = rng.uniform(-span, span, n)
    x.from_numpy(xs)
    y.from_numpy(ys)
    with ti.ad.Tape(loss=loss):
        compute(fn)
    got = np.stack([x.grad.to_numpy(), y.grad.to_numpy()])

    def loss_of(values):
        x.from_numpy(values[0])
        y.from_numpy(values[1])
        loss[None] = 0.0
        compute(fn)
        return loss[None]

    h, rtol = (1e-3, 1e-3) if rounded else (1e-6, 1e-6)
    assert_close(got, numeric_gradient(loss_of, np.stack([xs, ys]), h), rtol=rtol, atol=1e-6)
    return got
