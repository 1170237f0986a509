"""How one warp's memory access maps onto the hardware: sectors, lines and bank conflicts.

A warp's access is 32 lane addresses (bytes), given as an affine pattern
``base + stride * lane`` or as an explicit list (fewer lanes: a partly active warp),
plus the element size.

**Global memory** moves 32-byte sectors; a 128-byte line holds four.
:func:`global_access` counts the distinct sectors and lines the warp's bytes fall in:
32 consecutive f32 (SoA) need 4 sectors, an f32 read from an AoS of xyz (stride 12 B)
needs 12, every other f32 (stride 8 B) needs 8.

**Shared memory** has 32 banks of 4-byte words; word ``w`` is in bank ``w % 32``. Lanes
that read different words of one bank are serialised; lanes that read the same word
share it (a broadcast, not a conflict). The degree of a conflict is the most distinct
words any bank must serve. Accesses wider than 4 bytes are served in phases of at most
128 bytes (8-byte elements: two half-warps, 16-byte: four quarter-warps), each phase on
its own, as the CUDA programming guide describes; ``wavefronts`` counts the passes.

    >>> global_access(stride=4).sectors, global_access(stride=12).sectors
    (4, 12)
    >>> tile = 32 * 4  # one row of a 32 x 32 f32 tile: reading a column strides by it
    >>> shared_access(stride=tile).degree, shared_access(stride=tile + 4).degree
    (32, 1)
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence

from ti_notebook.errors import TiValueError

from .devices import BANK_BYTES, CACHE_LINE_BYTES, SECTOR_BYTES, SHARED_BANKS, WARP_SIZE

__all__ = ["GlobalAccess", "SharedAccess", "global_access", "lane_addresses", "shared_access"]

ELEMENT_SIZES = (1, 2, 4, 8, 16)  # what one ld/st of a lane may move
PHASE_BYTES = 128  # shared memory serves 32 banks x 4 bytes per pass


def lane_addresses(base: int = 0, stride: int = 4, lanes: int = WARP_SIZE) -> tuple[int, ...]:
    """``base + stride * lane`` for each of ``lanes`` lanes.

    >>> lane_addresses(64, 12, lanes=4)
    (64, 76, 88, 100)
    """
    if not 1 <= lanes <= WARP_SIZE:
        raise TiValueError(f"a warp has 1 .. {WARP_SIZE} active lanes, not {lanes}")
    return tuple(base + stride * lane for lane in range(lanes))


@dataclasses.dataclass(frozen=True)
class GlobalAccess:
    """One warp's global-memory access: the sectors and lines its bytes fall in."""

    addresses: tuple[int, ...]
    element_bytes: int
    sectors: int
    lines: int
    bytes_used: int  # distinct bytes the lanes read or write

    @property
    def bytes_moved(self) -> int:
        """What the memory system transfers: whole sectors."""
        return self.sectors * SECTOR_BYTES

    @property
    def efficiency(self) -> float:
        """Bytes used / bytes moved: 1.0 for a fully coalesced access."""
        return self.bytes_used / self.bytes_moved

    @property
    def ideal_sectors(self) -> int:
        """The fewest sectors that could hold the bytes used (aligned and contiguous)."""
        return -(-self.bytes_used // SECTOR_BYTES)


@dataclasses.dataclass(frozen=True)
class SharedAccess:
    """One warp's shared-memory access: its bank-conflict degree and passes."""

    addresses: tuple[int, ...]
    element_bytes: int
    degree: int  # 1: conflict-free; n: some bank serves n distinct words in one phase
    wavefronts: int  # passes over the banks, all phases together
    phases: int

    @property
    def conflict_free(self) -> bool:
        return self.degree == 1


def global_access(
    addresses: Sequence[int] | None = None,
    *,
    base: int = 0,
    stride: int | None = None,
    element_bytes: int = 4,
    lanes: int = WARP_SIZE,
) -> GlobalAccess:
    """The sectors and 128-byte lines one warp's access touches.

    Give ``addresses`` (byte address per active lane), or ``base`` and ``stride``
    (bytes; default: ``element_bytes``, i.e. consecutive elements).

        >>> a = global_access(stride=8)  # every other f32
        >>> a.sectors, a.lines, a.efficiency
        (8, 2, 0.5)
        >>> global_access(base=16).sectors  # 128 bytes that start mid-sector
        5
    """
    lanes_bytes = _lane_bytes(addresses, base, stride, element_bytes, lanes)
    touched = {byte for first, last in lanes_bytes for byte in range(first, last)}
    return GlobalAccess(
        addresses=tuple(first for first, _ in lanes_bytes),
        element_bytes=element_bytes,
        sectors=len({b // SECTOR_BYTES for b in touched}),
        lines=len({b // CACHE_LINE_BYTES for b in touched}),
        bytes_used=len(touched),
    )


def shared_access(
    addresses: Sequence[int] | None = None,
    *,
    base: int = 0,
    stride: int | None = None,
    element_bytes: int = 4,
    lanes: int = WARP_SIZE,
) -> SharedAccess:
    """The bank-conflict degree of one warp's shared-memory access (arguments as for
    :func:`global_access`).

        >>> shared_access(stride=0).degree  # every lane reads one word: a broadcast
        1
        >>> shared_access(stride=8).degree  # every other f32: banks 0, 2, ... twice each
        2
        >>> s = shared_access(stride=8, element_bytes=8)  # consecutive f64: two phases
        >>> s.degree, s.phases, s.wavefronts
        (1, 2, 2)
    """
    lanes_bytes = _lane_bytes(addresses, base, stride, element_bytes, lanes)
    per_phase = max(1, PHASE_BYTES // element_bytes) if element_bytes > BANK_BYTES else WARP_SIZE
    degrees = []
    for start in range(0, len(lanes_bytes), per_phase):
        words_of_bank: dict[int, set[int]] = defaultdict(set)
        for first, last in lanes_bytes[start : start + per_phase]:
            for word in range(first // BANK_BYTES, (last - 1) // BANK_BYTES + 1):
                words_of_bank[word % SHARED_BANKS].add(word)
        degrees.append(max(len(words) for words in words_of_bank.values()))
    return SharedAccess(
        addresses=tuple(first for first, _ in lanes_bytes),
        element_bytes=element_bytes,
        degree=max(degrees),
        wavefronts=sum(degrees),
        phases=len(degrees),
    )


def _lane_bytes(addresses, base, stride, element_bytes, lanes) -> list[tuple[int, int]]:
    """Per active lane, the byte range ``[first, last)`` it reads or writes."""
    if element_bytes not in ELEMENT_SIZES:
        raise TiValueError(
            f"a lane moves 1, 2, 4, 8 or 16 bytes at once, not {element_bytes}",
            hint="split wider elements into several accesses",
        )
    if addresses is None:
        addresses = lane_addresses(base, element_bytes if stride is None else stride, lanes)
    elif stride is not None or base:
        raise TiValueError(
            "give either addresses or base and stride, not both",
            hint="global_access([0, 4, 8]) or global_access(base=0, stride=4)",
        )
    addresses = [int(a) for a in addresses]
    if not 1 <= len(addresses) <= WARP_SIZE:
        raise TiValueError(
            f"a warp has 1 .. {WARP_SIZE} lanes; {len(addresses)} addresses given",
            hint="give one byte address per active lane",
        )
    if min(addresses) < 0:
        raise TiValueError("byte addresses are >= 0", hint="use offsets from an aligned base")
    return [(a, a + element_bytes) for a in addresses]
