"""The components of a Python-scope vector or matrix, as NumPy arrays of exact numbers.

A constructor's items become an array of the element type's storage: of ``dt`` when
given, else of the items' weak kind (``matrix_dtypes.py``); a value written into
components takes their type. Integers never pass through a float, so an ``i64`` or
``u64`` keeps every digit:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> array, spec = from_items([[1, 2], [3, 4]], "ti.Matrix()", None)
    >>> array.dtype, spec
    (dtype('int64'), <class 'int'>)
    >>> from_items([2**64 - 1], "ti.Vector()", ti.u64)[0].tolist(), written(2.5, float)
    ([18446744073709551615], array(2.5))
"""

from __future__ import annotations

import numpy as np

from ti_notebook.errors import TiOverflowError, TiValueError
from ti_notebook.lang import exact_numbers, types
from ti_notebook.lang import matrix_dtypes as dtypes

__all__ = ["from_items", "written"]


def from_items(items, what: str, dt) -> tuple[np.ndarray, object]:
    """The ``items`` (a list, tuple or array of them) of the constructor ``what`` as an
    array of the spec's storage type (``dt``, else the items' kind), and the spec."""
    if dt is not None:
        spec = dtypes.explicit(dt)
        array = exact_numbers.typed_array(items, spec, what)
    else:
        array = exact_numbers.weak_array(items, what)
        spec = dtypes.infer(array) if array.size else int
        if array.dtype == np.uint64:
            raise TiOverflowError(
                f"{what}: {array.max()} does not fit int64, the type of integers without dt",
                hint="give the type: dt=ti.u64",
            )
        array = array.astype(dtypes.storage(spec))
    if array.ndim > 2:
        raise TiValueError(f"{what}: a value of shape {array.shape} is neither 1-D nor 2-D")
    return array, spec


def written(value, spec) -> np.ndarray:
    """A value written into components of ``spec``, its integers exact."""
    if isinstance(spec, types.DataType):
        return exact_numbers.typed_array(value, spec, "a component")
    return exact_numbers.weak_array(value, "a component")
