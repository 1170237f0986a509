"""What the compiler did to one kernel, as typed read-only data (``kernel.report``).

The passes note what they did while they run (``KernelIR.report``, plain lists and
dicts); the driver freezes that into a :class:`KernelReport` with the pass records, the
compile time and the cache state. Everything is a frozen dataclass, so the magic and
the widgets read one record and nobody edits it behind their back. ``to_dict()`` gives
the plain form (what ``%%kernel --show report`` prints and the offline cache stores),
and ``report["key"]`` reads that form, as the report's first readers did.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=64)
    >>> @ti.kernel
    ... def fill():
    ...     for i in x:
    ...         x[i] = i
    >>> report = fill.report
    >>> report.tasks[-1].kind, report.tasks[-1].range, report["tasks"][-1]["field"]
    ('struct_for', (0, 64), 'x')
    >>> [p.name for p in report.pass_records if p.changed] == list(report.passes)
    True
"""

from __future__ import annotations

import dataclasses
import types as pytypes
from collections.abc import Mapping

from ti_notebook.passes.analysis import task_description
from ti_notebook.passes.pipeline import PassRecord


def _frozen(mapping) -> Mapping:
    return pytypes.MappingProxyType(dict(mapping or {}))


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
            _frozen(d.get("loop_config")),
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


@dataclasses.dataclass(frozen=True)
class ThreadLocalReduction:
    """An atomic into ``destination`` that each thread now accumulates privately."""

    destination: str
    operation: str
    task: int

    @classmethod
    def from_dict(cls, d: dict) -> ThreadLocalReduction:
        return cls(d["destination"], d["operation"], d["task"])

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class BlockLocalBuffer:
    """A field read (or written) through a per-block buffer (``ti.block_local``).

    The mapping is data: the buffer's cell ``u`` holds ``field[corner + origin + u]``,
    where ``corner`` is the block's first cell and ``origin`` the low end of ``ranges``.
    ``offsets`` are the distinct offset vectors (relative to the iteration's index) the
    loop reads or adds at, sorted (empty: too many to list, or a report stored before
    they were kept); ``accesses`` counts the reads or adds per iteration, repeats
    included (None: a loop around an access has no constant trip count).

        >>> ranges = ((-1, 4), (0, 6))
        >>> entry = BlockLocalBuffer("a", "read", (4, 4), ranges, "", (5, 6), 120, "", "")
        >>> entry.origin, entry.to_global((8, 4), (0, 0))
        ((-1, 0), (7, 4))
        >>> entry = BlockLocalBuffer.from_dict({**entry.to_dict(), "offsets": [[-1, 0], [0, 2]]})
        >>> entry.offsets, entry.to_dict()["offsets"]
        (((-1, 0), (0, 2)), [(-1, 0), (0, 2)])
    """

    field: str
    mode: str  # read | write | accumulate
    block_shape: tuple[int, ...]
    ranges: tuple[tuple[int, int], ...]  # per axis, [lo, hi) relative to the block corner
    range_text: str
    buffer_shape: tuple[int, ...]
    bytes: int
    mapping: str  # the mapping as text: "buffer[u0, u1] = a[I - 1 + u0, J + u1]"
    corner: str
    offsets: tuple[tuple[int, ...], ...] = ()
    accesses: int | None = None

    @property
    def origin(self) -> tuple[int, ...]:
        return tuple(lo for lo, _hi in self.ranges)

    def to_global(self, corner, local) -> tuple[int, ...]:
        """The field index the buffer cell ``local`` of the block at ``corner`` holds."""
        return tuple(c + o + u for c, o, u in zip(corner, self.origin, local, strict=True))

    @classmethod
    def from_dict(cls, d: dict) -> BlockLocalBuffer:
        return cls(
            d["field"],
            d["mode"],
            tuple(d["block_shape"]),
            tuple(tuple(r) for r in d["ranges"]),
            d["range_text"],
            tuple(d["buffer_shape"]),
            d["bytes"],
            d["mapping"],
            d["corner"],
            tuple(tuple(o) for o in d.get("offsets", ())),
            d.get("accesses"),
        )

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["ranges"] = list(self.ranges)
        out["offsets"] = list(self.offsets)
        return out


@dataclasses.dataclass(frozen=True)
class PrivatizedScatter:
    """Fields a task adds into through per-thread copies (``passes/privatize_scatter``)."""

    fields: tuple[str, ...]
    bytes: int
    task: int

    @classmethod
    def from_dict(cls, d: dict) -> PrivatizedScatter:
        return cls(tuple(d["fields"]), d["bytes"], d["task"])

    def to_dict(self) -> dict:
        return {"fields": list(self.fields), "bytes": self.bytes, "task": self.task}


@dataclasses.dataclass(frozen=True)
class BoundsCheck:
    """One check left in the code (merged over ``accesses`` accesses)."""

    line: int | None
    what: str
    accesses: int
    hoisted: bool

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class BoundsSummary:
    """What ``passes/prove_bounds.py`` proved and what it left checked."""

    enabled: bool
    proven: int = 0
    checked: int = 0
    hoisted: int = 0
    asserts: int = 0
    checks: tuple[BoundsCheck, ...] = ()

    @classmethod
    def from_dict(cls, d: dict) -> BoundsSummary:
        checks = tuple(BoundsCheck(**c) for c in d.get("checks", ()))
        counts = {k: d[k] for k in ("proven", "checked", "hoisted", "asserts") if k in d}
        return cls(d["enabled"], checks=checks, **counts)

    def to_dict(self) -> dict:
        if not self.enabled:
            return {"enabled": False}
        out = dataclasses.asdict(self)
        out["checks"] = [c.to_dict() for c in self.checks]
        return out


@dataclasses.dataclass(frozen=True)
class KernelReport(Mapping):
    """Everything above for one compiled kernel; also reads as the mapping ``to_dict()``."""

    tasks: tuple[Task, ...] = ()
    thread_local: tuple[ThreadLocalReduction, ...] = ()
    block_local: tuple[BlockLocalBuffer, ...] = ()
    demoted_atomics: tuple[str, ...] = ()  # fields whose atomics became plain stores
    privatized: tuple[PrivatizedScatter, ...] = ()
    written_arguments: tuple[str, ...] = ()  # ndarray arguments the kernel stores into
    bounds: BoundsSummary | None = None
    pass_records: tuple[PassRecord, ...] = ()
    compile_time_s: float = 0.0  # tracing to loaded code (a cache hit: the load)
    cache: str | None = None  # hit | miss | off | uncacheable
    # CUDA: how each task launches (codegen/nvptx/module.py states the fields); empty on the CPU
    launches: tuple[Mapping, ...] = ()
    # elements kept in a local across a serial loop (passes/promote_accumulators.py)
    promoted: tuple[str, ...] = ()
    # seconds per stage of the compile, in pipeline order (compiler/compile_stages.py)
    stage_times: Mapping[str, float] = dataclasses.field(default_factory=dict)

    @property
    def passes(self) -> tuple[str, ...]:
        """The names of the passes that changed the IR, in order."""
        return tuple(r.name for r in self.pass_records if r.changed)

    @classmethod
    def from_dict(cls, d: dict) -> KernelReport:
        """From the passes' notes (``KernelIR.report``) or a stored ``to_dict()``."""
        records = d.get("pass_records")
        if records is None:  # only the names of those that fired are known
            records = [{"name": n, "changed": True, "time_s": 0.0} for n in d.get("passes", ())]
        return cls(
            tuple(Task.from_dict(t) for t in d.get("tasks", ())),
            tuple(ThreadLocalReduction.from_dict(t) for t in d.get("thread_local", ())),
            tuple(BlockLocalBuffer.from_dict(b) for b in d.get("block_local", ())),
            tuple(d.get("demoted_atomics", ())),
            tuple(PrivatizedScatter.from_dict(p) for p in d.get("privatized", ())),
            tuple(d.get("written_arguments", ())),
            BoundsSummary.from_dict(d["bounds"]) if "bounds" in d else None,
            tuple(PassRecord(**r) for r in records),
            float(d.get("compile_time_s", 0.0)),
            d.get("cache"),
            tuple(_frozen(launch) for launch in d.get("launches", ())),
            promoted=tuple(d.get("promoted", ())),
            stage_times=_frozen(d.get("stage_times", {})),
        )

    def to_dict(self) -> dict:
        """The plain form: lists and dicts, as ``kernel.stages()["report"]`` first was."""
        out = {
            "tasks": [t.to_dict() for t in self.tasks],
            "thread_local": [t.to_dict() for t in self.thread_local],
            "block_local": [b.to_dict() for b in self.block_local],
            "demoted_atomics": list(self.demoted_atomics),
            "promoted": list(self.promoted),
            "privatized": [p.to_dict() for p in self.privatized],
            "written_arguments": list(self.written_arguments),
            "passes": list(self.passes),
            "pass_records": [r.to_dict() for r in self.pass_records],
            "compile_time_s": self.compile_time_s,
            "stage_times": dict(self.stage_times),
        }
        if self.bounds is not None:
            out["bounds"] = self.bounds.to_dict()
        if self.cache is not None:
            out["cache"] = self.cache
        if self.launches:
            out["launches"] = [dict(launch) for launch in self.launches]
        return out

    # -- the mapping of to_dict(), read-only ------------------------------------------
    def __getitem__(self, key: str):
        return self.to_dict()[key]

    def __iter__(self):
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())
