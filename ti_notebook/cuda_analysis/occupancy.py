"""Theoretical occupancy: how many blocks of a kernel one SM holds at once, and why.

A Python port of the formulas of the CUDA toolkit's ``cuda_occupancy.h``
(``cudaOccMaxActiveBlocksPerMultiprocessor``) for the archs of
:mod:`~ti_notebook.cuda_analysis.devices`. Each resource bounds the blocks per SM on its own:

- **warps**: a block takes ``ceil(threads / 32)`` warp slots of the SM's 48 or 64;
- **registers**: each warp gets ``registers x 32`` rounded up to 256 registers; the
  SM's 64 K registers are split evenly over its 4 sub-partitions, and a warp lives in
  one of them, so only whole warps per sub-partition count. A block must also fit the
  per-block limit with its warps rounded up to a multiple of 4 (the hardware's check);
- **shared memory**: the block's static plus dynamic bytes plus the 1 KB the driver
  reserves per block, rounded up to 128 bytes, out of the SM's carveout (the default
  takes the whole unified memory; a ``carveout`` percentage picks a smaller
  configuration, which grows again to the smallest one that fits one block);
- **blocks**: at most 16, 24 or 32 blocks per SM;
- **barriers** (sm_90): 2 named-barrier slots per block slot, ``barriers`` per block.

The smallest bound is the number of active blocks; ``limited_by`` names every resource
that reaches it (the header also names resources the barrier bound undercut; this port
names only the binding ones).

    >>> r = theoretical_occupancy("sm_90", block_size=256, registers=64)
    >>> r.active_blocks, r.active_warps, r.occupancy, r.limiting
    (4, 32, 0.5, 'registers')
    >>> r = theoretical_occupancy("sm_80", block_size=128, registers=32, shared_bytes=40_000)
    >>> print(r.explain())  # doctest: +NORMALIZE_WHITESPACE
    sm_80, 128 threads x 32 registers, 40000 B shared per block:
    4 blocks = 16 of 64 warps per SM (25%), limited by shared memory
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ti_notebook.errors import TiValueError

from .devices import DeviceLimits, device_limits

__all__ = ["RESOURCES", "Occupancy", "best_block_size", "theoretical_occupancy"]

# The order the header checks them in; ``limited_by`` lists ties in this order.
RESOURCES = ("warps", "registers", "shared memory", "blocks", "barriers")

REGISTER_GRANULARITY = 256  # registers are given to a warp in units of 256
SUB_PARTITIONS = 4  # an SM's register file is 4 quarters, one per warp scheduler
SHARED_GRANULARITY = 128  # bytes; from sm_80 on
MAX_NAMED_BARRIERS = 16  # PTX's bar.sync 0..15
# sm_90 has two named-barrier slots per block slot (cuda_occupancy.h applies the bound
# from compute capability 9.0 on)
BARRIER_SLOTS_PER_BLOCK = {9: 2}


@dataclasses.dataclass(frozen=True)
class Occupancy:
    """The occupancy of one launch configuration on one SM.

    ``block_limits`` holds, per resource of :data:`RESOURCES`, the blocks per SM that
    resource alone allows (None: it sets no bound, as ``INT_MAX`` in the header).
    ``registers_per_block`` and ``shared_bytes_per_block`` are what the SM allocates
    (after rounding; shared memory includes the driver's reserved bytes), and
    ``shared_bytes_per_sm`` the shared-memory configuration the SM runs with;
    ``shared_bytes_limit`` is the most a block may have (48 KB, or the opt-in maximum).
    """

    arch: str
    block_size: int
    registers: int
    shared_bytes: int
    dynamic_shared_bytes: int
    barriers: int
    active_blocks: int
    warps_per_block: int
    max_warps: int
    block_limits: dict[str, int | None]
    limited_by: tuple[str, ...]
    registers_per_block: int
    shared_bytes_per_block: int
    shared_bytes_per_sm: int
    shared_bytes_limit: int

    @property
    def active_warps(self) -> int:
        return self.active_blocks * self.warps_per_block

    @property
    def active_threads(self) -> int:
        return self.active_blocks * self.block_size

    @property
    def occupancy(self) -> float:
        """Active warps / the SM's maximum warps, 0 to 1."""
        return self.active_warps / self.max_warps

    @property
    def limiting(self) -> str:
        """The first resource of ``limited_by`` (the one a plot marks)."""
        return self.limited_by[0]

    @property
    def fits(self) -> bool:
        """Whether a block of this kernel can run on the device at all."""
        return self.active_blocks > 0

    def explain(self) -> str:
        """One line: the configuration, the result and what limits it."""
        shared = self.shared_bytes + self.dynamic_shared_bytes
        head = (
            f"{self.arch}, {self.block_size} threads x {self.registers} registers, "
            f"{shared} B shared per block: "
        )
        if not self.fits:
            return head + "cannot launch: " + "; ".join(self._why_not())
        return head + (
            f"{self.active_blocks} block{'s' * (self.active_blocks != 1)} = "
            f"{self.active_warps} of {self.max_warps} warps per SM "
            f"({self.occupancy:.0%}), limited by {', '.join(self.limited_by)}"
        )

    def _why_not(self) -> list[str]:
        device = device_limits(self.arch)
        per_warp = self.registers_per_block // self.warps_per_block
        checked_warps = _round_up(self.warps_per_block, SUB_PARTITIONS)
        opt_in = ""
        if self.shared_bytes_limit <= device.shared_bytes_per_block:
            opt_in = f" ({device.shared_bytes_per_block_optin} B with the opt-in)"
        reasons = {
            "warps": f"a block may have at most {device.max_threads_per_block} threads",
            "registers": (
                f"{per_warp * checked_warps} registers per block ({checked_warps} warps "
                f"of {per_warp}: the hardware counts warps in fours) exceed the "
                f"{device.registers_per_block} a block may use"
            ),
            "shared memory": (
                f"{self.shared_bytes + self.dynamic_shared_bytes} B of shared memory per "
                f"block exceed the {self.shared_bytes_limit} B a block may have{opt_in}"
            ),
        }
        return [reasons.get(name, name) for name in self.limited_by]


def theoretical_occupancy(
    arch: str | int | DeviceLimits = "sm_90",
    *,
    block_size: int,
    registers: int,
    shared_bytes: int = 0,
    dynamic_shared_bytes: int = 0,
    barriers: int = 1,
    carveout: int | None = None,
    shared_opt_in: bool = True,
) -> Occupancy:
    """The theoretical occupancy of a kernel launched with ``block_size`` threads.

    ``registers`` per thread, ``shared_bytes`` of static and ``dynamic_shared_bytes`` of
    dynamic shared memory per block and ``barriers`` (named barriers per block; the
    runtime assumes 1) come from ``ptxas -v`` (:mod:`~ti_notebook.cuda_analysis.ptxas`).
    ``carveout`` is the shared-memory preference in percent (None: the default, all of
    it). ``shared_opt_in``: the launcher raises the kernel's dynamic shared memory limit
    to what it uses (``cuFuncSetAttribute``), so a block may use up to the opt-in
    maximum; False keeps the 48 KB default.

        >>> theoretical_occupancy("sm_90", block_size=1024, registers=32).block_limits["warps"]
        2
        >>> theoretical_occupancy("sm_80", block_size=128, registers=16, shared_bytes=60_000).fits
        True
        >>> theoretical_occupancy("sm_80", block_size=128, registers=16, shared_bytes=60_000,
        ...           shared_opt_in=False).limited_by
        ('shared memory',)
    """
    device = device_limits(arch)
    _check(device, block_size, registers, shared_bytes, dynamic_shared_bytes, barriers, carveout)
    warps_per_block = -(-block_size // device.warp_size)
    by_registers, registers_per_block = _register_limit(device, registers, warps_per_block)
    by_shared, shared_per_block, shared_per_sm, shared_limit = _shared_memory_limit(
        device, shared_bytes, dynamic_shared_bytes, carveout, shared_opt_in
    )
    limits = {
        "warps": _warp_limit(device, block_size, warps_per_block),
        "registers": by_registers,
        "shared memory": by_shared,
        "blocks": device.max_blocks_per_sm,
        "barriers": _barrier_limit(device, barriers),
    }
    active = min(v for v in limits.values() if v is not None)
    return Occupancy(
        arch=device.arch,
        block_size=block_size,
        registers=registers,
        shared_bytes=shared_bytes,
        dynamic_shared_bytes=dynamic_shared_bytes,
        barriers=barriers,
        active_blocks=active,
        warps_per_block=warps_per_block,
        max_warps=device.max_warps_per_sm,
        block_limits=limits,
        limited_by=tuple(name for name in RESOURCES if limits[name] == active),
        registers_per_block=registers_per_block,
        shared_bytes_per_block=shared_per_block,
        shared_bytes_per_sm=shared_per_sm,
        shared_bytes_limit=shared_limit,
    )


def best_block_size(
    arch: str | int | DeviceLimits = "sm_90",
    *,
    registers: int,
    shared_bytes: int = 0,
    dynamic_shared_bytes: int | Callable[[int], int] = 0,
    barriers: int = 1,
    max_block_size: int | None = None,
    carveout: int | None = None,
    shared_opt_in: bool = True,
) -> tuple[int, int]:
    """``(block_size, min_grid_size)``: the block size with the most active threads per
    SM (the largest such, as ``cudaOccMaxPotentialOccupancyBlockSize`` picks), and the
    blocks that fill every SM with it. ``(0, 0)`` when no block size fits.

    ``dynamic_shared_bytes`` may be a function of the block size.

        >>> best_block_size("sm_90", registers=40)
        (768, 264)
    """
    device = device_limits(arch)
    limit = min(device.max_threads_per_block, max_block_size or device.max_threads_per_block)
    best = (0, 0)
    most_threads = 0
    for aligned in range(-(-limit // device.warp_size) * device.warp_size, 0, -device.warp_size):
        size = min(limit, aligned)
        dynamic = (
            dynamic_shared_bytes(size) if callable(dynamic_shared_bytes) else dynamic_shared_bytes
        )
        result = theoretical_occupancy(
            device,
            block_size=size,
            registers=registers,
            shared_bytes=shared_bytes,
            dynamic_shared_bytes=dynamic,
            barriers=barriers,
            carveout=carveout,
            shared_opt_in=shared_opt_in,
        )
        if result.active_threads > most_threads:
            best, most_threads = (
                (size, result.active_blocks * device.sm_count),
                result.active_threads,
            )
        if most_threads == device.max_threads_per_sm:  # cannot do better: stop early
            break
    return best


def _check(device, block_size, registers, shared, dynamic, barriers, carveout) -> None:
    if not isinstance(block_size, int) or block_size < 1:
        raise TiValueError(
            f"block_size {block_size!r} is not a positive number of threads",
            hint="use 32 .. 1024, a multiple of 32",
        )
    if not isinstance(registers, int) or not 0 <= registers <= device.max_registers_per_thread:
        raise TiValueError(
            f"{registers!r} registers per thread is not possible",
            hint=f"ptxas gives a thread 0 .. {device.max_registers_per_thread} registers",
        )
    for name, value in (("shared_bytes", shared), ("dynamic_shared_bytes", dynamic)):
        if not isinstance(value, int) or value < 0:
            raise TiValueError(f"{name}={value!r} is not a number of bytes", hint="use an int >= 0")
    if not isinstance(barriers, int) or not 0 <= barriers <= MAX_NAMED_BARRIERS:
        raise TiValueError(
            f"barriers={barriers!r}: a block has 0 .. {MAX_NAMED_BARRIERS} named barriers",
            hint="pass the count ptxas -v reports ('used N barriers')",
        )
    if carveout is not None and not (isinstance(carveout, int) and 0 <= carveout <= 100):
        raise TiValueError(
            f"carveout={carveout!r} is not a percentage", hint="use None (the default) or 0 .. 100"
        )


def _warp_limit(device: DeviceLimits, block_size: int, warps_per_block: int) -> int:
    if block_size > device.max_threads_per_block:
        return 0
    return device.max_warps_per_sm // warps_per_block


def _register_limit(
    device: DeviceLimits, registers: int, warps_per_block: int
) -> tuple[int | None, int]:
    """(blocks per SM, registers allocated per block)."""
    per_warp = _round_up(registers * device.warp_size, REGISTER_GRANULARITY)
    per_block = per_warp * warps_per_block
    # the hardware checks the per-block limit as if the block's warps were spread over
    # all 4 sub-partitions: its warp count rounded up to a multiple of 4
    as_checked = per_warp * _round_up(warps_per_block, SUB_PARTITIONS)
    if max(as_checked, per_block) > device.registers_per_block:
        return 0, per_block
    if per_warp == 0:
        return None, per_block
    warps_per_quarter = (device.registers_per_sm // SUB_PARTITIONS) // per_warp
    return (warps_per_quarter * SUB_PARTITIONS) // warps_per_block, per_block


def _shared_memory_limit(
    device: DeviceLimits, static: int, dynamic: int, carveout: int | None, opt_in: bool
) -> tuple[int | None, int, int, int]:
    """(blocks per SM, bytes allocated per block, the SM's shared-memory configuration,
    the most a block may have)."""
    reserved = device.reserved_shared_bytes_per_block
    per_block = _round_up(static + reserved + dynamic, SHARED_GRANULARITY)
    block_cap = device.shared_bytes_per_block
    if opt_in and static + reserved + dynamic > device.shared_bytes_per_block:
        block_cap = device.shared_bytes_per_block_optin
    preferred = _carveout_bytes(device, carveout)
    if per_block > block_cap + reserved:
        return 0, per_block, preferred, block_cap
    # a preference too small for one block is overridden: the SM takes the smallest
    # configuration that holds one
    per_sm = preferred if preferred >= per_block else _configuration_for(device, per_block)
    if per_block == 0:
        return None, per_block, per_sm, block_cap
    return per_sm // per_block, per_block, per_sm, block_cap


def _barrier_limit(device: DeviceLimits, barriers: int) -> int | None:
    slots = BARRIER_SLOTS_PER_BLOCK.get(device.compute_capability[0])
    if slots is None or barriers == 0:
        return None
    return device.max_blocks_per_sm * slots // barriers


def _carveout_bytes(device: DeviceLimits, carveout: int | None) -> int:
    if carveout is None:
        return _configuration_for(device, device.shared_bytes_per_sm)
    return _configuration_for(device, carveout * device.shared_bytes_per_sm // 100)


def _configuration_for(device: DeviceLimits, size: int) -> int:
    """The smallest shared-memory configuration of the SM that holds ``size`` bytes."""
    for kb in device.shared_configs_kb:
        if size <= kb * 1024:
            return kb * 1024
    raise TiValueError(
        f"{size} B of shared memory is more than any configuration of {device.arch} holds",
        hint=f"the largest is {device.shared_configs_kb[-1]} KB",
    )


def _round_up(value: int, granularity: int) -> int:
    return -(-value // granularity) * granularity
