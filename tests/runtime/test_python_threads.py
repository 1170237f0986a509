"""Kernels called from several Python threads at once (widgets, background jobs)."""

import threading

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_concurrent_first_calls_and_launches_are_serialised_correctly():
    x = ti.field(ti.i64, shape=1 << 16)

    @ti.kernel
    def add(v: ti.i64) -> ti.i64:
        for i in x:
            x[i] += v
        return v * 2

    wrong, errors = [], []

    def worker(k: int) -> None:
        try:
            for _ in range(100):
                if add(k) != 2 * k:  # the return slot is this launch's own
                    wrong.append(k)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and wrong == []
    assert x[0] == x[(1 << 16) - 1] == 100 * (1 + 2 + 3 + 4)
