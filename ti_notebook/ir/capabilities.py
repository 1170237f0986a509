"""What a target can do, as data: the passes and codegen decide from this record.

A backend (``compiler/backends/``) states its capabilities once; passes receive them as
their third argument (``run(kernel, options, capabilities)``), so a second backend
changes decisions - how many per-thread copies a scatter may make, whether streaming
stores exist - without any pass knowing which backend it runs for.

    >>> cpu = Capabilities(arch="cpu", threads=8, vector_width=32)
    >>> cpu.warp_size, cpu.shared_memory_per_block, "add" in cpu.native_atomics
    (1, 0, True)
    >>> gpu_like = dataclasses.replace(cpu, threads=65536, warp_size=32)
    >>> gpu_like.threads > cpu.threads, cpu.key()[:3]
    (True, ['cpu', 8, 32])
"""

from __future__ import annotations

import dataclasses

# The atomic read-modify-write operations every target in view (x86-64, NVPTX) does in
# one instruction on integers; floats may be emulated with compare-and-swap loops. A
# target with native float atomics lists them as "<op>_<type>" ("add_f32").
INTEGER_ATOMICS = frozenset({"add", "sub", "min", "max", "bit_and", "bit_or", "bit_xor"})


@dataclasses.dataclass(frozen=True)
class Capabilities:
    """One target's limits and features (read-only)."""

    arch: str  # the backend's name: "cpu"
    threads: int  # threads one task may run on at once (a loop's `parallelize` caps it)
    vector_width: int  # bytes of the widest SIMD register the code may use
    warp_size: int = 1  # threads that run in lockstep (1 on a CPU)
    shared_memory_per_block: int = 0  # bytes of on-chip memory a block shares (0: none)
    non_temporal_stores: bool = True  # stores that bypass the cache exist
    native_atomics: frozenset = INTEGER_ATOMICS  # atomic ops done in one instruction
    # each task is a kernel of its own, launched by the host (CUDA): values that cross
    # tasks go through the temporaries buffer (passes/spill_between_tasks.py), and the
    # code has no host-side interrupt polls or CPU timestamps
    tasks_are_kernels: bool = False
    # (op, bits) of the transcendental functions the CPU code may vectorise through a
    # vector math library (codegen/vector_math.py); empty: scalar calls only
    vector_math: frozenset = frozenset()

    def key(self) -> list:
        """The record as plain values in a fixed order (a set's order is not), for keys."""
        values = [getattr(self, f.name) for f in dataclasses.fields(self)]
        return [sorted(v) if isinstance(v, frozenset) else v for v in values]
