"""What a kernel's report says of one offloaded task (``kernel.report.tasks``).

A :class:`Task` is one offloaded loop or serial block: its kind, range and loop config,
its description in plain words, and what one iteration moves (:class:`Traffic`, per
field or ndarray argument) and, on targets with warps, how one warp makes each memory
access (:class:`WarpAccess`). Each record is a frozen dataclass with ``from_dict`` and
``to_dict``, the plain form the offline cache stores:

    >>> task = Task.from_dict({"kind": "range_for", "loop_config": {}, "range": [0, 8],
    ...     "traffic": [{"name": "x", "read": False, "written": True, "bytes": 4}]})
    >>> task.range, task.traffic[0].bytes, task.description
    ((0, 8), 4, 'parallel loop over [0, 8)')
    >>> Task.from_dict(task.to_dict()) == task
    True
"""

from __future__ import annotations

import dataclasses
import types as pytypes
from collections.abc import Mapping

from ti_notebook.passes.analysis import task_description

__all__ = ["Task", "Traffic", "WarpAccess"]


def _tuples(value):
    """Nested lists (as JSON gives them back) as nested tuples; other values as they are."""
    if isinstance(value, (list, tuple)):
        return tuple(_tuples(v) for v in value)
    return value


@dataclasses.dataclass(frozen=True)
class Traffic:
    """What one task's iteration moves of one field or ndarray argument
    (``passes/analysis/memory_traffic.py``): read, written, and the bytes of both.

        >>> Traffic.from_dict({"name": "y", "read": True, "written": True, "bytes": 8})
        Traffic(name='y', read=True, written=True, bytes=8)
    """

    name: str  # the field's name, or "arg N" for the N-th kernel argument (an ndarray)
    read: bool
    written: bool
    bytes: int  # per iteration, reads and writes together

    @classmethod
    def from_dict(cls, d: dict) -> Traffic:
        return cls(d["name"], bool(d["read"]), bool(d["written"]), int(d["bytes"]))

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class WarpAccess:
    """One memory access of a task as one warp makes it, on a target with warps
    (``passes/analysis/warp_accesses.py``): global ones in 32-byte sectors, shared ones (a
    block-local buffer) by their bank-conflict degree.

        >>> a = WarpAccess.from_dict({"field": "v", "access": "load", "memory": "global",
        ...     "element_bytes": 4, "lanes": 32, "lane_stride": 12, "pattern": "affine",
        ...     "sectors": 12, "ideal_sectors": 4, "efficiency": 0.3333})
        >>> str(a)
        'load v: 4 B per lane, lane stride 12 B, 12 sectors per warp (ideal 4, 33% used)'
    """

    field: str  # the field's name, "arg N" for an ndarray, "x (block-local)" for a buffer
    access: str  # load | store | atomic
    memory: str  # global | shared
    element_bytes: int
    lanes: int  # active lanes of the warp
    lane_stride: int | None  # bytes between neighbouring lanes' addresses; None: not one
    pattern: str  # uniform | affine | non-affine | irregular
    sectors: int | None = None  # global: 32-byte sectors the warp touches; None: irregular
    ideal_sectors: int | None = None  # global: the fewest that could hold its bytes
    efficiency: float | None = None  # global: bytes used / bytes moved
    degree: int | None = None  # shared: bank-conflict degree (1: conflict-free)
    assumed: bool = False  # the figures take a value known only at run time as aligned
    line: int | None = None

    @classmethod
    def from_dict(cls, d: dict) -> WarpAccess:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        stride = "irregular" if self.pattern == "irregular" else self.pattern
        if self.lane_stride is not None and self.pattern == "affine":
            stride = f"lane stride {self.lane_stride} B"
        text = f"{self.access} {self.field}: {self.element_bytes} B per lane, {stride}"
        if self.memory == "shared":
            if self.degree is not None:
                text += ", conflict-free" if self.degree == 1 else f", {self.degree}-way conflict"
        elif self.sectors is not None:
            used = f"{self.efficiency:.0%}" if self.efficiency is not None else "?"
            text += f", {self.sectors} sectors per warp (ideal {self.ideal_sectors}, {used} used)"
        if self.lanes < 32:
            text += f" [{self.lanes} lanes]"
        if self.assumed:
            text += " [run-time values taken as aligned]"
        return text


@dataclasses.dataclass(frozen=True)
class Task:
    """One offloaded task: ``serial``, ``range_for`` or ``struct_for``."""

    kind: str
    loop_config: Mapping  # the ti.loop_config values it runs with
    line: int | None = None  # of its loop in the source
    field: str | None = None  # what a struct-for visits
    range: tuple | None = None  # parallel tasks: [begin, end), None where not constant
    # parallel tasks: compulsory bytes one iteration moves (passes/analysis/memory_traffic.py);
    # None for serial tasks and reports cached before it was counted
    bytes_per_iteration: int | None = None
    traffic: tuple[Traffic, ...] = ()  # per field or ndarray argument, making up the above
    # targets with warps (CUDA): per memory access of the body, one warp's cost
    warp_accesses: tuple[WarpAccess, ...] = ()
    # parallel tasks: floating-point operations per iteration and their widest type
    # (passes/analysis/memory_traffic.py), for rooflines
    flops_per_iteration: int | None = None
    flop_dtype: str | None = None
    # a bound computed from arguments, as data: ("arg", k), ("shape", k, axis), ints and
    # (op, a, b); ti.profiler evaluates it with a call's arguments (passes/offload.py)
    range_formula: tuple | None = None
    sparse: bool = False  # a struct-for over sparse cells: ``range`` bounds what it visits
    # what it does in plain words: "parallel loop over the cells of x (dense 64x64)";
    # what the summary line and the profiler should show (passes/analysis/task_description.py)
    description: str = ""
    # the order interchange_loops runs it in (None: as written): ("axes",) an ndrange's
    # flat index split with the first axis fastest; ("strips", n): n consecutive outer
    # indices per strip, the inner loop outside them
    interchange: tuple | None = None

    @classmethod
    def from_dict(cls, d: dict) -> Task:
        span = d.get("range")
        return cls(
            d["kind"],
            pytypes.MappingProxyType(dict(d.get("loop_config") or {})),
            d.get("line"),
            d.get("field"),
            None if span is None else tuple(span),
            d.get("bytes_per_iteration"),
            tuple(Traffic.from_dict(t) for t in d.get("traffic", ())),
            tuple(WarpAccess.from_dict(a) for a in d.get("warp_accesses", ())),
            d.get("flops_per_iteration"),
            d.get("flop_dtype"),
            _tuples(d.get("range_formula")),
            bool(d.get("sparse", False)),
            description=d.get("description") or _fallback_description(d),
            interchange=_tuples(d.get("interchange")),
        )

    def to_dict(self) -> dict:
        out = {"kind": self.kind, "loop_config": dict(self.loop_config)}
        for name in (
            "line",
            "field",
            "range",
            "bytes_per_iteration",
            "flops_per_iteration",
            "flop_dtype",
            "range_formula",
            "interchange",
        ):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.sparse:
            out["sparse"] = True
        if self.description:
            out["description"] = self.description
        if self.traffic:
            out["traffic"] = [t.to_dict() for t in self.traffic]
        if self.warp_accesses:
            out["warp_accesses"] = [a.to_dict() for a in self.warp_accesses]
        return out


def _fallback_description(d: dict) -> str:
    """The words for a task of a report stored before tasks had them (offline cache)."""
    span = d.get("range")
    if d["kind"] == "struct_for":
        return task_description.describe(
            "struct_for", subject=d.get("field"), sparse=bool(d.get("sparse"))
        )
    return task_description.describe(d["kind"], span=None if span is None else tuple(span))
