"""What a call of a kernel must move and compute, from the compiler's own counts.

The compiler counts, per parallel task, the bytes one iteration must move
(``bytes_per_iteration``, the compulsory traffic) and the floating-point operations it
performs (``flops_per_iteration``; ``passes/analysis/memory_traffic.py`` states the rules). A
call's figures are those times each task's iterations: the task's range when constant,
else its bounds evaluated with the call's arguments (``range_formula``: ``range(n)``,
``range(a.shape[0])``, an ndrange's product). A struct-for over a sparse field visits
only its active cells, so its figures are an upper bound (``exact`` is False), as are
those of a task whose bounds come from memory (then it is left out and ``complete`` is
False). No kernel runs to count: these are compile-time facts.

GB/s = ``bytes`` / time and GFLOP/s = ``flops`` / time are then what the timing
protocol reports; ``flops / bytes`` is the arithmetic intensity a roofline places.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=1024)
    >>> y = ti.field(ti.f32, shape=1024)
    >>> @ti.kernel
    ... def saxpy(a: ti.f32):
    ...     for i in x:
    ...         y[i] = a * x[i] + y[i]
    >>> work = counted_work(saxpy, 2.0)
    >>> work.bytes, work.flops, work.flop_dtype, work.exact
    (12288, 2048, 'f32', True)
    >>> round(work.intensity, 3)
    0.167
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence

__all__ = ["TaskWork", "Work", "counted_work", "evaluate_bound"]

_OPS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "floordiv": operator.floordiv,
    "min": min,
    "max": max,
}


@dataclasses.dataclass(frozen=True)
class TaskWork:
    """One parallel task's share of a call."""

    index: int  # the task's position in ``kernel.report.tasks``
    kind: str
    iterations: int | None  # None: its bounds are not known from the arguments
    bytes: int | None
    flops: int | None
    flop_dtype: str | None
    exact: bool  # False: a sparse struct-for, whose figures bound the active cells'


@dataclasses.dataclass(frozen=True)
class Work:
    """A call's counted bytes and FLOPs (sums over the tasks whose counts are known)."""

    bytes: int | None
    flops: int | None
    flop_dtype: str | None
    tasks: tuple[TaskWork, ...]
    exact: bool  # every task counted exactly
    complete: bool  # every parallel task counted

    @property
    def intensity(self) -> float | None:
        """FLOPs per byte (arithmetic intensity); None without bytes."""
        if not self.bytes or self.flops is None:
            return None
        return self.flops / self.bytes


def evaluate_bound(formula, args: Sequence) -> int | None:
    """A ``range_formula`` evaluated with a call's arguments (None: not evaluable).

    ``args`` as :func:`launch_arguments` numbers them; an ndarray's shape is its
    ``.shape`` (NumPy arrays and ``ti.ndarray`` alike).

        >>> import numpy as np
        >>> evaluate_bound(("mul", ("arg", 1), ("shape", 0, 0)), (np.zeros(5), 3))
        15
    """
    if isinstance(formula, int):
        return formula
    if not isinstance(formula, tuple) or not formula:
        return None
    head = formula[0]
    try:
        if head == "arg":
            value = args[formula[1]]
            return int(value) if isinstance(value, (int, float)) else None
        if head == "shape":
            return int(args[formula[1]].shape[formula[2]])
        lhs, rhs = evaluate_bound(formula[1], args), evaluate_bound(formula[2], args)
    except (IndexError, AttributeError, TypeError, ValueError):
        return None
    if lhs is None or rhs is None or head not in _OPS:
        return None
    if head == "floordiv" and rhs == 0:
        return None
    return _OPS[head](lhs, rhs)


def counted_work(kernel, *args) -> Work:
    """The bytes and FLOPs one call ``kernel(*args)`` must move and compute.

    It compiles the kernel for these arguments if it has not been (as ``stages`` does)
    but runs nothing. Serial tasks count nothing (they have no iterations).
    """
    report = kernel.stages(*args)["report"]
    args = launch_arguments(kernel, args)
    tasks = []
    for index, task in enumerate(report.tasks):
        if task.kind == "serial":
            continue
        iterations = _iterations(task, args)
        per_byte, per_flop = task.bytes_per_iteration, task.flops_per_iteration
        tasks.append(
            TaskWork(
                index,
                task.kind,
                iterations,
                None if iterations is None or per_byte is None else per_byte * iterations,
                None if iterations is None or per_flop is None else per_flop * iterations,
                task.flop_dtype,
                not task.sparse,
            )
        )
    known_bytes = [t.bytes for t in tasks if t.bytes is not None]
    known_flops = [t.flops for t in tasks if t.flops is not None]
    dtypes = [t.flop_dtype for t in tasks if t.flop_dtype]
    return Work(
        sum(known_bytes) if known_bytes else None,
        sum(known_flops) if known_flops else None,
        max(dtypes, key=lambda name: int(name[1:])) if dtypes else None,
        tuple(tasks),
        all(t.exact for t in tasks),
        all(t.iterations is not None for t in tasks),
    )


def launch_arguments(kernel, args: Sequence) -> list:
    """The call's arguments as the compiled code numbers them (``("arg", k)``):
    templates take no slot, a vector/matrix/struct one slot per component."""
    from ti_notebook.session import compound_args

    slots: list = []
    for param, value in zip(kernel.parameters, args, strict=False):
        if param.kind == "template":
            continue
        if param.kind == "compound":
            slots.extend(compound_args.flatten(value, param.compound.lang_type, param.name))
        else:
            slots.append(value)
    return slots


def _iterations(task, args: Sequence) -> int | None:
    span = task.range or (None, None)
    formula = task.range_formula or (None, None)
    begin = span[0] if span[0] is not None else evaluate_bound(formula[0], args)
    end = span[1] if span[1] is not None else evaluate_bound(formula[1], args)
    if begin is None or end is None:
        return None
    return max(end - begin, 0)
