"""Stores that stream through a field bigger than the cache are non-temporal."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_copy_into_a_huge_field_uses_non_temporal_stores_and_is_correct():
    n = 20 * 1024 * 1024  # 80 MiB of f32: past the streaming threshold
    a = ti.field(ti.f32, n)
    b = ti.field(ti.f32, n)
    src = (np.arange(n) % 1000).astype(np.float32)
    a.from_numpy(src)

    @ti.kernel
    def copy():
        for i in a:
            b[i] = a[i] * 2.0

    @ti.kernel
    def total() -> ti.f64:  # a second task reads what the first one streamed out
        s = ti.f64(0)
        for i in b:
            s += ti.cast(b[i], ti.f64)
        return s

    copy()
    assert total() == pytest.approx(2.0 * float(src.astype(np.float64).sum()), rel=1e-9)
    np.testing.assert_array_equal(b.to_numpy(), 2.0 * src)
    text = copy.stages()["llvm_optimized"]
    assert "!nontemporal" in text and "sfence" in text


def test_small_or_read_fields_keep_ordinary_stores():
    x = ti.field(ti.f32, 1024)
    y = ti.field(ti.f32, 20 * 1024 * 1024)

    @ti.kernel
    def small():
        for i in x:
            x[i] = 1.0

    @ti.kernel
    def read_too():
        for i in y:
            y[i] = y[i] + 1.0  # read first: the line is in cache already

    small()
    read_too()
    assert "!nontemporal" not in small.stages()["llvm_optimized"]
    assert "!nontemporal" not in read_too.stages()["llvm_optimized"]
