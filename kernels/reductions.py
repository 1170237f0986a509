"""Reductions over a whole field: sum, max, mean, histogram.

Each reads its input as a ``ti.template()`` argument, so it compiles once per field (any
shape, any layout) and the thread-local reduction pass applies: the sums go through a
register per thread, not an atomic per element.

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=100)
    >>> x.from_numpy(np.arange(100, dtype=np.float32))
    >>> field_sum(x), field_max(x), field_mean(x)
    (4950.0, 99.0, 49.5)
"""

from __future__ import annotations

import ti_notebook as ti


@ti.kernel
def field_sum(x: ti.template()) -> ti.f64:
    """The sum of every element of ``x`` (accumulated in f64)."""
    total = ti.cast(0.0, ti.f64)
    for cell in ti.grouped(x):
        total += ti.cast(x[cell], ti.f64)
    return total


@ti.kernel
def field_max(x: ti.template()) -> ti.f64:
    """The largest element of ``x`` (-inf for an empty field)."""
    best = ti.cast(-ti.math.inf, ti.f64)
    for cell in ti.grouped(x):
        ti.atomic_max(best, ti.cast(x[cell], ti.f64))
    return best


def field_mean(x) -> float:
    """The mean of ``x``'s elements: :func:`field_sum` over their count."""
    count = 1
    for extent in x.shape:
        count *= extent
    return field_sum(x) / count


@ti.kernel
def histogram(x: ti.template(), counts: ti.template(), low: ti.f32, high: ti.f32):
    """Adds to ``counts`` (a 1-D i32 field of ``bins`` cells) how many elements of ``x``
    fall in each of ``bins`` equal bins of ``[low, high)``; values outside are not
    counted (``numpy.histogram``'s bins, except that ``high`` itself is excluded)."""
    bins = counts.shape[0]
    width = (high - low) / bins
    for cell in ti.grouped(x):
        value = x[cell]
        if low <= value < high:
            b = ti.min(ti.cast((value - low) / width, ti.i32), bins - 1)
            counts[b] += 1
