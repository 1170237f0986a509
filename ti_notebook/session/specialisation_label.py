"""How a specialisation is named where people read it: ``add_one[a=rows]``.

A kernel with template or ndarray parameters compiles once per distinct set of their
values or types; the profiler's rows, traces and tables need to tell those apart in
words. Fields show their name, ndarrays their element type and dimensions, numbers and
strings their value, functions their name; anything else its type.

    >>> import ti_notebook as ti
    >>> from ti_notebook.compiler.request import Param
    >>> ti.init(arch=ti.cpu)
    >>> rows = ti.field(ti.f32, shape=(4, 4))
    >>> label("add_one", [Param("a", "template", None, 0)], {"a": rows}, [])
    'add_one[a=rows]'
    >>> import numpy as np
    >>> label("scale", [Param("v", "ndarray", ti.f32, 1)], {}, [np.ones(3, np.float32)])
    'scale[v=ndarray(f32, 1d)]'
    >>> label("plain", [Param("k", "scalar", ti.i32, 0)], {}, [3])
    'plain'
"""

from __future__ import annotations

import numbers

_LONGEST = 24  # characters of one value's text before it is cut


def label(kernel: str, params: list, templates: dict, runtime_args: list) -> str:
    """``kernel[name=value, ...]`` over its template and ndarray parameters, in order."""
    parts = []
    runtime = iter(runtime_args)
    for param in params:
        if param.kind == "template":
            parts.append(f"{param.name}={_value_text(templates.get(param.name))}")
        elif param.kind == "ndarray":
            value = next(runtime, None)
            ndim = getattr(getattr(value, "_array", value), "ndim", param.ndim)
            parts.append(f"{param.name}=ndarray({param.dtype}, {ndim}d)")
        else:
            next(runtime, None)
    return f"{kernel}[{', '.join(parts)}]" if parts else kernel


def _value_text(value) -> str:
    name = getattr(value, "name", None)
    if isinstance(name, str) and not isinstance(value, type):
        return name
    if isinstance(value, (numbers.Number, str, tuple, list)):
        text = repr(value)
        return text if len(text) <= _LONGEST else text[: _LONGEST - 1] + "…"
    return getattr(value, "__name__", type(value).__name__)
