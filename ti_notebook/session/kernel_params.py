"""How a kernel's parameters are typed, and its ndarray arguments checked.

Each annotation becomes a :class:`~ti_notebook.compiler.request.Param`: a scalar type
(``ti.f32``, ``int``...), ``ti.template()`` (also the unannotated ``self`` of a
data-oriented method), ``ti.types.ndarray(...)``, or a vector/matrix/struct type, a
*compound* passed as one scalar slot per component (``session/compound_args.py``):

    >>> import inspect
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> def f(v: ti.types.vector(2, ti.i32), k: float, x: ti.template()):
    ...     pass
    >>> params = [param_of(f, q) for q in inspect.signature(f).parameters.values()]
    >>> [(p.kind, p.dtype) for p in params]
    [('compound', None), ('scalar', f32), ('template', None)]
"""

from __future__ import annotations

import inspect

from ti_notebook.compiler.request import Param
from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.lang import types
from ti_notebook.lang.func import resolve_annotation
from ti_notebook.lang.ndarray import NdarrayType, Template
from ti_notebook.lang.struct_base import resolve
from ti_notebook.session import compound_args

__all__ = ["check_array", "element_shape", "example_value", "param_of"]


def param_of(func, p: inspect.Parameter, is_self: bool = False) -> Param:
    """The Param of ``func``'s parameter ``p`` (``is_self``: the first parameter of a
    kernel defined in a class, a template when unannotated)."""
    ann = resolve_annotation(func, p.annotation)
    if ann is Template or isinstance(ann, Template):
        return Param(p.name, "template")
    if is_self and ann is inspect.Parameter.empty:
        return Param(p.name, "template")  # a data-oriented method's instance
    if compound_args.is_compound(ann):  # a vector, matrix or struct: one slot per scalar
        return Param(p.name, "compound", compound=compound_args.compound_type(ann))
    if ann is NdarrayType or isinstance(ann, NdarrayType):
        spec = ann if isinstance(ann, NdarrayType) else NdarrayType()
        es = spec.element_shape
        ndim = None if spec.ndim is None else spec.ndim + len(es)
        return Param(p.name, "ndarray", spec.dtype, ndim, es)
    if ann is inspect.Parameter.empty:
        raise TiTypeError(
            f"kernel '{func.__name__}': parameter '{p.name}' has no type annotation",
            hint=f"annotate it, e.g. '{p.name}: ti.i32', '{p.name}: ti.template()' or "
            f"'{p.name}: ti.types.ndarray()'",
        )
    dtype = resolve(ann)
    if not isinstance(dtype, types.DataType):
        raise TiTypeError(
            f"kernel '{func.__name__}': parameter '{p.name}' has an unsupported annotation {ann!r}",
            hint="use a scalar type (ti.i32, ti.f32, int, float), a vector/matrix type "
            "(ti.types.vector(3, ti.f32)), a struct type, ti.template() or ti.types.ndarray()",
        )
    return Param(p.name, "scalar", dtype)


def check_array(
    kernel_name: str, param: Param, dtype, ndim: int, element_shape: tuple[int, ...] = ()
) -> None:
    """An ndarray argument of the wrong element type or dimension count: an error. The
    count is of the element grid (``ndim=1`` takes a 1-D ndarray of vectors too)."""
    if param.dtype is not None and dtype is not param.dtype:
        raise TiValueError(
            f"argument '{param.name}' of kernel '{kernel_name}' must have dtype "
            f"{param.dtype}, got {dtype}",
            hint=f"convert it: a.astype(np.{param.dtype.np_dtype})",
        )
    wanted = None if param.ndim is None else param.ndim - len(param.element_shape)
    got = ndim - len(element_shape)
    if wanted is not None and got != wanted:
        raise TiValueError(
            f"argument '{param.name}' of kernel '{kernel_name}' must be {wanted}-D, got {got}-D"
        )


def element_shape(kernel_name: str, param: Param, value, array) -> tuple[int, ...]:
    """The vector/matrix shape of an ndarray argument's elements: the annotation's
    (``ti.types.ndarray(dtype=ti.math.vec3)``), else the ``ti.ndarray``'s own, else ()."""
    given = getattr(value, "element_shape", ())
    if not param.element_shape:
        return tuple(given)
    wanted = param.element_shape
    if (given and tuple(given) != wanted) or tuple(
        array.shape[array.ndim - len(wanted) :]
    ) != wanted:
        raise TiValueError(
            f"argument '{param.name}' of kernel '{kernel_name}' must hold elements of shape "
            f"{wanted}, got an array of shape {tuple(array.shape)}",
            hint=f"its last {len(wanted)} dimension(s) are the element: shape (..., "
            + ", ".join(map(str, wanted))
            + ")",
        )
    return wanted


def example_value(param: Param):
    """A zero argument for ``param`` (``kernel.stages()`` without arguments)."""
    if param.kind == "compound":
        return compound_args.example_value(param.compound.lang_type)
    return 0.0 if param.dtype.is_float else 0
