"""``@ti.func``, and what the compiler sees of a kernel without compiling it.

The frontend inlines funcs and refuses kernel-to-kernel calls; the offline cache prints
both (``cache/fingerprint.py``). They find them here, beside the compiler's inputs
only: :class:`~ti_notebook.session.kernel.Kernel`, which drives the compiler, subclasses
:class:`KernelBase`, so nothing the compiler imports leads back to it.

    >>> import ti_notebook as ti
    >>> @ti.func
    ... def twice(v):
    ...     return 2 * v
    >>> isinstance(twice, Func), twice.parameters()
    (True, {'v': None})
"""

from __future__ import annotations

import functools
import inspect

from ti_notebook.errors import TiError, TiSyntaxError, TiTypeError
from ti_notebook.lang import settings as _settings
from ti_notebook.lang import types
from ti_notebook.lang.element_type import ElementType
from ti_notebook.lang.ndarray import Template
from ti_notebook.lang.struct_base import StructTypeBase as StructType


def resolve_annotation(func, annotation):
    """An annotation as a value (``from __future__ import annotations`` makes strings)."""
    if isinstance(annotation, str):
        try:
            return eval(annotation, func.__globals__)  # noqa: S307 - the user's own annotation
        except Exception:
            return annotation
    return annotation


class _Decorated:
    """What ``@ti.kernel`` and ``@ti.func`` keep of the Python function they decorate."""

    def __init__(self, func) -> None:
        functools.update_wrapper(self, func)
        self.func = func
        self.name = func.__name__
        self.signature = inspect.signature(func)
        # the parsed source, which the frontend reads and keeps here (frontend/source.py:
        # source_of): parsing is its work, not the object's
        self._source = None


class KernelBase(_Decorated):
    """A ``@ti.kernel`` before compiling: its Python function, name and source."""


class Func(_Decorated):
    """A ``@ti.func``: inlined into the kernels that call it."""

    def __init__(self, func) -> None:
        super().__init__(func)
        self.qualname = f"{func.__module__}.{func.__qualname__}"

    def parameters(self) -> dict:
        """name → "template", a DataType, a struct or vector/matrix type (the argument
        is checked and converted to it), or None (typed by the value passed)."""
        cfg = _settings.current()
        found = {}
        for p in self.signature.parameters.values():
            ann = resolve_annotation(self.func, p.annotation)
            if ann is Template or isinstance(ann, Template):
                found[p.name] = "template"
            elif ann is inspect.Parameter.empty:
                found[p.name] = None
            elif isinstance(ann, (StructType, ElementType)):
                found[p.name] = ann  # the argument is converted to it
            else:
                found[p.name] = types.to_dtype(ann, cfg.default_ip, cfg.default_fp)
        return found

    def __get__(self, instance, owner=None):
        """``obj.method`` of a ti.func defined in a class: bound to ``obj``, which a
        kernel passes as its first argument (``@staticmethod`` ones are not bound)."""
        if instance is None:
            return self
        return BoundFunc(self, instance)

    def __call__(self, *args, **kwargs):
        raise TiSyntaxError(
            f"ti.func '{self.name}' can only be called from a kernel or another ti.func",
            hint="decorate the caller with @ti.kernel, or call the Python function directly",
        )

    def __repr__(self) -> str:
        return f"<ti.func {self.name}>"


class BoundFunc(Func):
    """A ti.func read as ``obj.method`` (a data-oriented object's method, or a struct's
    ``@ti.func`` method): inlined with ``owner`` as its first argument.

        >>> class Shape:
        ...     @func
        ...     def area(self):
        ...         return 1
        >>> bound = Shape().area
        >>> isinstance(bound, BoundFunc), type(bound.owner).__name__, bound.name
        (True, 'Shape', 'area')
    """

    def __init__(self, func: Func, owner) -> None:  # noqa: D107 - shares func's state
        self.__dict__.update(func.__dict__)
        self.unbound = func
        self.owner = owner

    def __repr__(self) -> str:
        return f"<bound ti.func {self.name}>"


def func(fn) -> Func:
    """Decorator: makes ``fn`` a ti.func that kernels inline."""
    return Func(fn)


def real_func(fn) -> Func:
    """``@ti.real_func``: Taichi 1.7's experimental non-inlined function. ti_notebook
    inlines it like a ti.func: the results are the same, but recursion is refused (an
    inlined call cannot call itself), where Taichi would run it.

        >>> import ti_notebook as ti
        >>> ti.init(arch=ti.cpu)
        >>> @ti.real_func
        ... def twice(x: ti.f32) -> ti.f32:
        ...     return 2 * x
        >>> @ti.kernel
        ... def four() -> ti.f32:
        ...     return twice(2.0)
        >>> four()
        4.0
    """
    return Func(fn)


class Pyfunc(Func):
    """A ``@ti.pyfunc``: inlined into kernels like a ti.func, and plain Python when
    Python calls it (its body must make sense in both: ``ti.math`` is written so).

        >>> import ti_notebook as ti
        >>> @ti.pyfunc
        ... def double(v):
        ...     return 2 * v
        >>> double(4), isinstance(double, Func)
        (8, True)
    """

    def __call__(self, *args, **kwargs):
        try:
            return self.func(*args, **kwargs)
        except AttributeError as exc:
            if isinstance(exc, TiError):
                raise
            # ti.math.length(3.0): a number has no .norm(); say which call and why
            raise TiTypeError(
                f"{self.name}(): {exc}",
                hint="this function takes vectors/matrices: ti.Vector([...]), ti.math.vec3(...)",
            ) from exc

    def __repr__(self) -> str:
        return f"<ti.pyfunc {self.name}>"


def pyfunc(fn) -> Pyfunc:
    """Decorator: makes ``fn`` callable from kernels (inlined) and from Python."""
    return Pyfunc(fn)
