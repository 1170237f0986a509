"""Sizes and inputs of the everyday patterns of issue 18, shared by every peer.

>>> rowsum_reference(np.ones((2, 3), np.float32)).tolist()
[3.0, 3.0]
"""

from __future__ import annotations

import numpy as np

from . import spec

N_ROWS = spec.N_LAYOUT  # the row update's field: 4096² f32
N_MATVEC = 4096  # A is 64 MiB f32: matvec streams it once
N_BODY = 2048  # 4M pair interactions per call
SOFTENING = 1e-3
N_VECTORS = 4 * 1024 * 1024  # Vector.field(3) of 4M elements: 48 MiB
N_CALL = 1024  # the ndarray-call row: small arrays, so the call's overhead shows


def matvec_data() -> tuple[np.ndarray, np.ndarray]:
    gen = spec.rng()
    a = gen.random((N_MATVEC, N_MATVEC), dtype=np.float32)
    return a, gen.random(N_MATVEC, dtype=np.float32)


def bodies() -> np.ndarray:
    return spec.rng().random((N_BODY, 2), dtype=np.float32)


def vectors() -> np.ndarray:
    return spec.rng().random((N_VECTORS, 3), dtype=np.float32)


def rowsum_reference(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float64).sum(1)


def forces_reference(p: np.ndarray) -> np.ndarray:
    """Softened 2-D inverse-square forces of every other body, in float64."""
    p = p.astype(np.float64)
    d = p[None, :, :] - p[:, None, :]
    r2 = (d**2).sum(-1) + SOFTENING
    np.fill_diagonal(r2, np.inf)
    return (d / (r2 * np.sqrt(r2))[..., None]).sum(1)


def call_arrays() -> tuple[np.ndarray, np.ndarray]:
    gen = spec.rng()
    return gen.random(N_CALL, dtype=np.float32), gen.random(N_CALL, dtype=np.float32)


def math_input() -> np.ndarray:
    """8M f32 in [-2, 2): the transcendental chain's input."""
    return spec.rng().uniform(-2.0, 2.0, spec.N_FLAT).astype(np.float32)


def math_reference(x: np.ndarray) -> np.ndarray:
    v = x.astype(np.float64)
    return (
        np.sin(v) * np.exp(-v)
        + np.log(1 + v * v)
        + np.arctan2(v, 1.5)
        + np.abs(v) ** 1.3
        + np.cos(v)
    )
