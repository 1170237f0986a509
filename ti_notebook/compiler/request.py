"""The inputs of one compilation, explicit: what the driver and the cache key read.

Everything that decides the generated code is in a :class:`CompileRequest` - the
function's source, its parameters, the template values, the code-changing options and
the backend (whose capabilities the passes read) - so the offline cache can key on the
inputs before tracing. The session (``session/compiling.py``) builds requests from the
session's ``Config``; nothing here reads that object.

    >>> from ti_notebook.ir.types import f32
    >>> Param("x", "scalar", f32)
    Param(name='x', kind='scalar', dtype=f32, ndim=None, element_shape=(), compound=None)
    >>> CacheSettings(enabled=False).policy
    'lru'
"""

from __future__ import annotations

import dataclasses

from ti_notebook.compiler.backends.base import Backend
from ti_notebook.frontend.recorder import Fingerprint
from ti_notebook.frontend.source import FunctionSource
from ti_notebook.ir.compound_types import CompoundType
from ti_notebook.ir.options import CompileOptions
from ti_notebook.ir.types import DataType


@dataclasses.dataclass(frozen=True)
class Param:
    """A kernel parameter: ``kind`` is scalar, template, ndarray or compound."""

    name: str
    kind: str
    dtype: DataType | None = None
    ndim: int | None = None  # ndarrays: the array's dimensions, element dimensions included
    element_shape: tuple[int, ...] = ()  # ndarrays of vectors/matrices: (n,) or (n, m)
    compound: CompoundType | None = None  # compound: its type and scalar slots

    @property
    def slots(self) -> int:
        """How many runtime argument slots it takes (templates none, compounds one per
        scalar)."""
        if self.kind == "template":
            return 0
        return len(self.compound.leaves) if self.compound is not None else 1


def return_slots(return_type) -> DataType | tuple[DataType, ...] | None:
    """What the launcher reads back: one scalar (a DataType), a compound's scalars (a
    tuple of them), or nothing.

        >>> from ti_notebook.ir.types import f32
        >>> return_slots(f32), return_slots(CompoundType(None, (f32, f32), "v")), return_slots(None)
        (f32, (f32, f32), None)
    """
    if isinstance(return_type, CompoundType):
        return return_type.leaves
    return return_type


def return_count(return_type) -> int:
    """How many return slots a kernel writes."""
    slots = return_slots(return_type)
    if slots is None:
        return 0
    return len(slots) if isinstance(slots, tuple) else 1


@dataclasses.dataclass(frozen=True)
class CacheSettings:
    """The offline cache as ``ti.init`` configured it (DESIGN.md section 7)."""

    enabled: bool = True
    path: str = ""  # "" : the default directory (cache/store.py's default_path)
    max_size: int = 100 * 1024 * 1024  # bytes, before cleaning
    policy: str = "lru"  # never | version | lru | fifo


@dataclasses.dataclass
class CompileRequest:
    """The inputs of one compilation."""

    name: str
    source: FunctionSource
    params: list[Param]
    template_values: dict  # param name -> value
    return_type: DataType | CompoundType | None
    options: CompileOptions
    backend: Backend
    cache: CacheSettings = dataclasses.field(default_factory=CacheSettings)
    # set by the offline cache when it will store the trace (``cache/compile.py``):
    # tracing checks what it reads with it; the compiler never imports the cache
    fingerprint: Fingerprint | None = None
