"""What a call's arguments select: the key of a kernel's compiled code, and what it is given.

A kernel compiles once per *specialisation*: the identities of its ``ti.template()``
arguments and the element type, rank and element shape of its array arguments. The
other arguments (scalars, vectors, structs) are passed at each launch.

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def scale(a: ti.types.ndarray(), k: ti.f32):
    ...     for i in a:
    ...         a[i] *= k
    >>> chosen = specialise(scale, (np.ones(3), 2.0))
    >>> chosen.key, [p.kind for p in chosen.params], len(chosen.runtime_args)
    ((('f64', 1, ()),), ['ndarray', 'scalar'], 2)
"""

from __future__ import annotations

import dataclasses

from ti_notebook.compiler.request import Param
from ti_notebook.errors import TiTypeError
from ti_notebook.lang import types
from ti_notebook.session import kernel_params, template_keys


@dataclasses.dataclass(frozen=True)
class Specialisation:
    """One call's specialisation of a kernel."""

    key: tuple  # the compiled code's key: template identities, array types
    runtime_args: list  # the launch's arguments: all but the templates
    templates: dict  # template parameter name -> the object passed
    params: list[Param]  # the parameters with each array's type and shape filled in


def specialise(kernel, args: tuple) -> Specialisation:
    """The specialisation of ``kernel`` (a :class:`~ti_notebook.session.kernel.Kernel`)
    that positional ``args`` select; wrong arguments raise :class:`TiTypeError`."""
    params = kernel.params()
    name = kernel.name
    if len(args) != len(params):
        raise TiTypeError(
            f"kernel '{name}' takes {len(params)} argument(s) but {len(args)} were given",
            hint=f"call it as {name}{kernel.signature}",
        )
    key, runtime_args, templates, concrete = [], [], {}, []
    for param, value in zip(params, args, strict=True):
        if param.kind == "template":
            templates[param.name] = value
            key.append(template_keys.key_or_error(value, kernel._on_death, param.name, name))
            concrete.append(param)
        elif param.kind == "ndarray":
            array = getattr(value, "_array", value)
            dtype = types.from_numpy_dtype(array.dtype) if hasattr(array, "dtype") else None
            if dtype is None or not hasattr(array, "ndim"):
                raise TiTypeError(
                    f"argument '{param.name}' of kernel '{name}' must be a NumPy "
                    f"array or ti.ndarray, got {type(value).__name__}"
                )
            es = kernel_params.element_shape(name, param, value, array)
            kernel_params.check_array(name, param, dtype, array.ndim, es)
            key.append((dtype.name, array.ndim, es))
            dtype = param.dtype or dtype
            concrete.append(Param(param.name, "ndarray", dtype, array.ndim, es))
            runtime_args.append(value)
        else:  # scalars, and compounds (flattened at the launch)
            concrete.append(param)
            runtime_args.append(value)
    return Specialisation(tuple(key), runtime_args, templates, concrete)
