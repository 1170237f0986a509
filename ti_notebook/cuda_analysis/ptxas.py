"""What ``ptxas -v`` says a kernel uses: registers, shared memory, barriers, spills.

:func:`ptxas_report` assembles PTX text for one arch in a temporary directory and
parses the log into one :class:`KernelResources` per entry function; its registers,
shared memory and barriers are the inputs of
:func:`~ti_notebook.cuda_analysis.occupancy.theoretical_occupancy`. Results are cached in memory
by (hash of the PTX text, arch). ptxas is looked for on ``PATH``, then in
``$CUDA_HOME/bin`` and ``$CUDA_PATH/bin``, then in the ``bin`` folder of the
``nvidia-cuda-nvcc`` wheel (:func:`find_ptxas`). A PTX error raises
:class:`~ti_notebook.errors.TiRuntimeError` carrying ptxas's message.

The parser alone needs no ptxas:

    >>> log = '''ptxas info    : Compiling entry function 'saxpy' for 'sm_80'
    ... ptxas info    : Function properties for saxpy
    ...     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ... ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem, 372 bytes cmem[0]'''
    >>> k = parse_ptxas_log(log, "sm_80").kernels["saxpy"]
    >>> k.registers, k.shared_bytes, k.barriers, k.constant_bytes, k.spills
    (10, 1024, 1, {0: 372}, False)
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import site
import subprocess
import sys
import tempfile
from collections import OrderedDict
from pathlib import Path

from ti_notebook.errors import TiRuntimeError, TiValueError

from .devices import arch_name

__all__ = [
    "KernelResources",
    "PtxasReport",
    "StackFrame",
    "clear_cache",
    "find_ptxas",
    "kernel_resources",
    "parse_ptxas_log",
    "ptx_target",
    "ptxas_report",
]

# where the NVIDIA wheels put their tools: nvidia-cuda-nvcc (13.x) and -cu12 (12.x)
WHEEL_BIN_DIRS = (("nvidia", "cu13", "bin"), ("nvidia", "cuda_nvcc", "bin"))
INSTALL_HINT = (
    "install the CUDA toolkit and put its bin folder on PATH (or set CUDA_HOME), "
    "or `pip install nvidia-cuda-nvcc`"
)
PTXAS_TIMEOUT_S = 120
CACHE_SIZE = 256


@dataclasses.dataclass(frozen=True)
class StackFrame:
    """A function's local memory: its stack frame and what ptxas spilled there."""

    stack_frame_bytes: int = 0
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0


@dataclasses.dataclass(frozen=True)
class KernelResources:
    """One entry function as ptxas assembled it for ``arch``.

    ``shared_bytes`` is the static shared memory (dynamic shared memory is chosen at
    launch); ``constant_bytes`` maps each constant bank to its bytes (bank 0 holds the
    parameters; ptxas prints no banks for sm_90). ``cumulative_stack_bytes``: the stack
    the kernel needs with the functions it calls.
    """

    name: str
    arch: str
    registers: int
    shared_bytes: int = 0
    barriers: int = 0
    stack_frame_bytes: int = 0
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0
    constant_bytes: dict[int, int] = dataclasses.field(default_factory=dict)
    cumulative_stack_bytes: int = 0

    @property
    def spills(self) -> bool:
        """Whether ptxas ran out of registers and moved values to local memory."""
        return bool(self.spill_store_bytes or self.spill_load_bytes)


@dataclasses.dataclass(frozen=True)
class PtxasReport:
    """Everything one ptxas run reported: entry kernels (in the order the PTX defines
    them), the functions they call (their stack frames), warnings, and the log."""

    arch: str
    kernels: dict[str, KernelResources]
    device_functions: dict[str, StackFrame]
    warnings: tuple[str, ...]
    log: str


_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPERTIES = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_ITEMS = {
    "barriers": re.compile(r"used (\d+) barriers?"),
    "shared_bytes": re.compile(r"(\d+) bytes smem"),
    "cumulative_stack_bytes": re.compile(r"(\d+) bytes cumulative stack size"),
}
_CMEM = re.compile(r"(\d+) bytes cmem\[(\d+)\]")
_ENTRY_DECLARATION = re.compile(r"\.entry\s+([\w$.]+)")
_TARGET = re.compile(r"^\s*\.target\s+(sm_\d+)", re.MULTILINE)


def parse_ptxas_log(log: str, arch: str) -> PtxasReport:
    """The :class:`PtxasReport` of a ``ptxas -v`` log (stdout and stderr together)."""
    frames: dict[str, StackFrame] = {}
    used: dict[str, str] = {}  # entry name -> its "Used N registers, ..." line
    entry = function = None
    warnings = []
    for line in log.splitlines():
        if line.startswith("ptxas warning"):
            warnings.append(line.partition(":")[2].strip())
        if match := _ENTRY.search(line):
            entry = function = match.group(1)
            frames.setdefault(entry, StackFrame())
        elif match := _PROPERTIES.search(line):
            function = match.group(1)
        elif (match := _FRAME.search(line)) and function is not None:
            frames[function] = StackFrame(*(int(g) for g in match.groups()))
        elif _USED.search(line) and entry is not None:
            used[entry] = line
    kernels = {name: _kernel(name, arch, line, frames[name]) for name, line in used.items()}
    functions = {name: frame for name, frame in frames.items() if name not in kernels}
    return PtxasReport(arch, kernels, functions, tuple(warnings), log)


def _kernel(name: str, arch: str, used: str, frame: StackFrame) -> KernelResources:
    counts = {key: int(m.group(1)) for key, rx in _ITEMS.items() if (m := rx.search(used))}
    banks = {int(bank): int(size) for size, bank in _CMEM.findall(used)}
    return KernelResources(
        name=name,
        arch=arch,
        registers=int(_USED.search(used).group(1)),
        constant_bytes=banks,
        **dataclasses.asdict(frame),
        **counts,
    )


def find_ptxas() -> str | None:
    """The path of ptxas: PATH, ``$CUDA_HOME/bin``, ``$CUDA_PATH/bin``, then the
    ``nvidia-cuda-nvcc`` wheel's bin folder; None when there is none.

        >>> find_ptxas() is None or os.path.basename(find_ptxas()).startswith("ptxas")
        True
    """
    found = shutil.which("ptxas")
    if found:
        return found
    folders = [Path(os.environ[v]) / "bin" for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    for root in _site_folders():
        folders += [root.joinpath(*parts) for parts in WHEEL_BIN_DIRS]
    for folder in folders:
        candidate = folder / "ptxas"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _site_folders() -> list[Path]:
    roots = [*site.getsitepackages(), site.getusersitepackages(), *sys.path]
    return [Path(r) for r in dict.fromkeys(roots) if r and Path(r).is_dir()]


def ptx_target(ptx: str) -> str | None:
    """The arch of PTX text's ``.target`` line (``sm_90a`` counts as ``sm_90``).

    >>> ptx_target(".version 7.8\\n.target sm_80\\n.address_size 64\\n")
    'sm_80'
    """
    match = _TARGET.search(ptx)
    return match.group(1) if match else None


_cache: OrderedDict[tuple[str, str, str], PtxasReport] = OrderedDict()


def clear_cache() -> None:
    """Forgets every cached ptxas result."""
    _cache.clear()


def ptxas_report(ptx: str, arch: str = "sm_90") -> PtxasReport:
    """Runs ``ptxas -v -arch=<arch>`` on ``ptx`` and parses what it reports (cached).

    Raises :class:`~ti_notebook.errors.TiRuntimeError` without ptxas or when ptxas rejects
    the PTX (the error carries its log as ``ptxas_log``), and
    :class:`~ti_notebook.errors.TiValueError` when the PTX targets a newer arch.

        >>> ptx = ".version 7.8\\n.target sm_80\\n.address_size 64\\n.visible .entry k() { ret; }"
        >>> find_ptxas() is None or ptxas_report(ptx, "sm_80").kernels["k"].registers >= 0
        True
    """
    arch = arch_name(arch)
    target = ptx_target(ptx)
    if target is not None and _number(target) > _number(arch):
        raise TiValueError(
            f"this PTX targets {target}; ptxas cannot assemble it for {arch}",
            hint=f"choose arch {target} or newer, or generate the PTX for {arch}",
        )
    ptxas = find_ptxas()
    if ptxas is None:
        raise TiRuntimeError("ptxas was not found", hint=INSTALL_HINT)
    key = (hashlib.sha256(ptx.encode()).hexdigest(), arch, ptxas)
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    report = parse_ptxas_log(_run(ptxas, ptx, arch), arch)
    # ptxas compiles (and logs) the entries last first: list them as the PTX has them
    order = {name: n for n, name in enumerate(_ENTRY_DECLARATION.findall(ptx))}
    kernels = sorted(report.kernels.items(), key=lambda item: order.get(item[0], len(order)))
    report = dataclasses.replace(report, kernels=dict(kernels))
    _cache[key] = report
    if len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    return report


def kernel_resources(ptx: str, arch: str = "sm_90", kernel: str | None = None) -> KernelResources:
    """The resources of one entry function of ``ptx`` (the only one when not named).

    >>> ptx = ".version 7.8\\n.target sm_80\\n.address_size 64\\n.visible .entry k() { ret; }"
    >>> find_ptxas() is None or kernel_resources(ptx, "sm_80").name == "k"
    True
    """
    kernels = ptxas_report(ptx, arch).kernels
    if kernel is None and len(kernels) == 1:
        return next(iter(kernels.values()))
    if kernel in kernels:
        return kernels[kernel]
    names = ", ".join(kernels) or "none"
    raise TiValueError(
        f"the PTX has no single entry function{'' if kernel is None else f' {kernel!r}'}"
        f" (its entries: {names})",
        hint="name one: kernel_resources(ptx, arch, kernel=...)",
    )


def _run(ptxas: str, ptx: str, arch: str) -> str:
    with tempfile.TemporaryDirectory(prefix="ti_notebook_ptxas_") as folder:
        source = Path(folder) / "kernel.ptx"
        source.write_text(ptx)
        command = [ptxas, "-v", f"-arch={arch}", str(source), "-o", str(Path(folder) / "k.cubin")]
        try:
            # ptxas prints its -v lines on both streams: read them as one, in order
            done = subprocess.run(
                command,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=PTXAS_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired as e:
            raise TiRuntimeError(
                f"ptxas took more than {PTXAS_TIMEOUT_S} s", hint="report the kernel"
            ) from e
    log = done.stdout.replace(str(source), "kernel.ptx")
    if done.returncode != 0:
        error = TiRuntimeError(f"ptxas rejected the PTX for {arch}:\n{log.strip()}")
        error.ptxas_log = log
        raise error
    return log


def _number(arch: str) -> int:
    return int(re.sub(r"\D", "", arch))
