"""What a backend is: one target's capabilities, passes, stages, and how its code is
made, loaded, launched and kept in the offline cache.

The driver (``compiler/driver.py``) is the same for every target: it traces, runs
``backend.passes`` with ``backend.capabilities``, and hands the IR to the backend. A
backend's compiled code travels as an :class:`Artifact`: the entry symbol, the tables
the launcher reads (prints, asserts, the SNode trees by slot) and the loadable code.

    >>> from ti_notebook.compiler.backends.cpu import CpuBackend
    >>> cpu = CpuBackend(threads=4)
    >>> cpu.arch, cpu.stage_names, cpu.cache_subdir, cpu.capabilities.warp_size
    ('cpu', ('asm',), 'cpu', 1)
"""

from __future__ import annotations

import abc
import dataclasses

from ti_notebook.errors import SourcePos
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.launch_abi import Launch
from ti_notebook.ir.options import CompileOptions


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
    # LLVM's search for horizontal reductions, off where it costs more than it gives
    # (codegen/cpu/reduction_search.py); the CPU's O3 reads it
    horizontal_reductions: bool = True


class Backend(abc.ABC):
    """One compilation target. Subclasses set the class attributes and the methods."""

    arch: str  # the name ti.init(arch=...) selects it by
    stage_names: tuple[str, ...]  # its own stages, after the common ones ("asm", "ptx")
    cache_subdir: str  # its folder in the offline cache directory
    capabilities: Capabilities
    passes: tuple  # (name, run) pairs, in order (passes/pipeline.py)

    @abc.abstractmethod
    def start(self, store=None) -> None:
        """Makes its runtime ready (once per process); ``store`` may keep runtime code."""

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
    def load(self, module_text: str, artifact: Artifact, keep_code: bool) -> tuple[int, str]:
        """Optimises and loads a module: (entry address, optimised text); with
        ``keep_code`` the loadable code goes to ``artifact.code`` too."""

    @abc.abstractmethod
    def load_code(self, artifact: Artifact) -> int:
        """Loads an artifact's kept code (an offline-cache hit): the entry address."""

    @abc.abstractmethod
    def launchable(self, name: str, entry: int, layout, return_type, artifact: Artifact):
        """The object a kernel call launches."""

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

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.capabilities}>"


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
