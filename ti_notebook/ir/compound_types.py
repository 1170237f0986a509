"""A vector/matrix/struct parameter or return value as the compiler sees it.

The session describes a kernel's compound parameters and return values with it
(``session/compound_args.py``), the frontend rebuilds values from it, and the launch
flattens them into its scalar ``leaves``: it sits here, below both, so the frontend
reads it without importing the compiler.
"""

from __future__ import annotations

import dataclasses

from ti_notebook.ir.types import DataType


@dataclasses.dataclass(frozen=True)
class CompoundType:
    """A vector/matrix/struct parameter or return value (or a tuple of return values),
    as the compiler sees it: flattened into scalar ``leaves``, one argument or return
    slot each, in order. ``lang_type`` is the language's type, from which the frontend
    rebuilds the value; ``description`` is its canonical text (cache keys).

        >>> from ti_notebook.ir.types import f32, i32
        >>> pair = CompoundType(None, (f32, i32), "tuple(f32,i32)")
        >>> pair.name, len(pair.leaves)
        ('tuple(f32,i32)', 2)
    """

    lang_type: object
    leaves: tuple[DataType, ...]
    description: str
    paths: tuple[str, ...] = ()  # each leaf as code names it: "[1]", ".pos[0]" (errors)

    @property
    def name(self) -> str:
        return self.description
