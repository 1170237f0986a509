"""``ti.graph``: Taichi's compute graphs, run as the kernel launches they stand for.

Taichi records a graph of kernel dispatches with symbolic arguments so it can ship it
ahead of time (AOT) and run it without Python. ti_notebook has no AOT runtime; a graph
here is the same recorded list of dispatches, each kernel compiled when it is dispatched
(as Taichi does) and launched in order by :meth:`Graph.run`, with the symbolic
arguments replaced by the values ``run`` is given:

    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def scale(a: ti.types.ndarray(dtype=ti.f32, ndim=1), k: ti.f32):
    ...     for i in a:
    ...         a[i] *= k
    >>> a_sym = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "a", ti.f32, ndim=1)
    >>> k_sym = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "k", ti.f32)
    >>> builder = ti.graph.GraphBuilder()
    >>> builder.dispatch(scale, a_sym, k_sym)
    >>> builder.dispatch(scale, a_sym, k_sym)
    >>> graph = builder.compile()
    >>> a = ti.ndarray(ti.f32, 3)
    >>> a.fill(1)
    >>> graph.run({"a": a, "k": 3.0})
    >>> a.to_numpy().tolist()
    [9.0, 9.0, 9.0]
"""

from __future__ import annotations

import enum
from types import SimpleNamespace

from ti_notebook.errors import TiNotImplementedError, TiTypeError, TiValueError
from ti_notebook.lang.element_type import ElementType
from ti_notebook.lang.ndarray import Ndarray, _element_type


class ArgKind(enum.Enum):
    """What a symbolic graph argument stands for."""

    SCALAR = "scalar"
    NDARRAY = "ndarray"
    MATRIX = "matrix"
    TEXTURE = "texture"
    RWTEXTURE = "rwtexture"


class Arg:
    """A named placeholder in a graph, given its value by :meth:`Graph.run`.

    ``Arg(kind, name, dtype, ndim=...)`` as in Taichi (keywords ``tag``, ``name``,
    ``dtype``, ``ndim``, ``element_shape`` accepted too).
    """

    def __init__(self, tag=None, name: str = "", dtype=None, ndim: int = 0, **options) -> None:
        tag = options.pop("kind", tag)
        if tag in (ArgKind.TEXTURE, ArgKind.RWTEXTURE):
            raise TiNotImplementedError(
                f"ti.graph.Arg({tag.name}): textures are not supported by ti_notebook",
                hint="pass the image as an ndarray argument instead",
            )
        if not isinstance(tag, ArgKind):
            raise TiTypeError(
                f"ti.graph.Arg: the first argument must be a ti.graph.ArgKind, got {tag!r}"
            )
        element_shape = tuple(options.pop("element_shape", ()))
        options.pop("field_dim", None)
        if options:
            raise TypeError(f"ti.graph.Arg() got unexpected keyword(s) {sorted(options)}")
        self.tag, self.name, self.ndim = tag, name, ndim
        self.dtype, shape = _element_type(dtype)
        self.element_shape = shape or element_shape
        self.matrix_type = dtype if isinstance(dtype, ElementType) else None

    def check(self, value) -> None:
        """Raises when ``value`` cannot stand for this argument."""
        if self.tag is ArgKind.NDARRAY:
            if not isinstance(value, Ndarray):
                raise TiTypeError(
                    f"graph argument '{self.name}' must be a ti.ndarray, got {type(value).__name__}"
                )
            wanted = (self.dtype, self.ndim, self.element_shape)
            got = (value.dtype, value.ndim, value.element_shape)
            if (self.dtype is not None and got[0] is not wanted[0]) or got[1:] != wanted[1:]:
                raise TiValueError(
                    f"graph argument '{self.name}' was declared as an ndarray of {self.dtype} "
                    f"with ndim={self.ndim} and element shape {self.element_shape}, got "
                    f"{value.dtype}, ndim={value.ndim}, element shape {value.element_shape}"
                )

    def __repr__(self) -> str:
        return f"<ti.graph.Arg {self.tag.name} {self.name!r}>"


class Sequential:
    """A run of dispatches, appended to a builder as one node."""

    def __init__(self) -> None:
        self.dispatches: list[tuple] = []

    def dispatch(self, kernel, *args) -> None:
        """Records ``kernel(*args)``; :class:`Arg` values are filled in by ``run``."""
        self.dispatches.append(_dispatch(kernel, args))


class GraphBuilder(Sequential):
    """Records kernel dispatches; :meth:`compile` makes the :class:`Graph`."""

    def create_sequential(self) -> Sequential:
        return Sequential()

    def append(self, node: Sequential) -> None:
        if not isinstance(node, Sequential):
            raise TiTypeError("GraphBuilder.append takes a Sequential from create_sequential()")
        self.dispatches.extend(node.dispatches)

    def compile(self) -> Graph:
        return Graph(list(self.dispatches))


class Graph:
    """Recorded dispatches; ``run({name: value})`` launches them in order."""

    def __init__(self, dispatches: list[tuple]) -> None:
        self.dispatches = dispatches
        self.args = {a.name: a for _kernel, args in dispatches for a in args if isinstance(a, Arg)}

    def run(self, values: dict) -> None:
        missing = sorted(set(self.args) - set(values))
        if missing:
            raise TiValueError(
                f"graph.run: no value for argument(s) {missing}",
                hint="pass every symbolic argument by name: graph.run({'name': value, ...})",
            )
        for name, arg in self.args.items():
            arg.check(values[name])
        for kernel, args in self.dispatches:
            kernel(*(values[a.name] if isinstance(a, Arg) else a for a in args))


def _dispatch(kernel, args: tuple) -> tuple:
    from ti_notebook.session.kernel import Kernel

    if not isinstance(kernel, Kernel):
        raise TiTypeError(f"graph dispatch: {kernel!r} is not a @ti.kernel")
    params = kernel.params()
    if len(params) != len(args):
        raise TiTypeError(
            f"graph dispatch: kernel '{kernel.name}' takes {len(params)} argument(s), "
            f"{len(args)} given"
        )
    return kernel, tuple(args)


graph = SimpleNamespace(
    Arg=Arg, ArgKind=ArgKind, GraphBuilder=GraphBuilder, Graph=Graph, Sequential=Sequential
)
