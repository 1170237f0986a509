"""Central finite differences in f64: the reference every gradient test compares with."""

from __future__ import annotations

import numpy as np


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
    import ti_notebook as ti

    x.from_numpy(values)
    with ti.ad.Tape(loss=loss):
        kernel(*args)
    return x.grad.to_numpy()


def assert_close(got, want, rtol: float = 1e-6, atol: float = 1e-7) -> None:
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
