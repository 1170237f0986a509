"""The inputs of one compilation, explicit: what the driver and the cache key read.

Everything that decides the generated code is in a :class:`CompileRequest` - the
function's source, its parameters, the template values, the code-changing options and
the backend (whose capabilities the passes read) - so the offline cache can key on the
inputs before tracing. The language layer (``lang/kernel.py``) builds requests from the
session's ``Config``; nothing here reads that object.

    >>> from ti_notebook.ir.types import f32
    >>> Param("x", "scalar", f32)
    Param(name='x', kind='scalar', dtype=f32, ndim=None, element_shape=())
    >>> CacheSettings(enabled=False).policy
    'lru'
"""

from __future__ import annotations

import dataclasses

from ti_notebook.compiler.backends.base import Backend
from ti_notebook.frontend.source import FunctionSource
from ti_notebook.ir.options import CompileOptions
from ti_notebook.ir.types import DataType


@dataclasses.dataclass(frozen=True)
class Param:
    """A kernel parameter: ``kind`` is scalar, template or ndarray."""

    name: str
    kind: str
    dtype: DataType | None = None
    ndim: int | None = None  # ndarrays: the array's dimensions, element dimensions included
    element_shape: tuple[int, ...] = ()  # ndarrays of vectors/matrices: (n,) or (n, m)


@dataclasses.dataclass(frozen=True)
class CacheSettings:
    """The offline cache as ``ti.init`` configured it (DESIGN.md section 7)."""

    enabled: bool = True
    path: str = ""  # "" : the default directory (runtime/cache.py's default_path)
    max_size: int = 100 * 1024 * 1024  # bytes, before cleaning
    policy: str = "lru"  # never | version | lru | fifo


@dataclasses.dataclass
class CompileRequest:
    """The inputs of one compilation."""

    name: str
    source: FunctionSource
    params: list[Param]
    template_values: dict  # param name -> value
    return_type: DataType | None
    options: CompileOptions
    backend: Backend
    cache: CacheSettings = dataclasses.field(default_factory=CacheSettings)
