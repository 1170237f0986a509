"""Kernels the SNode layout tests share (imported by name: tests/ has no packages)."""

import numpy as np

import ti_notebook as ti


def linear(shape) -> np.ndarray:
    """Row-major linear index of every element: what ``write_linear`` writes."""
    return np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)


def kernels():
    """Fresh template kernels: write the linear index, count visits."""

    @ti.kernel
    def write_linear(x: ti.template()):
        for I in ti.grouped(x):  # noqa: E741
            v = 0
            for k in ti.static(range(len(x.shape))):
                v = v * x.shape[k] + I[k]
            x[I] = v

    @ti.kernel
    def count_visits(x: ti.template(), hits: ti.template()) -> ti.i32:
        n = 0
        for I in ti.grouped(x):  # noqa: E741
            hits[I] += 1
            n += 1
        return n

    return write_linear, count_visits


def visit_counter(f):
    """Kernel: how many cells a struct-for over ``f`` visits (f is 1-D..2-D)."""
    if len(f.shape) == 1:

        @ti.kernel
        def count() -> ti.i32:
            n = 0
            for _i in f:
                n += 1
            return n

    else:

        @ti.kernel
        def count() -> ti.i32:
            n = 0
            for _i, _j in f:
                n += 1
            return n

    return count
