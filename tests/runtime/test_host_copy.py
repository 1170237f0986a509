"""Parallel host copies: the pieces cover the array exactly, casts and broadcasts as
NumPy's assignment, and large fields round-trip through them."""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.runtime import host_copy

pytestmark = pytest.mark.cpu


@pytest.mark.parametrize("rows", [1, 2, 3, 1001])
def test_pieces_cover_every_row(monkeypatch, rows):
    monkeypatch.setattr(host_copy, "PARALLEL_BYTES", 0)
    src = np.random.default_rng(0).random((rows, 5))
    dst = np.zeros((rows, 5), np.float32)
    host_copy.copy_into(dst, src, threads=4)
    np.testing.assert_array_equal(dst, src.astype(np.float32))
    np.testing.assert_array_equal(host_copy.copy_out(src, np.float32, threads=3), dst)


def test_broadcast_scalar_and_zero_d(monkeypatch):
    monkeypatch.setattr(host_copy, "PARALLEL_BYTES", 0)
    dst = np.zeros((7, 2), np.int32)
    host_copy.copy_into(dst, 3, threads=2)
    assert (dst == 3).all()
    scalar = np.zeros((), np.float64)
    host_copy.copy_into(scalar, 2.5, threads=2)
    assert scalar == 2.5


def test_large_fields_round_trip_through_threads():
    n = 1 << 20  # 12 MiB as Vector.field(3) f32: above PARALLEL_BYTES
    values = np.random.default_rng(1).random((n, 3), dtype=np.float32)
    v = ti.Vector.field(3, ti.f32, n)
    s = ti.field(ti.f64, n)
    a = ti.ndarray(ti.f32, (n, 3))
    v.from_numpy(values)
    s.from_numpy(values[:, 0])
    a.from_numpy(values)
    np.testing.assert_array_equal(v.to_numpy(), values)
    np.testing.assert_array_equal(s.to_numpy(), values[:, 0].astype(np.float64))
    np.testing.assert_array_equal(s.to_numpy(dtype=np.float32), values[:, 0])
    np.testing.assert_array_equal(a.to_numpy(), values)
