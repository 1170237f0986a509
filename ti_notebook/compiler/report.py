"""What the compiler did to one kernel, as typed read-only data (``kernel.report``).

The passes note what they did while they run (``KernelIR.report``, plain lists and
dicts); the driver freezes that into a :class:`KernelReport` with the pass records, the
compile time and the cache state; what it says of each offloaded task is
``compiler/task_report.py``'s. Everything is a frozen dataclass, so the magic and
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

from ti_notebook.compiler.task_report import Task
from ti_notebook.passes.pipeline import PassRecord


def _frozen(mapping) -> Mapping:
    return pytypes.MappingProxyType(dict(mapping or {}))


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
    """The records above and the tasks (``task_report.py``) of one compiled kernel; also
    reads as the mapping ``to_dict()``."""

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
