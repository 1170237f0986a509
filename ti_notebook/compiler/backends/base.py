"""What a backend is: a target (what compiles IR to an artifact, with no device) and a
runtime (what loads and launches that artifact), composed.

The driver (``compiler/driver.py``) is the same for every backend: it traces, runs
``backend.passes`` with ``backend.capabilities``, and hands the IR to the backend.
Compiled code travels as an :class:`Artifact`: the entry symbol, the tables the
launcher reads (prints, asserts, the SNode trees by slot) and the loadable code.

- a :class:`Target` owns the capabilities, the passes, its stages, code generation,
  and the artifact's format in the offline cache: it needs no device, so
  ``kernel.stages(arch="cuda")`` works anywhere;
- a :class:`Runtime` starts what runs code, turns a generated module into loadable
  code (``load``), and makes the object a kernel call launches (``launchable``); its
  ``device`` is what the target compiles for (None: the host);
- a :class:`Backend` is one of each; ``backends/__init__.py``'s ``BACKENDS`` table says
  which target and runtime each arch uses (the CUDA emulator: the CUDA target with the
  SIMT runtime).

    >>> from ti_notebook.compiler.backends.cpu import CpuRuntime, CpuTarget
    >>> cpu = Backend(CpuTarget(threads=4), CpuRuntime())
    >>> cpu.arch, cpu.stage_names, cpu.cache_subdir, cpu.capabilities.warp_size
    ('cpu', ('asm',), 'cpu', 1)
"""

from __future__ import annotations

import abc
import dataclasses
import time

from ti_notebook.errors import SourcePos
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.launch_abi import Launch
from ti_notebook.ir.options import CompileOptions
from ti_notebook.runtime import profiler, random_streams
from ti_notebook.runtime.profiler_events import KernelProfile, Span, TaskInfo


@dataclasses.dataclass
class Artifact:
    """What a backend made of one specialised kernel."""

    entry_name: str
    prints: list[dict]
    asserts: list[dict]  # AssertStmt info by code - 1; "pos" is a SourcePos or None
    tree_slots: list[int]  # the SNode tree ids the code uses, by local slot
    code: bytes | None = None  # loadable code, kept when the offline cache stores it
    # kernel_profiler: (tasks, threads) of the code's event buffer (codegen/cpu/profiling.py)
    profile: tuple[int, int] | None = None
    # targets whose tasks are kernels (CUDA): one launch per task, in order, as
    # codegen/nvptx/module.py's launch contract states; empty on the CPU
    launches: list[Launch] = dataclasses.field(default_factory=list)
    temps_bytes: int = 0  # the device buffer of values the tasks pass each other
    # LLVM's straight-line (SLP) vectoriser, off where it costs more than it gives
    # (codegen/cpu/slp_vectoriser.py); the CPU's O3 reads it
    slp_vectorize: bool = True


class Target(abc.ABC):
    """What compiles IR for one kind of machine, with no device needed. Subclasses set
    the class attributes and the methods."""

    arch: str  # the name ti.init(arch=...) selects it by
    stage_names: tuple[str, ...]  # its own stages, after the common ones ("asm", "ptx")
    cache_subdir: str  # its folder in the offline cache directory
    capabilities: Capabilities
    passes: tuple  # (name, run) pairs, in order (passes/pipeline.py)

    @classmethod
    @abc.abstractmethod
    def for_device(cls, device, threads: int) -> Target:
        """The target for a runtime's ``device`` (None: the host) and ``threads``."""

    @abc.abstractmethod
    def target_description(self) -> dict:
        """What its code depends on besides the kernel (the machine, tool versions)."""

    @abc.abstractmethod
    def arg_layout(self, params: list, written: list[str], returns: int = 1):
        """How the launcher packs the runtime arguments of ``params``, and where the
        ``returns`` return slots are."""

    @abc.abstractmethod
    def generate(
        self, kernel: KernelIR, options: CompileOptions, arg_offsets: dict, prefix: str | None
    ) -> tuple[str, Artifact]:
        """IR → the module's text and the artifact's tables (no code yet)."""

    @abc.abstractmethod
    def target_stage(self, stage: str, optimized_text: str, stages=None):
        """One of ``stage_names``, made from the optimised module (on demand: costly);
        ``stages`` is the kernel's :class:`~ti_notebook.compiler.stages.Stages`, for a
        stage made from others (CUDA's ``resources``: its PTX and launch table)."""

    # -- the offline cache ------------------------------------------------------------
    def serialise(self, artifact: Artifact, source) -> tuple[dict, bytes]:
        """(JSON header, payload) of an artifact; positions in ``source`` (a
        FunctionSource) are kept relative to its first line, so an entry still holds
        when the kernel moves in its file."""
        header = {
            "entry": artifact.entry_name,
            "prints": artifact.prints,
            "asserts": [_assert_to_json(a, source) for a in artifact.asserts],
            "trees": artifact.tree_slots,
            "profile": list(artifact.profile) if artifact.profile else None,
        }
        if artifact.launches:
            header["launches"] = [launch.as_dict() for launch in artifact.launches]
            header["temps_bytes"] = artifact.temps_bytes
        return header, artifact.code or b""

    def deserialise(self, header: dict, payload: bytes, source) -> Artifact:
        """The artifact :meth:`serialise` wrote (``trees``: the tree ids found again)."""
        return Artifact(
            header["entry"],
            header["prints"],
            [_assert_from_json(a, source) for a in header["asserts"]],
            header["trees"],
            payload,
            tuple(header["profile"]) if header.get("profile") else None,
            [Launch.from_dict(launch) for launch in header.get("launches", ())],
            int(header.get("temps_bytes", 0)),
        )


@dataclasses.dataclass(frozen=True)
class LaunchIdentity:
    """What the session knows of a specialisation that its launches carry: the kernel's
    name, the specialisation's ``label`` ("fill[x]"), the compile's report and start
    (``time.monotonic_ns``), and the session object and seed its random stream follows."""

    kernel: str
    label: str
    report: object  # compiler.report.KernelReport
    started_ns: int
    session: object
    random_seed: int


class Runtime(abc.ABC):
    """What loads a target's code and launches it."""

    device = None  # what the target compiles for; None: the host

    @abc.abstractmethod
    def start(self, store=None) -> None:
        """Makes it ready (once per process); ``store`` may keep runtime code."""

    @abc.abstractmethod
    def load(self, target: Target, module_text: str, artifact: Artifact, keep_code: bool):
        """Optimises ``target``'s module and loads it: (entry, optimised text); with
        ``keep_code`` the loadable code goes to ``artifact.code`` too."""

    @abc.abstractmethod
    def load_code(self, artifact: Artifact):
        """Loads an artifact's kept code (an offline-cache hit): the entry."""

    @abc.abstractmethod
    def launchable(self, name: str, entry, layout, return_type, artifact: Artifact):
        """The object a kernel call launches."""

    def identify(self, launchable, request, identity: LaunchIdentity) -> None:
        """Gives a new ``launchable`` (compiled or loaded from the offline cache for
        ``request``) what its launches carry: the specialisation's name and its tasks on
        the profiler's events, and its random stream (the same on a cold compile and a
        cache hit: ``runtime/random_streams.py``); with the profiler on, records the
        compile's span."""
        report = identity.report
        tasks = tuple(
            TaskInfo(
                t.kind,
                t.loop_config,
                t.bytes_per_iteration,
                t.flops_per_iteration,
                getattr(t, "description", "") or "",
            )
            for t in report.tasks
        )
        launchable.about = KernelProfile(
            identity.kernel, identity.label, launchable.about.device, tasks
        )
        if profiler.enabled:
            what = "cache load" if report.cache == "hit" else "compile"
            span = Span(
                what, identity.kernel, identity.label, identity.started_ns, time.monotonic_ns()
            )
            profiler.record_span(span)
        random_streams.attach(launchable, request, identity.session, identity.random_seed)

    def annotate(self, kernel: KernelIR, artifact: Artifact) -> None:  # noqa: B027 - optional
        """Adds what its launcher needs from the IR to a new artifact (nothing here)."""

    def cache_subdir(self, target: Target) -> str:
        """Its folder in the offline cache: the target's, unless its code differs."""
        return target.cache_subdir

    def description(self) -> dict:
        """What the code it loads depends on besides the target's description."""
        return {}


class Backend:
    """A :class:`Target` composed with a :class:`Runtime`: what the driver compiles
    through and a kernel call launches through."""

    def __init__(self, target: Target, runtime: Runtime) -> None:
        self.target, self.runtime = target, runtime

    @property
    def arch(self) -> str:
        return self.target.arch

    @property
    def stage_names(self) -> tuple[str, ...]:
        return self.target.stage_names

    @property
    def capabilities(self) -> Capabilities:
        return self.target.capabilities

    @property
    def passes(self) -> tuple:
        return self.target.passes

    @property
    def device(self):
        return self.runtime.device

    @property
    def cache_subdir(self) -> str:
        return self.runtime.cache_subdir(self.target)

    def start(self, store=None) -> None:
        self.runtime.start(store)

    def target_description(self) -> dict:
        return {**self.target.target_description(), **self.runtime.description()}

    def arg_layout(self, params: list, written: list[str], returns: int = 1):
        return self.target.arg_layout(params, written, returns)

    def generate(
        self, kernel: KernelIR, options: CompileOptions, arg_offsets: dict, prefix: str | None
    ) -> tuple[str, Artifact]:
        text, artifact = self.target.generate(kernel, options, arg_offsets, prefix)
        self.runtime.annotate(kernel, artifact)
        return text, artifact

    def load(self, module_text: str, artifact: Artifact, keep_code: bool):
        return self.runtime.load(self.target, module_text, artifact, keep_code)

    def load_code(self, artifact: Artifact):
        return self.runtime.load_code(artifact)

    def launchable(self, name: str, entry, layout, return_type, artifact: Artifact):
        return self.runtime.launchable(name, entry, layout, return_type, artifact)

    def identify(self, launchable, request, identity: LaunchIdentity) -> None:
        self.runtime.identify(launchable, request, identity)

    def target_stage(self, stage: str, optimized_text: str, stages=None):
        return self.target.target_stage(stage, optimized_text, stages)

    def serialise(self, artifact: Artifact, source) -> tuple[dict, bytes]:
        return self.target.serialise(artifact, source)

    def deserialise(self, header: dict, payload: bytes, source) -> Artifact:
        return self.target.deserialise(header, payload, source)

    def __repr__(self) -> str:
        target, runtime = type(self.target).__name__, type(self.runtime).__name__
        return f"<Backend {target} + {runtime} {self.capabilities}>"


def _assert_to_json(info: dict, source) -> dict:
    pos = info.get("pos")
    out = {k: v for k, v in info.items() if k != "pos"}
    if pos is not None:
        same = pos.filename == source.filename
        out["pos"] = {
            "filename": pos.filename,
            "line": pos.lineno - source.first_lineno if same else pos.lineno,
            "relative": same,
            "col": pos.col,
            "end_col": pos.end_col,
            "line_text": pos.line_text,
            "kernel_name": pos.kernel_name,
        }
    return out


def _assert_from_json(info: dict, source) -> dict:
    out = dict(info)
    pos = info.get("pos")
    if pos is not None:
        line = pos["line"] + source.first_lineno if pos["relative"] else pos["line"]
        out["pos"] = SourcePos(
            source.filename if pos["relative"] else pos["filename"],
            line,
            pos["col"],
            pos["end_col"],
            pos["line_text"],
            pos["kernel_name"],
        )
    return out
